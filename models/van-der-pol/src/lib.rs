//! The van der Pol oscillator `x0' = x1`, `x1' = mu (1 - x0^2) x1 - x0`: a limit cycle whose
//! relaxation phases make the ODE stiff for large `mu`, which is what the embedded SDIRK is for.

use fmu_export::{Args, Declaration, Method, OdeModel, Scalar, Tunability, Var};

/// Parameter index of `mu`.
const MU: usize = 0;

/// The van der Pol model.
#[derive(Default)]
pub struct VanDerPol;

impl OdeModel for VanDerPol {
    fn declaration(&self) -> Declaration {
        Declaration::new(
            "van_der_pol",
            "Van der Pol oscillator x0'' - mu (1 - x0^2) x0' + x0 = 0",
        )
        .state(Var::new("x0", 2.0).description("oscillator coordinate"))
        .state(Var::new("x1", 0.0).description("rate of x0"))
        .parameter(
            Var::new("mu", 1.0)
                .nominal(1.0)
                .description("nonlinear damping parameter"),
            Tunability::Tunable,
        )
        .output(Var::new("y0", 2.0).description("x0"))
        .output(Var::new("y1", 0.0).description("x1"))
        .cosimulation(
            Method::Sdirk {
                rtol: 1e-8,
                atol: 1e-10,
            },
            1e-2,
        )
        .experiment(0.0, 20.0, 1e-8, 1e-2)
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let (x0, x1, mu) = (a.x[0], a.x[1], a.p[MU]);
        dx[0] = x1;
        dx[1] = mu * (T::cst(1.0) - x0 * x0) * x1 - x0;
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        y[0] = a.x[0];
        y[1] = a.x[1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;
    use fmu_export::{OdeSystem, System};

    // Dyadic values keep every product exact, so the comparisons below need no tolerance.
    const X: [f64; 2] = [0.5, -1.25];
    const MU_VALUE: f64 = 1.5;

    fn args<'a, T: Scalar>(x: &'a [T], p: &'a [T]) -> Args<'a, T> {
        Args {
            t: T::cst(0.0),
            x,
            u: &[],
            p,
            d: &[],
        }
    }

    #[test]
    fn derivatives_and_outputs_follow_the_equations() {
        let sys = OdeSystem::<VanDerPol>::default();
        let (mut dx, mut y) = ([0.0; 2], [0.0; 2]);
        sys.derivatives(&args(&X, &[MU_VALUE]), &mut dx);
        sys.outputs(&args(&X, &[MU_VALUE]), &mut y);
        let [x0, x1] = X;
        assert_eq!(dx, [x1, MU_VALUE * (1.0 - x0 * x0) * x1 - x0]);
        assert_eq!(y, X);
    }

    #[test]
    fn dual_number_jacobian_equals_the_analytic_one() {
        let sys = OdeSystem::<VanDerPol>::default();
        let (jac, _) = jacobian(&[X[0], X[1], MU_VALUE], 2, |w, dx| {
            let (x, p) = w.split_at(2);
            sys.derivatives(&args(x, p), dx);
        });
        let ([x0, x1], mu) = (X, MU_VALUE);
        // Columns x0, x1, mu.
        let analytic = [
            0.0,
            1.0,
            0.0,
            -2.0 * mu * x0 * x1 - 1.0,
            mu * (1.0 - x0 * x0),
            (1.0 - x0 * x0) * x1,
        ];
        assert_eq!(jac, analytic);
    }

    #[test]
    fn declared_start_is_the_classic_initial_state() {
        let sys = OdeSystem::<VanDerPol>::default();
        assert_eq!(sys.declaration().state_starts(), [2.0, 0.0]);
        assert_eq!(sys.declaration().parameter_starts(), [1.0]);
    }
}

fmu_export::export_fmu!(fmu_export::OdeSystem<VanDerPol>);
