//! [`Common`]: the calls every FMU instance offers, whatever its interface.

use super::unsupported;
use crate::error::Result;
use crate::instance::EventUpdate;
use crate::model_description::{FmiVersion, InterfaceType, Values, VariableType};

/// The calls of every interface: the instance's identity, the modes around a simulation run,
/// variable access, and the event mode.
///
/// The event-mode calls ([`Common::enter_event_mode`], [`Common::update_discrete_states`])
/// are here rather than in [`super::ModelExchangeInstance`] because FMI 3.0 lists them
/// among its common functions: Co-Simulation with event mode and Scheduled Execution use them
/// as Model Exchange does. In FMI 2.0 only Model Exchange has them, so an instance without
/// them (a co-simulation step without event mode) may leave them out and gets their
/// unsupported defaults.
pub trait Common {
    /// The instance name.
    fn name(&self) -> &str;
    /// FMI version of the binary.
    fn fmi_version(&self) -> FmiVersion;
    /// The interface this instance was created for.
    fn interface(&self) -> InterfaceType;

    /// Enters initialization mode (FMI 2.0: after fmi2SetupExperiment).
    fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<()>;
    /// Leaves initialization mode.
    fn exit_initialization_mode(&mut self) -> Result<()>;
    /// Terminates the simulation run.
    fn terminate(&mut self) -> Result<()>;
    /// Resets the instance to the state after instantiation. By default unsupported
    /// (`Reset`).
    fn reset(&mut self) -> Result<()> {
        Err(unsupported(self.name(), "Reset"))
    }

    /// Reads Float64 (FMI 2.0 Real) variables.
    fn get_real(&mut self, references: &[u32], values: &mut [f64]) -> Result<()>;
    /// Writes Float64 (FMI 2.0 Real) variables.
    fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<()>;
    /// Reads Int32 (FMI 2.0 Integer) variables.
    fn get_integer(&mut self, references: &[u32], values: &mut [i32]) -> Result<()>;
    /// Writes Int32 (FMI 2.0 Integer) variables.
    fn set_integer(&mut self, references: &[u32], values: &[i32]) -> Result<()>;
    /// Reads Boolean variables.
    fn get_boolean(&mut self, references: &[u32], values: &mut [bool]) -> Result<()>;
    /// Writes Boolean variables.
    fn set_boolean(&mut self, references: &[u32], values: &[bool]) -> Result<()>;
    /// Reads String variables.
    fn get_string(&mut self, references: &[u32]) -> Result<Vec<String>>;
    /// Writes String variables.
    fn set_string(&mut self, references: &[u32], values: &[String]) -> Result<()>;
    /// Reads scalar variables of any type `ty` of this FMI version, widened to [`Values`].
    fn get_values(&mut self, ty: VariableType, references: &[u32]) -> Result<Values>;
    /// Writes scalar variables of type `ty`; values out of the type's range are an error.
    fn set_values(&mut self, ty: VariableType, references: &[u32], values: &Values) -> Result<()>;
    /// Reads the `count` elements of the variables `references` of type `ty`: an FMI 3.0
    /// array gives all its elements for its one value reference, in row-major order. Without
    /// arrays (FMI 2.0) `count` is the number of references.
    fn get_elements(
        &mut self,
        ty: VariableType,
        references: &[u32],
        count: usize,
    ) -> Result<Values> {
        if count != references.len() {
            return Err(crate::Error::InvalidValue {
                item: format!("instance {}", self.name()),
                message: "array variables need FMI 3.0".to_string(),
            });
        }
        self.get_values(ty, references)
    }

    /// FMI 3.0: enters Configuration Mode, where structural parameters may be set (after
    /// instantiation, before Initialization Mode).
    fn enter_configuration_mode(&mut self) -> Result<()> {
        Err(unsupported(self.name(), "fmi3EnterConfigurationMode"))
    }

    /// FMI 3.0: leaves Configuration Mode; the sizes of arrays, the number of continuous
    /// states and of event indicators may have changed with the structural parameters.
    fn exit_configuration_mode(&mut self) -> Result<()> {
        Err(unsupported(self.name(), "fmi3ExitConfigurationMode"))
    }

    /// Model Exchange (and FMI 3.0 CS with event mode): enters event mode. By default
    /// unsupported (`EnterEventMode`).
    fn enter_event_mode(&mut self) -> Result<()> {
        Err(unsupported(self.name(), "EnterEventMode"))
    }
    /// One pass of the event iteration. By default unsupported (`UpdateDiscreteStates`).
    fn update_discrete_states(&mut self) -> Result<EventUpdate> {
        Err(unsupported(self.name(), "UpdateDiscreteStates"))
    }
}
