//! FMI 2.0 FMU state: get, set, free, serialize, deserialize.

use crate::ffi::fmu_state::{self, fmu_state_functions};
use crate::fmi2::types::*;
use crate::system::System;

fmu_state_functions! {
    Fmi2(Fmi2Component, Fmi2FmuState, Fmi2Byte) -> Fmi2Status;
    get_fmu_state = "fmi2GetFMUstate";
    set_fmu_state = "fmi2SetFMUstate";
    free_fmu_state = "fmi2FreeFMUstate";
    serialized_fmu_state_size = "fmi2SerializedFMUstateSize";
    serialize_fmu_state = "fmi2SerializeFMUstate";
    deserialize_fmu_state = "fmi2DeSerializeFMUstate";
}
