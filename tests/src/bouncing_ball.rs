//! The impact times of a ball dropped from rest, the reference for the bouncing-ball FMUs, and
//! their recovery from a recorded trajectory.

use crate::trajectory::Trajectory;

/// A ball dropped from rest at height `h0` under gravity `g`, rebounding with restitution `e`
/// until a rebound is slower than `rest_speed`, which leaves it at rest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DroppedBall {
    /// Initial height.
    pub h0: f64,
    /// Gravitational acceleration.
    pub g: f64,
    /// Coefficient of restitution.
    pub e: f64,
    /// Rebound speed below which the ball stays on the ground.
    pub rest_speed: f64,
}

impl DroppedBall {
    /// The impact times, the last being the one that leaves the ball at rest:
    /// `t_1 = sqrt(2 h0 / g)`, `t_{k+1} = t_k + 2 e^k v_1 / g` with `v_1 = sqrt(2 g h0)`.
    pub fn impact_times(&self) -> Vec<f64> {
        let mut t = (2.0 * self.h0 / self.g).sqrt();
        let mut rebound = self.e * (2.0 * self.g * self.h0).sqrt();
        let mut times = vec![t];
        while rebound >= self.rest_speed {
            t += 2.0 * rebound / self.g;
            times.push(t);
            rebound *= self.e;
        }
        times
    }

    /// The time of the last impact before a sample `(t, h, v)` of the free flight that
    /// follows it: solves `h = v tau + g tau^2 / 2` for the time `tau` since the impact (on
    /// the ground `v = v_+ - g tau`, `h = v_+ tau - g tau^2 / 2`).
    pub fn impact_before(&self, t: f64, h: f64, v: f64) -> f64 {
        t - ((v * v + 2.0 * self.g * h).sqrt() - v) / self.g
    }
}

/// The rows at which the counter `column` of `trajectory` has just increased: the first
/// sample after each impact.
pub fn increments(trajectory: &Trajectory, column: &str) -> Vec<usize> {
    let counts = trajectory.column(column);
    (1..counts.len())
        .filter(|&r| counts[r] > counts[r - 1])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BALL: DroppedBall = DroppedBall {
        h0: 1.0,
        g: 9.81,
        e: 0.7,
        rest_speed: 0.1,
    };

    #[test]
    fn impact_times_follow_the_geometric_flights() {
        let times = BALL.impact_times();
        let v1 = (2.0 * 9.81f64).sqrt();
        // Rebounds e^k v1 stay at or above 0.1 m/s for k <= 10; the 11th impact rests the ball.
        assert_eq!(times.len(), 11);
        assert!((times[0] - (2.0 / 9.81f64).sqrt()).abs() < 1e-15);
        let flights: f64 = (1..=10).map(|k| 2.0 * 0.7f64.powi(k) * v1 / 9.81).sum();
        assert!((times[10] - times[0] - flights).abs() < 1e-14);
    }

    #[test]
    fn the_impact_time_is_recovered_from_any_point_of_the_flight() {
        let (t_impact, rebound) = (0.8, 3.0);
        for tau in [0.0, 0.1, 0.3, 0.5] {
            let (h, v) = (rebound * tau - 9.81 * tau * tau / 2.0, rebound - 9.81 * tau);
            let t = BALL.impact_before(t_impact + tau, h, v);
            assert!((t - t_impact).abs() < 1e-15, "tau = {tau}: {t}");
        }
    }

    #[test]
    fn increments_are_the_rows_where_the_counter_grows() {
        let trajectory = Trajectory {
            names: vec!["time".into(), "n".into()],
            rows: [0.0, 0.0, 1.0, 1.0, 2.0, 3.0]
                .iter()
                .enumerate()
                .map(|(i, &n)| vec![i as f64, n])
                .collect(),
        };
        assert_eq!(increments(&trajectory, "n"), [2, 4, 5]);
    }
}
