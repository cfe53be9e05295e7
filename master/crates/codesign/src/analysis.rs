//! Algorithm 1 of the co-design method: steady state by Newton, linearization, LQR by the
//! CARE, explicit-Euler closed loop of the nonlinear plant, and the cost f.

use nalgebra::{DMatrix, DVector};

use super::care::{solve_care, CareSolution};
use super::error::CodesignError;
use super::plant::Plant;
use super::problem::Problem;

/// The forward analysis at one design, with everything the adjoint reuses.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The design d.
    pub d: Vec<f64>,
    /// x_tgt with its unknown entries solved.
    pub x_target: Vec<f64>,
    /// u_tgt with its unknown entries solved.
    pub u_target: Vec<f64>,
    /// Newton iterations the steady state took (0 when nothing is unknown).
    pub newton_iterations: usize,
    /// J_tgt = ∂r/∂x at the target.
    pub j: DMatrix<f64>,
    /// G_tgt = ∂r/∂u at the target.
    pub g: DMatrix<f64>,
    /// The CARE solution P, the gain W and the closed-loop eigenvalues.
    pub care: CareSolution,
    /// δx⁽⁰⁾ … δx⁽ⁿᵗ⁾.
    pub trajectory: Vec<DVector<f64>>,
    /// (Q + WᵀSW) δx⁽ⁱ⁾ for i = 1 … n_t: computed for f anyway, and the adjoint's reverse
    /// sweep needs each (∂f/∂δx⁽ⁱ⁾ = 2 Δt (Q + WᵀSW) δx⁽ⁱ⁾), so it is kept rather than
    /// recomputed (an n_x × n_x product per step).
    pub weighted: Vec<DVector<f64>>,
    /// The cost f = Σ_{i≥1} δx⁽ⁱ⁾ᵀ (Q + WᵀSW) δx⁽ⁱ⁾ Δt.
    pub f: f64,
}

/// Newton iterations allowed for the steady state.
const NEWTON_ITERATIONS: usize = 50;

/// A deviation this many times larger than the initial one counts as divergence.
const DIVERGENCE_FACTOR: f64 = 1e6;

/// Runs Algorithm 1 at design `d`.
pub fn analyze(
    plant: &mut dyn Plant,
    problem: &Problem,
    d: &[f64],
) -> Result<Analysis, CodesignError> {
    let dims = plant.dims();
    problem.validate(dims)?;
    if d.len() != dims.d {
        return Err(CodesignError::Dimension {
            item: "design parameters".into(),
            expected: dims.d,
            got: d.len(),
        });
    }
    let (x_target, u_target, newton_iterations) = steady_state(plant, problem, d)?;
    let (j, g) = plant.jacobians(&x_target, &u_target, d)?;
    let care = solve_care(&j, &g, &problem.q, &problem.s)?;
    let trajectory = closed_loop(plant, problem, d, &x_target, &u_target, &care)?;
    let cost = cost_matrix(problem, &care.w);
    let weighted: Vec<DVector<f64>> = trajectory[1..].iter().map(|dx| &cost * dx).collect();
    let f = trajectory[1..]
        .iter()
        .zip(&weighted)
        .map(|(dx, m)| dx.dot(m))
        .sum::<f64>()
        * problem.dt;
    Ok(Analysis {
        d: d.to_vec(),
        x_target,
        u_target,
        newton_iterations,
        j,
        g,
        care,
        trajectory,
        weighted,
        f,
    })
}

/// Q + WᵀSW, the weight of δx in the cost.
pub(crate) fn cost_matrix(problem: &Problem, w: &DMatrix<f64>) -> DMatrix<f64> {
    &problem.q + w.transpose() * &problem.s * w
}

/// Solves r̃(θ) = 0 for the unknown target entries θ by Newton's method.
fn steady_state(
    plant: &mut dyn Plant,
    problem: &Problem,
    d: &[f64],
) -> Result<(Vec<f64>, Vec<f64>, usize), CodesignError> {
    let (mut x, mut u) = (problem.x_target.clone(), problem.u_target.clone());
    let unknowns = problem.unknown_x.len() + problem.unknown_u.len();
    if unknowns == 0 {
        return Ok((x, u, 0));
    }
    let mut r = vec![0.0; plant.dims().x];
    let mut residual = f64::INFINITY;
    for iteration in 0..=NEWTON_ITERATIONS {
        plant.rhs(&x, &u, d, &mut r)?;
        let rows = DVector::from_iterator(unknowns, problem.residual_rows.iter().map(|&i| r[i]));
        residual = rows.amax();
        if !residual.is_finite() {
            break;
        }
        let (j, g) = plant.jacobians(&x, &u, d)?;
        let jacobian = steady_state_jacobian(problem, &j, &g);
        let step = jacobian
            .lu()
            .solve(&rows)
            .ok_or(CodesignError::SingularSteadyState)?;
        let theta_scale = theta(problem, &x, &u).amax().max(1.0);
        apply_step(problem, &mut x, &mut u, &(-&step));
        if residual == 0.0 || step.amax() <= 1e-14 * theta_scale {
            return Ok((x, u, iteration + 1));
        }
    }
    Err(CodesignError::SteadyState {
        iterations: NEWTON_ITERATIONS,
        residual,
    })
}

/// θ = [x_tgt(unknown_x); u_tgt(unknown_u)].
fn theta(problem: &Problem, x: &[f64], u: &[f64]) -> DVector<f64> {
    DVector::from_iterator(
        problem.unknown_x.len() + problem.unknown_u.len(),
        problem
            .unknown_x
            .iter()
            .map(|&i| x[i])
            .chain(problem.unknown_u.iter().map(|&i| u[i])),
    )
}

/// Adds `step` to the unknown entries of x and u.
fn apply_step(problem: &Problem, x: &mut [f64], u: &mut [f64], step: &DVector<f64>) {
    let nx = problem.unknown_x.len();
    for (k, &i) in problem.unknown_x.iter().enumerate() {
        x[i] += step[k];
    }
    for (k, &i) in problem.unknown_u.iter().enumerate() {
        u[i] += step[nx + k];
    }
}

/// ∂r̃/∂θ: the residual rows of the columns of J and G that belong to unknown entries.
pub(crate) fn steady_state_jacobian(
    problem: &Problem,
    j: &DMatrix<f64>,
    g: &DMatrix<f64>,
) -> DMatrix<f64> {
    let n = problem.residual_rows.len();
    let nx = problem.unknown_x.len();
    DMatrix::from_fn(n, n, |row, col| {
        let i = problem.residual_rows[row];
        if col < nx {
            j[(i, problem.unknown_x[col])]
        } else {
            g[(i, problem.unknown_u[col - nx])]
        }
    })
}

/// δx⁽ᵏ⁾ = δx⁽ᵏ⁻¹⁾ + Δt r(x_tgt + δx⁽ᵏ⁻¹⁾, u_tgt + W δx⁽ᵏ⁻¹⁾, d), k = 1 … n_t (eq. 46).
fn closed_loop(
    plant: &mut dyn Plant,
    problem: &Problem,
    d: &[f64],
    x_target: &[f64],
    u_target: &[f64],
    care: &CareSolution,
) -> Result<Vec<DVector<f64>>, CodesignError> {
    let dims = plant.dims();
    let bound = DIVERGENCE_FACTOR * (1.0 + problem.dx0.amax());
    let mut trajectory = Vec::with_capacity(problem.steps + 1);
    trajectory.push(problem.dx0.clone());
    let (mut x, mut u, mut r) = (vec![0.0; dims.x], vec![0.0; dims.u], vec![0.0; dims.x]);
    for step in 1..=problem.steps {
        let dx = &trajectory[step - 1];
        let du = &care.w * dx;
        x.iter_mut()
            .zip(x_target)
            .zip(dx.iter())
            .for_each(|((x, t), e)| *x = t + e);
        u.iter_mut()
            .zip(u_target)
            .zip(du.iter())
            .for_each(|((u, t), e)| *u = t + e);
        plant.rhs(&x, &u, d, &mut r)?;
        let next = dx + DVector::from_column_slice(&r) * problem.dt;
        if !next.iter().all(|v| v.is_finite()) || next.amax() > bound {
            let fastest = care
                .closed_loop_eigenvalues
                .iter()
                .map(|l| l.norm())
                .fold(0.0, f64::max);
            return Err(CodesignError::Diverged {
                step,
                time: step as f64 * problem.dt,
                stiffness: problem.dt * fastest,
            });
        }
        trajectory.push(next);
    }
    Ok(trajectory)
}
