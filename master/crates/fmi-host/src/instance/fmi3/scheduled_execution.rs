//! The Scheduled Execution side of an FMI 3.0 instance: instantiation with the clock-update
//! and preemption callbacks, model partition activation, and the clock queries the master's
//! scheduler needs (intervals, shifts).

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicBool, Ordering};

use super::instantiation::Instantiation;
use super::Fmu3Instance;
use crate::binding::fmi3::{self as ffi, Instance, ScheduledExecutionFunctions};
use crate::error::{Error, Result};
use crate::instance::logging;

/// What `fmi3GetIntervalDecimal` said about a clock's interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClockInterval {
    /// `fmi3IntervalNotYetKnown`: a countdown clock the FMU cannot schedule yet.
    NotYetKnown,
    /// `fmi3IntervalUnchanged`: the interval last reported still holds (the value is the
    /// FMU's, defined only for clocks that reported one before).
    Unchanged(f64),
    /// `fmi3IntervalChanged`: schedule (or re-schedule) the clock by this interval.
    Changed(f64),
}

/// The instance environment of a Scheduled Execution instance. The FMU hands the same pointer
/// to the log and the clock-update callbacks, so it holds both the log context and the flag
/// the clock-update callback raises.
pub(super) struct ScheduledEnvironment {
    /// The instance's log context, boxed in its core and freed after the instance.
    log: *const c_void,
    /// Raised by the FMU (`fmi3ClockUpdateCallback`) when an output clock ticked or a
    /// countdown clock has a new interval; lowered by the master when it has asked.
    clock_update: AtomicBool,
}

/// Forwards a message to the log context of the environment.
///
/// # Safety
/// Called by the FMU with the `ScheduledEnvironment` it was given at instantiation.
unsafe extern "C" fn scheduled_logger(
    environment: *mut c_void,
    status: ffi::Status,
    category: *const c_char,
    message: *const c_char,
) {
    // SAFETY: the environment is the boxed `ScheduledEnvironment` the instance keeps until
    // after fmi3FreeInstance; its `log` is the instance's live log context.
    unsafe {
        if let Some(environment) = (environment as *const ScheduledEnvironment).as_ref() {
            logging::fmi3_logger(environment.log as *mut c_void, status, category, message);
        }
    }
}

/// `fmi3ClockUpdateCallback`: only raises the flag. The master runs one partition at a time,
/// so it asks for the output clocks and countdown intervals as soon as the activation
/// returns, instead of calling into the FMU from inside one of its own calls.
///
/// # Safety
/// Called by the FMU with the `ScheduledEnvironment` it was given at instantiation.
unsafe extern "C" fn clock_update(environment: *mut c_void) {
    // SAFETY: as for `scheduled_logger`.
    unsafe {
        if let Some(environment) = (environment as *const ScheduledEnvironment).as_ref() {
            environment.clock_update.store(true, Ordering::SeqCst);
        }
    }
}

/// `fmi3LockPreemptionCallback`: the master never preempts a partition (it activates them one
/// after the other on one thread), so there is nothing to lock.
unsafe extern "C" fn lock_preemption() {}

/// `fmi3UnlockPreemptionCallback`: see [`lock_preemption`].
unsafe extern "C" fn unlock_preemption() {}

/// Creates the instance with fmi3InstantiateScheduledExecution; the environment returned must
/// outlive it.
pub(super) fn instantiate(
    functions: &ScheduledExecutionFunctions,
    texts: Instantiation<'_>,
) -> (Instance, Box<ScheduledEnvironment>) {
    let environment = Box::new(ScheduledEnvironment {
        log: texts.log,
        clock_update: AtomicBool::new(false),
    });
    let pointer = &*environment as *const ScheduledEnvironment as *mut c_void;
    // SAFETY: NUL-terminated strings that outlive the call; the environment is boxed and kept
    // by the instance until after fmi3FreeInstance; the callbacks match fmi3FunctionTypes.h.
    let instance = unsafe {
        (functions.instantiate)(
            texts.name.as_ptr(),
            texts.token.as_ptr(),
            texts.resources.as_ptr(),
            0,
            texts.logging_on,
            pointer,
            Some(scheduled_logger as ffi::LogMessageCallback),
            Some(clock_update as ffi::ClockUpdateCallback),
            Some(lock_preemption as ffi::PreemptionCallback),
            Some(unlock_preemption as ffi::PreemptionCallback),
        )
    };
    (instance, environment)
}

impl Fmu3Instance {
    fn scheduled_functions(&self, function: &'static str) -> Result<&ScheduledExecutionFunctions> {
        self.core
            .provided(self.binding.scheduled_execution.as_ref(), function)
    }

    /// Runs the model partition of the input clock `clock` for the tick at `time`
    /// (`fmi3ActivateModelPartition`).
    pub fn activate_model_partition(&mut self, clock: u32, time: f64) -> Result<()> {
        let f = self
            .scheduled_functions("fmi3ActivateModelPartition")?
            .activate_model_partition;
        let instance = self.instance;
        // The partition does the FMU's work: a crash inside it is reported with its time.
        let status = crate::instance::crash::guarded(
            &self.core.name,
            "fmi3ActivateModelPartition",
            time,
            // SAFETY: plain values for a live instance.
            || unsafe { f(instance, clock, time) },
        );
        // The standard has Scheduled Execution treat Discard as Error; `check` refuses both.
        self.core.check("fmi3ActivateModelPartition", status)
    }

    /// Whether the FMU called the clock-update callback since the last call of this function
    /// (then the master asks for output clocks and countdown intervals).
    pub fn take_clock_update(&self) -> bool {
        self.scheduled
            .as_ref()
            .is_some_and(|environment| environment.clock_update.swap(false, Ordering::SeqCst))
    }

    /// The intervals of `clocks` (`fmi3GetIntervalDecimal`).
    pub fn get_interval_decimal(&mut self, clocks: &[u32]) -> Result<Vec<ClockInterval>> {
        let f = self
            .binding
            .clocks
            .as_ref()
            .and_then(|c| c.get_interval_decimal)
            .ok_or_else(|| self.core.unsupported("fmi3GetIntervalDecimal"))?;
        let mut intervals = vec![0.0; clocks.len()];
        let mut qualifiers = vec![ffi::INTERVAL_NOT_YET_KNOWN; clocks.len()];
        // SAFETY: one interval and one qualifier per reference are written.
        let status = unsafe {
            f(
                self.instance,
                clocks.as_ptr(),
                clocks.len(),
                intervals.as_mut_ptr(),
                qualifiers.as_mut_ptr(),
            )
        };
        self.core.check("fmi3GetIntervalDecimal", status)?;
        intervals
            .into_iter()
            .zip(qualifiers)
            .map(|(interval, qualifier)| match qualifier {
                ffi::INTERVAL_NOT_YET_KNOWN => Ok(ClockInterval::NotYetKnown),
                ffi::INTERVAL_UNCHANGED => Ok(ClockInterval::Unchanged(interval)),
                ffi::INTERVAL_CHANGED => Ok(ClockInterval::Changed(interval)),
                other => Err(Error::InvalidValue {
                    item: format!("instance {}: fmi3GetIntervalDecimal", self.core.name),
                    message: format!(
                        "returned the interval qualifier {other}, which is none of \
                                      fmi3IntervalNotYetKnown, fmi3IntervalUnchanged and \
                                      fmi3IntervalChanged"
                    ),
                }),
            })
            .collect()
    }

    /// The shifts of `clocks`: the delay of their first tick after the start
    /// (`fmi3GetShiftDecimal`).
    pub fn get_shift_decimal(&mut self, clocks: &[u32]) -> Result<Vec<f64>> {
        let f = self
            .binding
            .clocks
            .as_ref()
            .and_then(|c| c.get_shift_decimal)
            .ok_or_else(|| self.core.unsupported("fmi3GetShiftDecimal"))?;
        let mut shifts = vec![0.0; clocks.len()];
        // SAFETY: one shift per reference is written.
        let status = unsafe {
            f(
                self.instance,
                clocks.as_ptr(),
                clocks.len(),
                shifts.as_mut_ptr(),
            )
        };
        self.core.check("fmi3GetShiftDecimal", status)?;
        Ok(shifts)
    }
}
