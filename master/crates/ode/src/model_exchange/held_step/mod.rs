//! [`HeldInputStep`]: a Model Exchange FMU under the master's solver (the component's: auto,
//! Dormand–Prince or ESDIRK), presented as a Co-Simulation instance whose step holds the inputs
//! set before it (a zero-order hold).
//!
//! Gradient runs integrate Model Exchange components through it, so that every part of the
//! gradient machinery that works with co-simulation steps (FMU states at macro points,
//! re-runs of checkpoint segments, step VJPs) works with them too: its FMU state carries the
//! solver's state with the FMU's, and its step derivatives come from the FMU's partial
//! derivatives through the solver's discrete tangent and adjoint ([`derivatives`]). With a
//! zero-order hold it computes exactly what a co-simulation participant integrating the same
//! FMU computes: the same solver, fed the same (constant) inputs, from the same step sizes.

mod derivatives;
mod instance;

use std::sync::atomic::{AtomicUsize, Ordering};

use super::partials::Partials;
use super::stepper::{MeStepper, Reached, StepperSnapshot};
use crate::error::{Error, Result};
use crate::solver::{Auto, Method};
use fmi_host::instance::{seed_references, seed_variables, DerivativeLayout, Seed};
use fmi_host::instance::{FmuInstance, FmuState, StepOutcome};
use fmi_host::model_description::{
    Causality, FmiVersion, ModelDescription, Shapes, Variability, Variable, VariableType,
};

/// Identities of the instances, for their FMU state handles.
static NEXT_OWNER: AtomicUsize = AtomicUsize::new(1);

/// A saved point of the integration.
struct Saved {
    fmu: FmuState,
    stepper: StepperSnapshot,
}

/// A Model Exchange instance integrated over co-simulation steps with held inputs.
pub struct HeldInputStep {
    stepper: MeStepper<Box<dyn FmuInstance>, Auto>,
    name: String,
    fmi_version: FmiVersion,
    start_time: f64,
    partials: Partials,
    layout: DerivativeLayout,
    /// The saved points, by handle (a freed one is `None`).
    saved: Vec<Option<Saved>>,
    owner: usize,
}

impl HeldInputStep {
    /// Why the Model Exchange FMU described by `md` cannot be integrated with sensitivities,
    /// if it cannot.
    pub fn obstacle(md: &ModelDescription) -> Option<String> {
        let Some(me) = md.model_exchange.as_ref() else {
            return Some("the FMU has no Model Exchange interface".into());
        };
        if !me.capabilities.provides_directional_derivatives {
            return Some("its FMU provides no directional derivatives".into());
        }
        if !me.capabilities.can_get_and_set_fmu_state {
            return Some("its FMU cannot get and set its state".into());
        }
        if md.number_of_event_indicators() > 0 {
            return Some(
                "its FMU has event indicators: sensitivities across state events need the \
                 event's reset map, which FMI does not differentiate"
                    .into(),
            );
        }
        if md.states().iter().any(Option::is_none) {
            return Some("a continuous state of its FMU does not resolve to a variable".into());
        }
        None
    }

    /// Wraps the Model Exchange `instance` of the FMU whose variables have `shapes` (its
    /// model description with the structural parameters the instance was given), for which
    /// [`Self::obstacle`] found nothing, integrated by `method` with `tolerance`.
    pub fn new(
        instance: Box<dyn FmuInstance>,
        shapes: &Shapes,
        method: Method,
        tolerance: f64,
    ) -> Self {
        let md = shapes.model_description();
        let states = instance.number_of_continuous_states();
        let instance_name = instance.name().to_string();
        let solver = Auto::with_method(states, method);
        let reference = |index: usize| md.variables[index].value_reference;
        let derivative_references: Vec<u32> = md
            .model_structure
            .derivatives
            .iter()
            .filter_map(|unknown| md.resolve(unknown.reference))
            .map(reference)
            .collect();
        let layout = layout(shapes);
        let state_knowns = md.states().into_iter().flatten().map(|index| {
            let state = &md.variables[index];
            (state.value_reference, shapes.count(state).unwrap_or(1))
        });
        let knowns = state_knowns
            .chain(seed_variables(&layout.inputs))
            .chain(seed_variables(&layout.parameters))
            .collect();
        let adjoint = md
            .model_exchange
            .as_ref()
            .is_some_and(|me| me.capabilities.provides_adjoint_derivatives);
        HeldInputStep {
            name: instance_name,
            fmi_version: instance.fmi_version(),
            stepper: MeStepper::new(instance, md, tolerance, solver),
            start_time: 0.0,
            partials: Partials::new(
                derivative_references,
                seed_references(&layout.outputs),
                knowns,
                adjoint,
            ),
            layout,
            saved: Vec::new(),
            owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Integrates from `time` to `time + step` with the inputs as they are set.
    fn advance(&mut self, time: f64, step: f64) -> Result<StepOutcome> {
        let here = self.stepper.time();
        if (time - here).abs() > 1e-9 * here.abs().max(1.0) {
            return Err(Error::Simulation {
                time,
                message: format!(
                    "instance {}: a step from t = {time} was asked of an integration at t = {here}",
                    self.name
                ),
            });
        }
        let reached = self.stepper.advance_to(time + step, &mut hold)?;
        Ok(match reached {
            Reached::Target => StepOutcome {
                terminate: false,
                partial: false,
                last_time: self.stepper.time(),
                event_handling_needed: false,
            },
            Reached::Terminated(at) => StepOutcome {
                terminate: true,
                partial: true,
                last_time: at,
                event_handling_needed: false,
            },
        })
    }

    /// The FMU.
    fn fmu_instance(&mut self) -> &mut dyn FmuInstance {
        self.stepper.instance()
    }

    /// Saves the FMU's state and the solver's.
    fn save(&mut self) -> Result<Saved> {
        Ok(Saved {
            fmu: self.stepper.instance().get_fmu_state()?,
            stepper: self.stepper.snapshot(),
        })
    }

    /// Goes back to `saved`.
    fn restore(&mut self, saved: &Saved) -> Result<()> {
        self.stepper.instance().set_fmu_state(&saved.fmu)?;
        self.stepper.restore(&saved.stepper);
        Ok(())
    }

    /// The slot of the saved point behind `state`.
    fn slot_of(&self, state: &FmuState) -> Result<usize> {
        (state.as_raw() as usize)
            .checked_sub(1)
            .filter(|&i| self.saved.get(i).is_some_and(Option::is_some))
            .ok_or_else(|| Error::InvalidValue {
                item: format!("FMU state of instance {}", self.name),
                message: "the state was freed or belongs to another instance".into(),
            })
    }
}

/// The inputs of a held step: as the master set them before the step (the FMU keeps them).
fn hold(_: &mut dyn FmuInstance, _: f64, _: bool) -> Result<()> {
    Ok(())
}

/// The seeds of the step derivatives: continuous Float64 inputs and outputs, and the Float64
/// parameters the initial states do not depend on (the others are excluded with the reason);
/// an array has an entry per element.
fn layout(shapes: &Shapes) -> DerivativeLayout {
    let md = shapes.model_description();
    let float = |causality: Causality| {
        md.variables
            .iter()
            .enumerate()
            .filter(move |(_, v)| v.causality == causality && v.ty == VariableType::Float64)
    };
    // A variable whose shape cannot be had was refused when the system was loaded.
    let seeds = |variable: &Variable| {
        let count = (!variable.is_scalar()).then(|| shapes.count(variable).unwrap_or(0));
        Seed::of_variable(variable.value_reference, count)
    };
    let continuous = |causality| {
        float(causality)
            .filter(|(_, v)| v.variability == Variability::Continuous)
            .flat_map(|(_, v)| seeds(v))
            .collect()
    };
    let states: Vec<usize> = md.states().into_iter().flatten().collect();
    // Per state that initialization computes, the variables it depends on (None: all).
    let state_dependencies: Vec<Option<Vec<usize>>> = md
        .model_structure
        .initial_unknowns
        .iter()
        .filter(|unknown| {
            md.resolve(unknown.reference)
                .is_some_and(|u| states.contains(&u))
        })
        .map(|unknown| {
            unknown
                .dependencies
                .as_ref()
                .map(|d| d.iter().filter_map(|&d| md.resolve(d)).collect())
        })
        .collect();
    let mut layout = DerivativeLayout {
        inputs: continuous(Causality::Input),
        outputs: continuous(Causality::Output),
        ..DerivativeLayout::default()
    };
    for (index, parameter) in float(Causality::Parameter) {
        let moves_a_start = state_dependencies
            .iter()
            .any(|dependencies| dependencies.as_ref().is_none_or(|d| d.contains(&index)));
        if moves_a_start {
            layout.excluded.push((
                parameter.value_reference,
                format!(
                    "the initial states of its Model Exchange FMU depend on {}, and FMI \
                     differentiates initialization only inside initialization mode",
                    parameter.name
                ),
            ));
        } else {
            layout.parameters.extend(seeds(parameter));
        }
    }
    layout
}
