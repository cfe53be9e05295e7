//! Equations of the benchmarks of Rodríguez et al., "Energy-based monitoring and correction to
//! enhance the accuracy and stability of explicit co-simulation", Multibody Syst Dyn 55 (2022),
//! written once, generic over the scalar type, and shared by the model crates that export them.
//!
//! A benchmark is split into subsystems, each its own FMU crate, and some also have a
//! monolithic reference model. Those crates cannot depend on one another: each exports the
//! same `fmi*` symbols, so linking two of them into one library fails. The equations they
//! share therefore live here, in a plain library that is not an FMU (`cargo xtask fmus` skips
//! crates under `models/` that have neither a cdylib nor a describe program).
//!
//! | Module | Benchmark | Used by |
//! |---|---|---|
//! | [`oscillator_mass`] | linear, n-DOF and nonlinear oscillators (Sects. 3.3, 4.1, 4.2) | `mass`, `coupled-mass`, `summing-mass`, `nonlinear-coupled-mass`, `nonlinear-mass` |
//! | [`nonlinear_laws`] | double nonlinear oscillator (Sect. 4.2) | `nonlinear-coupled-mass`, `nonlinear-mass` |
//! | [`pendulum`], [`planar_spring`] | coupled pendula (Sect. 4.3) | `coupled-pendulum`, `pendulum` |
//! | [`crane`] | hydraulic crane (Sect. 4.4) | `crane-arm`, `crane-cylinder`, `crane` |

pub mod crane;
pub mod nonlinear_laws;
pub mod oscillator_mass;
pub mod pendulum;
pub mod planar_spring;
