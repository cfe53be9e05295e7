//! The 1-D heat equation `u_t = k u_xx` on `0 < x < 1` with `u = 0` at both ends, discretized
//! by the method of lines: `N` interior points `x_i = i / (N + 1)`, states `u1 .. uN`,
//! `u_i' = k (u_{i-1} - 2 u_i + u_{i+1}) / dx^2`. The Jacobian is tridiagonal, so the FMU's
//! ModelStructure declares each derivative to depend on at most three states, and stiff: its
//! eigenvalues reach `-4 k / dx^2`. It is the large sparse Model Exchange FMU of the master's
//! sparse-Jacobian tests and benchmarks.
//!
//! The start values are the first sine mode `u_i = sin(pi x_i)`, an eigenvector of the
//! discrete Laplacian: the exact solution of the ODE is `exp(-lambda t) sin(pi x_i)` with
//! `lambda = 4 k / dx^2 sin^2(pi dx / 2)`, which tends to the PDE's `k pi^2` as `dx^2`.
//!
//! `N` is fixed when the crate is built: 100, or the value of the environment variable
//! `HEAT_EQUATION_STATES` (`HEAT_EQUATION_STATES=10000 cargo xtask fmus`).

use fmu_export::{Args, Declaration, Method, OdeModel, Scalar, Tunability, Var};

/// Number of states (interior grid points).
pub const STATES: usize = states(option_env!("HEAT_EQUATION_STATES"));

/// The number of states when the build does not set it.
const DEFAULT_STATES: usize = 100;

/// Start value of the diffusivity `k`.
pub const DIFFUSIVITY: f64 = 0.1;

/// Parameter index of `k`.
const K: usize = 0;

/// The number of states a build asks for: `value` as a positive decimal integer.
const fn states(value: Option<&str>) -> usize {
    let Some(value) = value else {
        return DEFAULT_STATES;
    };
    let digits = value.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < digits.len() {
        assert!(
            digits[i].is_ascii_digit(),
            "HEAT_EQUATION_STATES must be a positive integer"
        );
        n = n * 10 + (digits[i] - b'0') as usize;
        i += 1;
    }
    assert!(n > 0, "HEAT_EQUATION_STATES must be a positive integer");
    n
}

/// The grid spacing `dx = 1 / (N + 1)`.
pub fn spacing() -> f64 {
    1.0 / (STATES + 1) as f64
}

/// The decay rate of the first sine mode under the discretized equation,
/// `4 k / dx^2 sin^2(pi dx / 2)`.
pub fn decay_rate(diffusivity: f64) -> f64 {
    let dx = spacing();
    4.0 * diffusivity / (dx * dx) * (std::f64::consts::PI * dx / 2.0).sin().powi(2)
}

/// The first sine mode at grid point `i` (0-based): the start value of state `i`.
pub fn sine_mode(i: usize) -> f64 {
    (std::f64::consts::PI * (i + 1) as f64 * spacing()).sin()
}

/// The heat-equation model.
#[derive(Default)]
pub struct HeatEquation;

impl OdeModel for HeatEquation {
    fn declaration(&self) -> Declaration {
        let declaration = Declaration::new(
            "heat_equation",
            "1-D heat equation u_t = k u_xx, u = 0 at both ends, by the method of lines",
        );
        (0..STATES)
            .fold(declaration, |declaration, i| {
                declaration.state(
                    Var::new(&format!("u{}", i + 1), sine_mode(i))
                        .description("temperature at an interior grid point"),
                )
            })
            .parameter(
                Var::new("k", DIFFUSIVITY)
                    .nominal(DIFFUSIVITY)
                    .range(0.0, f64::INFINITY)
                    .description("diffusivity"),
                Tunability::Tunable,
            )
            .output(Var::new("mean", mean(&start_values())).description("mean temperature"))
            .cosimulation(
                Method::Sdirk {
                    rtol: 1e-6,
                    atol: 1e-8,
                },
                1e-2,
            )
            .experiment(0.0, 1.0, 1e-6, 1e-2)
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        let scale = a.p[K] * T::cst(1.0 / (spacing() * spacing()));
        let u = a.x;
        for (i, slot) in dx.iter_mut().enumerate() {
            // The boundary values are zero.
            let left = if i > 0 { u[i - 1] } else { T::cst(0.0) };
            let right = if i + 1 < u.len() {
                u[i + 1]
            } else {
                T::cst(0.0)
            };
            *slot = scale * (left - T::cst(2.0) * u[i] + right);
        }
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        y[0] = mean(a.x);
    }
}

fmu_export::export_fmu!(fmu_export::OdeSystem<HeatEquation>);

/// The start values: the first sine mode.
fn start_values() -> Vec<f64> {
    (0..STATES).map(sine_mode).collect()
}

/// The mean temperature `dx sum u_i` (the trapezoidal rule with zero ends).
fn mean<T: Scalar>(u: &[T]) -> T {
    u.iter().fold(T::cst(0.0), |sum, &ui| sum + ui) * T::cst(spacing())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::description::structure::{ModelStructure, Version};
    use fmu_export::variables::VariableTable;
    use fmu_export::{OdeSystem, System};

    #[test]
    fn the_sine_mode_is_an_eigenvector_with_the_decay_rate() {
        let sys = OdeSystem::<HeatEquation>::default();
        let u = start_values();
        let mut du = vec![0.0; STATES];
        let args = Args {
            t: 0.0,
            x: &u,
            u: &[],
            p: &[DIFFUSIVITY],
            d: &[],
        };
        sys.derivatives(&args, &mut du);
        let rate = decay_rate(DIFFUSIVITY);
        for (ui, dui) in u.iter().zip(&du) {
            assert!(
                (dui + rate * ui).abs() < 1e-9 * rate,
                "{dui} vs {}",
                -rate * ui
            );
        }
        // The discrete rate tends to the PDE's k pi^2 with the square of the spacing.
        let pde = DIFFUSIVITY * std::f64::consts::PI.powi(2);
        assert!((rate - pde).abs() < pde * spacing().powi(2));
    }

    #[test]
    fn each_derivative_depends_on_its_state_and_its_neighbours() {
        let sys = OdeSystem::<HeatEquation>::default();
        let table = VariableTable::new(sys.declaration());
        let structure = ModelStructure::new(&sys, &table, Version::Fmi3);
        assert_eq!(structure.derivatives.len(), STATES);
        for (i, derivative) in structure.derivatives.iter().enumerate() {
            let dependencies = derivative.dependencies.as_ref().expect("declared");
            let neighbours = usize::from(i > 0) + usize::from(i + 1 < STATES);
            // The states and k.
            assert_eq!(dependencies.len(), 1 + neighbours + 1, "derivative {i}");
        }
    }
}
