//! [`FmuInstance`](super::FmuInstance) for FMI 2.0 binaries: one implementation of each
//! interface trait.

use std::ffi::{c_void, CString};
use std::sync::Arc;

use super::calls::Calls;
use super::{
    copy_strings, narrow, CoSimulationInstance, Common, EventUpdate, FmuState, FmuStates,
    InstanceCore, IntegratorStepOutcome, LogSettings, ModelExchangeInstance, PartialDerivatives,
    StepOutcome,
};
use crate::binding::fmi2::{self as ffi, Binding, CallbackFunctions, Component};
use crate::error::{Error, Result};
use crate::import::Extracted;
use crate::model_description::{FmiVersion, InterfaceType, Values, VariableType};

extern "C" {
    fn calloc(count: usize, size: usize) -> *mut c_void;
    fn free(pointer: *mut c_void);
}

/// An instance of an FMI 2.0 FMU.
pub struct Fmu2Instance {
    component: Component,
    core: InstanceCore,
    /// The FMU may keep a pointer to the callbacks until fmi2FreeInstance.
    _callbacks: Box<CallbackFunctions>,
    binding: Arc<Binding>,
    states: usize,
    event_indicators: usize,
    /// Keeps the resources folder alive while the instance may read it.
    _files: Arc<Extracted>,
}

// SAFETY: FMI 2.0 lets an instance be used from any thread as long as calls on that instance
// are not concurrent; every call goes through `&mut self`, so moving the instance to another
// thread cannot create concurrent calls. The log context is only read by the FMU's callback
// and guards its mutable part with a Mutex; the library handle is immutable.
unsafe impl Send for Fmu2Instance {}

impl Fmu2Instance {
    /// Creates an instance with fmi2Instantiate.
    pub(crate) fn instantiate(
        binding: Arc<Binding>,
        files: Arc<Extracted>,
        interface: InterfaceType,
        name: &str,
        settings: LogSettings,
    ) -> Result<Self> {
        let md = files.model_description();
        let core = InstanceCore::new(name, interface, settings);
        let callbacks = Box::new(CallbackFunctions {
            logger: Some(super::logging::tandem_fmi2_logger),
            allocate_memory: Some(calloc),
            free_memory: Some(free),
            step_finished: None,
            component_environment: core.environment(),
        });
        let text = |value: &str, item: &str| {
            CString::new(value).map_err(|_| Error::InvalidValue {
                item: item.to_string(),
                message: "contains a NUL character".into(),
            })
        };
        let c_name = text(name, "instance name")?;
        let guid = text(&md.instantiation_token, "guid")?;
        let resources = text(&files.resource_uri(), "resource location")?;
        let kind = match interface {
            InterfaceType::ModelExchange => ffi::MODEL_EXCHANGE,
            InterfaceType::CoSimulation => ffi::CO_SIMULATION,
            // FMI 2.0 has no Scheduled Execution.
            InterfaceType::ScheduledExecution => {
                return Err(core.unsupported("Scheduled Execution (an FMI 3.0 interface)"))
            }
        };
        // SAFETY: all strings are NUL-terminated and outlive the call; the callbacks struct and
        // the log context it points to are boxed and kept until after fmi2FreeInstance.
        let component = unsafe {
            (binding.common.instantiate)(
                c_name.as_ptr(),
                kind,
                guid.as_ptr(),
                resources.as_ptr(),
                &*callbacks,
                0,
                core.log.logging_on() as ffi::Boolean,
            )
        };
        if component.is_null() {
            return Err(Error::Instantiate {
                instance: name.to_string(),
                function: "fmi2Instantiate",
                message: core.log.take_last_problem(),
            });
        }
        Ok(Fmu2Instance {
            component,
            core,
            _callbacks: callbacks,
            states: md.number_of_continuous_states(),
            event_indicators: md.number_of_event_indicators(),
            binding,
            _files: files,
        })
    }

    fn me(&self, function: &'static str) -> Result<&ffi::ModelExchangeFunctions> {
        self.core
            .provided(self.binding.model_exchange.as_ref(), function)
    }

    fn cs(&self, function: &'static str) -> Result<&ffi::CoSimulationFunctions> {
        self.core
            .provided(self.binding.co_simulation.as_ref(), function)
    }

    fn state_functions(&self, function: &'static str) -> Result<&ffi::StateFunctions> {
        self.core.provided(self.binding.state.as_ref(), function)
    }

    /// Calls a `fmi2Component -> fmi2Status` function.
    /// The calls this instance makes as FMI 2.0 and 3.0 alike.
    fn calls(&self) -> Calls<'_> {
        Calls::new(&self.core, self.component)
    }

    /// Calls a function that fills `values` (length checked against `references`).
    fn get_array<T>(
        &mut self,
        function: &'static str,
        references: &[u32],
        values: &mut [T],
        f: unsafe extern "C" fn(Component, *const u32, usize, *mut T) -> ffi::Status,
    ) -> Result<()> {
        self.core
            .check_lengths(function, references.len(), values.len())?;
        // SAFETY: both slices have `references.len()` elements, as the FMI call expects.
        let status = unsafe {
            f(
                self.component,
                references.as_ptr(),
                references.len(),
                values.as_mut_ptr(),
            )
        };
        self.core.check(function, status)
    }

    /// Calls a function that reads `values` (length checked against `references`).
    fn set_array<T>(
        &mut self,
        function: &'static str,
        references: &[u32],
        values: &[T],
        f: unsafe extern "C" fn(Component, *const u32, usize, *const T) -> ffi::Status,
    ) -> Result<()> {
        self.core
            .check_lengths(function, references.len(), values.len())?;
        // SAFETY: both slices have `references.len()` elements, as the FMI call expects.
        let status = unsafe {
            f(
                self.component,
                references.as_ptr(),
                references.len(),
                values.as_ptr(),
            )
        };
        self.core.check(function, status)
    }

    fn boolean_status(&mut self, kind: ffi::StatusKind) -> Option<bool> {
        let f = self.binding.co_simulation.as_ref()?.get_boolean_status?;
        let mut value: ffi::Boolean = 0;
        // SAFETY: one fmi2Boolean is written.
        let status = unsafe { f(self.component, kind, &mut value) };
        (status <= ffi::Status::Warning).then_some(value != 0)
    }

    fn real_status(&mut self, kind: ffi::StatusKind) -> Option<f64> {
        let f = self.binding.co_simulation.as_ref()?.get_real_status?;
        let mut value = 0.0;
        // SAFETY: one fmi2Real is written.
        let status = unsafe { f(self.component, kind, &mut value) };
        (status <= ffi::Status::Warning).then_some(value)
    }
}

impl Drop for Fmu2Instance {
    fn drop(&mut self) {
        // After a Fatal status the standard forbids every call, so the instance is leaked.
        if self.core.usable() {
            // SAFETY: the component came from fmi2Instantiate and is freed exactly once, before and the callbacks,
            // the log context and the library it uses are dropped.
            unsafe { (self.binding.common.free_instance)(self.component) };
        }
    }
}

impl Common for Fmu2Instance {
    fn name(&self) -> &str {
        &self.core.name
    }

    fn fmi_version(&self) -> FmiVersion {
        FmiVersion::V2
    }

    fn interface(&self) -> InterfaceType {
        self.core.interface
    }

    fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<()> {
        // SAFETY: plain values for a live component.
        let status = unsafe {
            (self.binding.common.setup_experiment)(
                self.component,
                tolerance.is_some() as ffi::Boolean,
                tolerance.unwrap_or(0.0),
                start_time,
                stop_time.is_some() as ffi::Boolean,
                stop_time.unwrap_or(0.0),
            )
        };
        self.core.check("fmi2SetupExperiment", status)?;
        self.calls().call(
            "fmi2EnterInitializationMode",
            self.binding.common.enter_initialization_mode,
        )
    }

    fn exit_initialization_mode(&mut self) -> Result<()> {
        self.calls().call(
            "fmi2ExitInitializationMode",
            self.binding.common.exit_initialization_mode,
        )
    }

    fn terminate(&mut self) -> Result<()> {
        self.calls()
            .call("fmi2Terminate", self.binding.common.terminate)
    }

    fn reset(&mut self) -> Result<()> {
        self.calls().call("fmi2Reset", self.binding.common.reset)
    }

    fn get_real(&mut self, references: &[u32], values: &mut [f64]) -> Result<()> {
        self.get_array(
            "fmi2GetReal",
            references,
            values,
            self.binding.common.get_real,
        )
    }

    fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<()> {
        self.set_array(
            "fmi2SetReal",
            references,
            values,
            self.binding.common.set_real,
        )
    }

    fn get_integer(&mut self, references: &[u32], values: &mut [i32]) -> Result<()> {
        self.get_array(
            "fmi2GetInteger",
            references,
            values,
            self.binding.common.get_integer,
        )
    }

    fn set_integer(&mut self, references: &[u32], values: &[i32]) -> Result<()> {
        self.set_array(
            "fmi2SetInteger",
            references,
            values,
            self.binding.common.set_integer,
        )
    }

    fn get_boolean(&mut self, references: &[u32], values: &mut [bool]) -> Result<()> {
        let mut raw = vec![0 as ffi::Boolean; references.len()];
        self.get_array(
            "fmi2GetBoolean",
            references,
            &mut raw,
            self.binding.common.get_boolean,
        )?;
        self.core
            .check_lengths("fmi2GetBoolean", references.len(), values.len())?;
        values
            .iter_mut()
            .zip(raw)
            .for_each(|(value, raw)| *value = raw != 0);
        Ok(())
    }

    fn set_boolean(&mut self, references: &[u32], values: &[bool]) -> Result<()> {
        let raw: Vec<ffi::Boolean> = values.iter().map(|&b| b as ffi::Boolean).collect();
        self.set_array(
            "fmi2SetBoolean",
            references,
            &raw,
            self.binding.common.set_boolean,
        )
    }

    fn get_string(&mut self, references: &[u32]) -> Result<Vec<String>> {
        let mut raw = vec![std::ptr::null(); references.len()];
        self.get_array(
            "fmi2GetString",
            references,
            &mut raw,
            self.binding.common.get_string,
        )?;
        // SAFETY: the FMU's string getter just filled `raw`, and the FMU has not been called
        // since.
        Ok(unsafe { copy_strings(&raw) })
    }

    fn set_string(&mut self, references: &[u32], values: &[String]) -> Result<()> {
        let owned: Vec<CString> = values
            .iter()
            .map(|v| {
                CString::new(v.as_str()).map_err(|_| Error::InvalidValue {
                    item: format!("instance {}", self.core.name),
                    message: format!("string {v:?} contains NUL"),
                })
            })
            .collect::<Result<_>>()?;
        let pointers: Vec<ffi::FmiString> = owned.iter().map(|s| s.as_ptr()).collect();
        self.set_array(
            "fmi2SetString",
            references,
            &pointers,
            self.binding.common.set_string,
        )
    }

    fn get_values(&mut self, ty: VariableType, references: &[u32]) -> Result<Values> {
        let n = references.len();
        Ok(match ty {
            VariableType::Float64 => {
                let mut v = vec![0.0; n];
                self.get_real(references, &mut v)?;
                Values::Float(v)
            }
            VariableType::Int32 | VariableType::Enumeration => {
                let mut v = vec![0; n];
                self.get_integer(references, &mut v)?;
                Values::Int(v.into_iter().map(i64::from).collect())
            }
            VariableType::Boolean => {
                let mut v = vec![false; n];
                self.get_boolean(references, &mut v)?;
                Values::Bool(v)
            }
            VariableType::String => Values::String(self.get_string(references)?),
            other => {
                return Err(Error::InvalidValue {
                    item: format!("instance {}", self.core.name),
                    message: format!("{other} variables do not exist in FMI 2.0"),
                })
            }
        })
    }

    fn set_values(&mut self, ty: VariableType, references: &[u32], values: &Values) -> Result<()> {
        match (ty, values) {
            (VariableType::Float64, Values::Float(v)) => self.set_real(references, v),
            (VariableType::Int32 | VariableType::Enumeration, _) => {
                let v: Vec<i32> = narrow(&self.core, ty, values)?;
                self.set_integer(references, &v)
            }
            (VariableType::Boolean, Values::Bool(v)) => self.set_boolean(references, v),
            (VariableType::String, Values::String(v)) => self.set_string(references, v),
            _ => Err(super::mismatch(&self.core, ty, values)),
        }
    }

    fn enter_event_mode(&mut self) -> Result<()> {
        let f = self.me("fmi2EnterEventMode")?.enter_event_mode;
        self.calls().call("fmi2EnterEventMode", f)
    }

    fn update_discrete_states(&mut self) -> Result<EventUpdate> {
        let f = self.me("fmi2NewDiscreteStates")?.new_discrete_states;
        let mut info = ffi::EventInfo::default();
        // SAFETY: `info` is a valid fmi2EventInfo for the FMU to fill.
        let status = unsafe { f(self.component, &mut info) };
        self.core.check("fmi2NewDiscreteStates", status)?;
        Ok(EventUpdate {
            discrete_states_need_update: info.new_discrete_states_needed != 0,
            terminate: info.terminate_simulation != 0,
            nominals_changed: info.nominals_of_continuous_states_changed != 0,
            values_changed: info.values_of_continuous_states_changed != 0,
            next_event_time: (info.next_event_time_defined != 0).then_some(info.next_event_time),
        })
    }
}

impl CoSimulationInstance for Fmu2Instance {
    fn do_step(&mut self, time: f64, step: f64) -> Result<StepOutcome> {
        let do_step = self.cs("fmi2DoStep")?.do_step;
        // SAFETY: plain values for a live component.
        let status = unsafe { do_step(self.component, time, step, 1) };
        match status {
            ffi::Status::Ok | ffi::Status::Warning => Ok(StepOutcome {
                terminate: false,
                partial: false,
                last_time: time + step,
                event_handling_needed: false,
            }),
            ffi::Status::Discard => {
                let terminate = self.boolean_status(ffi::TERMINATED).unwrap_or(false);
                let last_time = self.real_status(ffi::LAST_SUCCESSFUL_TIME).unwrap_or(time);
                if !terminate && last_time <= time {
                    return Err(self.core.call_error("fmi2DoStep", status));
                }
                Ok(StepOutcome {
                    terminate,
                    partial: true,
                    last_time,
                    event_handling_needed: false,
                })
            }
            _ => Err(self.core.call_error("fmi2DoStep", status)),
        }
    }
}

impl ModelExchangeInstance for Fmu2Instance {
    fn enter_continuous_time_mode(&mut self) -> Result<()> {
        let f = self
            .me("fmi2EnterContinuousTimeMode")?
            .enter_continuous_time_mode;
        self.calls().call("fmi2EnterContinuousTimeMode", f)
    }

    fn completed_integrator_step(
        &mut self,
        no_set_state_prior: bool,
    ) -> Result<IntegratorStepOutcome> {
        let function = "fmi2CompletedIntegratorStep";
        let f = self.me(function)?.completed_integrator_step;
        self.calls()
            .completed_integrator_step(function, f, no_set_state_prior)
    }

    fn set_time(&mut self, time: f64) -> Result<()> {
        let f = self.me("fmi2SetTime")?.set_time;
        self.calls().set_time("fmi2SetTime", f, time)
    }

    fn set_continuous_states(&mut self, states: &[f64]) -> Result<()> {
        let function = "fmi2SetContinuousStates";
        let f = self.me(function)?.set_continuous_states;
        self.calls().set_continuous_states(function, f, states)
    }

    fn get_continuous_states(&mut self, states: &mut [f64]) -> Result<()> {
        let f = self.me("fmi2GetContinuousStates")?.get_continuous_states;
        self.calls().fill("fmi2GetContinuousStates", states, f)
    }

    fn get_derivatives(&mut self, derivatives: &mut [f64]) -> Result<()> {
        let f = self.me("fmi2GetDerivatives")?.get_derivatives;
        self.calls().fill("fmi2GetDerivatives", derivatives, f)
    }

    fn get_event_indicators(&mut self, indicators: &mut [f64]) -> Result<()> {
        let f = self.me("fmi2GetEventIndicators")?.get_event_indicators;
        self.calls().fill("fmi2GetEventIndicators", indicators, f)
    }

    fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<()> {
        let f = self
            .me("fmi2GetNominalsOfContinuousStates")?
            .get_nominals_of_continuous_states;
        self.calls()
            .fill("fmi2GetNominalsOfContinuousStates", nominals, f)
    }

    fn number_of_continuous_states(&self) -> usize {
        self.states
    }

    fn number_of_event_indicators(&self) -> usize {
        self.event_indicators
    }
}

impl PartialDerivatives for Fmu2Instance {
    fn get_directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        let f = self
            .binding
            .get_directional_derivative
            .ok_or_else(|| self.core.unsupported("fmi2GetDirectionalDerivative"))?;
        self.core
            .check_lengths("fmi2GetDirectionalDerivative", knowns.len(), seed.len())?;
        self.core.check_lengths(
            "fmi2GetDirectionalDerivative",
            unknowns.len(),
            sensitivity.len(),
        )?;
        // SAFETY: seed has one entry per known, sensitivity one per unknown.
        let status = unsafe {
            f(
                self.component,
                unknowns.as_ptr(),
                unknowns.len(),
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                sensitivity.as_mut_ptr(),
            )
        };
        self.core.check("fmi2GetDirectionalDerivative", status)
    }

    fn get_adjoint_derivative(
        &mut self,
        _: &[u32],
        _: &[u32],
        _: &[f64],
        _: &mut [f64],
    ) -> Result<()> {
        Err(self
            .core
            .unsupported("fmi3GetAdjointDerivative (FMI 2.0 has no adjoint derivatives)"))
    }
}

impl FmuStates for Fmu2Instance {
    fn get_fmu_state(&mut self) -> Result<FmuState> {
        let f = self.state_functions("fmi2GetFMUstate")?.get;
        self.calls().get_fmu_state("fmi2GetFMUstate", f)
    }

    fn set_fmu_state(&mut self, state: &FmuState) -> Result<()> {
        let f = self.state_functions("fmi2SetFMUstate")?.set;
        self.calls().set_fmu_state("fmi2SetFMUstate", f, state)
    }

    fn free_fmu_state(&mut self, state: FmuState) -> Result<()> {
        let f = self.state_functions("fmi2FreeFMUstate")?.free;
        self.calls().free_fmu_state("fmi2FreeFMUstate", f, state)
    }

    fn serialize_fmu_state(&mut self, state: &FmuState) -> Result<Vec<u8>> {
        let functions = self.state_functions("fmi2SerializeFMUstate")?;
        let (size_of, serialize) = functions
            .serialized_size
            .zip(functions.serialize)
            .ok_or_else(|| self.core.unsupported("fmi2SerializeFMUstate"))?;
        let names = ("fmi2SerializedFMUstateSize", "fmi2SerializeFMUstate");
        self.calls()
            .serialize_fmu_state(names, size_of, serialize, state)
    }

    fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> Result<FmuState> {
        let f = self
            .state_functions("fmi2DeSerializeFMUstate")?
            .deserialize
            .ok_or_else(|| self.core.unsupported("fmi2DeSerializeFMUstate"))?;
        self.calls()
            .deserialize_fmu_state("fmi2DeSerializeFMUstate", f, bytes)
    }
}
