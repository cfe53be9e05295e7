//! The export macro: one call in a model crate exports every FMI 2.0 and FMI 3.0 function.
//!
//! ```text
//! fmu_export::export_fmu!(fmu_export::MechanicalSystem<Oscillator>);
//! ```
//!
//! The FMI 3.0 binary also exports the adjoint extension's `tandem*` functions
//! (docs/adjoint-extension.md).
//!
//! Each exported `extern "C"` function delegates to the generic implementation in
//! [`crate::fmi2`] or [`crate::fmi3`] inside [`crate::ffi::guard()`], so that a panic becomes
//! an Error status (NULL for the instantiate functions) with a log message, and the instance
//! is marked failed.

/// Exports the FMI 2.0 and FMI 3.0 C ABI of the [`crate::System`] given as argument
/// (`OdeSystem<M>` or `MechanicalSystem<M>`). Use it once per model crate (crate-type
/// `cdylib`).
#[macro_export]
macro_rules! export_fmu {
    ($system:ty) => {
        const _: () = {
            use $crate::fmi2::types::*;
            use $crate::fmi3::types::*;
            use ::std::ffi::c_char;

            $crate::__export_functions! { $system, Fmi2, fmi2;
                fmi2GetTypesPlatform() -> *const c_char = get_types_platform @ ::std::ptr::null_mut(), $crate::abi::fmi2::GetText;
                fmi2GetVersion() -> *const c_char = get_version @ ::std::ptr::null_mut(), $crate::abi::fmi2::GetText;
                fmi2SetDebugLogging(c: Fmi2Component, logging_on: Fmi2Boolean, n: usize, categories: *const Fmi2String) -> Fmi2Status = set_debug_logging @ c, $crate::abi::fmi2::SetDebugLogging;
                fmi2Instantiate(name: Fmi2String, kind: Fmi2Type, guid: Fmi2String, resources: Fmi2String, functions: *const Fmi2CallbackFunctions, visible: Fmi2Boolean, logging_on: Fmi2Boolean) -> Fmi2Component = instantiate @ ::std::ptr::null_mut(), $crate::abi::fmi2::Instantiate;
                fmi2FreeInstance(c: Fmi2Component) -> () = free_instance @ c, $crate::abi::fmi2::FreeInstance;
                fmi2SetupExperiment(c: Fmi2Component, tolerance_defined: Fmi2Boolean, tolerance: Fmi2Real, start: Fmi2Real, stop_defined: Fmi2Boolean, stop: Fmi2Real) -> Fmi2Status = setup_experiment @ c, $crate::abi::fmi2::SetupExperiment;
                fmi2EnterInitializationMode(c: Fmi2Component) -> Fmi2Status = enter_initialization_mode @ c, $crate::abi::fmi2::ComponentCall;
                fmi2ExitInitializationMode(c: Fmi2Component) -> Fmi2Status = exit_initialization_mode @ c, $crate::abi::fmi2::ComponentCall;
                fmi2Terminate(c: Fmi2Component) -> Fmi2Status = terminate @ c, $crate::abi::fmi2::ComponentCall;
                fmi2Reset(c: Fmi2Component) -> Fmi2Status = reset @ c, $crate::abi::fmi2::ComponentCall;
                fmi2GetReal(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, value: *mut Fmi2Real) -> Fmi2Status = get_real @ c, $crate::abi::fmi2::Getter<Fmi2Real>;
                fmi2GetInteger(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, value: *mut Fmi2Integer) -> Fmi2Status = get_integer @ c, $crate::abi::fmi2::Getter<Fmi2Integer>;
                fmi2GetBoolean(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, value: *mut Fmi2Boolean) -> Fmi2Status = get_boolean @ c, $crate::abi::fmi2::Getter<Fmi2Boolean>;
                fmi2GetString(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, value: *mut Fmi2String) -> Fmi2Status = get_string @ c, $crate::abi::fmi2::Getter<Fmi2String>;
                fmi2SetReal(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, value: *const Fmi2Real) -> Fmi2Status = set_real @ c, $crate::abi::fmi2::Setter<Fmi2Real>;
                fmi2SetInteger(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, value: *const Fmi2Integer) -> Fmi2Status = set_integer @ c, $crate::abi::fmi2::Setter<Fmi2Integer>;
                fmi2SetBoolean(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, value: *const Fmi2Boolean) -> Fmi2Status = set_boolean @ c, $crate::abi::fmi2::Setter<Fmi2Boolean>;
                fmi2SetString(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, value: *const Fmi2String) -> Fmi2Status = set_string @ c, $crate::abi::fmi2::Setter<Fmi2String>;
                fmi2GetFMUstate(c: Fmi2Component, state: *mut Fmi2FmuState) -> Fmi2Status = get_fmu_state @ c, $crate::abi::fmi2::FmuStateCall;
                fmi2SetFMUstate(c: Fmi2Component, state: Fmi2FmuState) -> Fmi2Status = set_fmu_state @ c, $crate::abi::fmi2::SetFmuState;
                fmi2FreeFMUstate(c: Fmi2Component, state: *mut Fmi2FmuState) -> Fmi2Status = free_fmu_state @ c, $crate::abi::fmi2::FmuStateCall;
                fmi2SerializedFMUstateSize(c: Fmi2Component, state: Fmi2FmuState, size: *mut usize) -> Fmi2Status = serialized_fmu_state_size @ c, $crate::abi::fmi2::SerializedFmuStateSize;
                fmi2SerializeFMUstate(c: Fmi2Component, state: Fmi2FmuState, bytes: *mut Fmi2Byte, size: usize) -> Fmi2Status = serialize_fmu_state @ c, $crate::abi::fmi2::SerializeFmuState;
                fmi2DeSerializeFMUstate(c: Fmi2Component, bytes: *const Fmi2Byte, size: usize, state: *mut Fmi2FmuState) -> Fmi2Status = deserialize_fmu_state @ c, $crate::abi::fmi2::DeserializeFmuState;
                fmi2GetDirectionalDerivative(c: Fmi2Component, unknowns: *const Fmi2ValueReference, n_unknowns: usize, knowns: *const Fmi2ValueReference, n_knowns: usize, dv_known: *const Fmi2Real, dv_unknown: *mut Fmi2Real) -> Fmi2Status = get_directional_derivative @ c, $crate::abi::fmi2::GetDirectionalDerivative;
                fmi2EnterEventMode(c: Fmi2Component) -> Fmi2Status = enter_event_mode @ c, $crate::abi::fmi2::ComponentCall;
                fmi2NewDiscreteStates(c: Fmi2Component, info: *mut Fmi2EventInfo) -> Fmi2Status = new_discrete_states @ c, $crate::abi::fmi2::NewDiscreteStates;
                fmi2EnterContinuousTimeMode(c: Fmi2Component) -> Fmi2Status = enter_continuous_time_mode @ c, $crate::abi::fmi2::ComponentCall;
                fmi2CompletedIntegratorStep(c: Fmi2Component, no_set_prior: Fmi2Boolean, enter_event_mode: *mut Fmi2Boolean, terminate: *mut Fmi2Boolean) -> Fmi2Status = completed_integrator_step @ c, $crate::abi::fmi2::CompletedIntegratorStep;
                fmi2SetTime(c: Fmi2Component, time: Fmi2Real) -> Fmi2Status = set_time @ c, $crate::abi::fmi2::SetTime;
                fmi2SetContinuousStates(c: Fmi2Component, x: *const Fmi2Real, nx: usize) -> Fmi2Status = set_continuous_states @ c, $crate::abi::fmi2::SetContinuousStates;
                fmi2GetDerivatives(c: Fmi2Component, dx: *mut Fmi2Real, nx: usize) -> Fmi2Status = get_derivatives @ c, $crate::abi::fmi2::RealArray;
                fmi2GetEventIndicators(c: Fmi2Component, z: *mut Fmi2Real, nz: usize) -> Fmi2Status = get_event_indicators @ c, $crate::abi::fmi2::RealArray;
                fmi2GetContinuousStates(c: Fmi2Component, x: *mut Fmi2Real, nx: usize) -> Fmi2Status = get_continuous_states @ c, $crate::abi::fmi2::RealArray;
                fmi2GetNominalsOfContinuousStates(c: Fmi2Component, nominals: *mut Fmi2Real, nx: usize) -> Fmi2Status = get_nominals_of_continuous_states @ c, $crate::abi::fmi2::RealArray;
                fmi2SetRealInputDerivatives(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, order: *const Fmi2Integer, value: *const Fmi2Real) -> Fmi2Status = set_real_input_derivatives @ c, $crate::abi::fmi2::SetRealInputDerivatives;
                fmi2GetRealOutputDerivatives(c: Fmi2Component, vr: *const Fmi2ValueReference, nvr: usize, order: *const Fmi2Integer, value: *mut Fmi2Real) -> Fmi2Status = get_real_output_derivatives @ c, $crate::abi::fmi2::GetRealOutputDerivatives;
                fmi2DoStep(c: Fmi2Component, t: Fmi2Real, h: Fmi2Real, no_set_prior: Fmi2Boolean) -> Fmi2Status = do_step @ c, $crate::abi::fmi2::DoStep;
                fmi2CancelStep(c: Fmi2Component) -> Fmi2Status = cancel_step @ c, $crate::abi::fmi2::ComponentCall;
                fmi2GetStatus(c: Fmi2Component, kind: Fmi2StatusKind, value: *mut Fmi2Status) -> Fmi2Status = get_status @ c, $crate::abi::fmi2::GetStatus<Fmi2Status>;
                fmi2GetRealStatus(c: Fmi2Component, kind: Fmi2StatusKind, value: *mut Fmi2Real) -> Fmi2Status = get_real_status @ c, $crate::abi::fmi2::GetStatus<Fmi2Real>;
                fmi2GetIntegerStatus(c: Fmi2Component, kind: Fmi2StatusKind, value: *mut Fmi2Integer) -> Fmi2Status = get_integer_status @ c, $crate::abi::fmi2::GetStatus<Fmi2Integer>;
                fmi2GetBooleanStatus(c: Fmi2Component, kind: Fmi2StatusKind, value: *mut Fmi2Boolean) -> Fmi2Status = get_boolean_status @ c, $crate::abi::fmi2::GetStatus<Fmi2Boolean>;
                fmi2GetStringStatus(c: Fmi2Component, kind: Fmi2StatusKind, value: *mut Fmi2String) -> Fmi2Status = get_string_status @ c, $crate::abi::fmi2::GetStatus<Fmi2String>;
            }

            $crate::__export_functions! { $system, Fmi3, fmi3;
                fmi3GetVersion() -> *const c_char = get_version @ ::std::ptr::null_mut(), $crate::abi::fmi3::GetVersion;
                fmi3SetDebugLogging(i: Fmi3Instance, logging_on: Fmi3Boolean, n: usize, categories: *const Fmi3String) -> Fmi3Status = set_debug_logging @ i, $crate::abi::fmi3::SetDebugLogging;
                fmi3InstantiateModelExchange(name: Fmi3String, token: Fmi3String, resources: Fmi3String, visible: Fmi3Boolean, logging_on: Fmi3Boolean, env: Fmi3InstanceEnvironment, log: Fmi3LogMessageCallback) -> Fmi3Instance = instantiate_model_exchange @ ::std::ptr::null_mut(), $crate::abi::fmi3::InstantiateModelExchange;
                fmi3InstantiateCoSimulation(name: Fmi3String, token: Fmi3String, resources: Fmi3String, visible: Fmi3Boolean, logging_on: Fmi3Boolean, event_mode_used: Fmi3Boolean, early_return_allowed: Fmi3Boolean, required: *const Fmi3ValueReference, n_required: usize, env: Fmi3InstanceEnvironment, log: Fmi3LogMessageCallback, update: Fmi3IntermediateUpdateCallback) -> Fmi3Instance = instantiate_co_simulation @ ::std::ptr::null_mut(), $crate::abi::fmi3::InstantiateCoSimulation;
                fmi3InstantiateScheduledExecution(name: Fmi3String, token: Fmi3String, resources: Fmi3String, visible: Fmi3Boolean, logging_on: Fmi3Boolean, env: Fmi3InstanceEnvironment, log: Fmi3LogMessageCallback, clock_update: Fmi3ClockUpdateCallback, lock: Fmi3PreemptionCallback, unlock: Fmi3PreemptionCallback) -> Fmi3Instance = instantiate_scheduled_execution @ ::std::ptr::null_mut(), $crate::abi::fmi3::InstantiateScheduledExecution;
                fmi3FreeInstance(i: Fmi3Instance) -> () = free_instance @ i, $crate::abi::fmi3::FreeInstance;
                fmi3EnterInitializationMode(i: Fmi3Instance, tolerance_defined: Fmi3Boolean, tolerance: Fmi3Float64, start: Fmi3Float64, stop_defined: Fmi3Boolean, stop: Fmi3Float64) -> Fmi3Status = enter_initialization_mode @ i, $crate::abi::fmi3::EnterInitializationMode;
                fmi3ExitInitializationMode(i: Fmi3Instance) -> Fmi3Status = exit_initialization_mode @ i, $crate::abi::fmi3::InstanceCall;
                fmi3EnterEventMode(i: Fmi3Instance) -> Fmi3Status = enter_event_mode @ i, $crate::abi::fmi3::InstanceCall;
                fmi3Terminate(i: Fmi3Instance) -> Fmi3Status = terminate @ i, $crate::abi::fmi3::InstanceCall;
                fmi3Reset(i: Fmi3Instance) -> Fmi3Status = reset @ i, $crate::abi::fmi3::InstanceCall;
                fmi3GetFloat32(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3Float32, n: usize) -> Fmi3Status = get_float32 @ i, $crate::abi::fmi3::Getter<Fmi3Float32>;
                fmi3GetFloat64(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3Float64, n: usize) -> Fmi3Status = get_float64 @ i, $crate::abi::fmi3::Getter<Fmi3Float64>;
                fmi3GetInt8(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3Int8, n: usize) -> Fmi3Status = get_int8 @ i, $crate::abi::fmi3::Getter<Fmi3Int8>;
                fmi3GetUInt8(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3UInt8, n: usize) -> Fmi3Status = get_uint8 @ i, $crate::abi::fmi3::Getter<Fmi3UInt8>;
                fmi3GetInt16(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3Int16, n: usize) -> Fmi3Status = get_int16 @ i, $crate::abi::fmi3::Getter<Fmi3Int16>;
                fmi3GetUInt16(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3UInt16, n: usize) -> Fmi3Status = get_uint16 @ i, $crate::abi::fmi3::Getter<Fmi3UInt16>;
                fmi3GetInt32(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3Int32, n: usize) -> Fmi3Status = get_int32 @ i, $crate::abi::fmi3::Getter<Fmi3Int32>;
                fmi3GetUInt32(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3UInt32, n: usize) -> Fmi3Status = get_uint32 @ i, $crate::abi::fmi3::Getter<Fmi3UInt32>;
                fmi3GetInt64(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3Int64, n: usize) -> Fmi3Status = get_int64 @ i, $crate::abi::fmi3::Getter<Fmi3Int64>;
                fmi3GetUInt64(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3UInt64, n: usize) -> Fmi3Status = get_uint64 @ i, $crate::abi::fmi3::Getter<Fmi3UInt64>;
                fmi3GetBoolean(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3Boolean, n: usize) -> Fmi3Status = get_boolean @ i, $crate::abi::fmi3::Getter<Fmi3Boolean>;
                fmi3GetString(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3String, n: usize) -> Fmi3Status = get_string @ i, $crate::abi::fmi3::Getter<Fmi3String>;
                fmi3GetBinary(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, sizes: *mut usize, values: *mut Fmi3Binary, n: usize) -> Fmi3Status = get_binary @ i, $crate::abi::fmi3::GetBinary;
                fmi3GetClock(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *mut Fmi3Clock) -> Fmi3Status = get_clock @ i, $crate::abi::fmi3::GetClock;
                fmi3SetFloat32(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3Float32, n: usize) -> Fmi3Status = set_float32 @ i, $crate::abi::fmi3::Setter<Fmi3Float32>;
                fmi3SetFloat64(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3Float64, n: usize) -> Fmi3Status = set_float64 @ i, $crate::abi::fmi3::Setter<Fmi3Float64>;
                fmi3SetInt8(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3Int8, n: usize) -> Fmi3Status = set_int8 @ i, $crate::abi::fmi3::Setter<Fmi3Int8>;
                fmi3SetUInt8(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3UInt8, n: usize) -> Fmi3Status = set_uint8 @ i, $crate::abi::fmi3::Setter<Fmi3UInt8>;
                fmi3SetInt16(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3Int16, n: usize) -> Fmi3Status = set_int16 @ i, $crate::abi::fmi3::Setter<Fmi3Int16>;
                fmi3SetUInt16(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3UInt16, n: usize) -> Fmi3Status = set_uint16 @ i, $crate::abi::fmi3::Setter<Fmi3UInt16>;
                fmi3SetInt32(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3Int32, n: usize) -> Fmi3Status = set_int32 @ i, $crate::abi::fmi3::Setter<Fmi3Int32>;
                fmi3SetUInt32(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3UInt32, n: usize) -> Fmi3Status = set_uint32 @ i, $crate::abi::fmi3::Setter<Fmi3UInt32>;
                fmi3SetInt64(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3Int64, n: usize) -> Fmi3Status = set_int64 @ i, $crate::abi::fmi3::Setter<Fmi3Int64>;
                fmi3SetUInt64(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3UInt64, n: usize) -> Fmi3Status = set_uint64 @ i, $crate::abi::fmi3::Setter<Fmi3UInt64>;
                fmi3SetBoolean(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3Boolean, n: usize) -> Fmi3Status = set_boolean @ i, $crate::abi::fmi3::Setter<Fmi3Boolean>;
                fmi3SetString(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3String, n: usize) -> Fmi3Status = set_string @ i, $crate::abi::fmi3::Setter<Fmi3String>;
                fmi3SetBinary(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, sizes: *const usize, values: *const Fmi3Binary, n: usize) -> Fmi3Status = set_binary @ i, $crate::abi::fmi3::SetBinary;
                fmi3SetClock(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, values: *const Fmi3Clock) -> Fmi3Status = set_clock @ i, $crate::abi::fmi3::SetClock;
                fmi3GetNumberOfVariableDependencies(i: Fmi3Instance, vr: Fmi3ValueReference, n: *mut usize) -> Fmi3Status = get_number_of_variable_dependencies @ i, $crate::abi::fmi3::GetNumberOfVariableDependencies;
                fmi3GetVariableDependencies(i: Fmi3Instance, dependent: Fmi3ValueReference, dependent_indices: *mut usize, independents: *mut Fmi3ValueReference, independent_indices: *mut usize, kinds: *mut Fmi3DependencyKind, n: usize) -> Fmi3Status = get_variable_dependencies @ i, $crate::abi::fmi3::GetVariableDependencies;
                fmi3GetFMUState(i: Fmi3Instance, state: *mut Fmi3FmuState) -> Fmi3Status = get_fmu_state @ i, $crate::abi::fmi3::FmuStateCall;
                fmi3SetFMUState(i: Fmi3Instance, state: Fmi3FmuState) -> Fmi3Status = set_fmu_state @ i, $crate::abi::fmi3::SetFmuState;
                fmi3FreeFMUState(i: Fmi3Instance, state: *mut Fmi3FmuState) -> Fmi3Status = free_fmu_state @ i, $crate::abi::fmi3::FmuStateCall;
                fmi3SerializedFMUStateSize(i: Fmi3Instance, state: Fmi3FmuState, size: *mut usize) -> Fmi3Status = serialized_fmu_state_size @ i, $crate::abi::fmi3::SerializedFmuStateSize;
                fmi3SerializeFMUState(i: Fmi3Instance, state: Fmi3FmuState, bytes: *mut Fmi3Byte, size: usize) -> Fmi3Status = serialize_fmu_state @ i, $crate::abi::fmi3::SerializeFmuState;
                fmi3DeserializeFMUState(i: Fmi3Instance, bytes: *const Fmi3Byte, size: usize, state: *mut Fmi3FmuState) -> Fmi3Status = deserialize_fmu_state @ i, $crate::abi::fmi3::DeserializeFmuState;
                fmi3GetDirectionalDerivative(i: Fmi3Instance, unknowns: *const Fmi3ValueReference, n_unknowns: usize, knowns: *const Fmi3ValueReference, n_knowns: usize, seed: *const Fmi3Float64, n_seed: usize, sensitivity: *mut Fmi3Float64, n_sensitivity: usize) -> Fmi3Status = get_directional_derivative @ i, $crate::abi::fmi3::DerivativeFunction;
                fmi3GetAdjointDerivative(i: Fmi3Instance, unknowns: *const Fmi3ValueReference, n_unknowns: usize, knowns: *const Fmi3ValueReference, n_knowns: usize, seed: *const Fmi3Float64, n_seed: usize, sensitivity: *mut Fmi3Float64, n_sensitivity: usize) -> Fmi3Status = get_adjoint_derivative @ i, $crate::abi::fmi3::DerivativeFunction;
                fmi3EnterConfigurationMode(i: Fmi3Instance) -> Fmi3Status = enter_configuration_mode @ i, $crate::abi::fmi3::InstanceCall;
                fmi3ExitConfigurationMode(i: Fmi3Instance) -> Fmi3Status = exit_configuration_mode @ i, $crate::abi::fmi3::InstanceCall;
                fmi3GetIntervalDecimal(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, intervals: *mut Fmi3Float64, qualifiers: *mut Fmi3IntervalQualifier) -> Fmi3Status = get_interval_decimal @ i, $crate::abi::fmi3::GetIntervalDecimal;
                fmi3GetIntervalFraction(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, counters: *mut Fmi3UInt64, resolutions: *mut Fmi3UInt64, qualifiers: *mut Fmi3IntervalQualifier) -> Fmi3Status = get_interval_fraction @ i, $crate::abi::fmi3::GetIntervalFraction;
                fmi3GetShiftDecimal(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, shifts: *mut Fmi3Float64) -> Fmi3Status = get_shift_decimal @ i, $crate::abi::fmi3::GetShiftDecimal;
                fmi3GetShiftFraction(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, counters: *mut Fmi3UInt64, resolutions: *mut Fmi3UInt64) -> Fmi3Status = get_shift_fraction @ i, $crate::abi::fmi3::GetShiftFraction;
                fmi3SetIntervalDecimal(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, intervals: *const Fmi3Float64) -> Fmi3Status = set_interval_decimal @ i, $crate::abi::fmi3::SetDecimal;
                fmi3SetIntervalFraction(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, counters: *const Fmi3UInt64, resolutions: *const Fmi3UInt64) -> Fmi3Status = set_interval_fraction @ i, $crate::abi::fmi3::SetFraction;
                fmi3SetShiftDecimal(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, shifts: *const Fmi3Float64) -> Fmi3Status = set_shift_decimal @ i, $crate::abi::fmi3::SetDecimal;
                fmi3SetShiftFraction(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, counters: *const Fmi3UInt64, resolutions: *const Fmi3UInt64) -> Fmi3Status = set_shift_fraction @ i, $crate::abi::fmi3::SetFraction;
                fmi3EvaluateDiscreteStates(i: Fmi3Instance) -> Fmi3Status = evaluate_discrete_states @ i, $crate::abi::fmi3::InstanceCall;
                fmi3UpdateDiscreteStates(i: Fmi3Instance, need_update: *mut Fmi3Boolean, terminate: *mut Fmi3Boolean, nominals_changed: *mut Fmi3Boolean, values_changed: *mut Fmi3Boolean, next_defined: *mut Fmi3Boolean, next_time: *mut Fmi3Float64) -> Fmi3Status = update_discrete_states @ i, $crate::abi::fmi3::UpdateDiscreteStates;
                fmi3EnterContinuousTimeMode(i: Fmi3Instance) -> Fmi3Status = enter_continuous_time_mode @ i, $crate::abi::fmi3::InstanceCall;
                fmi3CompletedIntegratorStep(i: Fmi3Instance, no_set_prior: Fmi3Boolean, enter_event_mode: *mut Fmi3Boolean, terminate: *mut Fmi3Boolean) -> Fmi3Status = completed_integrator_step @ i, $crate::abi::fmi3::CompletedIntegratorStep;
                fmi3SetTime(i: Fmi3Instance, time: Fmi3Float64) -> Fmi3Status = set_time @ i, $crate::abi::fmi3::SetTime;
                fmi3SetContinuousStates(i: Fmi3Instance, x: *const Fmi3Float64, nx: usize) -> Fmi3Status = set_continuous_states @ i, $crate::abi::fmi3::SetContinuousStates;
                fmi3GetContinuousStateDerivatives(i: Fmi3Instance, dx: *mut Fmi3Float64, nx: usize) -> Fmi3Status = get_continuous_state_derivatives @ i, $crate::abi::fmi3::Float64Array;
                fmi3GetEventIndicators(i: Fmi3Instance, z: *mut Fmi3Float64, nz: usize) -> Fmi3Status = get_event_indicators @ i, $crate::abi::fmi3::Float64Array;
                fmi3GetContinuousStates(i: Fmi3Instance, x: *mut Fmi3Float64, nx: usize) -> Fmi3Status = get_continuous_states @ i, $crate::abi::fmi3::Float64Array;
                fmi3GetNominalsOfContinuousStates(i: Fmi3Instance, nominals: *mut Fmi3Float64, nx: usize) -> Fmi3Status = get_nominals_of_continuous_states @ i, $crate::abi::fmi3::Float64Array;
                fmi3GetNumberOfEventIndicators(i: Fmi3Instance, n: *mut usize) -> Fmi3Status = get_number_of_event_indicators @ i, $crate::abi::fmi3::GetCount;
                fmi3GetNumberOfContinuousStates(i: Fmi3Instance, n: *mut usize) -> Fmi3Status = get_number_of_continuous_states @ i, $crate::abi::fmi3::GetCount;
                fmi3EnterStepMode(i: Fmi3Instance) -> Fmi3Status = enter_step_mode @ i, $crate::abi::fmi3::InstanceCall;
                fmi3GetOutputDerivatives(i: Fmi3Instance, vr: *const Fmi3ValueReference, nvr: usize, orders: *const Fmi3Int32, values: *mut Fmi3Float64, n: usize) -> Fmi3Status = get_output_derivatives @ i, $crate::abi::fmi3::GetOutputDerivatives;
                fmi3DoStep(i: Fmi3Instance, t: Fmi3Float64, h: Fmi3Float64, no_set_prior: Fmi3Boolean, event_handling_needed: *mut Fmi3Boolean, terminate: *mut Fmi3Boolean, early_return: *mut Fmi3Boolean, last_successful_time: *mut Fmi3Float64) -> Fmi3Status = do_step @ i, $crate::abi::fmi3::DoStep;
                fmi3ActivateModelPartition(i: Fmi3Instance, clock: Fmi3ValueReference, activation_time: Fmi3Float64) -> Fmi3Status = activate_model_partition @ i, $crate::abi::fmi3::ActivateModelPartition;
                tandemGetStateSize(i: Fmi3Instance, n_state: *mut usize) -> Fmi3Status = tandem_get_state_size @ i, $crate::abi::adjoint::GetStateSize;
                tandemGetState(i: Fmi3Instance, state: *mut Fmi3Float64, n_state: usize) -> Fmi3Status = tandem_get_state @ i, $crate::abi::adjoint::GetState;
                tandemStepJvp(i: Fmi3Instance, h: Fmi3Float64, d_state: *const Fmi3Float64, n_state: usize, d_inputs: *const Fmi3Float64, n_inputs: usize, d_params: *const Fmi3Float64, n_params: usize, d_state_next: *mut Fmi3Float64, d_outputs_next: *mut Fmi3Float64, n_outputs: usize) -> Fmi3Status = tandem_step_jvp @ i, $crate::abi::adjoint::StepJvp;
                tandemStepVjp(i: Fmi3Instance, h: Fmi3Float64, bar_state_next: *const Fmi3Float64, n_state: usize, bar_outputs_next: *const Fmi3Float64, n_outputs: usize, bar_state: *mut Fmi3Float64, bar_inputs: *mut Fmi3Float64, n_inputs: usize, bar_params: *mut Fmi3Float64, n_params: usize) -> Fmi3Status = tandem_step_vjp @ i, $crate::abi::adjoint::StepVjp;
                tandemInitializationVjp(i: Fmi3Instance, bar_state: *const Fmi3Float64, n_state: usize, bar_outputs: *const Fmi3Float64, n_outputs: usize, bar_inputs: *mut Fmi3Float64, n_inputs: usize, bar_params: *mut Fmi3Float64, n_params: usize) -> Fmi3Status = tandem_initialization_vjp @ i, $crate::abi::adjoint::InitializationVjp;
                tandemOutputVjp(i: Fmi3Instance, bar_outputs: *const Fmi3Float64, n_outputs: usize, bar_state: *mut Fmi3Float64, n_state: usize, bar_inputs: *mut Fmi3Float64, n_inputs: usize, bar_params: *mut Fmi3Float64, n_params: usize) -> Fmi3Status = tandem_output_vjp @ i, $crate::abi::adjoint::OutputVjp;
                tandemKeepStepLinearizations(i: Fmi3Instance, n_steps: usize) -> Fmi3Status = tandem_keep_step_linearizations @ i, $crate::abi::adjoint::KeepStepLinearizations;
                tandemGetJacobianAdjointDerivative(i: Fmi3Instance, unknowns: *const Fmi3ValueReference, n_unknowns: usize, knowns: *const Fmi3ValueReference, n_knowns: usize, seed: *const Fmi3Float64, n_seed: usize, sensitivity: *mut Fmi3Float64, n_sensitivity: usize) -> Fmi3Status = tandem_get_jacobian_adjoint_derivative @ i, $crate::abi::adjoint::GetJacobianAdjointDerivative;
            }
        };
    };
}

/// Emits one guarded `extern "C"` function per entry
/// `cName(args) -> Ret = rust_name @ handle, AbiType;` delegating to
/// `$crate::<module>::rust_name::<System>`, and checks that its signature is `AbiType`, the
/// function's type in the ABI crate.
#[doc(hidden)]
#[macro_export]
macro_rules! __export_functions {
    ($system:ty, $version:ident, $module:ident; $(
        $name:ident ( $($arg:ident : $arg_ty:ty),* ) -> $ret:ty = $function:ident @ $handle:expr, $abi:ty;
    )*) => {$(
        // The exported signature is the one the ABI crate declares, checked by the compiler.
        const _: $abi = $name;

        #[no_mangle]
        #[allow(non_snake_case, unused_unsafe, clippy::missing_safety_doc, clippy::too_many_arguments, clippy::unused_unit)]
        pub unsafe extern "C" fn $name($($arg: $arg_ty),*) -> $ret {
            // SAFETY: the host calls this function under the FMI contract, which is the
            // contract of both the guard (on the handle) and the generic implementation.
            unsafe {
                $crate::ffi::guard::<$system, $ret>($handle, $crate::ffi::FmiVersion::$version, stringify!($name), || {
                    $crate::$module::$function::<$system>($($arg),*)
                })
            }
        }
    )*};
}
