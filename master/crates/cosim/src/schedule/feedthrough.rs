//! The direct feedthrough of one participant at a communication point: the derivatives of the
//! variables it is observed by with respect to its connected inputs, from its FMU's directional
//! derivatives (`fmi2GetDirectionalDerivative`, `fmi3GetDirectionalDerivative`). The solver of
//! algebraic loops ([`super::algebraic_loops`]) chains them into the Jacobian of a pass.

use super::directional_product::DirectionalProduct;
use crate::error::Result;
use crate::system::{Component, Port, System};
use fmi_host::instance::FmuInstance;
use fmi_host::model_description::{Causality, InterfaceType, Variability, VariableType};

/// The directional derivatives of a participant's observed variables by its inputs.
pub struct Feedthrough {
    /// Of the Float64 observed variables (the unknowns) by the continuous Float64 inputs
    /// (the knowns).
    product: DirectionalProduct,
    inputs: InputKnowns,
    /// Per observed slot, its index among the unknowns (`None`: no tangent reaches it).
    unknown_of_slot: Vec<Option<usize>>,
}

impl Feedthrough {
    /// The feedthrough of `component` (index `index` of `system`), instantiated as
    /// `interface`, observed at `observed`; `None` when its FMU gives no directional derivatives
    /// for that interface, or an array element is among its connected inputs or observed
    /// floats (the derivatives are taken by value reference, one per scalar).
    pub fn new(
        system: &System,
        index: usize,
        interface: InterfaceType,
        observed: &[Port],
    ) -> Option<Self> {
        let component: &Component = &system.components[index];
        let md = component.fmu.model_description();
        let capabilities = match interface {
            InterfaceType::CoSimulation => &md.co_simulation.as_ref()?.capabilities,
            InterfaceType::ModelExchange => &md.model_exchange.as_ref()?.capabilities,
            InterfaceType::ScheduledExecution => return None,
        };
        if !capabilities.provides_directional_derivatives {
            return None;
        }
        let mut knowns = Vec::new();
        let inputs = InputKnowns::new(system, index, &mut knowns)?;
        let mut unknowns = Vec::new();
        let mut unknown_of_slot = Vec::new();
        for port in observed {
            let variable = port.variable(&system.components);
            let scalar_output = variable.causality == Causality::Output
                && variable.ty == VariableType::Float64
                && port.element.is_none();
            if scalar_output {
                unknown_of_slot.push(Some(unknowns.len()));
                unknowns.push(variable.value_reference);
                continue;
            }
            // FMI differentiates outputs (and state derivatives) only. A variable recorded but
            // feeding no connection carries no tangent of a pass; one feeding a connection
            // leaves the Jacobian to differences.
            if variable.ty.is_float() && system.connections.iter().any(|c| c.from == *port) {
                return None;
            }
            unknown_of_slot.push(None);
        }
        Some(Feedthrough {
            product: DirectionalProduct::new(knowns, unknowns),
            inputs,
            unknown_of_slot,
        })
    }

    /// The tangents of the observed variables (`observed`, by slot) that the tangents of the
    /// connected inputs (`inputs`, in connection order) cause, at the instance's current point.
    pub fn jvp(
        &mut self,
        instance: &mut dyn FmuInstance,
        inputs: &[f64],
        observed: &mut [f64],
    ) -> Result<()> {
        let product = &mut self.product;
        product.seed.fill(0.0);
        self.inputs.scatter(inputs, &mut product.seed);
        if product.seed.iter().all(|&s| s == 0.0) {
            product.sensitivity.fill(0.0);
        } else {
            product.compute(instance)?;
        }
        for (slot, unknown) in observed.iter_mut().zip(&self.unknown_of_slot) {
            *slot = unknown.map_or(0.0, |u| product.sensitivity[u]);
        }
        Ok(())
    }
}

/// A component's connected continuous Float64 inputs as knowns of its directional derivatives.
pub(super) struct InputKnowns {
    /// Per connected input, its index among the knowns (`None`: a discrete input, which no
    /// tangent reaches).
    of_input: Vec<Option<usize>>,
}

impl InputKnowns {
    /// Appends to `knowns` the value references of the connected continuous Float64 inputs of
    /// component `index` of `system`; `None` when one of them is an array element (the
    /// derivatives are taken by value reference, one per scalar).
    pub fn new(system: &System, index: usize, knowns: &mut Vec<u32>) -> Option<Self> {
        let mut of_input = Vec::new();
        for connection in super::participant::connections_into(system, index) {
            let variable = connection.to.variable(&system.components);
            let continuous = variable.ty == VariableType::Float64
                && variable.variability == Variability::Continuous;
            if !continuous {
                of_input.push(None);
                continue;
            }
            if connection.to.element.is_some() {
                return None;
            }
            of_input.push(Some(knowns.len()));
            knowns.push(variable.value_reference);
        }
        Some(InputKnowns { of_input })
    }

    /// Writes the tangents of the connected inputs (`inputs`, in connection order) into their
    /// places in `seed`.
    pub fn scatter(&self, inputs: &[f64], seed: &mut [f64]) {
        for (known, &tangent) in self.of_input.iter().zip(inputs) {
            if let Some(known) = known {
                seed[*known] = tangent;
            }
        }
    }
}
