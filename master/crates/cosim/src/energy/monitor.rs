//! Residual power and residual energy of a power bond (Rodríguez et al. 2022, Sect. 3.1).
//!
//! Over a macro step each side of the bond works with the other's value held from the start
//! of the step (the manager cannot know what a subsystem extrapolated, so it assumes a
//! zero-order hold), while at the end both report new values. The power the flow side
//! received, `f_k . v_{k+1}`, and the power the effort side delivered, `f_{k+1} . v_k`, then
//! differ by the residual power
//!
//! ```text
//! dP_{k+1} = f_k . v_{k+1} - f_{k+1} . v_k
//! ```
//!
//! which is zero for an ideal interface; positive values inject energy. Its sum over the
//! macro steps times their lengths is the residual energy `dE`.

use super::scalar::Scalar;

/// `a . b`.
pub fn dot<T: Scalar>(a: &[T], b: &[T]) -> T {
    a.iter().zip(b).map(|(&x, &y)| x * y).sum()
}

/// `sqrt(a . a)`.
pub fn norm<T: Scalar>(a: &[T]) -> T {
    dot(a, a).sqrt()
}

/// The residual power between communication points `k` and `k + 1` from the effort `f` and
/// flow `v` at both.
pub fn residual_power<T: Scalar>(
    effort_before: &[T],
    flow_before: &[T],
    effort_after: &[T],
    flow_after: &[T],
) -> T {
    dot(effort_before, flow_after) - dot(effort_after, flow_before)
}

/// The monitor of one bond: the latest effort and flow, residual power and residual energy.
#[derive(Debug, Clone, PartialEq)]
pub struct BondMonitor {
    effort: Vec<f64>,
    flow: Vec<f64>,
    power: f64,
    energy: f64,
}

impl BondMonitor {
    /// Starts from the effort and flow at the start time.
    pub fn new(effort: Vec<f64>, flow: Vec<f64>) -> Self {
        BondMonitor {
            effort,
            flow,
            power: 0.0,
            energy: 0.0,
        }
    }

    /// Takes the values at the next communication point, `step` after the previous one, and
    /// returns the residual power of that macro step.
    pub fn advance(&mut self, effort: &[f64], flow: &[f64], step: f64) -> f64 {
        self.power = residual_power(&self.effort, &self.flow, effort, flow);
        self.energy += step * self.power;
        self.effort.copy_from_slice(effort);
        self.flow.copy_from_slice(flow);
        self.power
    }

    /// The residual power of the latest macro step (0 before the first).
    pub fn power(&self) -> f64 {
        self.power
    }

    /// The residual energy since the start.
    pub fn energy(&self) -> f64 {
        self.energy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ideal_interface_has_no_residual_power() {
        // A constant force on a body moving at constant speed: both sides agree.
        let mut monitor = BondMonitor::new(vec![3.0], vec![2.0]);
        assert_eq!(monitor.advance(&[3.0], &[2.0], 0.1), 0.0);
        assert_eq!(monitor.energy(), 0.0);
    }

    #[test]
    fn the_residual_power_is_received_minus_delivered_and_sums_to_the_residual_energy() {
        let mut monitor = BondMonitor::new(vec![2.0, -1.0], vec![0.5, 4.0]);
        // f_k . v_{k+1} = 2 * 1 + (-1) * 3 = -1; f_{k+1} . v_k = 3 * 0.5 + 1 * 4 = 5.5.
        assert_eq!(monitor.advance(&[3.0, 1.0], &[1.0, 3.0], 0.01), -6.5);
        // f_k . v_{k+1} = 3 * 2 + 1 * 0 = 6; f_{k+1} . v_k = 0 * 1 + 2 * 3 = 6.
        assert_eq!(monitor.advance(&[0.0, 2.0], &[2.0, 0.0], 0.02), 0.0);
        assert_eq!(monitor.power(), 0.0);
        assert!((monitor.energy() - (-0.065)).abs() < 1e-15);
    }

    #[test]
    fn a_lagging_force_on_a_spring_injects_energy() {
        // A body at speed 1 compressing a spring k = 100: f = -k x. With the force one step
        // behind (held), the spring side delivers f_{k+1} v_k while the body received
        // f_k v_{k+1}: the difference is k h v^2 > 0, energy out of nothing.
        let (k, h, v) = (100.0, 1e-3, 1.0);
        let force = |x: f64| -k * x;
        let mut monitor = BondMonitor::new(vec![force(0.0)], vec![v]);
        let power = monitor.advance(&[force(v * h)], &[v], h);
        assert!((power - k * h * v * v).abs() < 1e-12, "{power}");
    }
}
