//! [`FmuInstance`](super::FmuInstance) for FMI 3.0 binaries (one implementation of each
//! interface trait), plus the typed access only FMI 3.0 has (Float32, Int8..UInt64, Binary,
//! Clock) and the adjoint extension ([`adjoint`]).

pub mod adjoint;
mod instantiation;
mod jacobian_adjoint;
pub mod scheduled_execution;
mod step_derivatives;

use std::ffi::CString;
use std::sync::Arc;

use super::calls::Calls;
use super::{
    copy_strings, narrow, CoSimulationInstance, Common, EventUpdate, FmuState, FmuStates,
    InstanceCore, IntegratorStepOutcome, LogSettings, ModelExchangeInstance, PartialDerivatives,
    StepDerivatives, StepOutcome,
};
use crate::binding::fmi3::{self as ffi, Binding, Getter, Instance, Setter};
use crate::error::{Error, Result};
use crate::import::Extracted;
use crate::model_description::{FmiVersion, InterfaceType, Values, VariableType};
use instantiation::Instantiation;

/// An instance of an FMI 3.0 FMU.
pub struct Fmu3Instance {
    instance: Instance,
    core: InstanceCore,
    binding: Arc<Binding>,
    states: usize,
    event_indicators: usize,
    /// Keeps the resources folder alive while the instance may read it; holds the adjoint
    /// manifest.
    files: Arc<Extracted>,
    /// The environment of a Scheduled Execution instance (log context and clock-update flag),
    /// freed after the instance.
    scheduled: Option<Box<scheduled_execution::ScheduledEnvironment>>,
}

// SAFETY: FMI 3.0 requires that an instance can be used from any thread provided calls on it
// are not concurrent; every call goes through `&mut self`, so moving the instance to another
// thread cannot create concurrent calls. The log context is only read by the FMU's callback
// and guards its mutable part with a Mutex; the library handle is immutable.
unsafe impl Send for Fmu3Instance {}

fn c_text(value: &str, item: &str) -> Result<CString> {
    CString::new(value).map_err(|_| Error::InvalidValue {
        item: item.to_string(),
        message: format!("{value:?} contains a NUL character"),
    })
}

impl Fmu3Instance {
    /// Creates an instance with fmi3InstantiateModelExchange, fmi3InstantiateCoSimulation or
    /// fmi3InstantiateScheduledExecution.
    pub(crate) fn instantiate(
        binding: Arc<Binding>,
        files: Arc<Extracted>,
        interface: InterfaceType,
        name: &str,
        settings: LogSettings,
    ) -> Result<Self> {
        let md = files.model_description();
        let core = InstanceCore::new(name, interface, settings);
        let c_name = c_text(name, "instance name")?;
        let token = c_text(&md.instantiation_token, "instantiationToken")?;
        let resources = c_text(&files.resource_path(), "resource path")?;
        let logging_on = core.log.logging_on() as ffi::Boolean;
        let texts = Instantiation {
            name: &c_name,
            token: &token,
            resources: &resources,
            logging_on,
            log: core.environment(),
        };
        let mut scheduled = None;
        let (instance, function) = match interface {
            InterfaceType::ModelExchange => {
                let function = "fmi3InstantiateModelExchange";
                let functions = core.provided(binding.model_exchange.as_ref(), function)?;
                (texts.model_exchange(functions.instantiate), function)
            }
            InterfaceType::CoSimulation => {
                let function = "fmi3InstantiateCoSimulation";
                let functions = core.provided(binding.co_simulation.as_ref(), function)?;
                (texts.co_simulation(functions.instantiate), function)
            }
            InterfaceType::ScheduledExecution => {
                let function = "fmi3InstantiateScheduledExecution";
                let functions = core.provided(binding.scheduled_execution.as_ref(), function)?;
                let (instance, environment) = scheduled_execution::instantiate(functions, texts);
                scheduled = Some(environment);
                (instance, function)
            }
        };
        if instance.is_null() {
            return Err(Error::Instantiate {
                instance: name.to_string(),
                function,
                message: core.log.take_last_problem(),
            });
        }
        let mut created = Fmu3Instance {
            instance,
            core,
            binding,
            states: md.number_of_continuous_states(),
            event_indicators: md.number_of_event_indicators(),
            files,
            scheduled,
        };
        created.count_model_exchange_sizes()?;
        Ok(created)
    }

    /// Asks a Model Exchange FMU for its numbers of continuous states and event indicators:
    /// array states make the model description's counts differ from the FMU's.
    fn count_model_exchange_sizes(&mut self) -> Result<()> {
        if let Some(me) = self.binding.model_exchange.as_ref() {
            let (count_states, count_indicators) = (
                me.get_number_of_continuous_states,
                me.get_number_of_event_indicators,
            );
            self.states = self.count("fmi3GetNumberOfContinuousStates", count_states)?;
            self.event_indicators =
                self.count("fmi3GetNumberOfEventIndicators", count_indicators)?;
        }
        Ok(())
    }

    fn count(
        &mut self,
        function: &'static str,
        f: unsafe extern "C" fn(Instance, *mut usize) -> ffi::Status,
    ) -> Result<usize> {
        let mut n = 0;
        // SAFETY: one size_t is written.
        let status = unsafe { f(self.instance, &mut n) };
        self.core.check(function, status)?;
        Ok(n)
    }

    fn me(&self, function: &'static str) -> Result<&ffi::ModelExchangeFunctions> {
        self.core
            .provided(self.binding.model_exchange.as_ref(), function)
    }

    fn state_functions(&self, function: &'static str) -> Result<&ffi::StateFunctions> {
        self.core.provided(self.binding.state.as_ref(), function)
    }

    /// The calls this instance makes as FMI 2.0 and 3.0 alike.
    fn calls(&self) -> Calls<'_> {
        Calls::new(&self.core, self.instance)
    }

    /// Reads `values.len()` values (more than `references.len()` for arrays).
    fn get_array<T>(
        &mut self,
        function: &'static str,
        references: &[u32],
        values: &mut [T],
        f: Getter<T>,
    ) -> Result<()> {
        // SAFETY: the FMU writes at most `values.len()` values for `references.len()` references.
        let status = unsafe {
            f(
                self.instance,
                references.as_ptr(),
                references.len(),
                values.as_mut_ptr(),
                values.len(),
            )
        };
        self.core.check(function, status)
    }

    /// Writes `values.len()` values (more than `references.len()` for arrays).
    fn set_array<T>(
        &mut self,
        function: &'static str,
        references: &[u32],
        values: &[T],
        f: Setter<T>,
    ) -> Result<()> {
        // SAFETY: the FMU reads `values.len()` values for `references.len()` references.
        let status = unsafe {
            f(
                self.instance,
                references.as_ptr(),
                references.len(),
                values.as_ptr(),
                values.len(),
            )
        };
        self.core.check(function, status)
    }

    /// Reads the `count` elements of `references`.
    fn read<T: Copy + Default>(
        &mut self,
        function: &'static str,
        references: &[u32],
        count: usize,
        f: Getter<T>,
    ) -> Result<Vec<T>> {
        let mut values = vec![T::default(); count];
        self.get_array(function, references, &mut values, f)?;
        Ok(values)
    }

    fn derivative(
        &mut self,
        function: &'static str,
        f: Option<ffi::DerivativeFunction>,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        let f = f.ok_or_else(|| self.core.unsupported(function))?;
        // SAFETY: each array is passed with its own length.
        let status = unsafe {
            f(
                self.instance,
                unknowns.as_ptr(),
                unknowns.len(),
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                seed.len(),
                sensitivity.as_mut_ptr(),
                sensitivity.len(),
            )
        };
        self.core.check(function, status)
    }

    /// Reads the `count` String elements of `references`.
    fn get_string_elements(&mut self, references: &[u32], count: usize) -> Result<Vec<String>> {
        let f = self.binding.common.string.get;
        let raw = self.read("fmi3GetString", references, count, f)?;
        // SAFETY: the FMU's string getter just filled `raw`, and the FMU has not been called
        // since.
        Ok(unsafe { copy_strings(&raw) })
    }

    /// Calls an optional Configuration Mode function.
    fn configuration(
        &mut self,
        function: &'static str,
        f: Option<ffi::InstanceCall>,
    ) -> Result<()> {
        let f = f.ok_or_else(|| self.core.unsupported(function))?;
        self.calls().call(function, f)
    }

    /// Reads Binary variables.
    pub fn get_binary(&mut self, references: &[u32]) -> Result<Vec<Vec<u8>>> {
        let mut sizes = vec![0usize; references.len()];
        let mut pointers: Vec<ffi::Binary> = vec![std::ptr::null(); references.len()];
        // SAFETY: one size and one pointer per reference are written.
        let status = unsafe {
            (self.binding.common.get_binary)(
                self.instance,
                references.as_ptr(),
                references.len(),
                sizes.as_mut_ptr(),
                pointers.as_mut_ptr(),
                pointers.len(),
            )
        };
        self.core.check("fmi3GetBinary", status)?;
        Ok(sizes
            .into_iter()
            .zip(pointers)
            .map(|(size, pointer)| {
                if pointer.is_null() {
                    Vec::new()
                } else {
                    // SAFETY: the FMU returned `size` readable bytes at `pointer`, valid
                    // until its next call; copied now.
                    unsafe { std::slice::from_raw_parts(pointer, size) }.to_vec()
                }
            })
            .collect())
    }

    /// Writes Binary variables.
    pub fn set_binary(&mut self, references: &[u32], values: &[Vec<u8>]) -> Result<()> {
        self.core
            .check_lengths("fmi3SetBinary", references.len(), values.len())?;
        let sizes: Vec<usize> = values.iter().map(Vec::len).collect();
        let pointers: Vec<ffi::Binary> = values.iter().map(|v| v.as_ptr()).collect();
        // SAFETY: one size and one pointer (to that many bytes) per reference.
        let status = unsafe {
            (self.binding.common.set_binary)(
                self.instance,
                references.as_ptr(),
                references.len(),
                sizes.as_ptr(),
                pointers.as_ptr(),
                pointers.len(),
            )
        };
        self.core.check("fmi3SetBinary", status)
    }

    /// Reads Clock variables (whether each clock ticks).
    pub fn get_clock(&mut self, references: &[u32]) -> Result<Vec<bool>> {
        let f = self
            .binding
            .clocks
            .as_ref()
            .map(|c| c.get_clock)
            .ok_or_else(|| self.core.unsupported("fmi3GetClock"))?;
        let mut raw = vec![0 as ffi::Clock; references.len()];
        // SAFETY: one fmi3Clock per reference is written.
        let status = unsafe {
            f(
                self.instance,
                references.as_ptr(),
                references.len(),
                raw.as_mut_ptr(),
            )
        };
        self.core.check("fmi3GetClock", status)?;
        Ok(raw.into_iter().map(|c| c != 0).collect())
    }

    /// Activates or deactivates input clocks.
    pub fn set_clock(&mut self, references: &[u32], values: &[bool]) -> Result<()> {
        let f = self
            .binding
            .clocks
            .as_ref()
            .map(|c| c.set_clock)
            .ok_or_else(|| self.core.unsupported("fmi3SetClock"))?;
        self.core
            .check_lengths("fmi3SetClock", references.len(), values.len())?;
        let raw: Vec<ffi::Clock> = values.iter().map(|&b| b as ffi::Clock).collect();
        // SAFETY: one fmi3Clock per reference is read.
        let status = unsafe {
            f(
                self.instance,
                references.as_ptr(),
                references.len(),
                raw.as_ptr(),
            )
        };
        self.core.check("fmi3SetClock", status)
    }
}

macro_rules! typed_access {
    ($($get:ident $set:ident $field:ident $t:ty, $get_name:literal $set_name:literal;)*) => {
        impl Fmu3Instance {
            $(
                #[doc = concat!("Reads values with `", $get_name, "`.")]
                pub fn $get(&mut self, references: &[u32], values: &mut [$t]) -> Result<()> {
                    let f = self.binding.common.$field.get;
                    self.get_array($get_name, references, values, f)
                }

                #[doc = concat!("Writes values with `", $set_name, "`.")]
                pub fn $set(&mut self, references: &[u32], values: &[$t]) -> Result<()> {
                    let f = self.binding.common.$field.set;
                    self.set_array($set_name, references, values, f)
                }
            )*
        }
    };
}

typed_access! {
    get_float32 set_float32 float32 f32, "fmi3GetFloat32" "fmi3SetFloat32";
    get_float64 set_float64 float64 f64, "fmi3GetFloat64" "fmi3SetFloat64";
    get_int8 set_int8 int8 i8, "fmi3GetInt8" "fmi3SetInt8";
    get_uint8 set_uint8 uint8 u8, "fmi3GetUInt8" "fmi3SetUInt8";
    get_int16 set_int16 int16 i16, "fmi3GetInt16" "fmi3SetInt16";
    get_uint16 set_uint16 uint16 u16, "fmi3GetUInt16" "fmi3SetUInt16";
    get_int32 set_int32 int32 i32, "fmi3GetInt32" "fmi3SetInt32";
    get_uint32 set_uint32 uint32 u32, "fmi3GetUInt32" "fmi3SetUInt32";
    get_int64 set_int64 int64 i64, "fmi3GetInt64" "fmi3SetInt64";
    get_uint64 set_uint64 uint64 u64, "fmi3GetUInt64" "fmi3SetUInt64";
}

impl Drop for Fmu3Instance {
    fn drop(&mut self) {
        // After a Fatal status the standard forbids every call, so the instance is leaked.
        if self.core.usable() {
            // SAFETY: the instance came from fmi3Instantiate* and is freed exactly once, before
            // the log context and the library it uses are dropped.
            unsafe { (self.binding.common.free_instance)(self.instance) };
        }
    }
}

/// Reads scalars with one typed getter and widens them into a [`Values`] variant.
macro_rules! widened {
    ($self:ident, $references:ident, $count:ident, $field:ident, $name:literal, $variant:ident) => {{
        let f = $self.binding.common.$field.get;
        Values::$variant(
            $self
                .read($name, $references, $count, f)?
                .into_iter()
                .map(Into::into)
                .collect(),
        )
    }};
}

/// Narrows integer values and writes them with one typed setter.
macro_rules! narrowed {
    ($self:ident, $ty:ident, $references:ident, $values:ident, $field:ident, $name:literal) => {{
        let values = narrow(&$self.core, $ty, $values)?;
        let f = $self.binding.common.$field.set;
        $self.set_array($name, $references, &values, f)
    }};
}

impl Common for Fmu3Instance {
    fn name(&self) -> &str {
        &self.core.name
    }

    fn fmi_version(&self) -> FmiVersion {
        FmiVersion::V3
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
        // SAFETY: plain values for a live instance.
        let status = unsafe {
            (self.binding.common.enter_initialization_mode)(
                self.instance,
                tolerance.is_some() as ffi::Boolean,
                tolerance.unwrap_or(0.0),
                start_time,
                stop_time.is_some() as ffi::Boolean,
                stop_time.unwrap_or(0.0),
            )
        };
        self.core.check("fmi3EnterInitializationMode", status)
    }

    fn exit_initialization_mode(&mut self) -> Result<()> {
        self.calls().call(
            "fmi3ExitInitializationMode",
            self.binding.common.exit_initialization_mode,
        )
    }

    fn terminate(&mut self) -> Result<()> {
        self.calls()
            .call("fmi3Terminate", self.binding.common.terminate)
    }

    fn enter_configuration_mode(&mut self) -> Result<()> {
        let f = self.binding.common.enter_configuration_mode;
        self.configuration("fmi3EnterConfigurationMode", f)
    }

    fn exit_configuration_mode(&mut self) -> Result<()> {
        let f = self.binding.common.exit_configuration_mode;
        self.configuration("fmi3ExitConfigurationMode", f)?;
        // The structural parameters size the array states and indicators: count them again.
        self.count_model_exchange_sizes()
    }

    fn reset(&mut self) -> Result<()> {
        self.calls().call("fmi3Reset", self.binding.common.reset)
    }

    fn get_real(&mut self, references: &[u32], values: &mut [f64]) -> Result<()> {
        self.get_float64(references, values)
    }

    fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<()> {
        self.set_float64(references, values)
    }

    fn get_integer(&mut self, references: &[u32], values: &mut [i32]) -> Result<()> {
        self.get_int32(references, values)
    }

    fn set_integer(&mut self, references: &[u32], values: &[i32]) -> Result<()> {
        self.set_int32(references, values)
    }

    fn get_boolean(&mut self, references: &[u32], values: &mut [bool]) -> Result<()> {
        let mut raw = vec![0 as ffi::Boolean; values.len()];
        let f = self.binding.common.boolean.get;
        self.get_array("fmi3GetBoolean", references, &mut raw, f)?;
        values
            .iter_mut()
            .zip(raw)
            .for_each(|(value, raw)| *value = raw != 0);
        Ok(())
    }

    fn set_boolean(&mut self, references: &[u32], values: &[bool]) -> Result<()> {
        let raw: Vec<ffi::Boolean> = values.iter().map(|&b| b as ffi::Boolean).collect();
        let f = self.binding.common.boolean.set;
        self.set_array("fmi3SetBoolean", references, &raw, f)
    }

    fn get_string(&mut self, references: &[u32]) -> Result<Vec<String>> {
        self.get_string_elements(references, references.len())
    }

    fn set_string(&mut self, references: &[u32], values: &[String]) -> Result<()> {
        let owned: Vec<CString> = values
            .iter()
            .map(|v| c_text(v, &format!("instance {}", self.core.name)))
            .collect::<Result<_>>()?;
        let pointers: Vec<ffi::FmiString> = owned.iter().map(|s| s.as_ptr()).collect();
        let f = self.binding.common.string.set;
        self.set_array("fmi3SetString", references, &pointers, f)
    }

    fn get_values(&mut self, ty: VariableType, references: &[u32]) -> Result<Values> {
        self.get_elements(ty, references, references.len())
    }

    fn get_elements(
        &mut self,
        ty: VariableType,
        references: &[u32],
        count: usize,
    ) -> Result<Values> {
        use VariableType::*;
        Ok(match ty {
            Float32 => widened!(self, references, count, float32, "fmi3GetFloat32", Float),
            Float64 => widened!(self, references, count, float64, "fmi3GetFloat64", Float),
            Int8 => widened!(self, references, count, int8, "fmi3GetInt8", Int),
            UInt8 => widened!(self, references, count, uint8, "fmi3GetUInt8", UInt),
            Int16 => widened!(self, references, count, int16, "fmi3GetInt16", Int),
            UInt16 => widened!(self, references, count, uint16, "fmi3GetUInt16", UInt),
            Int32 => widened!(self, references, count, int32, "fmi3GetInt32", Int),
            UInt32 => widened!(self, references, count, uint32, "fmi3GetUInt32", UInt),
            Int64 | Enumeration => widened!(self, references, count, int64, "fmi3GetInt64", Int),
            UInt64 => widened!(self, references, count, uint64, "fmi3GetUInt64", UInt),
            Boolean => {
                let mut values = vec![false; count];
                self.get_boolean(references, &mut values)?;
                Values::Bool(values)
            }
            String => Values::String(self.get_string_elements(references, count)?),
            // Binary and Clock arrays are read by nothing in the master.
            Binary | Clock if count != references.len() => {
                return Err(Error::InvalidValue {
                    item: format!("instance {}", self.core.name),
                    message: format!("{ty} arrays cannot be read"),
                })
            }
            Binary => Values::Binary(self.get_binary(references)?),
            Clock => Values::Bool(self.get_clock(references)?),
        })
    }

    fn set_values(&mut self, ty: VariableType, references: &[u32], values: &Values) -> Result<()> {
        use VariableType::*;
        match (ty, values) {
            (Float32, Values::Float(v)) => {
                self.set_float32(references, &v.iter().map(|&x| x as f32).collect::<Vec<_>>())
            }
            (Float64, Values::Float(v)) => self.set_float64(references, v),
            (Int8, _) => narrowed!(self, ty, references, values, int8, "fmi3SetInt8"),
            (UInt8, _) => narrowed!(self, ty, references, values, uint8, "fmi3SetUInt8"),
            (Int16, _) => narrowed!(self, ty, references, values, int16, "fmi3SetInt16"),
            (UInt16, _) => narrowed!(self, ty, references, values, uint16, "fmi3SetUInt16"),
            (Int32, _) => narrowed!(self, ty, references, values, int32, "fmi3SetInt32"),
            (UInt32, _) => narrowed!(self, ty, references, values, uint32, "fmi3SetUInt32"),
            (Int64 | Enumeration, _) => {
                narrowed!(self, ty, references, values, int64, "fmi3SetInt64")
            }
            (UInt64, _) => narrowed!(self, ty, references, values, uint64, "fmi3SetUInt64"),
            (Boolean, Values::Bool(v)) => self.set_boolean(references, v),
            (String, Values::String(v)) => self.set_string(references, v),
            (Binary, Values::Binary(v)) => self.set_binary(references, v),
            (Clock, Values::Bool(v)) => self.set_clock(references, v),
            _ => Err(super::mismatch(&self.core, ty, values)),
        }
    }

    fn enter_event_mode(&mut self) -> Result<()> {
        self.calls()
            .call("fmi3EnterEventMode", self.binding.common.enter_event_mode)
    }

    fn update_discrete_states(&mut self) -> Result<EventUpdate> {
        let f = self
            .binding
            .update_discrete_states
            .ok_or_else(|| self.core.unsupported("fmi3UpdateDiscreteStates"))?;
        let (mut again, mut terminate, mut nominals, mut values, mut defined, mut next) =
            (0, 0, 0, 0, 0, 0.0);
        // SAFETY: six outputs of the declared types.
        let status = unsafe {
            f(
                self.instance,
                &mut again,
                &mut terminate,
                &mut nominals,
                &mut values,
                &mut defined,
                &mut next,
            )
        };
        self.core.check("fmi3UpdateDiscreteStates", status)?;
        Ok(EventUpdate {
            discrete_states_need_update: again != 0,
            terminate: terminate != 0,
            nominals_changed: nominals != 0,
            values_changed: values != 0,
            next_event_time: (defined != 0).then_some(next),
        })
    }
}

impl CoSimulationInstance for Fmu3Instance {
    fn do_step(&mut self, time: f64, step: f64) -> Result<StepOutcome> {
        let do_step = self
            .binding
            .co_simulation
            .as_ref()
            .map(|cs| cs.do_step)
            .ok_or_else(|| self.core.unsupported("fmi3DoStep"))?;
        let (mut event, mut terminate, mut early, mut last_time) = (0, 0, 0, time);
        // SAFETY: four outputs of the declared types.
        let status = unsafe {
            do_step(
                self.instance,
                time,
                step,
                1,
                &mut event,
                &mut terminate,
                &mut early,
                &mut last_time,
            )
        };
        let outcome = |partial| StepOutcome {
            terminate: terminate != 0,
            partial,
            last_time,
            event_handling_needed: event != 0,
        };
        match status {
            ffi::Status::Ok | ffi::Status::Warning if early == 0 => {
                Ok(outcome(false).with_time(time + step))
            }
            ffi::Status::Ok | ffi::Status::Warning => Ok(outcome(true)),
            ffi::Status::Discard if terminate != 0 || last_time > time => Ok(outcome(true)),
            _ => Err(self.core.call_error("fmi3DoStep", status)),
        }
    }
}

impl ModelExchangeInstance for Fmu3Instance {
    fn enter_continuous_time_mode(&mut self) -> Result<()> {
        let f = self
            .me("fmi3EnterContinuousTimeMode")?
            .enter_continuous_time_mode;
        self.calls().call("fmi3EnterContinuousTimeMode", f)
    }

    fn completed_integrator_step(
        &mut self,
        no_set_state_prior: bool,
    ) -> Result<IntegratorStepOutcome> {
        let function = "fmi3CompletedIntegratorStep";
        let f = self.me(function)?.completed_integrator_step;
        self.calls()
            .completed_integrator_step(function, f, no_set_state_prior)
    }

    fn set_time(&mut self, time: f64) -> Result<()> {
        let f = self.me("fmi3SetTime")?.set_time;
        self.calls().set_time("fmi3SetTime", f, time)
    }

    fn set_continuous_states(&mut self, states: &[f64]) -> Result<()> {
        let function = "fmi3SetContinuousStates";
        let f = self.me(function)?.set_continuous_states;
        self.calls().set_continuous_states(function, f, states)
    }

    fn get_continuous_states(&mut self, states: &mut [f64]) -> Result<()> {
        let f = self.me("fmi3GetContinuousStates")?.get_continuous_states;
        self.calls().fill("fmi3GetContinuousStates", states, f)
    }

    fn get_derivatives(&mut self, derivatives: &mut [f64]) -> Result<()> {
        let f = self
            .me("fmi3GetContinuousStateDerivatives")?
            .get_continuous_state_derivatives;
        self.calls()
            .fill("fmi3GetContinuousStateDerivatives", derivatives, f)
    }

    fn get_event_indicators(&mut self, indicators: &mut [f64]) -> Result<()> {
        let f = self.me("fmi3GetEventIndicators")?.get_event_indicators;
        self.calls().fill("fmi3GetEventIndicators", indicators, f)
    }

    fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<()> {
        let f = self
            .me("fmi3GetNominalsOfContinuousStates")?
            .get_nominals_of_continuous_states;
        self.calls()
            .fill("fmi3GetNominalsOfContinuousStates", nominals, f)
    }

    fn number_of_continuous_states(&self) -> usize {
        self.states
    }

    fn number_of_event_indicators(&self) -> usize {
        self.event_indicators
    }
}

impl PartialDerivatives for Fmu3Instance {
    fn get_directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        self.derivative(
            "fmi3GetDirectionalDerivative",
            self.binding.get_directional_derivative,
            unknowns,
            knowns,
            seed,
            sensitivity,
        )
    }

    fn get_adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        self.derivative(
            "fmi3GetAdjointDerivative",
            self.binding.get_adjoint_derivative,
            unknowns,
            knowns,
            seed,
            sensitivity,
        )
    }

    fn provides_jacobian_adjoint_derivative(&self) -> bool {
        Fmu3Instance::provides_jacobian_adjoint_derivative(self)
    }

    fn get_jacobian_adjoint_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<()> {
        Fmu3Instance::get_jacobian_adjoint_derivative(self, unknowns, knowns, seed, sensitivity)
    }

    fn step_derivatives(&mut self) -> Option<&mut dyn StepDerivatives> {
        if self.provides_step_derivatives() {
            Some(self)
        } else {
            None
        }
    }
}

impl FmuStates for Fmu3Instance {
    fn get_fmu_state(&mut self) -> Result<FmuState> {
        let f = self.state_functions("fmi3GetFMUState")?.get;
        self.calls().get_fmu_state("fmi3GetFMUState", f)
    }

    fn set_fmu_state(&mut self, state: &FmuState) -> Result<()> {
        let f = self.state_functions("fmi3SetFMUState")?.set;
        self.calls().set_fmu_state("fmi3SetFMUState", f, state)
    }

    fn free_fmu_state(&mut self, state: FmuState) -> Result<()> {
        let f = self.state_functions("fmi3FreeFMUState")?.free;
        self.calls().free_fmu_state("fmi3FreeFMUState", f, state)
    }

    fn serialize_fmu_state(&mut self, state: &FmuState) -> Result<Vec<u8>> {
        let functions = self.state_functions("fmi3SerializeFMUState")?;
        let (size_of, serialize) = functions
            .serialized_size
            .zip(functions.serialize)
            .ok_or_else(|| self.core.unsupported("fmi3SerializeFMUState"))?;
        let names = ("fmi3SerializedFMUStateSize", "fmi3SerializeFMUState");
        self.calls()
            .serialize_fmu_state(names, size_of, serialize, state)
    }

    fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> Result<FmuState> {
        let f = self
            .state_functions("fmi3DeserializeFMUState")?
            .deserialize
            .ok_or_else(|| self.core.unsupported("fmi3DeserializeFMUState"))?;
        self.calls()
            .deserialize_fmu_state("fmi3DeserializeFMUState", f, bytes)
    }
}
