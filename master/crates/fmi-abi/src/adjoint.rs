//! Tandem's adjoint extension `org.tandem.adjoint` (docs/adjoint-extension.md): where its
//! manifest lies, its version and capabilities, and the C types of its `tandem*` functions,
//! which an FMI 3.0 binary exports beside the standard ones.

use crate::fmi3::{Float64, Instance, Status};

/// The extension's name.
pub const EXTENSION: &str = "org.tandem.adjoint";

/// Where the manifest lies inside an FMU (FMI 3.0 reserves `extra/` for such files).
pub const MANIFEST: &str = "extra/org.tandem.adjoint/manifest.xml";

/// The version of the extension this ABI describes.
pub const VERSION: u32 = 1;

/// The capability of `tandemKeepStepLinearizations`.
pub const KEEP_STEP_LINEARIZATIONS: &str = "keepStepLinearizations";

/// The capability of `tandemGetJacobianAdjointDerivative`.
pub const JACOBIAN_ADJOINT_DERIVATIVE: &str = "jacobianAdjointDerivative";

/// `tandemGetStateSize`.
pub type GetStateSize = unsafe extern "C" fn(Instance, *mut usize) -> Status;
/// `tandemGetState`.
pub type GetState = unsafe extern "C" fn(Instance, *mut Float64, usize) -> Status;
/// `tandemStepJvp`.
pub type StepJvp = unsafe extern "C" fn(
    Instance,
    Float64,
    *const Float64,
    usize,
    *const Float64,
    usize,
    *const Float64,
    usize,
    *mut Float64,
    *mut Float64,
    usize,
) -> Status;
/// `tandemStepVjp`.
pub type StepVjp = unsafe extern "C" fn(
    Instance,
    Float64,
    *const Float64,
    usize,
    *const Float64,
    usize,
    *mut Float64,
    *mut Float64,
    usize,
    *mut Float64,
    usize,
) -> Status;
/// `tandemInitializationVjp`.
pub type InitializationVjp = unsafe extern "C" fn(
    Instance,
    *const Float64,
    usize,
    *const Float64,
    usize,
    *mut Float64,
    usize,
    *mut Float64,
    usize,
) -> Status;
/// `tandemOutputVjp`.
pub type OutputVjp = unsafe extern "C" fn(
    Instance,
    *const Float64,
    usize,
    *mut Float64,
    usize,
    *mut Float64,
    usize,
    *mut Float64,
    usize,
) -> Status;
/// `tandemKeepStepLinearizations`.
pub type KeepStepLinearizations = unsafe extern "C" fn(Instance, usize) -> Status;
/// `tandemGetJacobianAdjointDerivative` has the signature of
/// [`crate::fmi3::DerivativeFunction`].
pub type GetJacobianAdjointDerivative = crate::fmi3::DerivativeFunction;
