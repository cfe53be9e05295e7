//! Exact Jacobians of vector functions by forward-mode dual numbers.

use crate::scalar::Dual64;
use crate::small::Small;

/// Evaluates `f` at `x` with one dual direction per column and returns the `m x n` Jacobian
/// (row-major) together with the value `f(x)`.
///
/// `f(x, out)` must write all `m` entries of `out`.
pub fn jacobian<F>(x: &[f64], m: usize, f: F) -> (Vec<f64>, Vec<f64>)
where
    F: FnMut(&[Dual64], &mut [Dual64]),
{
    let mut jac = vec![0.0; m * x.len()];
    let mut value = vec![0.0; m];
    jacobian_into(x, f, &mut jac, &mut value);
    (jac, value)
}

/// [`jacobian`] into caller-provided buffers: `jac` (`m x n`, row-major) and `value` (`m`
/// entries, which fixes `m`). Allocates nothing for up to
/// [`INLINE`](crate::small::INLINE) unknowns and rows.
pub fn jacobian_into<F>(x: &[f64], mut f: F, jac: &mut [f64], value: &mut [f64])
where
    F: FnMut(&[Dual64], &mut [Dual64]),
{
    let (n, m) = (x.len(), value.len());
    debug_assert_eq!(
        jac.len(),
        m * n,
        "the Jacobian buffer must hold m*n entries"
    );
    let mut xd: Small<Dual64> = x.iter().map(|&v| Dual64::from(v)).collect();
    let mut out: Small<Dual64> = Small::from_elem(Dual64::from(0.0), m);
    for j in 0..n {
        xd[j].eps = 1.0;
        out.iter_mut().for_each(|o| *o = Dual64::from(0.0));
        f(&xd, &mut out);
        for i in 0..m {
            jac[i * n + j] = out[i].eps;
        }
        if j == 0 {
            value.iter_mut().zip(&out).for_each(|(v, o)| *v = o.re);
        }
        xd[j].eps = 0.0;
    }
    if n == 0 {
        f(&xd, &mut out);
        value.iter_mut().zip(&out).for_each(|(v, o)| *v = o.re);
    }
}

/// The directional derivative `J w` of `f` at `x` (one dual evaluation).
pub fn directional<F>(x: &[f64], w: &[f64], m: usize, mut f: F) -> Vec<f64>
where
    F: FnMut(&[Dual64], &mut [Dual64]),
{
    let xd: Vec<Dual64> = x.iter().zip(w).map(|(&v, &e)| Dual64::new(v, e)).collect();
    let mut out = vec![Dual64::from(0.0); m];
    f(&xd, &mut out);
    out.iter().map(|o| o.eps).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::DualNum;

    #[test]
    fn jacobian_of_a_nonlinear_map_matches_the_analytic_one() {
        let x = [0.3, -1.2];
        let (jac, value) = jacobian(&x, 2, |x, out| {
            out[0] = x[0] * x[1].sin();
            out[1] = x[0].powi(3) + x[1].exp();
        });
        let expected = [x[1].sin(), x[0] * x[1].cos(), 3.0 * x[0] * x[0], x[1].exp()];
        for (a, b) in jac.iter().zip(expected) {
            assert!((a - b).abs() < 1e-15);
        }
        assert!((value[0] - x[0] * x[1].sin()).abs() < 1e-15);
        let w = [0.7, 0.1];
        let jw = directional(&x, &w, 2, |x, out| {
            out[0] = x[0] * x[1].sin();
            out[1] = x[0].powi(3) + x[1].exp();
        });
        assert!((jw[0] - (expected[0] * w[0] + expected[1] * w[1])).abs() < 1e-15);
    }
}
