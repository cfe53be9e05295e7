//! A ball dropped onto the ground: free fall `h' = v`, `v' = -g`, and at each impact
//! (`h` falling through 0) the reset `v+ = -e v-`, `h+ = 0`.
//!
//! Without a rest condition the bounces accumulate at a finite time (Zeno behaviour) and any
//! event-locating solver stalls there. As in the Modelica Association's Reference FMUs, a bounce
//! that leaves the ball slower than [`REST_SPEED`] puts it at rest: `v` is set to 0 and the
//! Boolean mode `resting` makes the derivatives vanish for the rest of the simulation.
//!
//! The String output `status` reports, in words, the phase and the impacts so far on the
//! surface that the String parameter `surface` names (for logs and result browsers).

use fmu_export::{
    Args, Crossing, Declaration, DiscreteRole, DiscreteType, Event, Method, OdeModel, Scalar,
    Tunability, Var,
};

/// State indices.
const H: usize = 0;
const V: usize = 1;
/// Parameter indices.
const G: usize = 0;
const E: usize = 1;
/// Discrete-variable indices.
const BOUNCES: usize = 0;
const RESTING: usize = 1;
/// String-parameter index.
const SURFACE: usize = 0;

/// Rebound speed (m/s) below which a bounce leaves the ball at rest.
pub const REST_SPEED: f64 = 0.1;

/// The bouncing-ball model.
#[derive(Default)]
pub struct BouncingBall;

impl OdeModel for BouncingBall {
    fn declaration(&self) -> Declaration {
        Declaration::new(
            "bouncing_ball",
            "Ball bouncing on the ground with coefficient of restitution e; \
             comes to rest when a rebound is slower than 0.1 m/s",
        )
        .state(
            Var::new("h", 1.0)
                .unit("m")
                .description("height above the ground"),
        )
        .state(
            Var::new("v", 0.0)
                .unit("m/s")
                .description("upward velocity"),
        )
        .parameter(
            Var::new("g", 9.81)
                .unit("m/s2")
                .description("gravitational acceleration"),
            Tunability::Fixed,
        )
        .parameter(
            Var::new("e", 0.7)
                .range(0.0, 1.0)
                .description("coefficient of restitution"),
            Tunability::Tunable,
        )
        .output(Var::new("height", 1.0).unit("m").description("height h"))
        .output(
            Var::new("velocity", 0.0)
                .unit("m/s")
                .description("velocity v"),
        )
        .discrete(
            Var::new("bounces", 0.0).description("number of impacts so far"),
            DiscreteType::Integer,
            DiscreteRole::Output,
        )
        .discrete(
            Var::new("resting", 0.0).description("true once the ball lies on the ground"),
            DiscreteType::Boolean,
            DiscreteRole::Local,
        )
        .event_indicators(1)
        .string_parameter(
            "surface",
            "ground",
            "name of the surface the ball bounces on, used in status",
        )
        .string_output(
            "status",
            "the phase (bouncing or resting) and the impacts so far, in words",
        )
        .sensitivities(&["g", "e"])
        .cosimulation(
            Method::Sdirk {
                rtol: 1e-8,
                atol: 1e-10,
            },
            1e-2,
        )
        .experiment(0.0, 3.0, 1e-8, 1e-2)
    }

    fn derivatives<T: Scalar>(&self, a: &Args<T>, dx: &mut [T]) {
        if is_resting(a.d) {
            dx[H] = T::cst(0.0);
            dx[V] = T::cst(0.0);
        } else {
            dx[H] = a.x[V];
            dx[V] = -a.p[G];
        }
    }

    fn outputs<T: Scalar>(&self, a: &Args<T>, y: &mut [T]) {
        y[0] = a.x[H];
        y[1] = a.x[V];
    }

    fn event_indicators<T: Scalar>(&self, a: &Args<T>, z: &mut [T]) {
        z[0] = a.x[H];
    }

    fn reset<T: Scalar>(&self, a: &Args<T>, event: Event, x_new: &mut [T], d_new: &mut [f64]) {
        let Event::State(crossings) = event else {
            return;
        };
        if crossings[0] != Crossing::Falling || is_resting(a.d) {
            return;
        }
        // Clamping h removes the small penetration left by event location, so the next
        // flight starts exactly on the ground and its indicator starts at zero.
        x_new[H] = T::cst(0.0);
        x_new[V] = -a.p[E] * a.x[V];
        d_new[BOUNCES] += 1.0;
        if x_new[V].real().abs() < REST_SPEED {
            x_new[V] = T::cst(0.0);
            d_new[RESTING] = 1.0;
        }
    }

    fn string_outputs(&self, a: &Args<f64>, s: &[String], out: &mut [String]) {
        let phase = if is_resting(a.d) {
            "resting"
        } else {
            "bouncing"
        };
        out[0] = format!(
            "{phase} on the {} after {} impacts",
            s[SURFACE], a.d[BOUNCES]
        );
    }
}

fn is_resting(d: &[f64]) -> bool {
    d[RESTING] != 0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmu_export::jacobian::jacobian;
    use fmu_export::{OdeSystem, System};

    const P: [f64; 2] = [9.81, 0.7];

    fn args<'a, T: Scalar>(x: &'a [T], p: &'a [T], d: &'a [f64]) -> Args<'a, T> {
        Args {
            t: T::cst(0.0),
            x,
            u: &[],
            p,
            d,
        }
    }

    /// Applies one falling-crossing reset to `(x, d)` through the `System` view.
    fn bounce(sys: &OdeSystem<BouncingBall>, x: [f64; 2], d: &mut [f64]) -> [f64; 2] {
        let pre_d = d.to_vec();
        let mut x_new = x;
        sys.reset(
            &args(&x, &P, &pre_d),
            Event::State(&[Crossing::Falling]),
            &mut x_new,
            d,
        );
        x_new
    }

    #[test]
    fn status_names_the_phase_the_surface_and_the_impacts() {
        let sys = OdeSystem::<BouncingBall>::default();
        let mut d = sys.declaration().discrete_starts();
        let surface = ["trampoline".to_owned()];
        let mut status = [String::new()];
        sys.string_outputs(&args(&[0.0, -3.0], &P, &d), &surface, &mut status);
        assert_eq!(status[0], "bouncing on the trampoline after 0 impacts");
        let x = bounce(&sys, [0.0, -0.05], &mut d);
        sys.string_outputs(&args(&x, &P, &d), &surface, &mut status);
        assert_eq!(status[0], "resting on the trampoline after 1 impacts");
    }

    #[test]
    fn free_flight_derivatives_and_indicator() {
        let sys = OdeSystem::<BouncingBall>::default();
        let d = sys.declaration().discrete_starts();
        let (x, mut dx, mut z) = ([0.4, -1.5], [0.0; 2], [0.0]);
        sys.derivatives(&args(&x, &P, &d), &mut dx);
        sys.event_indicators(&args(&x, &P, &d), &mut z);
        assert_eq!(dx, [-1.5, -9.81]);
        assert_eq!(z, [0.4]);
    }

    #[test]
    fn impact_reverses_and_scales_the_velocity_and_counts_the_bounce() {
        let sys = OdeSystem::<BouncingBall>::default();
        let mut d = sys.declaration().discrete_starts();
        let x_new = bounce(&sys, [-1e-9, -3.0], &mut d);
        assert_eq!(x_new, [0.0, 0.7 * 3.0]);
        assert_eq!(d, [1.0, 0.0]);
        let x_new = bounce(&sys, [-1e-9, -2.0], &mut d);
        assert_eq!(x_new, [0.0, 0.7 * 2.0]);
        assert_eq!(d, [2.0, 0.0]);
    }

    #[test]
    fn only_falling_crossings_bounce() {
        let sys = OdeSystem::<BouncingBall>::default();
        let d = sys.declaration().discrete_starts();
        let x = [0.0, 1.0];
        let rising = Event::State(&[Crossing::Rising]);
        for event in [rising, Event::State(&[Crossing::None]), Event::Time] {
            let (mut x_new, mut d_new) = (x, d.clone());
            sys.reset(&args(&x, &P, &d), event, &mut x_new, &mut d_new);
            assert_eq!((x_new, d_new.as_slice()), (x, d.as_slice()), "{event:?}");
        }
    }

    #[test]
    fn slow_rebound_puts_the_ball_at_rest_with_zero_derivatives() {
        let sys = OdeSystem::<BouncingBall>::default();
        let mut d = sys.declaration().discrete_starts();
        let x_new = bounce(&sys, [-1e-9, -0.9 * REST_SPEED / 0.7], &mut d);
        assert_eq!(x_new, [0.0, 0.0]);
        assert_eq!(d, [1.0, 1.0]);
        let mut dx = [f64::NAN; 2];
        sys.derivatives(&args(&x_new, &P, &d), &mut dx);
        assert_eq!(dx, [0.0, 0.0]);
    }

    #[test]
    fn drop_from_one_metre_rests_after_the_predicted_number_of_bounces() {
        // Each flight is an exact parabola, so the impact speed equals the rebound speed of
        // the previous bounce; only the reset map decides when the ball stops.
        let sys = OdeSystem::<BouncingBall>::default();
        let decl = sys.declaration();
        let mut d = decl.discrete_starts();
        let first_impact_speed = (2.0 * P[G] * decl.state_starts()[H]).sqrt();
        let mut speed = first_impact_speed;
        while d[RESTING] == 0.0 {
            assert!(d[BOUNCES] < 100.0, "the ball never came to rest");
            speed = bounce(&sys, [0.0, -speed], &mut d)[V];
        }
        // Smallest k with first_impact_speed * e^k < REST_SPEED.
        let expected = ((REST_SPEED / first_impact_speed).ln() / P[E].ln()).floor() + 1.0;
        assert_eq!(d[BOUNCES], expected);
    }

    #[test]
    fn reset_map_is_differentiable_in_state_and_restitution() {
        // Jump conditions for sensitivities need d(x+)/d(x-, p) from the same reset code.
        let sys = OdeSystem::<BouncingBall>::default();
        let d = sys.declaration().discrete_starts();
        let (h, v, e) = (-1e-9, -3.0, 0.7);
        let (jac, value) = jacobian(&[h, v, P[G], e], 2, |w, out| {
            let (x, p) = w.split_at(2);
            let (mut x_new, mut d_new) = ([x[0], x[1]], d.clone());
            sys.reset(
                &args(x, p, &d),
                Event::State(&[Crossing::Falling]),
                &mut x_new,
                &mut d_new,
            );
            out.copy_from_slice(&x_new);
        });
        assert_eq!(value, [0.0, -e * v]);
        // Rows h+, v+; columns h-, v-, g, e.
        assert_eq!(jac, [0.0, 0.0, 0.0, 0.0, 0.0, -e, 0.0, -v]);
    }
}

fmu_export::export_fmu!(fmu_export::OdeSystem<BouncingBall>);
