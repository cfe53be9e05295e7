//! A one-degree-of-freedom oscillator whose restoring stress follows the hysteretic
//! "exponential model" steel law: example 5.2 of Serban & Recuero, "Sensitivity analysis for
//! hybrid systems and systems with memory" (2019), a hybrid system with memory.
//!
//! ```text
//! u' = v,   m v' = -A z + f(t),   z = sigma(u; u*, z*, xi, p),   f(t) = 0.5 t sin(2 pi t)
//! ```
//!
//! Each velocity reversal (`v` crossing zero) starts a new branch of the law: the memory
//! `(u*, z*)` takes the displacement and stress at the reversal and the direction `xi = sign v`
//! flips. The memory variables must carry sensitivities (they depend on the parameters through
//! the reversal states), so they are continuous states with zero derivative that the reset map
//! sets; `xi` is a discrete mode. `G = int u^2 dt` is a quadrature state.
//!
//! The law, in the numerically stable form of the digest (algebraically the paper's eq. (46),
//! with its `sinh` coefficient corrected to 2 so that `sigma(u*) = z*`):
//!
//! ```text
//! em = delta / (ka - kb),   fbar = (ka - kb - delta) / (2 alpha)
//! L  = (xi alpha / (ka - kb)) (-2 beta u* + 2 sinh(beta u*) + kb u* + xi delta / alpha + xi fbar - z*)
//! sigma = -2 beta u + 2 sinh(beta u) + kb u - xi (ka - kb) / alpha (L exp(-alpha xi (u - u*)) - em) + xi fbar
//! ```
//!
//! with `delta = 1e-20`; `p = (ka, kb, alpha, beta) = (32 pi^2, pi^2, 205, 0)`, `m = A = 1`,
//! and the initial memory `u* = z* = 0`, `xi = +1` (the load first pushes `v` positive).

use fmu_export::{
    Args, Declaration, DiscreteRole, DiscreteType, Event, Method, OdeModel, Scalar, Tunability, Var,
};

/// State indices.
const U: usize = 0;
const V: usize = 1;
const U_STAR: usize = 2;
const Z_STAR: usize = 3;
const G: usize = 4;
/// Parameter indices.
const KA: usize = 0;
const KB: usize = 1;
const ALPHA: usize = 2;
const BETA: usize = 3;
const MASS: usize = 4;
const AREA: usize = 5;
/// Discrete-variable index of the loading direction `xi`.
const XI: usize = 0;

/// The law's regularization constant `delta`.
const DELTA: f64 = 1e-20;

/// The steel-law oscillator.
#[derive(Default)]
pub struct SteelLaw;

/// The stress `sigma(u; u*, z*, xi, p)` on the branch that started at `(u*, z*)`.
pub fn stress<T: Scalar>(u: T, u_star: T, z_star: T, xi: f64, p: &[T]) -> T {
    let (ka, kb, alpha, beta) = (p[KA], p[KB], p[ALPHA], p[BETA]);
    let (xi, delta, two) = (T::cst(xi), T::cst(DELTA), T::cst(2.0));
    let span = ka - kb;
    let em = delta / span;
    let fbar = (span - delta) / (two * alpha);
    let backbone = |x: T| -two * beta * x + two * (beta * x).sinh() + kb * x;
    let level = xi * alpha / span * (backbone(u_star) + xi * delta / alpha + xi * fbar - z_star);
    let decay = (-alpha * xi * (u - u_star)).exp();
    backbone(u) - xi * span / alpha * (level * decay - em) + xi * fbar
}

impl OdeModel for SteelLaw {
    fn declaration(&self) -> Declaration {
        let pi2 = std::f64::consts::PI.powi(2);
        let state = |name: &str, text: &str| Var::new(name, 0.0).description(text);
        Declaration::new(
            "steel_law",
            "Oscillator m u'' = -A z + 0.5 t sin(2 pi t) with the hysteretic exponential-model steel law",
        )
        .state(state("u", "deformation displacement"))
        .state(state("v", "velocity"))
        .state(state("u_star", "displacement at the last velocity reversal (memory)"))
        .state(state("z_star", "stress at the last velocity reversal (memory)"))
        .state(state("G", "quadrature int_0^t u^2 dt"))
        .parameter(Var::new("ka", 32.0 * pi2).description("initial stiffness"), Tunability::Tunable)
        .parameter(Var::new("kb", pi2).description("hardening stiffness"), Tunability::Tunable)
        .parameter(Var::new("alpha", 205.0).description("transition rate"), Tunability::Tunable)
        .parameter(Var::new("beta", 0.0).description("backbone nonlinearity"), Tunability::Tunable)
        .parameter(Var::new("m", 1.0).description("nodal mass"), Tunability::Fixed)
        .parameter(Var::new("A", 1.0).description("cross-section area"), Tunability::Fixed)
        .output(Var::new("displacement", 0.0).description("u"))
        .output(Var::new("stress", 0.0).description("z = sigma(u)"))
        .output(Var::new("integral", 0.0).description("G"))
        .discrete(
            Var::new("xi", 1.0).description("loading direction sign(v) of the current branch"),
            DiscreteType::Real,
            DiscreteRole::Local,
        )
        .event_indicators(1)
        .cosimulation(Method::Sdirk { rtol: 1e-10, atol: 1e-12 }, 0.05)
        .experiment(0.0, 10.0, 1e-8, 0.01)
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let (x, p) = (a.x, a.p);
        let z = stress(x[U], x[U_STAR], x[Z_STAR], a.d[XI], p);
        let load = T::cst(0.5) * a.t * (T::cst(2.0 * std::f64::consts::PI) * a.t).sin();
        dx[U] = x[V];
        dx[V] = (load - p[AREA] * z) / p[MASS];
        dx[U_STAR] = T::cst(0.0);
        dx[Z_STAR] = T::cst(0.0);
        dx[G] = x[U] * x[U];
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        let x = a.x;
        y[0] = x[U];
        y[1] = stress(x[U], x[U_STAR], x[Z_STAR], a.d[XI], a.p);
        y[2] = x[G];
    }

    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
        z[0] = a.x[V];
    }

    /// A velocity reversal starts a new branch at the current displacement and stress.
    fn reset<T: Scalar>(&self, a: &Args<T>, event: Event, x: &mut [T], d: &mut [f64]) {
        if !matches!(event, Event::State(_)) {
            return;
        }
        let pre = a.x;
        x[U_STAR] = pre[U];
        x[Z_STAR] = stress(pre[U], pre[U_STAR], pre[Z_STAR], a.d[XI], a.p);
        d[XI] = -a.d[XI];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;
    use fmu_export::OdeSystem;
    use fmu_export::System;

    fn parameters() -> Vec<f64> {
        OdeSystem::<SteelLaw>::default()
            .declaration()
            .parameter_starts()
    }

    #[test]
    fn each_branch_starts_at_its_memory_point() {
        let mut p = parameters();
        p[BETA] = 0.3; // exercise the sinh backbone too
        for (u_star, z_star, xi) in [(0.0, 0.0, 1.0), (0.02, 1.5, -1.0), (-0.05, -2.0, 1.0)] {
            let z = stress(u_star, u_star, z_star, xi, &p);
            assert!((z - z_star).abs() < 1e-12, "{z} vs {z_star}");
        }
    }

    #[test]
    fn the_virgin_branch_stiffness_falls_from_the_mean_stiffness_to_kb() {
        // From the unloaded state (halfway between the envelopes) the tangent stiffness is
        // (ka + kb) / 2; far along the branch only the hardening stiffness kb remains.
        let p = parameters();
        let slope = |u: f64| {
            let (jac, _) = jacobian(&[u], 1, |x, out| {
                let zero = x[0] * 0.0;
                out[0] = stress(x[0], zero, zero, 1.0, &fmu_export::scalar::lift(&p));
            });
            jac[0]
        };
        let (ka, kb) = (p[KA], p[KB]);
        assert!(
            (slope(0.0) - 0.5 * (ka + kb)).abs() < 1e-9 * ka,
            "{}",
            slope(0.0)
        );
        assert!((slope(0.2) - kb).abs() < 1e-9 * ka, "{}", slope(0.2));
    }

    #[test]
    fn a_reversal_stores_displacement_and_stress_and_flips_the_direction() {
        let sys = OdeSystem::<SteelLaw>::default();
        let p = parameters();
        let x = [0.03, 0.0, 0.0, 0.0, 1e-4];
        let (mut x_new, mut d) = (x, [1.0]);
        let args = Args {
            t: 0.4,
            x: &x,
            u: &[],
            p: &p,
            d: &[1.0],
        };
        sys.reset(
            &args,
            Event::State(&[fmu_export::Crossing::Falling]),
            &mut x_new,
            &mut d,
        );
        assert_eq!(x_new[U_STAR], 0.03);
        assert_eq!(x_new[Z_STAR], stress(0.03, 0.0, 0.0, 1.0, &p));
        assert_eq!(d, [-1.0]);
        assert_eq!((x_new[U], x_new[V], x_new[G]), (x[U], x[V], x[G]));
    }
}

fmu_export::export_fmu!(fmu_export::OdeSystem<SteelLaw>);
