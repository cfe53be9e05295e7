//! What the three instantiate functions of FMI 3.0 share (the instance's name, the FMU's
//! token and resources, logging, the log context), and the Model Exchange and Co-Simulation
//! calls made from it. Scheduled Execution adds its own callbacks
//! (`scheduled_execution::instantiate`).

use std::ffi::{c_void, CStr};

use crate::binding::fmi3::{self as ffi, Instance};
use crate::instance::logging;

/// The texts and settings every `fmi3Instantiate*` function takes.
pub(super) struct Instantiation<'a> {
    /// The instance's name.
    pub name: &'a CStr,
    /// The model description's `instantiationToken`.
    pub token: &'a CStr,
    /// The URI of the unpacked resources folder.
    pub resources: &'a CStr,
    /// Whether the FMU logs at all.
    pub logging_on: ffi::Boolean,
    /// The instance's log context (the core's environment pointer).
    pub log: *mut c_void,
}

impl Instantiation<'_> {
    /// Creates a Model Exchange instance with `f` (`fmi3InstantiateModelExchange`); NULL when
    /// the FMU refuses.
    pub(super) fn model_exchange(&self, f: ffi::InstantiateModelExchange) -> Instance {
        // SAFETY: NUL-terminated strings that outlive the call; the environment is the boxed
        // log context, kept until after fmi3FreeInstance.
        unsafe {
            f(
                self.name.as_ptr(),
                self.token.as_ptr(),
                self.resources.as_ptr(),
                0,
                self.logging_on,
                self.log,
                Some(logging::fmi3_logger as ffi::LogMessageCallback),
            )
        }
    }

    /// Creates a Co-Simulation instance with `f` (`fmi3InstantiateCoSimulation`), without
    /// intermediate variables, event mode, early return or intermediate update callback; NULL
    /// when the FMU refuses.
    pub(super) fn co_simulation(&self, f: ffi::InstantiateCoSimulation) -> Instance {
        // SAFETY: as for `model_exchange`; no intermediate variables is a null array of
        // length 0.
        unsafe {
            f(
                self.name.as_ptr(),
                self.token.as_ptr(),
                self.resources.as_ptr(),
                0,
                self.logging_on,
                0,
                0,
                std::ptr::null(),
                0,
                self.log,
                Some(logging::fmi3_logger as ffi::LogMessageCallback),
                None,
            )
        }
    }
}
