//! The default Model Exchange solver: Dormand–Prince while the problem is not stiff, the
//! implicit ESDIRK while it is, changing at step boundaries when the measured stiffness says
//! so ([`super::stiffness`]).
//!
//! A change happens when a step is accepted: the next attempt starts from the same accepted
//! state with the other method (which starts afresh, as after an event) and the step size the
//! controller proposed. The last attempt's new state and dense output stay those of the method
//! that made it. While the problem stays non-stiff, the explicit steps are exactly those of
//! [`DormandPrince`] alone, to the last bit.

use std::fmt::Write;

use super::stiffness::StiffnessDetector;
use super::{
    Attempt, DenseOutput, DormandPrince, Esdirk, EsdirkStatistics, HermiteOutput, Interpolant,
    Method, Ode, SolverMemory, StepLinearization, Stepper, Tolerances,
};

/// Accepted implicit steps after which the Jacobian is evaluated afresh, so that its spectral
/// radius follows the problem (the implicit method alone keeps a Jacobian while its
/// iterations converge, however old).
const JACOBIAN_AGE: usize = 10;

/// Since when a method ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// [`Method::Dopri5`] or [`Method::Esdirk`].
    pub method: Method,
    /// The time its first step started.
    pub start: f64,
}

/// Dormand–Prince and ESDIRK with a stiffness detector choosing between them (or, made with
/// [`Auto::with_method`], one of them throughout: the one type a caller needs for any
/// [`Method`]).
pub struct Auto {
    explicit: DormandPrince,
    implicit: Esdirk,
    /// Whether the detector may change the method.
    switching: bool,
    detector: StiffnessDetector,
    /// The method of the next attempt.
    current: Method,
    /// The method that made the last attempt (its new state and dense output are current).
    last: Method,
    /// Accepted implicit steps since the Jacobian was last refreshed.
    implicit_steps: usize,
    /// Start and size of the last attempt.
    t: f64,
    h: f64,
    /// Which method ran since when, in order; empty before the first attempt.
    spans: Vec<Span>,
}

impl Auto {
    /// A stepper for `n` states, starting with Dormand–Prince.
    pub fn new(n: usize) -> Self {
        Self::with_method(n, Method::Auto)
    }

    /// A stepper for `n` states that runs `method`: switching for [`Method::Auto`], else that
    /// method alone (step for step what its own stepper computes).
    pub fn with_method(n: usize, method: Method) -> Self {
        let first = match method {
            Method::Esdirk => Method::Esdirk,
            Method::Auto | Method::Dopri5 => Method::Dopri5,
        };
        Auto {
            explicit: DormandPrince::new(n),
            implicit: Esdirk::new(n),
            switching: method == Method::Auto,
            detector: StiffnessDetector::new(),
            current: first,
            last: first,
            implicit_steps: 0,
            t: 0.0,
            h: 0.0,
            spans: Vec::new(),
        }
    }

    /// The last attempted step (after an accepted one: that step) of the method that made it,
    /// for its tangent and adjoint with the step size frozen.
    pub fn last_step(&self) -> StepLinearization {
        match self.last {
            Method::Esdirk => self.implicit.last_step(),
            _ => self.explicit.last_step(),
        }
    }

    /// The method it was made with: [`Method::Auto`] when it switches, else the one method it
    /// runs.
    pub fn method(&self) -> Method {
        if self.switching {
            Method::Auto
        } else {
            self.current
        }
    }

    /// The method the next attempt uses.
    pub fn current(&self) -> Method {
        self.current
    }

    /// Which method ran since when, in order (empty before the first attempt).
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// The work of the implicit method so far (Jacobians, their products, factorizations).
    pub fn implicit_statistics(&self) -> EsdirkStatistics {
        self.implicit.statistics()
    }

    /// The method of the next attempt becomes `method`, from time `t`.
    fn switch_to(&mut self, method: Method, t: f64) {
        match method {
            Method::Esdirk => self.implicit.reset(),
            _ => self.explicit.reset(),
        }
        self.current = method;
        self.spans.push(Span { method, start: t });
    }
}

impl Stepper for Auto {
    type Dense = AutoDense;

    fn name(&self) -> &'static str {
        match (self.switching, self.current) {
            (true, _) => "auto",
            (false, Method::Esdirk) => self.implicit.name(),
            (false, _) => self.explicit.name(),
        }
    }

    fn initial_step<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        x: &[f64],
        tolerances: &Tolerances,
        max_step: f64,
    ) -> Result<f64, O::Error> {
        match self.current {
            Method::Esdirk => self.implicit.initial_step(ode, t, x, tolerances, max_step),
            _ => self.explicit.initial_step(ode, t, x, tolerances, max_step),
        }
    }

    fn attempt<O: Ode>(
        &mut self,
        ode: &mut O,
        t: f64,
        x: &[f64],
        h: f64,
        tolerances: &Tolerances,
    ) -> Result<Attempt, O::Error> {
        if self.spans.is_empty() {
            self.spans.push(Span {
                method: self.current,
                start: t,
            });
        }
        self.last = self.current;
        self.t = t;
        self.h = h;
        match self.current {
            Method::Esdirk => self.implicit.attempt(ode, t, x, h, tolerances),
            _ => self.explicit.attempt(ode, t, x, h, tolerances),
        }
    }

    fn x_new(&self) -> &[f64] {
        match self.last {
            Method::Esdirk => self.implicit.x_new(),
            _ => self.explicit.x_new(),
        }
    }

    fn dense_output(&self, dense: &mut AutoDense) {
        match (self.last, &mut *dense) {
            (Method::Esdirk, AutoDense::Implicit(inner)) => self.implicit.dense_output(inner),
            (Method::Esdirk, _) => {
                let mut inner = HermiteOutput::default();
                self.implicit.dense_output(&mut inner);
                *dense = AutoDense::Implicit(inner);
            }
            (_, AutoDense::Explicit(inner)) => self.explicit.dense_output(inner),
            (_, _) => {
                let mut inner = DenseOutput::default();
                self.explicit.dense_output(&mut inner);
                *dense = AutoDense::Explicit(inner);
            }
        }
    }

    /// Accepts the last step with its method, then asks the detector whether the next one
    /// should use the other.
    fn accept(&mut self) {
        let end = self.t + self.h;
        match self.last {
            Method::Esdirk => {
                self.implicit.accept();
                if !self.switching {
                    return;
                }
                let radius = self.implicit.spectral_radius();
                if self.detector.implicit_step(self.h, radius) {
                    self.switch_to(Method::Dopri5, end);
                }
                self.implicit_steps += 1;
                if self.implicit_steps >= JACOBIAN_AGE {
                    self.implicit_steps = 0;
                    self.implicit.refresh_jacobian();
                }
            }
            _ => {
                self.explicit.accept();
                if self.switching
                    && self
                        .detector
                        .explicit_step(self.explicit.stiffness_estimate())
                {
                    self.switch_to(Method::Esdirk, end);
                }
            }
        }
    }

    /// Both methods start afresh; the one in use stays (stiffness outlasts an event).
    fn reset(&mut self) {
        self.explicit.reset();
        self.implicit.reset();
    }

    /// The method in use and the detector's evidence.
    fn memory(&self) -> SolverMemory {
        SolverMemory {
            auto: Some(AutoMemory {
                detector: self.detector.clone(),
                current: self.current,
                implicit_steps: self.implicit_steps,
                spans: self.spans.len(),
            }),
        }
    }

    /// Spans recorded since `memory` are forgotten.
    fn recall(&mut self, memory: &SolverMemory) {
        if let Some(memory) = &memory.auto {
            self.detector = memory.detector.clone();
            self.current = memory.current;
            self.implicit_steps = memory.implicit_steps;
            self.spans.truncate(memory.spans);
        }
        self.reset();
    }
}

/// [`Auto`]'s choice of method at a point of an integration ([`Stepper::memory`]).
#[derive(Debug, Clone)]
pub(super) struct AutoMemory {
    detector: StiffnessDetector,
    current: Method,
    implicit_steps: usize,
    spans: usize,
}

/// The dense output of the method that made the last step.
#[derive(Debug, Clone)]
pub enum AutoDense {
    /// A Dormand–Prince step's.
    Explicit(DenseOutput),
    /// An ESDIRK step's.
    Implicit(HermiteOutput),
}

impl Default for AutoDense {
    fn default() -> Self {
        AutoDense::Explicit(DenseOutput::default())
    }
}

impl Interpolant for AutoDense {
    fn evaluate(&self, t: f64, x: &mut [f64]) {
        match self {
            AutoDense::Explicit(inner) => inner.evaluate(t, x),
            AutoDense::Implicit(inner) => inner.evaluate(t, x),
        }
    }
}

/// A solver in words for a run that ended at `end`: the method, and for one that changes
/// methods (auto) with the `spans` it recorded, which method ran over which interval.
pub fn describe_solver(method: Method, spans: &[Span], end: f64) -> String {
    if method != Method::Auto || spans.is_empty() {
        method.to_string()
    } else {
        format!("{method}: {}", describe_spans(spans, end))
    }
}

/// The spans of a run that ended at `end`, in words: "dopri5 0–0.0123, esdirk 0.0123–1e8
/// (1 switch)", or the one method that ran.
pub fn describe_spans(spans: &[Span], end: f64) -> String {
    let mut text = String::new();
    for (i, span) in spans.iter().enumerate() {
        let until = spans.get(i + 1).map_or(end, |next| next.start);
        if i > 0 {
            text.push_str(", ");
        }
        let _ = write!(
            text,
            "{} {}–{}",
            span.method,
            short_number(span.start),
            short_number(until)
        );
    }
    match spans.len() {
        0 => "dopri5 (no steps)".to_string(),
        1 => format!("{text}, no switch"),
        2 => format!("{text} (1 switch)"),
        n => format!("{text} ({} switches)", n - 1),
    }
}

/// `x` to four significant digits, in exponent notation when it is far from 1.
fn short_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return x.to_string();
    }
    let rounded: f64 = format!("{x:.3e}").parse().unwrap_or(x);
    if (1e-3..1e5).contains(&rounded.abs()) {
        rounded.to_string()
    } else {
        format!("{rounded:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integrates the scalar `ode` from `y(0) = y0` over `[0, end]` under auto at tolerance
    /// 1e-6, one step at a time; returns the spans and the final value.
    fn integrate(mut ode: impl Ode<Error = ()>, y0: f64, end: f64) -> (Vec<Span>, f64) {
        let mut auto = Auto::new(1);
        let tolerances = Tolerances::from_nominals(1e-6, &[1.0]);
        let (mut t, mut y) = (0.0, vec![y0]);
        let mut h = auto
            .initial_step(&mut ode, t, &y, &tolerances, end)
            .unwrap();
        while t < end {
            let last = h >= end - t;
            let step = if last { end - t } else { h };
            let attempt = auto.attempt(&mut ode, t, &y, step, &tolerances).unwrap();
            h = attempt.next_step;
            if attempt.accepted {
                t = if last { end } else { t + step };
                y.copy_from_slice(auto.x_new());
                auto.accept();
            }
        }
        (auto.spans().to_vec(), y[0])
    }

    /// `y' = lambda y` from `y(0) = 1` over `[0, end]`.
    fn linear(lambda: f64, end: f64) -> (Vec<Span>, f64) {
        let ode = move |_: f64, y: &[f64], dy: &mut [f64]| {
            dy[0] = lambda * y[0];
            Ok(())
        };
        integrate(ode, 1.0, end)
    }

    #[test]
    fn a_fast_decay_switches_to_the_implicit_method() {
        // After the transient (t ~ 1e-5) the tolerance allows long steps; stability does not.
        let (spans, y) = linear(-1e6, 1.0);
        assert_eq!(spans.len(), 2, "{spans:?}");
        assert_eq!(spans[1].method, Method::Esdirk);
        assert!(spans[1].start < 1e-3, "{spans:?}");
        assert!(y.abs() < 1e-6, "{y}");
    }

    #[test]
    fn a_slow_decay_stays_explicit() {
        let (spans, y) = linear(-1.0, 10.0);
        assert_eq!(
            spans,
            [Span {
                method: Method::Dopri5,
                start: 0.0
            }]
        );
        assert!((y - (-10f64).exp()).abs() < 1e-7, "{y}");
    }

    #[test]
    fn the_stiff_stretch_ends_when_the_problem_slows_down() {
        // lambda(t) = -1e6 until t = 0.01, then -1: stiff, then not.
        let ode = |t: f64, y: &[f64], dy: &mut [f64]| {
            dy[0] = if t < 0.01 { -1e6 } else { -1.0 } * (y[0] - 1.0) + t.cos();
            Ok(())
        };
        let (spans, _) = integrate(ode, 2.0, 1.0);
        let methods: Vec<Method> = spans.iter().map(|s| s.method).collect();
        assert_eq!(
            methods,
            [Method::Dopri5, Method::Esdirk, Method::Dopri5],
            "{spans:?}"
        );
        assert!(spans[2].start > 0.01, "{spans:?}");
    }

    #[test]
    fn spans_in_words() {
        let spans = [
            Span {
                method: Method::Dopri5,
                start: 0.0,
            },
            Span {
                method: Method::Esdirk,
                start: 0.012345,
            },
        ];
        assert_eq!(
            describe_spans(&spans, 1e8),
            "dopri5 0–0.01235, esdirk 0.01235–1e8 (1 switch)"
        );
        assert_eq!(describe_spans(&spans[..1], 10.0), "dopri5 0–10, no switch");
    }
}
