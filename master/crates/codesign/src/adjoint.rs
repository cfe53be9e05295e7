//! Algorithm 2: df/dd by the coupled adjoint, as three block solves (closed-loop reverse
//! sweep, ARE adjoint as a Lyapunov equation, steady-state adjoint) and the seed contraction.
//!
//! Includes the term the paper's appendices omit: W = −S⁻¹G_tgtᵀP depends on G_tgt, so the
//! closed loop contributes the G-seed `GbarW = Σ Δt P δx⁽ᵏ⁻¹⁾ ψ⁽ᵏ⁾ᵀ G⁽ᵏ⁻¹⁾ S⁻¹`.

use nalgebra::{DMatrix, DVector};

use super::analysis::{steady_state_jacobian, Analysis};
use super::error::CodesignError;
use super::lyapunov::solve_lyapunov;
use super::plant::{Adjoints, Plant};
use super::problem::Problem;

/// df/dd and the pieces that make it, for the report.
#[derive(Debug, Clone)]
pub struct Gradient {
    /// df/dd.
    pub df_dd: DVector<f64>,
    /// The closed-loop part −Σ Δt (∂r/∂d)⁽ᵏ⁻¹⁾ᵀ ψ⁽ᵏ⁾ (eq. 55).
    pub closed_loop: DVector<f64>,
    /// The seed contraction Σ Jbar ∇_d J + Σ G* ∇_d G (eq. 28, with GbarW).
    pub seeds: DVector<f64>,
    /// The steady-state part (∂r̃/∂d)ᵀψ_nl (zero without unknown target entries).
    pub steady_state: DVector<f64>,
    /// How the seed contraction was computed.
    pub seed_method: &'static str,
}

/// Runs Algorithm 2 on a finished [`analyze`](super::analysis::analyze).
pub fn gradient(
    plant: &mut dyn Plant,
    problem: &Problem,
    analysis: &Analysis,
) -> Result<Gradient, CodesignError> {
    gradient_with(plant, problem, analysis, true)
}

/// Algorithm 2; `with_gbar_w = false` drops the W(G_tgt) term, as the paper's appendices do
/// (only for the test that shows the gradient is then wrong).
pub(super) fn gradient_with(
    plant: &mut dyn Plant,
    problem: &Problem,
    analysis: &Analysis,
    with_gbar_w: bool,
) -> Result<Gradient, CodesignError> {
    let dims = plant.dims();
    let (dt, d) = (problem.dt, analysis.d.as_slice());
    let (p, w, g_tgt) = (&analysis.care.p, &analysis.care.w, &analysis.g);
    let s_chol = problem
        .s
        .clone()
        .cholesky()
        .ok_or(CodesignError::NotPositiveDefinite { name: "S" })?;
    let s_inv = s_chol.inverse();
    let traj = &analysis.trajectory;
    let n_t = traj.len() - 1;

    // (a) Reverse sweep, accumulating the P-, G- and (x, u, d)-terms of step k at state k−1.
    // Both closed-loop seeds are products with A_u = Σ Δt (Gᵀψ)⁽ᵏ⁾ δx⁽ᵏ⁻¹⁾ᵀ (n_u × n_x):
    // F_cl = G_tgt S⁻ᵀ A_u and GbarW = P A_uᵀ S⁻¹, so a step adds one rank-one n_u × n_x update
    // instead of two n_x × n_x ones, and nothing in the loop allocates.
    let mut a_u = DMatrix::<f64>::zeros(dims.u, dims.x);
    let mut g_x = DVector::<f64>::zeros(dims.x);
    let mut g_u = DVector::<f64>::zeros(dims.u);
    let mut closed_loop = DVector::<f64>::zeros(dims.d);
    // ∂f/∂δx⁽ⁱ⁾ = 2 Δt (Q + WᵀSW) δx⁽ⁱ⁾, with the products the forward pass kept.
    let weighted = &analysis.weighted;
    let mut psi = &weighted[n_t - 1] * (-2.0 * dt);
    let (mut x, mut u) = (vec![0.0; dims.x], vec![0.0; dims.u]);
    let mut du = DVector::<f64>::zeros(dims.u);
    let mut adj = Adjoints::zeros(dims);
    for k in (1..=n_t).rev() {
        let dx = &traj[k - 1];
        du.gemv(1.0, w, dx, 0.0);
        x.iter_mut()
            .zip(&analysis.x_target)
            .zip(dx.iter())
            .for_each(|((x, t), e)| *x = t + e);
        u.iter_mut()
            .zip(&analysis.u_target)
            .zip(du.iter())
            .for_each(|((u, t), e)| *u = t + e);
        plant.adjoints_into(&x, &u, d, psi.as_slice(), &mut adj)?;
        a_u.ger(dt, &adj.u, dx, 1.0);
        g_x.axpy(-dt, &adj.x, 1.0);
        g_u.axpy(-dt, &adj.u, 1.0);
        closed_loop.axpy(-dt, &adj.d, 1.0);
        if k > 1 {
            // ψ⁽ᵏ⁻¹⁾ = −∂f/∂δx⁽ᵏ⁻¹⁾ + (I + Δt (J + G W))ᵀ ψ⁽ᵏ⁾.
            psi.axpy(dt, &adj.x, 1.0);
            psi.gemv_tr(dt, w, &adj.u, 1.0);
            psi.axpy(-2.0 * dt, &weighted[k - 2], 1.0);
        }
    }
    let s_inv_t = s_inv.transpose();
    let f_cl = g_tgt * &s_inv_t * &a_u;
    let gbar_w = if with_gbar_w {
        p * a_u.transpose() * &s_inv
    } else {
        DMatrix::<f64>::zeros(dims.x, dims.u)
    };

    // (b) ARE adjoint: J̃Ψ + ΨJ̃ᵀ + sym(F) = 0 with F = ∂f/∂P + (∂r_cl/∂P)ᵀψ_cl.
    let mut outer = DMatrix::<f64>::zeros(dims.x, dims.x);
    for dx in &traj[1..] {
        outer.ger(1.0, dx, dx, 1.0);
    }
    outer *= dt;
    let s_sum = &s_inv + s_inv.transpose();
    let df_dp = g_tgt * &s_sum * g_tgt.transpose() * p * &outer;
    let df_dg = p * &outer * p.transpose() * g_tgt * &s_sum;
    let f = df_dp + f_cl;
    let closed = &analysis.j + g_tgt * w;
    let big_psi = solve_lyapunov(&closed, &((&f + f.transpose()) * 0.5))?;

    // Seeds (eq. 29) plus ∂f/∂G_tgt and GbarW, contracted with ∇J and ∇G at the target.
    let jbar = p * big_psi.transpose() + p.transpose() * &big_psi;
    let gbar = -(p.transpose() * &big_psi * p.transpose() * g_tgt * s_inv.transpose())
        - p * big_psi.transpose() * p * g_tgt * &s_inv;
    let g_star = gbar + df_dg + gbar_w;
    let contraction =
        plant.seed_gradient(&analysis.x_target, &analysis.u_target, d, &jbar, &g_star)?;
    g_x += &contraction.x;
    g_u += &contraction.u;

    // (c) Steady-state adjoint: (∂r̃/∂θ)ᵀ ψ_nl = −g_θ, then (∂r̃/∂d)ᵀ ψ_nl.
    let mut steady_state = DVector::<f64>::zeros(dims.d);
    let unknowns = problem.residual_rows.len();
    if unknowns > 0 {
        let g_theta = DVector::from_iterator(
            unknowns,
            problem
                .unknown_x
                .iter()
                .map(|&i| g_x[i])
                .chain(problem.unknown_u.iter().map(|&i| g_u[i])),
        );
        let jacobian = steady_state_jacobian(problem, &analysis.j, g_tgt);
        let psi_nl = jacobian
            .transpose()
            .lu()
            .solve(&(-g_theta))
            .ok_or(CodesignError::SingularSteadyState)?;
        let mut psi_full = vec![0.0; dims.x];
        for (&row, value) in problem.residual_rows.iter().zip(psi_nl.iter()) {
            psi_full[row] += value;
        }
        steady_state = plant
            .adjoints(&analysis.x_target, &analysis.u_target, d, &psi_full)?
            .d;
    }
    let df_dd = &closed_loop + &contraction.d + &steady_state;
    Ok(Gradient {
        df_dd,
        closed_loop,
        seeds: contraction.d,
        steady_state,
        seed_method: plant.seed_method(),
    })
}

/// Central differences of f: (f(d + h e_i) − f(d − h e_i)) / 2h with h = step·|d_i| (step
/// when d_i = 0), relative so that small parameters keep their sign.
pub fn central_differences(
    plant: &mut dyn Plant,
    problem: &Problem,
    d: &[f64],
    step: f64,
) -> Result<DVector<f64>, CodesignError> {
    let mut gradient = DVector::zeros(d.len());
    let mut shifted = d.to_vec();
    for i in 0..d.len() {
        let h = if d[i] == 0.0 { step } else { step * d[i].abs() };
        shifted[i] = d[i] + h;
        let plus = super::analysis::analyze(plant, problem, &shifted)?.f;
        shifted[i] = d[i] - h;
        let minus = super::analysis::analyze(plant, problem, &shifted)?.f;
        shifted[i] = d[i];
        gradient[i] = (plus - minus) / (2.0 * h);
    }
    Ok(gradient)
}
