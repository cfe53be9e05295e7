//! The hydraulic crane of Rodríguez et al. (2022, Sect. 4.4), the 2-DOF hydraulic manipulator
//! of the LIM co-simulation benchmarks (Universidade da Coruña): a planar arm (link 1 with a
//! distributed mass and a point mass at its end, massless link 2 with a point mass at its
//! end) lifted by one hydraulic cylinder whose valve follows a prescribed spool manoeuvre.
//!
//! The parameter values are those of the LIM benchmark definition (mechanical and hydraulic
//! tables); the equations follow its reference code, which differs from its printed document
//! in the mass matrix and gravity terms (only the code reproduces the published initial
//! force of 8829 N).
//!
//! | Module | Holds |
//! |---|---|
//! | [`arm`] | the mechanics in the minimal coordinates `theta1, theta2`, the actuator kinematics |
//! | [`cylinder`] | the cylinder's chamber pressures, valve flows and force |
//! | [`manoeuvre`] | the spool displacement as a function of time (step and sinusoidal manoeuvres) |
//! | [`equilibrium`] | the static initial state: actuator force, pressures, spool displacement |
//! | [`signals`] | the variables the crane's models exchange and report |

pub mod arm;
pub mod cylinder;
pub mod equilibrium;
pub mod manoeuvre;
pub mod signals;
