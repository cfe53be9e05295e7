//! The variables the crane's models exchange and report, each declared once so that the
//! subsystems (`crane-arm`, `crane-cylinder`) and the monolithic `crane` name, describe and
//! scale them alike: the arm's actuator length and rate feed the cylinder, whose force drives
//! the arm.

use fmu_export::Var;

/// The actuator length `s_c` (m), starting at `start`.
pub fn actuator_length(start: f64) -> Var {
    Var::new("s_c", start)
        .unit("m")
        .description("actuator length")
}

/// The actuator extension rate `s_c_dot` (m/s), starting at `start`.
pub fn actuator_rate(start: f64) -> Var {
    Var::new("s_c_dot", start)
        .unit("m/s")
        .description("actuator extension rate")
}

/// The actuator force `f` (N, positive extending), starting at `start`.
pub fn actuator_force(start: f64) -> Var {
    Var::new("f", start)
        .unit("N")
        .nominal(1e4)
        .description("actuator force, positive extending")
}

/// The spool displacement `gamma` (dimensionless).
pub fn spool() -> Var {
    Var::new("gamma", 0.0).description("spool displacement")
}

/// The arm's mechanical energy (J).
pub fn arm_energy() -> Var {
    Var::new("energy", 0.0)
        .unit("J")
        .description("kinetic plus gravitational energy of the arm, from the pivot's height")
}
