//! The one-degree-of-freedom mass that the oscillator benchmarks of Rodríguez et al. (2022,
//! Sects. 3.3, 4.1 and 4.2) are split into: a mass `m` at position `x`, moving at `v`, on a
//! spring-damper to ground, sometimes coupled to a second body whose position `x2` and velocity
//! `v2` are inputs.
//!
//! Every such subsystem declares the same states, the mass `m` as its first parameter, the same
//! kinematic and energy outputs and the benchmark's integrator (symplectic Euler at 1 ms); the
//! linear ones also share the spring `k` and damper `c` to ground. The declarations are made
//! here, once, in the order the constants of this module index them.

use fmu_export::{Declaration, MechArgs, Method, Scalar, Tunability, Var};

/// Index of the parameter `m`, which [`declare`] adds before any other.
pub const M: usize = 0;
/// Index of the parameter `k` that [`declare_linear_ground`] adds right after `m`.
pub const K: usize = 1;
/// Index of the parameter `c` that [`declare_linear_ground`] adds right after `k`.
pub const C: usize = 2;
/// Index of the input `x2` that [`declare_coupled_body`] adds.
pub const X2: usize = 0;
/// Index of the input `v2` that [`declare_coupled_body`] adds.
pub const V2: usize = 1;

/// Output indices of a mass driven by input forces, whose outputs are those of
/// [`declare_outputs`].
pub mod driven {
    /// Index of the output `position`.
    pub const POSITION: usize = 0;
    /// Index of the output `velocity`.
    pub const VELOCITY: usize = 1;
    /// Index of the output `acceleration`.
    pub const ACCELERATION: usize = 2;
    /// Index of the output `energy`.
    pub const ENERGY: usize = 3;
}

/// Output indices of a mass coupled to a second body: the coupling force `f` on that body,
/// declared first, then the outputs of [`declare_outputs`].
pub mod coupled {
    /// Index of the output `f`.
    pub const FORCE: usize = 0;
    /// Index of the output `position`.
    pub const POSITION: usize = 1;
    /// Index of the output `velocity`.
    pub const VELOCITY: usize = 2;
    /// Index of the output `acceleration`.
    pub const ACCELERATION: usize = 3;
    /// Index of the output `energy`.
    pub const ENERGY: usize = 4;
}

/// Adds the states `x = 0` and `v = v0` and the fixed parameter `m = 1` kg.
pub fn declare(declaration: Declaration, v0: f64) -> Declaration {
    declaration
        .state(Var::new("x", 0.0).unit("m").description("position"))
        .state(Var::new("v", v0).unit("m/s").description("velocity"))
        .parameter(
            Var::new("m", 1.0).unit("kg").description("mass"),
            Tunability::Fixed,
        )
}

/// Adds the tunable linear spring `k` and damper `c = 0` to ground (after [`declare`]).
pub fn declare_linear_ground(declaration: Declaration, k: f64) -> Declaration {
    declaration
        .parameter(
            Var::new("k", k)
                .unit("N/m")
                .description("stiffness of the spring to ground"),
            Tunability::Tunable,
        )
        .parameter(
            Var::new("c", 0.0)
                .unit("N.s/m")
                .description("damping of the damper to ground"),
            Tunability::Tunable,
        )
}

/// Adds the inputs `x2 = 0` and `v2 = -100` m/s, the coupled body's position and velocity
/// (their start is the second mass's initial state).
pub fn declare_coupled_body(declaration: Declaration) -> Declaration {
    declaration
        .input(
            Var::new("x2", 0.0)
                .unit("m")
                .description("position of the coupled body"),
        )
        .input(
            Var::new("v2", -100.0)
                .unit("m/s")
                .description("velocity of the coupled body"),
        )
}

/// Adds the outputs `position`, `velocity`, `acceleration` (described as depending on the
/// inputs `acceleration_inputs`) and `energy` (described by `energy`), then the benchmark's
/// integrator and experiment.
pub fn declare_outputs(
    declaration: Declaration,
    acceleration_inputs: &str,
    energy: &str,
) -> Declaration {
    let acceleration = format!("acceleration a; depends on {acceleration_inputs}");
    declaration
        .output(
            Var::new("position", 0.0)
                .unit("m")
                .description("position x"),
        )
        .output(
            Var::new("velocity", 0.0)
                .unit("m/s")
                .description("velocity v"),
        )
        .output(
            Var::new("acceleration", 0.0)
                .unit("m/s2")
                .description(&acceleration),
        )
        .output(Var::new("energy", 0.0).unit("J").description(energy))
        .cosimulation(Method::SymplecticEuler, 1e-3)
        .experiment(0.0, 10.0, 1e-8, 1e-3)
}

/// The force of the linear spring-damper to ground, `-k x - c v`.
pub fn linear_ground_force<T: Scalar>(a: &MechArgs<T>) -> T {
    -a.p[K] * a.q[0] - a.p[C] * a.v[0]
}

/// The kinetic plus ground-spring energy `m v^2 / 2 + k x^2 / 2` of a linear mass.
pub fn linear_energy<T: Scalar>(a: &MechArgs<T>) -> T {
    let (x, v, p) = (a.q[0], a.v[0], a.p);
    T::cst(0.5) * (p[M] * v * v + p[K] * x * x)
}

/// Writes `x`, `v` and the acceleration `acc[0]` to the outputs `position`, `velocity` and
/// `acceleration`, which start at `y[0]`.
pub fn write_kinematics<T: Scalar>(a: &MechArgs<T>, acc: &[T], y: &mut [T]) {
    y[..3].copy_from_slice(&[a.q[0], a.v[0], acc[0]]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names<'a>(vars: impl IntoIterator<Item = &'a Var>) -> Vec<&'a str> {
        vars.into_iter().map(|var| var.name.as_str()).collect()
    }

    #[test]
    fn the_constants_index_the_declared_variables() {
        let declaration = declare(Declaration::new("mass", ""), -3.0);
        let declaration = declare_coupled_body(declare_linear_ground(declaration, 40.0));
        let declaration = declare_outputs(declaration, "x2, v2", "energy");
        assert_eq!(
            names(declaration.parameters.iter().map(|p| &p.var)),
            ["m", "k", "c"]
        );
        let p = declaration.parameter_starts();
        assert_eq!([p[M], p[K], p[C]], [1.0, 40.0, 0.0]);
        assert_eq!(names(&declaration.inputs), ["x2", "v2"]);
        let u = declaration.input_starts();
        assert_eq!([u[X2], u[V2]], [0.0, -100.0]);
        assert_eq!(declaration.state_starts(), [0.0, -3.0]);
        let outputs = names(&declaration.outputs);
        assert_eq!(outputs, ["position", "velocity", "acceleration", "energy"]);
        use driven::{ACCELERATION, ENERGY, POSITION, VELOCITY};
        assert_eq!(
            [POSITION, VELOCITY, ACCELERATION, ENERGY].map(|i| outputs[i]),
            outputs[..]
        );
        let coupled = declare_outputs(
            Declaration::new("coupled", "").output(Var::new("f", 0.0)),
            "x2, v2",
            "energy",
        );
        let outputs = names(&coupled.outputs);
        let indices = [
            coupled::FORCE,
            coupled::POSITION,
            coupled::VELOCITY,
            coupled::ACCELERATION,
            coupled::ENERGY,
        ];
        assert_eq!(
            indices.map(|i| outputs[i]),
            ["f", "position", "velocity", "acceleration", "energy"]
        );
        assert_eq!(
            declaration.outputs[2].description,
            "acceleration a; depends on x2, v2"
        );
    }

    #[test]
    fn the_linear_laws_are_the_spring_damper_to_ground() {
        let (q, v, p) = ([0.2], [-3.0], [2.5, 40.0, 0.3]);
        let a = MechArgs {
            t: 0.0,
            q: &q,
            v: &v,
            u: &[],
            p: &p,
            d: &[],
        };
        assert_eq!(linear_ground_force(&a), -40.0 * 0.2 + 0.3 * 3.0);
        assert_eq!(linear_energy(&a), 0.5 * (2.5 * 9.0 + 40.0 * 0.04));
        let mut y = [f64::NAN; 3];
        write_kinematics(&a, &[7.0], &mut y);
        assert_eq!(y, [0.2, -3.0, 7.0]);
    }
}
