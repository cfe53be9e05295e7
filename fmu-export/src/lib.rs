//! Write a model once in Rust, generic over the scalar type, and export it as FMI 2.0 and
//! FMI 3.0 FMUs (Model Exchange and Co-Simulation) with exact directional and adjoint
//! derivatives, FMU state, and embedded co-simulation integrators.
//!
//! A model crate implements [`OdeModel`] or [`MechanicalModel`] and calls the export macro
//! once; `cargo xtask fmus` packages it.
//!
//! Forward sensitivities: a declaration's
//! [`sensitivities`](Declaration::sensitivities) list adds, for every listed parameter `p` and
//! continuous output `y`, the local variable `'d(y)/d(p)'` (an FMI quoted name, see
//! [`variables::sensitivity_name`]), which the co-simulation integrator propagates exactly
//! through every doStep, events included ([`instance::sensitivity`]); in Model Exchange getting
//! it is an Error.
//!
//! Array parameters: [`Declaration::parameter_array`] declares consecutive real parameters with
//! a shape, FMI 3.0 arrays and FMI 2.0 scalars `A[i,j]`; the FMI 3.0 C ABI translates array value
//! references into the elements' entries in one place ([`ffi::references`]), and the export
//! checks the declaration first ([`validation`]).

pub mod adjoint;
pub mod capabilities;
pub mod declaration;
pub mod describe;
pub mod description;
pub mod export;
pub mod ffi;
pub mod fmi2;
pub mod fmi3;
pub mod instance;
pub mod integrators;
pub mod jacobian;
pub mod linear;
pub mod mechanical_system;
pub mod mechanics;
pub mod ode;
pub mod ode_system;
pub mod reverse;
pub mod scalar;
pub mod small;
pub mod system;
pub mod token;
pub mod validation;
pub mod variables;

/// The C ABI of FMI 2.0 and 3.0 and of the adjoint extension, declared once for the exporter
/// and the host (the export macro checks every exported function against it).
pub use fmi_abi as abi;

pub use declaration::{
    CoSimulation, Declaration, Discrete, DiscreteRole, DiscreteType, Experiment, Method, Parameter,
    ParameterArray, StringRole, StringVariable, Tunability, Var,
};
pub use mechanical_system::MechanicalSystem;
pub use mechanics::{MechArgs, MechanicalModel};
pub use ode::{Args, Crossing, Event, OdeModel};
pub use ode_system::OdeSystem;
pub use scalar::{DualNum, Scalar};
pub use system::{Integrator, StepError, StepInputs, StepReport, System};
