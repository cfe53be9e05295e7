//! The operations of an FMU instance, one trait per FMI interface or capability, in the
//! grouping of the standard's function lists:
//!
//! - [`Common`]: what every instance offers, whatever its interface (identity, the modes
//!   around a run, variable access, and the event-mode calls FMI 3.0 shares between Model
//!   Exchange, Co-Simulation with event mode and Scheduled Execution);
//! - [`ModelExchangeInstance`]: time, continuous states, derivatives and event indicators
//!   set and read by an integrator outside the FMU;
//! - [`CoSimulationInstance`]: the step the FMU takes itself;
//! - [`FmuStates`]: saving, restoring and serializing the FMU state;
//! - [`PartialDerivatives`]: directional and adjoint derivatives, and the adjoint
//!   extension's second-order product and step derivatives.
//!
//! [`FmuInstance`] is all of them together, implemented for every type that implements
//! them, so that `Box<dyn FmuInstance>` and `&mut dyn FmuInstance` offer every method
//! without further imports. A call on a concrete instance type needs the trait that holds
//! the method in scope: [`super::prelude`] brings them all.
//!
//! An instance that does not offer a call the standard makes optional, or one of another
//! interface, leaves it out and gets the default: an [`Error::Unsupported`] naming the FMI
//! function (without the `fmi2`/`fmi3` prefix when both standards have it), or zero for a
//! count.

mod co_simulation;
mod common;
mod fmu_states;
mod model_exchange;
mod partial_derivatives;

pub use co_simulation::CoSimulationInstance;
pub use common::Common;
pub use fmu_states::FmuStates;
pub use model_exchange::ModelExchangeInstance;
pub use partial_derivatives::PartialDerivatives;

use crate::error::Error;

/// The operations of an FMU instance: every interface trait together. Methods take
/// `&mut self` because the standard forbids concurrent calls on one instance; instances are
/// `Send`, so different instances can step on different threads.
///
/// Implemented for every `Send` type that implements all of [`Common`],
/// [`ModelExchangeInstance`], [`CoSimulationInstance`], [`FmuStates`] and
/// [`PartialDerivatives`]; implement those, not this.
pub trait FmuInstance:
    Common + ModelExchangeInstance + CoSimulationInstance + FmuStates + PartialDerivatives + Send
{
}

impl<T> FmuInstance for T where
    T: Common
        + ModelExchangeInstance
        + CoSimulationInstance
        + FmuStates
        + PartialDerivatives
        + Send
        + ?Sized
{
}

/// The error of a default method: the instance `instance` does not offer `function`.
fn unsupported(instance: &str, function: &'static str) -> Error {
    Error::Unsupported {
        instance: instance.to_string(),
        function,
    }
}
