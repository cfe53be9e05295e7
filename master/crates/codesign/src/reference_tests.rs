//! The co-design reference problems of the seed digest, on plants linked in directly:
//! cart-pole values, adjoint against central differences, the missing GbarW term, the
//! steady-state adjoint (quadrotor, Duffing) and the linear-plant limit.

use std::f64::consts::PI;

use codesign_equations::{CartPole, Duffing, MassSpringDamper, Quadrotor};
use nalgebra::{DMatrix, DVector};

use super::adjoint::{central_differences, gradient, gradient_with};
use super::analysis::analyze;
use super::direct::DirectPlant;
use super::error::CodesignError;
use super::plant::Plant;
use super::problem::Problem;
use super::test_util::{relative, Linked};

/// The digest's cart-pole settings: target upright, Q = 0.1 I, S = 1, δx0 = [−1, 0, 2−π, 0],
/// Δt = 0.01, 1000 steps.
fn cart_pole_problem() -> Problem {
    Problem {
        x_target: vec![0.0, 0.0, PI, 0.0],
        u_target: vec![0.0],
        unknown_x: vec![],
        unknown_u: vec![],
        residual_rows: vec![],
        q: DMatrix::identity(4, 4) * 0.1,
        s: DMatrix::identity(1, 1),
        dx0: DVector::from_vec(vec![-1.0, 0.0, 2.0 - PI, 0.0]),
        dt: 0.01,
        steps: 1000,
    }
}

fn cart_pole() -> DirectPlant<Linked<CartPole>> {
    DirectPlant(Linked::new(CartPole, &["m", "M", "L"]))
}

const BASELINE: [f64; 3] = [1.0, 5.0, 2.0];

/// Largest |a_i − b_i| / |b_i|.
fn max_relative(a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    a.iter()
        .zip(b.iter())
        .map(|(a, b)| relative(*a, *b))
        .fold(0.0, f64::max)
}

#[test]
fn cart_pole_reproduces_the_reference_cost_gain_and_eigenvalues() {
    let a = analyze(&mut cart_pole(), &cart_pole_problem(), &BASELINE).unwrap();
    assert!(relative(a.f, 20598.28538) < 1e-7, "f = {}", a.f);
    let w_ref = [0.316228, 1.933180, 140.5125, 56.7634];
    for (w, r) in a.care.w.iter().zip(w_ref) {
        assert!(relative(*w, r) < 1e-5, "W = {}", a.care.w);
    }
    let mut re: Vec<f64> = a
        .care
        .closed_loop_eigenvalues
        .iter()
        .map(|l| l.re)
        .collect();
    re.sort_by(f64::total_cmp);
    for (l, r) in re.iter().zip([-2.4646, -2.4342, -0.19543, -0.19543]) {
        assert!((l - r).abs() < 1e-4, "eigenvalues {re:?}");
    }
}

#[test]
fn cart_pole_adjoint_reproduces_the_reference_and_central_differences() {
    let (mut plant, problem) = (cart_pole(), cart_pole_problem());
    let a = analyze(&mut plant, &problem, &BASELINE).unwrap();
    let g = gradient(&mut plant, &problem, &a).unwrap();
    let reference = DVector::from_vec(vec![4700.90306, 6741.01294, 6255.47446]);
    assert!(
        max_relative(&g.df_dd, &reference) < 1e-6,
        "df/dd = {}",
        g.df_dd
    );
    let fd = central_differences(&mut plant, &problem, &BASELINE, 1e-4).unwrap();
    assert!(
        max_relative(&g.df_dd, &fd) < 1e-6,
        "adjoint {} vs differences {fd}",
        g.df_dd
    );
}

#[test]
fn dropping_the_gbar_w_term_gives_a_wrong_gradient() {
    let (mut plant, problem) = (cart_pole(), cart_pole_problem());
    let a = analyze(&mut plant, &problem, &BASELINE).unwrap();
    let without = gradient_with(&mut plant, &problem, &a, false)
        .unwrap()
        .df_dd;
    let fd = central_differences(&mut plant, &problem, &BASELINE, 1e-4).unwrap();
    // The digest: df/dM ≈ −6340 and df/dL ≈ −28949 instead of +6741 and +6255.
    assert!(
        max_relative(&without, &fd) > 0.5,
        "without GbarW {without} vs differences {fd}"
    );
    assert!(without[1] < 0.0 && without[2] < 0.0, "{without}");
}

/// The toy quadrotor at hover with unknown rotor speeds (θ = u_tgt; rows vy' and ω').
fn quadrotor_problem() -> Problem {
    Problem {
        x_target: vec![0.0; 6],
        u_target: vec![500.0, 500.0],
        unknown_x: vec![],
        unknown_u: vec![0, 1],
        residual_rows: vec![4, 5],
        q: DMatrix::identity(6, 6),
        s: DMatrix::identity(2, 2) * 0.01,
        dx0: DVector::from_vec(vec![1.0, 1.0, 0.1, 0.5, 0.3, 0.05]),
        dt: 0.01,
        steps: 500,
    }
}

#[test]
fn quadrotor_hover_speed_cost_and_steady_state_adjoint() {
    let mut plant = DirectPlant(Linked::new(Quadrotor, &["c_T", "beta", "arm"]));
    let (problem, d) = (quadrotor_problem(), [1e-5, 0.1365, 0.159]);
    let a = analyze(&mut plant, &problem, &d).unwrap();
    for speed in &a.u_target {
        assert!((speed - 585.9607).abs() < 1e-4, "hover {:?}", a.u_target);
    }
    assert!(relative(a.f, 7.944627) < 1e-7, "f = {}", a.f);
    let g = gradient(&mut plant, &problem, &a).unwrap();
    assert!(
        g.steady_state.amax() > 0.0,
        "the steady-state adjoint contributes"
    );
    let fd = central_differences(&mut plant, &problem, &d, 1e-4).unwrap();
    assert!(
        max_relative(&g.df_dd, &fd) < 1e-6,
        "adjoint {} vs differences {fd}",
        g.df_dd
    );
}

#[test]
fn duffing_with_an_unknown_target_state_matches_central_differences() {
    let mut plant = DirectPlant(Linked::new(Duffing, &["k", "c", "b", "F"]));
    let problem = Problem {
        x_target: vec![0.5, 0.0],
        u_target: vec![0.0],
        unknown_x: vec![0],
        unknown_u: vec![],
        residual_rows: vec![1],
        q: DMatrix::identity(2, 2),
        s: DMatrix::identity(1, 1),
        dx0: DVector::from_vec(vec![0.5, -0.3]),
        dt: 0.01,
        steps: 1000,
    };
    let d = [1.0, 0.5, 0.3, 0.8];
    let a = analyze(&mut plant, &problem, &d).unwrap();
    let x1 = a.x_target[0];
    assert!(
        (x1 + 0.5 * x1.powi(3) - 0.8).abs() < 1e-14,
        "equilibrium {x1}"
    );
    let g = gradient(&mut plant, &problem, &a).unwrap();
    let fd = central_differences(&mut plant, &problem, &d, 1e-4).unwrap();
    assert!(
        max_relative(&g.df_dd, &fd) < 1e-6,
        "adjoint {} vs differences {fd}",
        g.df_dd
    );
}

/// The mass-spring-damper with horizon 20 s at step `dt`.
fn mass_spring_damper_problem(dt: f64) -> Problem {
    Problem {
        x_target: vec![0.0, 0.0],
        u_target: vec![0.0],
        unknown_x: vec![],
        unknown_u: vec![],
        residual_rows: vec![],
        q: DMatrix::identity(2, 2),
        s: DMatrix::identity(1, 1),
        dx0: DVector::from_vec(vec![1.0, 0.0]),
        dt,
        steps: (20.0 / dt).round() as usize,
    }
}

#[test]
fn linear_plant_cost_and_gradient_tend_to_the_riccati_value_at_first_order() {
    let mut plant = DirectPlant(Linked::new(MassSpringDamper, &["m", "k", "c"]));
    let d = [1.0, 2.0, 0.5];
    let riccati = |plant: &mut dyn Plant, d: &[f64]| {
        let a = analyze(plant, &mass_spring_damper_problem(1e-2), d).unwrap();
        let x0 = &mass_spring_damper_problem(1e-2).dx0;
        x0.dot(&(&a.care.p * x0))
    };
    let limit = riccati(&mut plant, &d);
    // d(δx0ᵀPδx0)/dd by central differences of the CARE alone (no time stepping).
    let limit_gradient = DVector::from_iterator(
        3,
        (0..3).map(|i| {
            let h = 1e-5;
            let (mut plus, mut minus) = (d, d);
            plus[i] += h;
            minus[i] -= h;
            (riccati(&mut plant, &plus) - riccati(&mut plant, &minus)) / (2.0 * h)
        }),
    );
    let mut errors = vec![];
    for dt in [1e-2, 1e-3] {
        let problem = mass_spring_damper_problem(dt);
        let a = analyze(&mut plant, &problem, &d).unwrap();
        let g = gradient(&mut plant, &problem, &a).unwrap();
        errors.push((
            relative(a.f, limit),
            max_relative(&g.df_dd, &limit_gradient),
        ));
    }
    // First order: ten times smaller Δt, about ten times smaller error.
    let (coarse, fine) = (errors[0], errors[1]);
    assert!(
        coarse.0 < 2e-2 && fine.0 < coarse.0 / 7.0 && fine.0 > coarse.0 / 13.0,
        "{errors:?}"
    );
    assert!(
        coarse.1 < 6e-2 && fine.1 < coarse.1 / 7.0 && fine.1 > coarse.1 / 13.0,
        "{errors:?}"
    );
}

#[test]
fn bad_problems_get_clear_errors() {
    let mut plant = cart_pole();
    let mut problem = cart_pole_problem();
    problem.s = DMatrix::from_element(1, 1, -1.0);
    let error = analyze(&mut plant, &problem, &BASELINE).unwrap_err();
    assert!(
        matches!(error, CodesignError::NotPositiveDefinite { name: "S" }),
        "{error}"
    );

    // A large start with a high-gain LQR and a coarse step: explicit Euler diverges.
    let mut problem = cart_pole_problem();
    problem.q = DMatrix::identity(4, 4);
    problem.s = DMatrix::identity(1, 1) * 0.01;
    problem.dt = 0.05;
    let error = analyze(&mut plant, &problem, &BASELINE).unwrap_err();
    assert!(matches!(error, CodesignError::Diverged { .. }), "{error}");
    assert!(error.to_string().contains("smaller dt"), "{error}");

    // x³ − 2x + 2 = 0 (k = 2, c = −1, F = 2): Newton from 0 cycles between 0 and 1.
    let mut plant = DirectPlant(Linked::new(Duffing, &["k", "c", "b", "F"]));
    let mut problem = cart_pole_problem();
    problem.x_target = vec![0.0, 0.0];
    problem.unknown_x = vec![0];
    problem.residual_rows = vec![1];
    problem.q = DMatrix::identity(2, 2);
    problem.dx0 = DVector::from_vec(vec![0.5, -0.3]);
    let error = analyze(&mut plant, &problem, &[2.0, -1.0, 0.3, 2.0]).unwrap_err();
    assert!(
        matches!(error, CodesignError::SteadyState { .. }),
        "{error}"
    );
    assert!(
        error.to_string().contains("better initial guess"),
        "{error}"
    );

    // k = c = 0: the position does not enter r, so no row can determine it.
    let error = analyze(&mut plant, &problem, &[0.0, 0.0, 0.3, 0.8]).unwrap_err();
    assert!(
        matches!(error, CodesignError::SingularSteadyState),
        "{error}"
    );
}

#[test]
fn cart_pole_optimum_is_the_papers_with_a_77_percent_reduction() {
    use super::optimize::optimize;
    use super::problem_file::{DesignEntry, LinearConstraint, OptimizeSettings};
    let entry = |name: &str, start, min, max| DesignEntry {
        name: name.into(),
        start,
        min,
        max,
    };
    let design = [
        entry("m", 1.0, 0.5, 2.0),
        entry("M", 5.0, 2.5, 7.5),
        entry("L", 2.0, 1.0, 2.0),
    ];
    let total_mass = LinearConstraint {
        coefficients: vec![1.0, 1.0, 0.0],
        min: Some(3.5),
        max: None,
        text: "m + M".into(),
    };
    let optimum = optimize(
        &mut cart_pole(),
        &cart_pole_problem(),
        &design,
        &[total_mass],
        &OptimizeSettings::default(),
    )
    .unwrap();
    for (d, expected) in optimum.d.iter().zip([1.0, 2.5, 1.0]) {
        assert!(
            (d - expected).abs() < 1e-4,
            "optimum {:?} ({})",
            optimum.d,
            optimum.status
        );
    }
    let reduction = 1.0 - optimum.f / optimum.history[0].f;
    assert!((0.76..=0.78).contains(&reduction), "reduction {reduction}");
    // The optimum is a vertex: M and L at their minima and m + M at its limit.
    let check = &optimum.first_order;
    assert_eq!(
        check.active,
        ["M = 2.5 (min)", "L = 1 (min)", "m + M = 3.5 (min)"]
    );
    assert!(check.holds(1e-6), "{check:?} ({})", optimum.status);
}
