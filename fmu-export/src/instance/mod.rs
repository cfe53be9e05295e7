//! The FMI-version-independent FMU instance, generic over the model's [`System`]: lifecycle
//! state machine, value store, Model Exchange and Co-Simulation operations, exact partial
//! derivatives and FMU state. The `fmi2` and `fmi3` modules are thin C-ABI layers over it.

pub mod adjoint;
pub mod cosimulation;
pub mod dynamic;
mod jacobian_adjoint;
mod kept_linearizations;
pub mod lifecycle;
pub mod logging;
pub mod model_exchange;
pub mod outcome;
pub mod partials;
mod rollback;
pub mod sensitivity;
pub mod serialization;
pub mod snapshot;
pub mod strings;
pub mod values;

use crate::declaration::Declaration;
use crate::ode::Args;
use crate::system::{Integrator, StepInputs, System};
use crate::token::instantiation_token;
use crate::variables::{Role, ValueReference, VariableTable};
use dynamic::DynamicState;
use kept_linearizations::KeptLinearizations;
use lifecycle::{Kind, Mode};
use logging::{Category, LogFilter, Logger};
use outcome::{Outcome, Problem, Status};
use rollback::Rollback;
use snapshot::SnapshotStore;

/// One FMU instance of the model `S`.
pub struct Instance<S: System> {
    sys: S,
    table: VariableTable,
    token: String,
    kind: Kind,
    event_mode_used: bool,
    logger: Box<dyn Logger>,
    filter: LogFilter,
    state: DynamicState,
    integrator: S::Integrator,
    cache: Cache,
    snapshots: SnapshotStore,
    rollback: Rollback,
    /// The input polynomial of the step in progress (kept to reuse its allocation).
    inputs: StepInputs<f64>,
    /// The texts the last String getter returned (the host may read them until the next).
    returned: strings::ReturnedStrings,
    /// Linearizations of the latest steps, when the host asked for them.
    kept: KeptLinearizations,
    /// What the step and output VJPs reuse from one call to the next.
    adjoint_scratch: adjoint::AdjointScratch,
    /// The table entries the C ABI last expanded FMI 3.0 value references into, kept for their
    /// capacity.
    reference_lists: ReferenceLists,
}

/// How many lists of value references one C function takes at most (unknowns and knowns).
pub const REFERENCE_LISTS: usize = 2;

/// Lists of table entries, one per list of value references of a C function, which the C ABI
/// fills from the host's FMI 3.0 value references of a model with arrays
/// ([`crate::ffi::references`]).
pub type ReferenceLists = [Vec<ValueReference>; REFERENCE_LISTS];

/// Values computed from the current point, dropped whenever an input to them changes.
#[derive(Default)]
struct Cache {
    dx: Cached,
    y: Cached,
    /// `d(y[i])/d(p)` of the `k`-th listed parameter at `k * ny + i`.
    dy_dp: Option<Vec<f64>>,
}

/// A cached vector whose allocation outlives its value: every doStep invalidates the cache,
/// and refilling it must not allocate.
#[derive(Default)]
struct Cached {
    values: Vec<f64>,
    valid: bool,
}

impl Cache {
    fn invalidate(&mut self) {
        self.dx.valid = false;
        self.y.valid = false;
        self.dy_dp = None;
    }
}

impl<S: System> Instance<S> {
    /// A new instance in the instantiated mode, holding the model's start values.
    pub fn new(kind: Kind, logger: Box<dyn Logger>, logging_on: bool) -> Self {
        let sys = S::default();
        let table = VariableTable::new(sys.declaration());
        let state = DynamicState::from_declaration(sys.declaration());
        let integrator = sys.integrator();
        let token = instantiation_token(sys.declaration());
        Instance {
            sys,
            table,
            token,
            kind,
            event_mode_used: false,
            logger,
            filter: LogFilter::new(logging_on),
            state,
            integrator,
            cache: Cache::default(),
            snapshots: SnapshotStore::default(),
            rollback: Rollback::default(),
            inputs: StepInputs {
                t0: 0.0,
                coefficients: Vec::new(),
            },
            returned: strings::ReturnedStrings::default(),
            kept: KeptLinearizations::default(),
            adjoint_scratch: adjoint::AdjointScratch::default(),
            reference_lists: ReferenceLists::default(),
        }
    }

    /// FMI 3.0 Co-Simulation: whether the host uses event mode (entered after
    /// exitInitializationMode instead of step mode).
    pub fn set_event_mode_used(&mut self, used: bool) {
        self.event_mode_used = used;
    }

    /// The interface the instance was created for.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The current lifecycle mode.
    pub fn mode(&self) -> Mode {
        self.state.mode
    }

    /// The current time.
    pub fn time(&self) -> f64 {
        self.state.t
    }

    /// The model's declaration.
    pub fn declaration(&self) -> &Declaration {
        self.sys.declaration()
    }

    /// The instantiation token (FMI 3.0) / GUID (FMI 2.0) of the model.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The model's variable table.
    pub fn table(&self) -> &VariableTable {
        &self.table
    }

    /// The lists the C ABI expands FMI 3.0 value references into (see [`ReferenceLists`]).
    pub fn reference_lists(&mut self) -> &mut ReferenceLists {
        &mut self.reference_lists
    }

    /// fmiSetDebugLogging.
    pub fn set_debug_logging(&mut self, logging_on: bool, categories: &[&str]) -> Outcome {
        self.filter.set(logging_on, categories)
    }

    /// Whether messages of `category` reach the host.
    pub fn logs(&self, category: Category) -> bool {
        self.filter.enabled(category)
    }

    /// Sends `message` to the host if `category` is enabled.
    pub fn log(&self, status: Status, category: Category, message: &str) {
        if self.filter.enabled(category) {
            self.logger.log(status, category, message);
        }
    }

    fn log_problem(&self, problem: &Problem) {
        if let Some(category) = Category::for_status(problem.status) {
            self.log(problem.status, category, &problem.message);
        }
    }

    /// Turns the outcome of the FMI call `function` into its status: logs the problem
    /// (prefixed with the function name) and marks the instance failed if the problem
    /// left it inconsistent.
    pub fn report(&mut self, function: &str, outcome: Outcome) -> Status {
        match outcome {
            Ok(()) => Status::Ok,
            Err(problem) => {
                let problem = Problem {
                    message: format!("{function}: {}", problem.message),
                    ..problem
                };
                if problem.breaks_instance {
                    self.state.mode = Mode::Failed;
                }
                self.log_problem(&problem);
                problem.status
            }
        }
    }

    /// Drops cached derived values after anything they depend on changed.
    fn touch(&mut self) {
        self.cache.invalidate();
    }

    /// The model arguments at the current point, in plain reals.
    fn args(&self) -> Args<'_, f64> {
        let s = &self.state;
        Args {
            t: s.t,
            x: &s.x,
            u: &s.u,
            p: &s.p,
            d: &s.d,
        }
    }

    /// The name of the variable playing `role` (for log messages).
    fn name_of(&self, role: Role) -> &str {
        self.table
            .vr_of(role)
            .and_then(|vr| self.table.get(vr))
            .map_or("?", |v| v.var.name.as_str())
    }

    /// The state derivatives at the current point (cached); non-finite values are an Error.
    pub(crate) fn derivatives(&mut self) -> Outcome<&[f64]> {
        if !self.cache.dx.valid {
            let mut dx = std::mem::take(&mut self.cache.dx.values);
            dx.clear();
            dx.resize(self.state.x.len(), 0.0);
            self.sys.derivatives(&self.args(), &mut dx);
            let finite = self.check_finite(&dx, Role::Derivative);
            self.cache.dx = Cached {
                values: dx,
                valid: finite.is_ok(),
            };
            finite?;
        }
        Ok(&self.cache.dx.values)
    }

    /// The continuous outputs at the current point (cached); in Co-Simulation after
    /// initialization they come from the integrator (whose mechanical accelerations are the
    /// algorithmic ones). Non-finite values are an Error.
    pub(crate) fn outputs(&mut self) -> Outcome<&[f64]> {
        if !self.cache.y.valid {
            let mut y = std::mem::take(&mut self.cache.y.values);
            y.clear();
            y.resize(self.declaration().outputs.len(), 0.0);
            if self.state.integrator_ready {
                let s = &self.state;
                self.integrator
                    .outputs(&self.sys, s.t, &s.u, &s.p, &s.d, &mut y);
            } else {
                self.sys.outputs(&self.args(), &mut y);
            }
            let finite = self.check_finite(&y, Role::Output);
            self.cache.y = Cached {
                values: y,
                valid: finite.is_ok(),
            };
            finite?;
        }
        Ok(&self.cache.y.values)
    }

    /// An Error naming the first non-finite entry of `values` (entries play `role(i)`).
    fn check_finite(&self, values: &[f64], role: fn(usize) -> Role) -> Outcome {
        match values.iter().position(|v| !v.is_finite()) {
            None => Ok(()),
            Some(i) => Err(Problem::error(format!(
                "{} = {} at t = {} (states {:?})",
                self.name_of(role(i)),
                values[i],
                self.state.t,
                self.state.x
            ))),
        }
    }

    /// An Error if a continuous state is not finite.
    fn check_state_finite(&self) -> Outcome {
        self.check_finite(&self.state.x, Role::State)
    }

    /// Copies the continuous state out of the co-simulation integrator.
    fn sync_states_from_integrator(&mut self) {
        self.integrator.continuous_state(&mut self.state.x);
        self.touch();
    }
}

/// How close two times must be to count as the same instant (communication points, time
/// events): a relative 1e-9, absolute below 1.
pub(crate) fn time_tolerance(t: f64) -> f64 {
    1e-9 * t.abs().max(1.0)
}

#[cfg(test)]
pub(crate) mod test_model;

#[cfg(test)]
mod tests;
