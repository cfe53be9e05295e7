//! Parameter identification: the parameters of a [`Problem`] that minimize its least-squares
//! cost, within bounds, by L-BFGS (`argmin`, More-Thuente line search) on variables that map
//! smoothly into the bounds and are of order one at the start values ([`bounds`]), with the
//! cost scaled by its start value. Gradients come from [`Problem::gradient`]: the adjoint of
//! the co-simulation where the FMUs provide it, finite differences otherwise.

pub mod bounds;
pub mod section;

use std::cell::RefCell;
use std::sync::{Arc, Mutex, PoisonError};

use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{CostFunction, Executor, Gradient, IterState, State, KV};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;

use crate::{Evaluation, Method, Problem};
use bounds::{Bounded, Transform};
use tandem_cosim::stop;
use tandem_cosim::{Error, Result};

pub use section::IdentifySection;

/// When the optimizer stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Most L-BFGS iterations.
    pub max_iterations: u64,
    /// Stop when the gradient's norm falls below this fraction of its start value.
    pub gradient_tolerance: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_iterations: 200,
            gradient_tolerance: 1e-10,
        }
    }
}

/// One L-BFGS iteration (0: the start).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Iteration {
    /// The iteration number.
    pub number: u64,
    /// `J` there.
    pub cost: f64,
    /// The norm of `dJ/dx` in the optimizer's variables.
    pub gradient_norm: f64,
}

/// The result of an identification.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// The parameters with their bounds.
    pub bounds: Vec<Bounded>,
    /// The start values.
    pub start: Vec<f64>,
    /// The fitted values.
    pub fitted: Vec<f64>,
    /// `J` at the start values.
    pub start_cost: f64,
    /// `J` at the fitted values.
    pub cost: f64,
    /// The iterations.
    pub iterations: Vec<Iteration>,
    /// Cost and gradient evaluations (each one run, plus the reverse pass or finite differences).
    pub evaluations: usize,
    /// Why the optimizer stopped.
    pub stopped: String,
    /// The signal that interrupted the optimizer, if one did: then `fitted` is the best point
    /// evaluated so far.
    pub interrupted: Option<&'static str>,
    /// How the gradient of each parameter was obtained.
    pub methods: Vec<Method>,
}

/// What identification fits: parameters with start values, and a cost with its gradient (one
/// [`Problem`], or the sum over several experiments).
pub trait Fittable {
    /// The parameters' start values.
    fn start_values(&self) -> Vec<f64>;
    /// `J` and `dJ/dp` at `values`.
    fn gradient(&mut self, values: &[f64]) -> Result<Evaluation>;
}

impl Fittable for Problem {
    fn start_values(&self) -> Vec<f64> {
        Problem::start_values(self)
    }

    fn gradient(&mut self, values: &[f64]) -> Result<Evaluation> {
        Problem::gradient(self, values)
    }
}

/// Fits the parameters of `problem` (bounded by `bounds`, in the problem's parameter order),
/// calling `report` at every iteration. When the user interrupts the command (see
/// [`tandem_cosim::stop`]), the fit is the best point evaluated so far, marked
/// [`Fit::interrupted`]; before the first evaluation has ended, the error says so.
pub fn identify(
    problem: &mut dyn Fittable,
    bounds: &[Bounded],
    settings: &Settings,
    report: Box<dyn FnMut(&Iteration) + Send>,
) -> Result<Fit> {
    let start = problem.start_values();
    let transforms = bounds
        .iter()
        .zip(&start)
        .map(|(b, &p0)| Transform::new(b, p0))
        .collect::<Result<Vec<_>>>()?;
    let x0: Vec<f64> = transforms
        .iter()
        .zip(&start)
        .map(|(t, &p)| t.variable(p))
        .collect();
    let objective = Objective {
        state: RefCell::new(ObjectiveState {
            problem,
            transforms,
            scale: 1.0,
            cache: None,
            best: None,
            evaluations: 0,
            methods: Vec::new(),
            failure: None,
        }),
    };
    let (start_cost, start_gradient) = objective.evaluate(&x0)?;
    let fit = |objective: &Objective<'_>,
               iterations: Vec<Iteration>,
               stopped: String,
               interrupted: Option<&'static str>| {
        let state = objective.state.borrow();
        let (cost, x) = state.best.clone().expect("evaluated at least once");
        Fit {
            bounds: bounds.to_vec(),
            start: start.clone(),
            fitted: state.parameters(&x),
            start_cost,
            cost,
            iterations,
            evaluations: state.evaluations,
            stopped,
            interrupted,
            methods: state.methods.clone(),
        }
    };
    let start_norm = norm(&start_gradient);
    if start_cost == 0.0 || start_norm == 0.0 {
        let first = Iteration {
            number: 0,
            cost: start_cost,
            gradient_norm: start_norm,
        };
        return Ok(fit(
            &objective,
            vec![first],
            "the start values already minimize J".into(),
            None,
        ));
    }
    // The optimizer sees J / J(start), so that its tolerances and first step are of order one.
    objective.state.borrow_mut().scale = start_cost;
    let iterations = Arc::new(Mutex::new(Vec::new()));
    let observer = IterationLog {
        iterations: iterations.clone(),
        report,
        scale: start_cost,
    };
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 10)
        .with_tolerance_grad(settings.gradient_tolerance * start_norm / start_cost)
        .and_then(|s| s.with_tolerance_cost(0.0))
        .map_err(|e| optimizer_error(&e))?;
    let outcome = Executor::new(&objective, solver)
        .configure(|state| state.param(x0.clone()).max_iters(settings.max_iterations))
        .add_observer(observer, ObserverMode::Always)
        .run();
    let iterations =
        std::mem::take(&mut *iterations.lock().unwrap_or_else(PoisonError::into_inner));
    let failure = objective.state.borrow_mut().failure.take();
    // The line search turns an evaluation's error into a reason to stop, as if it had
    // converged: the failure tells.
    if let Some(signal) = failure.as_ref().and_then(Error::interrupting_signal) {
        let stopped = format!("interrupted by {signal}");
        return Ok(fit(&objective, iterations, stopped, Some(signal)));
    }
    let stopped = match (outcome, failure) {
        (Ok(result), _) => result
            .state()
            .get_termination_reason()
            .map_or_else(|| "stopped".to_string(), |r| r.text().to_string()),
        (Err(_), Some(failure)) => return Err(failure),
        (Err(error), None) => format!("the line search stopped: {error}"),
    };
    Ok(fit(&objective, iterations, stopped, None))
}

/// The L-BFGS objective: `J / scale` over the transformed variables, each point run once for
/// cost and gradient together.
struct Objective<'a> {
    state: RefCell<ObjectiveState<'a>>,
}

struct ObjectiveState<'a> {
    problem: &'a mut dyn Fittable,
    transforms: Vec<Transform>,
    scale: f64,
    /// The latest point, its `J` and `dJ/dx`.
    cache: Option<(Vec<f64>, f64, Vec<f64>)>,
    /// The lowest `J` met and its point.
    best: Option<(f64, Vec<f64>)>,
    evaluations: usize,
    methods: Vec<Method>,
    /// The error that stopped an evaluation (argmin only passes on a message).
    failure: Option<Error>,
}

impl ObjectiveState<'_> {
    fn parameters(&self, x: &[f64]) -> Vec<f64> {
        self.transforms
            .iter()
            .zip(x)
            .map(|(t, &x)| t.parameter(x))
            .collect()
    }
}

impl Objective<'_> {
    /// `J` and `dJ/dx` at `x` (unscaled), from the cache when `x` was the latest point.
    fn evaluate(&self, x: &[f64]) -> Result<(f64, Vec<f64>)> {
        let mut state = self.state.borrow_mut();
        if let Some((cached, cost, gradient)) = &state.cache {
            if cached.as_slice() == x {
                return Ok((*cost, gradient.clone()));
            }
        }
        let parameters = state.parameters(x);
        let evaluation = state.problem.gradient(&parameters)?;
        let gradient: Vec<f64> = evaluation
            .gradient
            .iter()
            .zip(state.transforms.iter().zip(x))
            .map(|(g, (t, &x))| g * t.derivative(x))
            .collect();
        state.evaluations += 1;
        state.methods = evaluation.methods;
        if state
            .best
            .as_ref()
            .is_none_or(|(best, _)| evaluation.cost < *best)
        {
            state.best = Some((evaluation.cost, x.to_vec()));
        }
        state.cache = Some((x.to_vec(), evaluation.cost, gradient.clone()));
        Ok((evaluation.cost, gradient))
    }

    /// [`Objective::evaluate`] scaled for the optimizer, keeping a failure for the caller.
    fn scaled(&self, x: &[f64]) -> std::result::Result<(f64, Vec<f64>), argmin::core::Error> {
        match self.evaluate(x) {
            Ok((cost, gradient)) => {
                let scale = self.state.borrow().scale;
                Ok((cost / scale, gradient.iter().map(|g| g / scale).collect()))
            }
            Err(error) => {
                let message = error.to_string();
                self.state.borrow_mut().failure = Some(error);
                Err(argmin::core::Error::msg(message))
            }
        }
    }
}

impl CostFunction for &Objective<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Vec<f64>) -> std::result::Result<f64, argmin::core::Error> {
        self.scaled(x).map(|(cost, _)| cost)
    }
}

impl Gradient for &Objective<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, x: &Vec<f64>) -> std::result::Result<Vec<f64>, argmin::core::Error> {
        self.scaled(x).map(|(_, gradient)| gradient)
    }
}

/// Keeps and reports every iteration (unscaled).
struct IterationLog {
    iterations: Arc<Mutex<Vec<Iteration>>>,
    report: Box<dyn FnMut(&Iteration) + Send>,
    scale: f64,
}

type LbfgsState = IterState<Vec<f64>, Vec<f64>, (), (), (), f64>;

impl IterationLog {
    /// Logs `state` as iteration `number`, unless the user interrupted the command: then the
    /// state is the optimizer's way out, no iteration.
    fn log(&mut self, state: &LbfgsState, number: u64) {
        if stop::received().is_some() {
            return;
        }
        let iteration = Iteration {
            number,
            cost: state.get_cost() * self.scale,
            gradient_norm: state
                .get_gradient()
                .map_or(f64::NAN, |g| norm(g) * self.scale),
        };
        (self.report)(&iteration);
        self.iterations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(iteration);
    }
}

impl Observe<LbfgsState> for IterationLog {
    fn observe_init(
        &mut self,
        _name: &str,
        state: &LbfgsState,
        _kv: &KV,
    ) -> std::result::Result<(), argmin::core::Error> {
        self.log(state, 0);
        Ok(())
    }

    fn observe_iter(
        &mut self,
        state: &LbfgsState,
        _kv: &KV,
    ) -> std::result::Result<(), argmin::core::Error> {
        // argmin counts the iteration after its observers have seen it.
        self.log(state, state.get_iter() + 1);
        Ok(())
    }
}

/// An error of the optimizer's set-up.
fn optimizer_error(error: &argmin::core::Error) -> Error {
    Error::InvalidValue {
        item: "L-BFGS".into(),
        message: error.to_string(),
    }
}

/// The Euclidean norm.
fn norm(values: &[f64]) -> f64 {
    values.iter().map(|v| v * v).sum::<f64>().sqrt()
}
