//! The calls FMI 2.0 and FMI 3.0 make alike: the same arguments in the same order, differing
//! only in the functions' names, the status type and the width of the C boolean. Each is
//! written once here, generic over those, and the two instance types pass their function
//! pointer and its name.

use std::ffi::{c_int, c_void};

use super::{FmuState, InstanceCore, IntegratorStepOutcome};
use crate::error::Result;

/// A live instance handle (`fmi2Component` or `fmi3Instance`) with the core that checks
/// what its calls return.
pub(super) struct Calls<'a> {
    core: &'a InstanceCore,
    handle: *mut c_void,
}

impl<'a> Calls<'a> {
    /// The calls of the instance `handle`, which must stay live while they are made.
    pub(super) fn new(core: &'a InstanceCore, handle: *mut c_void) -> Self {
        Calls { core, handle }
    }

    /// A function that takes only the instance (`fmi3EnterEventMode`, `fmi2Reset`, ...).
    pub(super) fn call<S: Into<c_int>>(
        &self,
        function: &'static str,
        f: unsafe extern "C" fn(*mut c_void) -> S,
    ) -> Result<()> {
        // SAFETY: the handle is live (see `new`); the function takes only the handle.
        let status = unsafe { f(self.handle) };
        self.core.check(function, status)
    }

    /// A function that fills a state-sized or indicator-sized array.
    pub(super) fn fill<S: Into<c_int>>(
        &self,
        function: &'static str,
        values: &mut [f64],
        f: unsafe extern "C" fn(*mut c_void, *mut f64, usize) -> S,
    ) -> Result<()> {
        // SAFETY: the FMU writes `values.len()` elements.
        let status = unsafe { f(self.handle, values.as_mut_ptr(), values.len()) };
        self.core.check(function, status)
    }

    /// `fmi2SetTime` / `fmi3SetTime`.
    pub(super) fn set_time<S: Into<c_int>>(
        &self,
        function: &'static str,
        f: unsafe extern "C" fn(*mut c_void, f64) -> S,
        time: f64,
    ) -> Result<()> {
        // SAFETY: a plain value for a live instance.
        let status = unsafe { f(self.handle, time) };
        self.core.check(function, status)
    }

    /// `fmi2SetContinuousStates` / `fmi3SetContinuousStates`.
    pub(super) fn set_continuous_states<S: Into<c_int>>(
        &self,
        function: &'static str,
        f: unsafe extern "C" fn(*mut c_void, *const f64, usize) -> S,
        states: &[f64],
    ) -> Result<()> {
        // SAFETY: the FMU reads `states.len()` elements.
        let status = unsafe { f(self.handle, states.as_ptr(), states.len()) };
        self.core.check(function, status)
    }

    /// `fmi2CompletedIntegratorStep` / `fmi3CompletedIntegratorStep`, whose booleans are an
    /// `int` and a byte.
    pub(super) fn completed_integrator_step<B, S>(
        &self,
        function: &'static str,
        f: unsafe extern "C" fn(*mut c_void, B, *mut B, *mut B) -> S,
        no_set_state_prior: bool,
    ) -> Result<IntegratorStepOutcome>
    where
        B: Copy + Default + PartialEq + From<bool>,
        S: Into<c_int>,
    {
        let (mut enter, mut terminate) = (B::default(), B::default());
        // SAFETY: two booleans of the standard's type are written.
        let status = unsafe {
            f(
                self.handle,
                B::from(no_set_state_prior),
                &mut enter,
                &mut terminate,
            )
        };
        self.core.check(function, status)?;
        Ok(IntegratorStepOutcome {
            enter_event_mode: enter != B::default(),
            terminate: terminate != B::default(),
        })
    }

    /// `fmi2GetFMUstate` / `fmi3GetFMUState`.
    pub(super) fn get_fmu_state<S: Into<c_int>>(
        &self,
        function: &'static str,
        f: unsafe extern "C" fn(*mut c_void, *mut *mut c_void) -> S,
    ) -> Result<FmuState> {
        let mut pointer = std::ptr::null_mut();
        // SAFETY: the FMU writes one state pointer.
        let status = unsafe { f(self.handle, &mut pointer) };
        self.core.check(function, status)?;
        Ok(self.core.wrap_state(pointer))
    }

    /// `fmi2SetFMUstate` / `fmi3SetFMUState`.
    pub(super) fn set_fmu_state<S: Into<c_int>>(
        &self,
        function: &'static str,
        f: unsafe extern "C" fn(*mut c_void, *mut c_void) -> S,
        state: &FmuState,
    ) -> Result<()> {
        let pointer = self.core.own_state(state)?;
        // SAFETY: the state was created by this instance and not yet freed (it is borrowed).
        let status = unsafe { f(self.handle, pointer) };
        self.core.check(function, status)
    }

    /// `fmi2FreeFMUstate` / `fmi3FreeFMUState`.
    pub(super) fn free_fmu_state<S: Into<c_int>>(
        &self,
        function: &'static str,
        f: unsafe extern "C" fn(*mut c_void, *mut *mut c_void) -> S,
        state: FmuState,
    ) -> Result<()> {
        let mut pointer = self.core.own_state(&state)?;
        // SAFETY: the state belongs to this instance and is consumed here, so it is freed once.
        let status = unsafe { f(self.handle, &mut pointer) };
        self.core.check(function, status)
    }

    /// The serialized bytes of `state`: its size from `size_of` (named `size_function`),
    /// then the bytes from `serialize` (named `function`). `B` is the standard's byte type.
    pub(super) fn serialize_fmu_state<B, S: Into<c_int>>(
        &self,
        (size_function, function): (&'static str, &'static str),
        size_of: unsafe extern "C" fn(*mut c_void, *mut c_void, *mut usize) -> S,
        serialize: unsafe extern "C" fn(*mut c_void, *mut c_void, *mut B, usize) -> S,
        state: &FmuState,
    ) -> Result<Vec<u8>> {
        let pointer = self.core.own_state(state)?;
        let mut size = 0;
        // SAFETY: the state belongs to this instance; one size_t is written.
        let status = unsafe { size_of(self.handle, pointer, &mut size) };
        self.core.check(size_function, status)?;
        let mut bytes = vec![0u8; size];
        // SAFETY: the buffer has the size the FMU asked for; both byte types are one byte.
        let status = unsafe { serialize(self.handle, pointer, bytes.as_mut_ptr().cast(), size) };
        self.core.check(function, status)?;
        Ok(bytes)
    }

    /// A state made from serialized bytes. `B` is the standard's byte type.
    pub(super) fn deserialize_fmu_state<B, S: Into<c_int>>(
        &self,
        function: &'static str,
        f: unsafe extern "C" fn(*mut c_void, *const B, usize, *mut *mut c_void) -> S,
        bytes: &[u8],
    ) -> Result<FmuState> {
        let mut pointer = std::ptr::null_mut();
        // SAFETY: the FMU reads `bytes.len()` bytes (both byte types are one byte) and writes
        // one state pointer.
        let status = unsafe {
            f(
                self.handle,
                bytes.as_ptr().cast(),
                bytes.len(),
                &mut pointer,
            )
        };
        self.core.check(function, status)?;
        Ok(self.core.wrap_state(pointer))
    }
}
