use num_dual::HyperDual64;
use num_traits::Signed;

use super::*;
use crate::jacobian::jacobian;
use crate::scalar::{DualNum, Scalar};

/// A map that goes through every operator and elementary function of [`Rev`], at points
/// where each is differentiable.
fn sample<T: Scalar>(x: &[T], out: &mut [T]) {
    let (a, b, c) = (x[0], x[1], x[2]);
    out[0] = a * b.sin() + c.exp() / (a * a + 1.0) - b.cos() * c.tan();
    out[1] = (b - c).powi(3) + a.sqrt() * c.cbrt() - b.atan2(a) + a.powf(1.5);
    out[2] = a.ln() * b.tanh() + c.exp2() - a.log(3.0) * b.log2() + c.log10() / b.abs();
    out[3] = (a * 0.3).asin() + (b * 0.2).acos() + c.atan() + a.sinh() * b.cosh() - c.recip();
    out[4] = (a + 1.5).acosh() + b.asinh() + (c * 0.4).atanh() + a.exp_m1() * b.ln_1p();
    out[5] = T::cst(2.0) - a + (b - 3.0) * c + (-a).powi(2) + b.sph_j0() + c.sph_j1() + a.sph_j2();
    let (s, co) = c.sin_cos();
    out[6] = s * co
        + a.powi(0)
        + b.powi(1)
        + (a * b * c).powd(b)
        + [a, b, c].into_iter().sum::<T>()
        + [a, b].into_iter().product::<T>();
}

const X: [f64; 3] = [0.6, 1.3, 0.8];
const OUTPUTS: usize = 7;

#[test]
fn the_vjp_is_the_transposed_dual_jacobian_times_the_seed() {
    let (jac, _) = jacobian(&X, OUTPUTS, sample);
    let seed = [0.3, -1.2, 0.7, 2.0, -0.4, 1.1, 0.9];
    let mut vjp = [0.0; 3];
    vjp_into(&X, &seed, &mut vjp, sample);
    for (k, value) in vjp.iter().enumerate() {
        let expected: f64 = (0..OUTPUTS).map(|i| seed[i] * jac[i * 3 + k]).sum();
        assert!(
            (value - expected).abs() < 1e-13 * expected.abs().max(1.0),
            "{k}: {value} vs {expected}"
        );
    }
    assert_eq!(
        tape::recorded(),
        0,
        "a finished product leaves nothing on the tape"
    );
}

#[test]
fn the_values_are_those_of_plain_reals() {
    let mut reals = [0.0; OUTPUTS];
    sample(&X, &mut reals);
    let mut taped = [0.0; OUTPUTS];
    let mut recording = Recording::new();
    let x: Vec<Rev> = X.iter().map(|&v| recording.input(v)).collect();
    let mut out = [Rev::constant(0.0); OUTPUTS];
    sample(&x, &mut out);
    for (t, o) in taped.iter_mut().zip(&out) {
        *t = o.value();
    }
    assert_eq!(taped, reals, "the same arithmetic, bit for bit");
    recording.seed(out[0], 1.0);
    recording.sweep();
    assert!(recording.adjoint(x[0]) != 0.0 && recording.adjoint(Rev::constant(1.0)) == 0.0);
}

#[test]
fn constants_record_nothing_and_shifts_share_their_operand() {
    let recording = Recording::new();
    let before = tape::recorded();
    let c = Rev::constant(2.0) * Rev::constant(3.0) + 1.0;
    assert!(c.is_constant() && c.value() == 7.0);
    assert_eq!(tape::recorded(), before, "constants alone are not recorded");
    let x = recording.input(0.5);
    let shifted = x + 3.0 - 1.0;
    assert_eq!(
        tape::recorded(),
        before + 1,
        "a shift by a constant records nothing"
    );
    let mut recording = recording;
    recording.seed(shifted * 4.0, 1.0);
    recording.sweep();
    assert_eq!(recording.adjoint(x), 4.0);
    drop(recording);
    assert_eq!(tape::recorded(), 0);
}

#[test]
fn abs_and_signum_follow_the_sign() {
    let mut recording = Recording::new();
    let x = recording.input(-2.0);
    let y = x.abs() * Signed::signum(&x);
    recording.seed(y, 1.0);
    recording.sweep();
    assert_eq!(y.value(), -2.0);
    assert_eq!(recording.adjoint(x), 1.0);
}

#[test]
fn remainder_and_fused_multiply_add_have_their_derivatives() {
    let mut recording = Recording::new();
    let (a, b, c) = (
        recording.input(7.5),
        recording.input(2.0),
        recording.input(0.25),
    );
    let r = a % b;
    let m = a.mul_add(b, c);
    assert_eq!((r.value(), m.value()), (1.5, 7.5f64.mul_add(2.0, 0.25)));
    recording.seed(r, 1.0);
    recording.seed(m, 10.0);
    recording.sweep();
    // ∂(a % b) = (1, −trunc(a / b)) = (1, −3); ∂(a b + c) = (b, a, 1).
    assert_eq!(recording.adjoint(a), 1.0 + 10.0 * 2.0);
    assert_eq!(recording.adjoint(b), -3.0 + 10.0 * 7.5);
    assert_eq!(recording.adjoint(c), 10.0);
}

/// Σ_ij s_ij ∂²f_i/∂x_j∂x_k for every k by hyper-dual numbers, one evaluation per (j, k).
fn hyper_dual_contraction(seed: &[f64]) -> Vec<f64> {
    let n = X.len();
    let mut result = vec![0.0; n];
    for j in 0..n {
        for (k, r) in result.iter_mut().enumerate() {
            let x: Vec<HyperDual64> = X
                .iter()
                .enumerate()
                .map(|(i, &v)| HyperDual64::new(v, f64::from(i == j), f64::from(i == k), 0.0))
                .collect();
            let mut out = [HyperDual64::from(0.0); OUTPUTS];
            sample(&x, &mut out);
            *r += (0..OUTPUTS)
                .map(|i| seed[i * n + j] * out[i].eps1eps2)
                .sum::<f64>();
        }
    }
    result
}

#[test]
fn the_jacobian_adjoint_is_the_hyper_dual_second_derivative_contraction() {
    // A seed with one column of zeros, which is skipped.
    let seed: Vec<f64> = (0..OUTPUTS * 3)
        .map(|e| {
            if e % 3 == 1 {
                0.0
            } else {
                ((e * 7) % 5) as f64 - 1.5
            }
        })
        .collect();
    let mut exact = [0.0; 3];
    jacobian_adjoint_into(&X, &seed, &mut exact, sample);
    let expected = hyper_dual_contraction(&seed);
    for (k, (a, b)) in exact.iter().zip(&expected).enumerate() {
        assert!((a - b).abs() < 1e-12 * b.abs().max(1.0), "{k}: {a} vs {b}");
    }
    assert_eq!(tape::recorded(), 0);
}

#[test]
fn the_reverse_scalar_is_a_model_scalar() {
    fn takes<T: Scalar>(x: T) -> f64 {
        x.real()
    }
    assert_eq!(takes(Rev::constant(1.5)), 1.5);
    assert_eq!(<Rev as DualNum>::from_re(2.0).value(), 2.0);
}
