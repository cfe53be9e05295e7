//! Control co-design with the coupled adjoint (He, Kaneko, Howell, Li, Martins): a plant
//! design d is scored by the finite-horizon cost of its nonlinear plant under the LQR designed
//! at its (possibly solved-for) target, and df/dd comes from one adjoint pass whose cost does
//! not grow with the number of design parameters.
//!
//! [`analysis::analyze`] is Algorithm 1, [`adjoint::gradient`] Algorithm 2; both work on any
//! [`plant::Plant`].

pub mod adjoint;
pub mod analysis;
pub mod care;
pub mod direct;
pub mod error;
pub mod first_order;
pub mod fmu_plant;
pub mod lyapunov;
pub mod optimize;
pub mod plant;
pub mod problem;
pub mod problem_file;
#[cfg(test)]
mod reference_tests;
#[cfg(test)]
mod test_util;

pub use adjoint::{central_differences, gradient, Gradient};
pub use analysis::{analyze, Analysis};
pub use error::CodesignError;
pub use plant::{Adjoints, Dims, Plant};
pub use problem::Problem;
