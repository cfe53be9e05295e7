//! Algorithm 2: df/dd by the coupled adjoint, as three block solves (closed-loop reverse
//! sweep, ARE adjoint as a Lyapunov equation, steady-state adjoint) and the seed contraction.
//!
//! Includes the term the paper's appendices omit: W = −S⁻¹G_tgtᵀP depends on G_tgt, so the
//! closed loop contributes the G-seed `GbarW = Σ Δt P δx⁽ᵏ⁻¹⁾ ψ⁽ᵏ⁾ᵀ G⁽ᵏ⁻¹⁾ S⁻¹`.

use nalgebra::{DMatrix, DVector};

use super::analysis::{cost_matrix, steady_state_jacobian, Analysis};
use super::error::CodesignError;
use super::lyapunov::solve_lyapunov;
use super::plant::Plant;
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
    let cost = cost_matrix(problem, w);
    let traj = &analysis.trajectory;
    let n_t = traj.len() - 1;

    // (a) Reverse sweep, accumulating the P-, G- and (x, u, d)-terms of step k at state k−1.
    let mut f_cl = DMatrix::<f64>::zeros(dims.x, dims.x);
    let mut gbar_w = DMatrix::<f64>::zeros(dims.x, dims.u);
    let mut g_x = DVector::<f64>::zeros(dims.x);
    let mut g_u = DVector::<f64>::zeros(dims.u);
    let mut closed_loop = DVector::<f64>::zeros(dims.d);
    let mut psi = -(&cost * &traj[n_t]) * (2.0 * dt);
    let (mut x, mut u) = (vec![0.0; dims.x], vec![0.0; dims.u]);
    let g_s_inv_t = g_tgt * s_inv.transpose();
    for k in (1..=n_t).rev() {
        let dx = &traj[k - 1];
        let du = w * dx;
        x.iter_mut()
            .zip(&analysis.x_target)
            .zip(dx.iter())
            .for_each(|((x, t), e)| *x = t + e);
        u.iter_mut()
            .zip(&analysis.u_target)
            .zip(du.iter())
            .for_each(|((u, t), e)| *u = t + e);
        let adj = plant.adjoints(&x, &u, d, psi.as_slice())?;
        f_cl += (&g_s_inv_t * &adj.u) * dx.transpose() * dt;
        if with_gbar_w {
            gbar_w += (p * dx) * (adj.u.transpose() * &s_inv) * dt;
        }
        g_x -= &adj.x * dt;
        g_u -= &adj.u * dt;
        closed_loop -= &adj.d * dt;
        if k > 1 {
            // ψ⁽ᵏ⁻¹⁾ = −∂f/∂δx⁽ᵏ⁻¹⁾ + (I + Δt (J + G W))ᵀ ψ⁽ᵏ⁾.
            psi = -(&cost * dx) * (2.0 * dt) + &psi + (&adj.x + w.tr_mul(&adj.u)) * dt;
        }
    }

    // (b) ARE adjoint: J̃Ψ + ΨJ̃ᵀ + sym(F) = 0 with F = ∂f/∂P + (∂r_cl/∂P)ᵀψ_cl.
    let mut outer = DMatrix::<f64>::zeros(dims.x, dims.x);
    for dx in &traj[1..] {
        outer += dx * dx.transpose();
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
