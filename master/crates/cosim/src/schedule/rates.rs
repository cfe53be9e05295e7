//! The time derivatives of a Model Exchange participant's observed values at a communication
//! point, which an implicit coupling's Hermite waveform iterates with the values:
//! `dy/dt = dy/dx der(x) + dy/du du/dt`, one directional derivative of the observed outputs
//! (`fmi2GetDirectionalDerivative`, `fmi3GetDirectionalDerivative`) with the states and the
//! connected continuous inputs as knowns, seeded with the state derivatives and the inputs'
//! rates. An observed state's rate is its derivative itself. Outputs that depend on time
//! explicitly are not the coupled mechanical and thermal models this is for: their `dy/dt`
//! term is missing, which is why only values the master integrates are given rates.

use super::directional_product::DirectionalProduct;
use super::feedthrough::InputKnowns;
use crate::error::Result;
use crate::system::{Port, System};
use fmi_host::instance::FmuInstance;
use fmi_host::model_description::{Causality, InterfaceType, VariableType};

/// How the rate of one observed slot is found.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// The directional derivative of this unknown.
    Output(usize),
    /// The derivative of this state.
    State(usize),
    /// None: not a scalar Float64 output or state.
    Unknown,
}

/// The time derivatives of one participant's observed values.
pub struct Rates {
    /// Of the observed scalar Float64 outputs (the unknowns) by the states, then the
    /// connected continuous inputs (the knowns); its sensitivity is the outputs' rates.
    product: DirectionalProduct,
    states: usize,
    inputs: InputKnowns,
    slots: Vec<Slot>,
    /// The state derivatives of the latest call (kept for their capacity).
    derivatives: Vec<f64>,
}

impl Rates {
    /// The rates of component `index` of `system`, instantiated as `interface` and observed at
    /// `observed`; `None` unless it is a Model Exchange FMU with directional derivatives, and
    /// its states and connected continuous inputs are scalars (array elements are not
    /// addressed by value reference alone).
    pub fn new(
        system: &System,
        index: usize,
        interface: InterfaceType,
        observed: &[Port],
    ) -> Option<Self> {
        let md = system.components[index].fmu.model_description();
        let me = md.model_exchange.as_ref()?;
        if interface != InterfaceType::ModelExchange
            || !me.capabilities.provides_directional_derivatives
        {
            return None;
        }
        let mut knowns = Vec::new();
        for state in md.states() {
            let variable = &md.variables[state?];
            if !variable.dimensions.is_empty() {
                return None;
            }
            knowns.push(variable.value_reference);
        }
        let states = knowns.len();
        let inputs = InputKnowns::new(system, index, &mut knowns)?;
        let mut unknowns = Vec::new();
        let slots = observed
            .iter()
            .map(|port| {
                let variable = port.variable(&system.components);
                let scalar = variable.ty == VariableType::Float64 && port.element.is_none();
                if !scalar {
                    return Slot::Unknown;
                }
                if let Some(state) = knowns[..states]
                    .iter()
                    .position(|&r| r == variable.value_reference)
                {
                    return Slot::State(state);
                }
                if variable.causality != Causality::Output {
                    return Slot::Unknown;
                }
                unknowns.push(variable.value_reference);
                Slot::Output(unknowns.len() - 1)
            })
            .collect();
        Some(Rates {
            derivatives: vec![0.0; states],
            product: DirectionalProduct::new(knowns, unknowns),
            states,
            inputs,
            slots,
        })
    }

    /// Whether observed slot `slot` gets a rate.
    pub fn gives(&self, slot: usize) -> bool {
        !matches!(self.slots[slot], Slot::Unknown)
    }

    /// Into `rates` (by observed slot; NaN where none), the time derivatives of the observed
    /// values at the instance's current point, its connected inputs changing at `inputs` (in
    /// connection order).
    pub fn compute(
        &mut self,
        instance: &mut dyn FmuInstance,
        inputs: &[f64],
        rates: &mut [f64],
    ) -> Result<()> {
        instance.get_derivatives(&mut self.derivatives)?;
        let product = &mut self.product;
        product.seed[..self.states].copy_from_slice(&self.derivatives);
        self.inputs.scatter(inputs, &mut product.seed);
        product.compute(instance)?;
        for (rate, slot) in rates.iter_mut().zip(&self.slots) {
            *rate = match *slot {
                Slot::Output(u) => product.sensitivity[u],
                Slot::State(s) => self.derivatives[s],
                Slot::Unknown => f64::NAN,
            };
        }
        Ok(())
    }
}
