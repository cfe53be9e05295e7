//! The adjoint of a Jacobian by forward over reverse: for a seed `S` on the Jacobian
//! `J = ∂f/∂x`, the gradient of `⟨S, J⟩ = Σ_ij S_ij ∂f_i/∂x_j` with `S` fixed, i.e.
//! `Σ_ij S_ij ∂²f_i/∂x_j∂x_k` for every `k`. Each column `j` of `J` that `S` weighs is one
//! `Dual<Rev>` evaluation of `f` (its dual part is `J e_j`, recorded on the tape); one sweep
//! back then gives all `k` at once, so the cost grows with the columns of `S`, not with `x`.

use num_dual::Dual;

use super::tape::vjp_into;
use super::Rev;

/// `out_k = Σ_ij seed[i n + j] ∂²f_i/∂x_j∂x_k` (`n = x.len()`, `seed` row-major `m × n` with
/// `m = seed.len() / n`; `f` writes `m` results). `out` must have `n` entries. Allocates the
/// dual copies of `x` and of the results.
pub fn jacobian_adjoint_into<F>(x: &[f64], seed: &[f64], out: &mut [f64], mut f: F)
where
    F: FnMut(&[Dual<Rev>], &mut [Dual<Rev>]),
{
    let n = x.len();
    let m = seed.len().checked_div(n).unwrap_or(0);
    let zero = Rev::constant(0.0);
    vjp_into(x, &[1.0], out, |inputs, total| {
        let mut xd: Vec<Dual<Rev>> = inputs.iter().map(|&v| Dual::new(v, zero)).collect();
        let mut fd = vec![Dual::new(zero, zero); m];
        let mut contraction = zero;
        for j in 0..n {
            let column = |i: usize| seed[i * n + j];
            if (0..m).all(|i| column(i) == 0.0) {
                continue;
            }
            xd[j].eps = Rev::constant(1.0);
            f(&xd, &mut fd);
            for (i, fi) in fd.iter().enumerate() {
                if column(i) != 0.0 {
                    contraction += fi.eps * column(i);
                }
            }
            xd[j].eps = zero;
        }
        total[0] = contraction;
    });
}
