//! 1-DOF mass-spring-damper `m a = -c x - d v + F`, integrated in co-simulation by HHT-alpha.

use fmu_export::{Declaration, MechArgs, MechanicalModel, Method, Scalar, Tunability, Var};

/// Parameter indices.
const M: usize = 0;
const C: usize = 1;
const D: usize = 2;

/// The oscillator model.
#[derive(Default)]
pub struct Oscillator;

impl MechanicalModel for Oscillator {
    fn declaration(&self) -> Declaration {
        Declaration::new(
            "oscillator",
            "1-DOF mass-spring-damper m a = -c x - d v + F",
        )
        .state(Var::new("x", 0.01).unit("m").description("position"))
        .state(Var::new("v", 0.0).unit("m/s").description("velocity"))
        .input(Var::new("F", 0.0).unit("N").description("external force"))
        .parameter(
            Var::new("m", 2.0).unit("kg").description("mass"),
            Tunability::Fixed,
        )
        .parameter(
            Var::new("c", 400.0).unit("N/m").description("stiffness"),
            Tunability::Tunable,
        )
        .parameter(
            Var::new("d", 3.0).unit("N.s/m").description("damping"),
            Tunability::Tunable,
        )
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
                .description("acceleration a"),
        )
        .sensitivities(&["c", "d"])
        .cosimulation(Method::Hht { alpha: -0.1 }, 1e-3)
        .experiment(0.0, 10.0, 1e-8, 1e-2)
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[M];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f[0] = -a.p[C] * a.q[0] - a.p[D] * a.v[0] + a.u[0];
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], _lambda: &[T], y: &mut [T]) {
        y[0] = a.q[0];
        y[1] = a.v[0];
        y[2] = acc[0];
    }
}

fmu_export::export_fmu!(fmu_export::MechanicalSystem<Oscillator>);
