//! A linear time-invariant system `x' = A x + B u`, `y = C x + D u` with two states, one input
//! and one output, whose matrices are array parameters: the FMI 3.0 model description declares
//! `A` (2x2), `B` (2x1), `C` (1x2) and `D` (1x1) as arrays, the FMI 2.0 one their elements
//! `A[1,1]`, `A[1,2]`, ... as scalars. The start values make a lightly damped oscillator,
//! `x1'' + 0.4 x1' + 4 x1 = u` (natural frequency 2 rad/s, damping ratio 0.1), observed at `x1`.

use fmu_export::{Args, Declaration, Method, OdeModel, Scalar, Tunability, Var};

/// Number of states.
pub const STATES: usize = 2;
/// Number of inputs.
pub const INPUTS: usize = 1;
/// Number of outputs.
pub const OUTPUTS: usize = 1;

/// Start value of `A`, row-major.
pub const A_START: [f64; STATES * STATES] = [0.0, 1.0, -4.0, -0.4];
/// Start value of `B`, row-major.
pub const B_START: [f64; STATES * INPUTS] = [0.0, 1.0];
/// Start value of `C`, row-major.
pub const C_START: [f64; OUTPUTS * STATES] = [1.0, 0.0];
/// Start value of `D`.
pub const D_START: [f64; OUTPUTS * INPUTS] = [0.0];

/// Where each matrix starts among the parameters (its elements follow row-major).
const A: usize = 0;
const B: usize = A + STATES * STATES;
const C: usize = B + STATES * INPUTS;
const D: usize = C + OUTPUTS * STATES;
const PARAMETERS: usize = D + OUTPUTS * INPUTS;

/// The state-space model.
#[derive(Default)]
pub struct StateSpace;

impl OdeModel for StateSpace {
    fn declaration(&self) -> Declaration {
        Declaration::new(
            "state_space",
            "Linear time-invariant system x' = A x + B u, y = C x + D u",
        )
        .state(Var::new("x1", 1.0).description("first state"))
        .state(Var::new("x2", 0.0).description("second state"))
        .input(Var::new("u", 0.0).description("input"))
        .parameter_array(
            Var::new("A", 0.0)
                .range(-100.0, 100.0)
                .description("system matrix"),
            &[STATES, STATES],
            &A_START,
            Tunability::Tunable,
        )
        .parameter_array(
            Var::new("B", 0.0).description("input matrix"),
            &[STATES, INPUTS],
            &B_START,
            Tunability::Tunable,
        )
        .parameter_array(
            Var::new("C", 0.0).description("output matrix"),
            &[OUTPUTS, STATES],
            &C_START,
            Tunability::Fixed,
        )
        .parameter_array(
            Var::new("D", 0.0).description("feedthrough matrix"),
            &[OUTPUTS, INPUTS],
            &D_START,
            Tunability::Fixed,
        )
        .output(Var::new("y", 1.0).description("C x + D u"))
        .cosimulation(
            Method::Sdirk {
                rtol: 1e-8,
                atol: 1e-10,
            },
            1e-2,
        )
        .experiment(0.0, 10.0, 1e-8, 1e-2)
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        affine(&a.p[A..B], a.x, &a.p[B..C], a.u, dx);
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        affine(&a.p[C..D], a.x, &a.p[D..PARAMETERS], a.u, y);
    }
}

/// `out = F x + G u` for the row-major matrices `F` (`out.len() x x.len()`) and `G`
/// (`out.len() x u.len()`).
fn affine<T: Scalar>(f: &[T], x: &[T], g: &[T], u: &[T], out: &mut [T]) {
    for (i, slot) in out.iter_mut().enumerate() {
        let row = |matrix: &[T], v: &[T]| {
            matrix[i * v.len()..][..v.len()]
                .iter()
                .zip(v)
                .fold(T::cst(0.0), |sum, (&mij, &vj)| sum + mij * vj)
        };
        *slot = row(f, x) + row(g, u);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;
    use fmu_export::validation::validate;
    use fmu_export::{OdeSystem, System};

    // Dyadic values keep every product exact, so the comparisons below need no tolerance.
    const X: [f64; STATES] = [0.5, -1.25];
    const U: [f64; INPUTS] = [0.75];
    const P: [f64; PARAMETERS] = [0.5, 1.0, -4.0, -0.375, 0.25, 1.5, 2.0, -0.5, 0.125];

    fn args<'a, T: Scalar>(x: &'a [T], u: &'a [T], p: &'a [T]) -> Args<'a, T> {
        Args {
            t: T::cst(0.0),
            x,
            u,
            p,
            d: &[],
        }
    }

    #[test]
    fn derivatives_and_outputs_are_the_matrix_products() {
        let sys = OdeSystem::<StateSpace>::default();
        let (mut dx, mut y) = ([0.0; STATES], [0.0; OUTPUTS]);
        sys.derivatives(&args(&X, &U, &P), &mut dx);
        sys.outputs(&args(&X, &U, &P), &mut y);
        let ([x1, x2], [u]) = (X, U);
        let [a11, a12, a21, a22, b1, b2, c1, c2, d] = P;
        assert_eq!(
            dx,
            [a11 * x1 + a12 * x2 + b1 * u, a21 * x1 + a22 * x2 + b2 * u]
        );
        assert_eq!(y, [c1 * x1 + c2 * x2 + d * u]);
    }

    #[test]
    fn the_jacobian_of_the_derivatives_holds_the_states_and_the_matrices() {
        let sys = OdeSystem::<StateSpace>::default();
        let point: Vec<f64> = X.iter().chain(&U).chain(&P).copied().collect();
        let (jac, _) = jacobian(&point, STATES, |w, dx| {
            let (x, rest) = w.split_at(STATES);
            let (u, p) = rest.split_at(INPUTS);
            sys.derivatives(&args(x, u, p), dx);
        });
        let ([x1, x2], [u]) = (X, U);
        // Columns x1, x2, u, A11, A12, A21, A22, B1, B2, C1, C2, D.
        #[rustfmt::skip]
        let analytic = [
            P[0], P[1], P[4], x1, x2, 0.0, 0.0, u, 0.0, 0.0, 0.0, 0.0,
            P[2], P[3], P[5], 0.0, 0.0, x1, x2, 0.0, u, 0.0, 0.0, 0.0,
        ];
        assert_eq!(jac, analytic);
    }

    #[test]
    fn the_declaration_is_exportable_with_the_matrices_as_parameters_in_order() {
        let decl = StateSpace.declaration();
        assert_eq!(validate(&decl), Ok(()));
        let starts: Vec<f64> = [&A_START[..], &B_START, &C_START, &D_START].concat();
        assert_eq!(decl.parameter_starts(), starts);
        let names: Vec<&str> = decl
            .parameters
            .iter()
            .map(|p| p.var.name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "A[1,1]", "A[1,2]", "A[2,1]", "A[2,2]", "B[1,1]", "B[2,1]", "C[1,1]", "C[1,2]",
                "D[1,1]"
            ]
        );
    }
}

fmu_export::export_fmu!(fmu_export::OdeSystem<StateSpace>);
