//! [`FmuStates`]: the FMU state saved, restored and serialized.

use super::{unsupported, Common};
use crate::error::Result;
use crate::instance::FmuState;

/// Getting and setting the complete FMU state (the capability `canGetAndSetFMUState`) and
/// serializing it (`canSerializeFMUState`, optional: by default unsupported).
pub trait FmuStates: Common {
    /// Saves the FMU state.
    fn get_fmu_state(&mut self) -> Result<FmuState>;
    /// Restores a state saved by this instance.
    fn set_fmu_state(&mut self, state: &FmuState) -> Result<()>;
    /// Frees a state saved by this instance.
    fn free_fmu_state(&mut self, state: FmuState) -> Result<()>;
    /// Serializes a state saved by this instance. By default unsupported
    /// (`SerializeFMUState`).
    fn serialize_fmu_state(&mut self, _state: &FmuState) -> Result<Vec<u8>> {
        Err(unsupported(self.name(), "SerializeFMUState"))
    }
    /// Creates a state from bytes made by [`FmuStates::serialize_fmu_state`]. By default
    /// unsupported (`DeserializeFMUState`).
    fn deserialize_fmu_state(&mut self, _bytes: &[u8]) -> Result<FmuState> {
        Err(unsupported(self.name(), "DeserializeFMUState"))
    }
}
