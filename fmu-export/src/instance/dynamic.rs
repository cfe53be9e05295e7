//! Everything about an instance that changes while it runs: exactly what an FMU state
//! snapshot saves (together with the integrator's discrete state).

use crate::capabilities::MAX_INPUT_DERIVATIVE_ORDER;
use crate::declaration::Declaration;
use crate::instance::lifecycle::{ExperimentSetup, Mode};

/// The dynamic part of an instance.
#[derive(Debug, PartialEq)]
pub struct DynamicState {
    /// Lifecycle mode.
    pub mode: Mode,
    /// Current time.
    pub t: f64,
    /// Continuous states.
    pub x: Vec<f64>,
    /// Inputs at the current time.
    pub u: Vec<f64>,
    /// `input_derivatives[k - 1][i]`: k-th time derivative of input i at the current time
    /// (FMI 2.0 Co-Simulation, set by fmi2SetRealInputDerivatives).
    pub input_derivatives: Vec<Vec<f64>>,
    /// Real parameters.
    pub p: Vec<f64>,
    /// Discrete variables.
    pub d: Vec<f64>,
    /// String parameters.
    pub s: Vec<String>,
    /// Model Exchange: the side of zero (+1, -1, 0) each event indicator was on at the end of
    /// the last event mode or the last completed integrator step without a crossing; a change
    /// of side against these is a state event.
    pub z_ref: Vec<f64>,
    /// The next time event, if the model announced one.
    pub next_time_event: Option<f64>,
    /// What the host announced about the experiment.
    pub experiment: ExperimentSetup,
    /// The time reached by the last successful doStep (FMI 2.0 fmi2LastSuccessfulTime).
    pub last_successful_time: f64,
    /// Whether the co-simulation integrator holds the state (after exitInitializationMode).
    pub integrator_ready: bool,
    /// Co-Simulation with declared sensitivities: `dw/dp` of the integrator's discrete state
    /// `w`, one column of `w.len()` entries per listed parameter (empty otherwise).
    pub sensitivities: Vec<f64>,
}

impl DynamicState {
    /// The state right after instantiation: start values everywhere.
    pub fn from_declaration(decl: &Declaration) -> Self {
        let start = decl.experiment.start;
        DynamicState {
            mode: Mode::Instantiated,
            t: start,
            x: decl.state_starts(),
            u: decl.input_starts(),
            input_derivatives: vec![
                vec![0.0; decl.inputs.len()];
                MAX_INPUT_DERIVATIVE_ORDER as usize
            ],
            p: decl.parameter_starts(),
            d: decl.discrete_starts(),
            s: decl.string_parameter_starts(),
            z_ref: vec![0.0; decl.event_indicators],
            next_time_event: None,
            experiment: ExperimentSetup {
                start,
                stop: None,
                tolerance: None,
            },
            last_successful_time: start,
            integrator_ready: false,
            sensitivities: Vec::new(),
        }
    }
}

/// Field by field, so that [`Clone::clone_from`] reuses the vectors' allocations: FMU states
/// are saved and restored at every step of a gradient sweep.
impl Clone for DynamicState {
    fn clone(&self) -> Self {
        DynamicState {
            mode: self.mode,
            t: self.t,
            x: self.x.clone(),
            u: self.u.clone(),
            input_derivatives: self.input_derivatives.clone(),
            p: self.p.clone(),
            d: self.d.clone(),
            s: self.s.clone(),
            z_ref: self.z_ref.clone(),
            next_time_event: self.next_time_event,
            experiment: self.experiment,
            last_successful_time: self.last_successful_time,
            integrator_ready: self.integrator_ready,
            sensitivities: self.sensitivities.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        // Destructured, so that a new field cannot be forgotten here.
        let DynamicState {
            mode,
            t,
            x,
            u,
            input_derivatives,
            p,
            d,
            s,
            z_ref,
            next_time_event,
            experiment,
            last_successful_time,
            integrator_ready,
            sensitivities,
        } = source;
        self.mode = *mode;
        self.t = *t;
        self.x.clone_from(x);
        self.u.clone_from(u);
        self.input_derivatives.clone_from(input_derivatives);
        self.p.clone_from(p);
        self.d.clone_from(d);
        self.s.clone_from(s);
        self.z_ref.clone_from(z_ref);
        self.next_time_event = *next_time_event;
        self.experiment = *experiment;
        self.last_successful_time = *last_successful_time;
        self.integrator_ready = *integrator_ready;
        self.sensitivities.clone_from(sensitivities);
    }
}
