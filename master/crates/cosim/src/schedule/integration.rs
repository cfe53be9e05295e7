//! What the master's integrator did for a Model Exchange component over a run: the method,
//! for the automatic choice which method ran when, and the work (as `tandem simulate` reports
//! it for one FMU).

use std::fmt;

use tandem_ode::model_exchange::Statistics;
use tandem_ode::solver::{describe_solver, Method, Span};

/// The integration of one Model Exchange component.
#[derive(Debug, Clone, PartialEq)]
pub struct Integration {
    /// The component.
    pub component: String,
    /// The method the component was given (`solver`).
    pub method: Method,
    /// For [`Method::Auto`]: which method ran since when.
    pub spans: Vec<Span>,
    /// Steps, rejections, events and calls.
    pub statistics: Statistics,
    /// The time the integration reached.
    pub end: f64,
}

/// `component m: Model Exchange (auto: dopri5 0–0.01, esdirk 0.01–2 (1 switch)), 412 steps
/// (3 rejected), 0 events`.
impl fmt::Display for Integration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let solver = describe_solver(self.method, &self.spans, self.end);
        write!(f, "component {}: Model Exchange ({solver}", self.component)?;
        let Statistics {
            steps,
            rejected_steps,
            events,
            ..
        } = self.statistics;
        write!(
            f,
            "), {steps} steps ({rejected_steps} rejected), {events} events"
        )
    }
}
