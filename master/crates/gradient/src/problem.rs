//! A gradient problem: a system, the parameters to differentiate with respect to and a cost;
//! runs of the co-simulation at given parameter values, the cost of each, and its gradient by
//! the discrete adjoint of the whole co-simulation where every component provides the adjoint
//! extension, by finite differences of whole runs otherwise. When the system corrects its power
//! bonds (`[energy] correction = true`), every run applies the correction as `tandem run` does
//! (re-runs of checkpoint segments included), and both sweeps differentiate it
//! ([`super::energy_correction`]).

use std::sync::{Arc, Mutex};

use super::checkpoints::{self, Checkpoints, GradientPoints};
use super::cost::{Cost, CostSpec};
use super::energy_correction::EnergyCorrection;
use super::forward;
use super::model_exchange;
use super::parameters::{self, Parameter};
use super::reverse::{self, Recording};
use super::stage::CouplingStage;
use super::tape::{lock, InitializationClock, SharedTapes, StatePolicy, Tape, TapeRecorder};
use super::wiring::{wire, SeedMap, Wiring};
use fmi_host::instance::{FmuInstance, LogSettings};
use fmi_host::model_description::InterfaceType;
use tandem_cosim::coupling::{ScheduleKind, Waveform};
use tandem_cosim::schedule::{CoSimulation, Hooks, Recorder};
use tandem_cosim::step_control;
use tandem_cosim::system::{algebraic_loop, Component, Port, System};
use tandem_cosim::{Error, Result};

/// Creates a component's instance in place of its FMU's (an in-process stand-in).
pub type Instantiator =
    Box<dyn Fn(&Component, &LogSettings) -> Result<Box<dyn FmuInstance>> + Send + Sync>;

/// Which FMU states the adjoint's forward run keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Checkpointing {
    /// Every `ceil(sqrt(N))`-th macro point of N.
    #[default]
    Automatic,
    /// Every n-th macro point (n >= 1); the steps in between are recomputed.
    Interval(usize),
    /// Every state: nothing is recomputed, memory grows with the run.
    Off,
}

impl Checkpointing {
    /// The checkpointing of an interval as a user gives it: none given is automatic, 0 keeps
    /// every state.
    pub fn every(interval: Option<usize>) -> Self {
        match interval {
            None => Checkpointing::Automatic,
            Some(0) => Checkpointing::Off,
            Some(n) => Checkpointing::Interval(n),
        }
    }
}

/// How a parameter's derivative was obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// The discrete adjoint of the co-simulation.
    Adjoint,
    /// Forward sensitivities of the co-simulation ([`Problem::forward_gradient`]).
    ForwardSensitivities,
    /// Central finite differences of whole runs (fourth order), with the reason the adjoint
    /// could not be used.
    FiniteDifferences {
        /// Why not the adjoint.
        reason: String,
    },
}

impl Method {
    /// How the method is named in tables.
    pub fn label(&self) -> &'static str {
        match self {
            Method::Adjoint => "adjoint",
            Method::ForwardSensitivities => "forward sensitivities",
            Method::FiniteDifferences { .. } => "finite differences",
        }
    }
}

/// A finite-difference formula on whole runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Differences {
    /// `(J(p + h) - J(p - h)) / 2h`, `h` = `relative` times the parameter's scale.
    Central {
        /// The step relative to the parameter's scale.
        relative: f64,
    },
    /// `(-J(p + 2h) + 8 J(p + h) - 8 J(p - h) + J(p - 2h)) / 12h`.
    FourthOrder {
        /// The step relative to the parameter's scale.
        relative: f64,
    },
}

impl Differences {
    /// What `tandem gradient --check` compares with.
    pub const CHECK: Differences = Differences::Central { relative: 1e-6 };
    /// The fallback for parameters the adjoint cannot reach.
    pub const FALLBACK: Differences = Differences::FourthOrder { relative: 1e-4 };

    /// The offsets (in steps) and weights of the formula, and its step relative to the scale.
    fn stencil(self) -> (&'static [(f64, f64)], f64, f64) {
        match self {
            Differences::Central { relative } => (&[(1.0, 1.0), (-1.0, -1.0)], 2.0, relative),
            Differences::FourthOrder { relative } => (
                &[(2.0, -1.0), (1.0, 8.0), (-1.0, -8.0), (-2.0, 1.0)],
                12.0,
                relative,
            ),
        }
    }
}

/// The cost and gradient at one point.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// `J`.
    pub cost: f64,
    /// `dJ/dp`, one per parameter.
    pub gradient: Vec<f64>,
    /// How each entry was obtained.
    pub methods: Vec<Method>,
}

/// The cost's outputs over one run, at the cost points.
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    /// The cost points `t_0 .. t_{N-1}`.
    pub times: Vec<f64>,
    /// Per cost output: its name, simulated values and (least squares) measured values.
    pub columns: Vec<(String, Vec<f64>, Option<Vec<f64>>)>,
}

/// A system with parameters and a cost.
pub struct Problem {
    system: System,
    parameters: Vec<Parameter>,
    cost: Cost,
    points: Vec<f64>,
    wiring: Vec<Wiring>,
    /// Per cost term, its component and observed slot.
    cost_slots: Vec<(usize, usize)>,
    log: LogSettings,
    instantiate: Option<Instantiator>,
    checkpointing: Checkpointing,
    /// The method of each parameter, known after the first gradient (from the start where
    /// the system rules the adjoint out).
    methods: Option<Vec<Method>>,
    /// The most macro steps a component's record held at once in the latest run.
    peak_steps: usize,
    /// Whether the sweeps differentiate the coupling stages (the energy correction).
    stage_derivatives: bool,
}

/// One run, kept for the sweeps.
struct Run {
    cosimulation: CoSimulation,
    tapes: Vec<Tape>,
    /// The same tapes' places with the recorders, for re-runs of checkpoint segments.
    shared: SharedTapes,
    checkpoints: Checkpoints,
    /// The coupling stages that act on it, with what they recorded.
    stages: Vec<Box<dyn CouplingStage>>,
}

impl Problem {
    /// The problem of `parameters` (`component.variable`, named after `option` in messages)
    /// and `cost` on `system`. Only the cost's outputs are recorded from here on.
    pub fn new(
        mut system: System,
        parameters: &[String],
        cost: &CostSpec,
        option: &str,
    ) -> Result<Self> {
        // A partition has no derivatives, and the gradient's runs go back to checkpoints of FMU
        // states, which the master's schedule of pending ticks is not part of.
        if let Some(component) = system
            .components
            .iter()
            .find(|c| c.interface == InterfaceType::ScheduledExecution)
        {
            return Err(Error::invalid_value(
                system.path.display().to_string(),
                format!(
                    "component {} ({}) is Scheduled Execution: gradients and identification \
                     take Co-Simulation and Model Exchange components only (`tandem run` \
                     runs it)",
                    component.name, component.fmu_label
                ),
            ));
        }
        // Every run of the gradient takes the steps an adaptive run chose at the parameters'
        // values: their sequence is frozen.
        if let Some(steps) = step_control::freeze(&mut system, &LogSettings::default())? {
            eprintln!(
                "note: schedule.adaptive: the gradient's runs take the {} macro steps an adaptive \
                 run took at the parameters' values (frozen)",
                steps.accepted
            );
        }
        // The reverse pass follows the macro steps' data flow; the implicit equations of a
        // solved algebraic loop are not part of it yet.
        if system.schedule.kind == ScheduleKind::GaussSeidel {
            if let Some(cycle) = algebraic_loop::find(&system.components, &system.connections) {
                return Err(Error::InvalidValue {
                    item: system.path.display().to_string(),
                    message: format!(
                        "algebraic loop {}: gradients through the loops Gauss-Seidel solves are \
                         not available yet; use the jacobi schedule, which breaks the loop with \
                         a delay of one macro step",
                        algebraic_loop::describe(&cycle, &system.components)
                    ),
                });
            }
        }
        let parameters = parameters::resolve_all(parameters, &system, option)?;
        let intervals = system.intervals();
        let points: Vec<f64> = (0..=intervals).map(|k| system.point(k)).collect();
        let cost = Cost::resolve(cost, &system, &points)?;
        let mut recorded: Vec<Port> = Vec::new();
        for port in cost.ports() {
            if !recorded.contains(&port) {
                recorded.push(port);
            }
        }
        system.set_recorded(recorded);
        let wiring = wire(&system);
        let cost_slots = cost
            .ports()
            .iter()
            .map(|port| {
                let slot = wiring[port.component]
                    .observed
                    .iter()
                    .position(|p| p == port)
                    .expect("the cost's outputs are recorded, hence observed");
                (port.component, slot)
            })
            .collect();
        // Known before any run, so that the first keeps no FMU states for an adjoint it
        // cannot take.
        let methods = implicit_obstacle(&system)
            .map(|reason| vec![Method::FiniteDifferences { reason }; parameters.len()]);
        Ok(Problem {
            system,
            parameters,
            cost,
            points,
            wiring,
            cost_slots,
            log: LogSettings::default(),
            instantiate: None,
            checkpointing: Checkpointing::default(),
            methods,
            peak_steps: 0,
            stage_derivatives: true,
        })
    }

    /// Creates the components' instances with `instantiate` instead of from their FMUs.
    pub fn with_instances(mut self, instantiate: Instantiator) -> Self {
        self.instantiate = Some(instantiate);
        self
    }

    /// Keeps FMU states as `checkpointing` says.
    pub fn with_checkpointing(mut self, checkpointing: Checkpointing) -> Self {
        self.checkpointing = checkpointing;
        self
    }

    /// Whether the sweeps differentiate the energy correction (the default). Without, they take
    /// the corrections the forward run applied as constants: the gradient is then wrong
    /// wherever the correction acts, which only serves to show what its derivative contributes.
    pub fn with_correction_derivative(mut self, differentiate: bool) -> Self {
        self.stage_derivatives = differentiate;
        self
    }

    /// Whether the runs correct power bonds (the system file's `[energy] correction`).
    pub fn corrects_energy(&self) -> bool {
        self.system
            .energy
            .as_ref()
            .is_some_and(|setup| setup.settings.correction)
    }

    /// The Model Exchange components whose steps the sweeps differentiate through the master's
    /// integrator (see [`super::model_exchange`]).
    pub fn integrated_components(&self) -> Vec<&str> {
        self.system
            .components
            .iter()
            .filter(|c| c.interface == InterfaceType::ModelExchange)
            .filter(|c| model_exchange::obstacle(&self.system, c).is_none())
            .map(|c| c.name.as_str())
            .collect()
    }

    /// Logs the FMUs' messages with `log`.
    pub fn with_log(mut self, log: LogSettings) -> Self {
        self.log = log;
        self
    }

    /// The parameters, with the values the system gives them.
    pub fn parameters(&self) -> &[Parameter] {
        &self.parameters
    }

    /// The most macro steps any component's record held at once during the latest run and
    /// the sweeps over it: the whole run without checkpoints, at most one segment with them,
    /// none when only the cost was evaluated.
    pub fn peak_steps_recorded(&self) -> usize {
        self.peak_steps
    }

    /// The system back, for another problem (its recorded variables are the cost's outputs).
    pub fn into_system(self) -> System {
        self.system
    }

    /// The parameters' values as the system gives them.
    pub fn start_values(&self) -> Vec<f64> {
        self.parameters.iter().map(|p| p.value).collect()
    }

    /// `J` at parameter values `values`.
    pub fn cost(&mut self, values: &[f64]) -> Result<f64> {
        let run = self.run(values, StatePolicy::Nothing)?;
        self.finish(run, |problem, run| Ok(problem.cost_of(&run.tapes)))
    }

    /// The cost's outputs at parameter values `values`.
    pub fn outputs(&mut self, values: &[f64]) -> Result<Outputs> {
        let run = self.run(values, StatePolicy::Nothing)?;
        self.finish(run, |problem, run| {
            let count = problem.cost.points();
            let names = problem.cost.names();
            let columns = names
                .iter()
                .enumerate()
                .map(|(term, name)| {
                    let simulated = (0..count)
                        .map(|k| problem.output(&run.tapes, term, k))
                        .collect();
                    let measured = problem.cost.targets(term).map(<[f64]>::to_vec);
                    (name.to_string(), simulated, measured)
                })
                .collect();
            Ok(Outputs {
                times: problem.points[..count].to_vec(),
                columns,
            })
        })
    }

    /// `J` and `dJ/dp` at parameter values `values`: by the adjoint where it applies, by
    /// fourth-order central differences elsewhere.
    pub fn gradient(&mut self, values: &[f64]) -> Result<Evaluation> {
        let wants_states = self
            .methods
            .as_ref()
            .is_none_or(|methods| methods.contains(&Method::Adjoint));
        let policy = if wants_states {
            self.state_policy()
        } else {
            StatePolicy::Nothing
        };
        let run = self.run(values, policy)?;
        let methods = match &self.methods {
            Some(methods) => methods.clone(),
            None => {
                let methods = self.methods_for(&run.tapes);
                self.methods = Some(methods.clone());
                methods
            }
        };
        let (cost, mut gradient) = self.finish(run, |problem, run| {
            let cost = problem.cost_of(&run.tapes);
            let gradient = if methods.contains(&Method::Adjoint) {
                problem.adjoint(run)?
            } else {
                vec![0.0; problem.parameters.len()]
            };
            Ok((cost, gradient))
        })?;
        let fallback: Vec<usize> = (0..methods.len())
            .filter(|&i| methods[i] != Method::Adjoint)
            .collect();
        let differences = self.finite_differences(values, &fallback, Differences::FALLBACK)?;
        for (&i, derivative) in fallback.iter().zip(differences) {
            gradient[i] = derivative;
        }
        Ok(Evaluation {
            cost,
            gradient,
            methods,
        })
    }

    /// `J` and `dJ/dp` at parameter values `values` by forward sensitivities of the whole
    /// co-simulation (one step JVP per parameter and step): the same derivative as the adjoint,
    /// at a cost that grows with the number of parameters. Every parameter must be within the
    /// adjoint extension's reach; otherwise the error says why not.
    pub fn forward_gradient(&mut self, values: &[f64]) -> Result<Evaluation> {
        let run = self.run(values, self.state_policy())?;
        let methods = self.methods_for(&run.tapes);
        if let Some(Method::FiniteDifferences { reason }) =
            methods.iter().find(|m| **m != Method::Adjoint)
        {
            let reason = reason.clone();
            return self.finish(run, |_, _| {
                Err(Error::InvalidValue {
                    item: "forward sensitivities".into(),
                    message: reason,
                })
            });
        }
        let (cost, gradient) = self.finish(run, |problem, run| {
            Ok((problem.cost_of(&run.tapes), problem.forward(run)?))
        })?;
        Ok(Evaluation {
            cost,
            gradient,
            methods: vec![Method::ForwardSensitivities; values.len()],
        })
    }

    /// `dJ/dp` of the parameters `which` (indices) by `differences` of whole runs.
    pub fn finite_differences(
        &mut self,
        values: &[f64],
        which: &[usize],
        differences: Differences,
    ) -> Result<Vec<f64>> {
        let (stencil, divisor, relative) = differences.stencil();
        which
            .iter()
            .map(|&i| {
                let nominal = relative * self.parameters[i].scale;
                // A step the floating-point numbers represent exactly at this value.
                let step = (values[i] + nominal) - values[i];
                let mut sum = 0.0;
                for &(offset, weight) in stencil {
                    let mut shifted = values.to_vec();
                    shifted[i] = values[i] + offset * step;
                    sum += weight * self.cost(&shifted)?;
                }
                Ok(sum / (divisor * step))
            })
            .collect()
    }

    /// The state policy of a run for the adjoint.
    fn state_policy(&self) -> StatePolicy {
        match self.checkpointing {
            Checkpointing::Off => StatePolicy::All,
            Checkpointing::Interval(n) => StatePolicy::Checkpoints(n.max(1)),
            Checkpointing::Automatic => {
                let steps = self.points.len().saturating_sub(1).max(1);
                StatePolicy::Checkpoints((steps as f64).sqrt().ceil() as usize)
            }
        }
    }

    /// Runs the co-simulation at `values`, recording it with `policy`.
    fn run(&mut self, values: &[f64], policy: StatePolicy) -> Result<Run> {
        if values.len() != self.parameters.len() {
            return Err(Error::InvalidValue {
                item: "parameter values".into(),
                message: format!(
                    "{} values for {} parameters",
                    values.len(),
                    self.parameters.len()
                ),
            });
        }
        parameters::write_all(&mut self.system, &self.parameters, values);
        let clock = InitializationClock::default();
        let shared: SharedTapes = (0..self.system.components.len())
            .map(|i| {
                let tape = Tape::new(policy, self.cost_slots_of(i), clock.clone());
                Arc::new(Mutex::new(tape))
            })
            .collect();
        let recorders = shared
            .iter()
            .map(|tape| Box::new(TapeRecorder::new(tape.clone())) as Box<dyn Recorder>)
            .collect();
        let system = &self.system;
        let given = self.instantiate.as_deref();
        let instantiate =
            |c: &Component, log: &LogSettings| -> tandem_cosim::Result<Box<dyn FmuInstance>> {
                Ok(match given {
                    Some(instantiate) => instantiate(c, log)?,
                    None => model_exchange::instantiate(system, c, log)?,
                })
            };
        let hooks = Hooks {
            instantiate: Some(&instantiate),
            recorders,
        };
        let mut cosimulation = CoSimulation::initialize_with(&self.system, &self.log, hooks)?;
        let interval = match policy {
            StatePolicy::Checkpoints(n) => n,
            StatePolicy::Nothing | StatePolicy::All => 0,
        };
        let mut checkpoints = Checkpoints::new(interval, &self.points);
        let mut stages = self.stages(policy == StatePolicy::All);
        let system = &self.system;
        let mut points = GradientPoints {
            stages: &mut stages,
            keep: Some((&mut checkpoints, &shared)),
        };
        let steps = self.points.len() - 1;
        let kept = checkpoints::run_points(&mut cosimulation, system, 0..=steps, &mut points);
        let tapes = shared
            .iter()
            .map(|tape| {
                let empty = Tape::new(policy, Vec::new(), clock.clone());
                std::mem::replace(&mut *lock(tape), empty)
            })
            .collect();
        let run = Run {
            cosimulation,
            tapes,
            shared,
            checkpoints,
            stages,
        };
        match kept {
            Ok(()) => Ok(run),
            Err(error) => self.finish(run, |_, _| Err(error)),
        }
    }

    /// The coupling stages of a run: the energy correction, when the system turns it on;
    /// `recorded`: whether they keep what the sweeps read from the start (otherwise from the
    /// first re-run of a checkpoint segment on).
    fn stages(&self, recorded: bool) -> Vec<Box<dyn CouplingStage>> {
        match &self.system.energy {
            Some(setup) if setup.settings.correction => vec![Box::new(EnergyCorrection::new(
                setup,
                &self.system,
                &self.wiring,
                recorded,
            ))],
            _ => Vec::new(),
        }
    }

    /// The observed slots of component `component` that the cost reads.
    fn cost_slots_of(&self, component: usize) -> Vec<usize> {
        let mut slots: Vec<usize> = Vec::new();
        for &(c, slot) in &self.cost_slots {
            if c == component && !slots.contains(&slot) {
                slots.push(slot);
            }
        }
        slots
    }

    /// Applies `work` to `run`, then frees its states and terminates it, whatever `work` did.
    fn finish<T>(
        &mut self,
        mut run: Run,
        work: impl FnOnce(&mut Self, &mut Run) -> Result<T>,
    ) -> Result<T> {
        let result = work(self, &mut run);
        self.peak_steps = run.tapes.iter().map(Tape::peak_steps).max().unwrap_or(0);
        let mut cleanup = run.checkpoints.free_all(&mut run.cosimulation);
        for (i, tape) in run.tapes.iter_mut().enumerate() {
            let freed = checkpoints::free(&mut run.cosimulation, i, tape.take_states());
            cleanup = cleanup.and(freed);
        }
        let terminated = run.cosimulation.terminate();
        let value = result?;
        cleanup?;
        terminated?;
        Ok(value)
    }

    /// The output of cost term `term` at cost point `k` in a recorded run.
    fn output(&self, tapes: &[Tape], term: usize, k: usize) -> f64 {
        let (component, slot) = self.cost_slots[term];
        tapes[component].cost_value(k, slot)
    }

    /// `J` of a recorded run.
    fn cost_of(&self, tapes: &[Tape]) -> f64 {
        self.cost.value(&|term, k| self.output(tapes, term, k))
    }

    /// How each parameter's derivative can be had, from what the first recorded run found.
    fn methods_for(&self, tapes: &[Tape]) -> Vec<Method> {
        let blocked =
            |reason: String| vec![Method::FiniteDifferences { reason }; self.parameters.len()];
        match self.adjoint_obstacle(tapes) {
            Some(reason) => blocked(reason),
            None => self
                .parameters
                .iter()
                .map(|p| {
                    let layout = &tapes[p.port.component]
                        .derivatives
                        .as_ref()
                        .expect("no obstacle: every component has derivatives")
                        .layout;
                    if layout.parameters.contains(&p.seed()) {
                        Method::Adjoint
                    } else if let Some((_, reason)) = layout
                        .excluded
                        .iter()
                        .find(|(r, _)| *r == p.value_reference)
                    {
                        Method::FiniteDifferences {
                            reason: reason.clone(),
                        }
                    } else {
                        Method::FiniteDifferences {
                            reason: format!(
                                "{} is not among the parameters of its FMU's adjoint manifest",
                                p.name
                            ),
                        }
                    }
                })
                .collect(),
        }
    }

    /// Why the adjoint cannot be used for this system, if it cannot.
    fn adjoint_obstacle(&self, tapes: &[Tape]) -> Option<String> {
        if let Some(reason) = implicit_obstacle(&self.system) {
            return Some(reason);
        }
        let components = &self.system.components;
        let name = |port: Port| port.display(components).to_string();
        let layouts: Vec<_> = match tapes
            .iter()
            .zip(components)
            .map(|(tape, component)| {
                tape.derivatives.as_ref().map(|d| &d.layout).ok_or_else(|| {
                    model_exchange::obstacle(&self.system, component).unwrap_or_else(|| {
                        format!(
                            "component {} ({}) does not provide the adjoint extension",
                            component.name,
                            component.fmu.path().display()
                        )
                    })
                })
            })
            .collect::<std::result::Result<Vec<_>, String>>()
        {
            Ok(layouts) => layouts,
            Err(reason) => return Some(reason),
        };
        for (i, wiring) in self.wiring.iter().enumerate() {
            for input in wiring.inputs.iter().filter(|w| w.differentiable) {
                if !layouts[i].inputs.contains(&input.seed) {
                    return Some(format!(
                        "the input fed by {} is not in its FMU's adjoint manifest",
                        name(input.source)
                    ));
                }
                if !layouts[input.participant]
                    .outputs
                    .contains(&input.source.seed(components))
                {
                    return Some(format!(
                        "output {} is not in its FMU's adjoint manifest",
                        name(input.source)
                    ));
                }
            }
        }
        self.cost.ports().into_iter().find_map(|port| {
            (!layouts[port.component]
                .outputs
                .contains(&port.seed(components)))
            .then(|| {
                format!(
                    "cost output {} is not in its FMU's adjoint manifest",
                    name(port)
                )
            })
        })
    }

    /// The adjoint gradient of a recorded run (zero for parameters it does not reach).
    fn adjoint(&mut self, run: &mut Run) -> Result<Vec<f64>> {
        let seeds = self.seed_maps(&run.tapes);
        let names = self.component_names();
        let parameter_seeds = self.parameter_seeds(&run.tapes);
        let cost = |tape: &Tape, component: usize, tag: usize, adjoints: &mut [f64]| {
            self.add_cost_adjoints(tape, component, tag, adjoints)
        };
        let recording = self.recording(run, &seeds, &names);
        let adjoints = reverse::sweep(recording, &cost)?;
        Ok(parameter_seeds
            .into_iter()
            .map(|seed| seed.map_or(0.0, |(component, index)| adjoints[component][index]))
            .collect())
    }

    /// The gradient of a recorded run by forward sensitivities (zero for parameters they do
    /// not reach).
    fn forward(&mut self, run: &mut Run) -> Result<Vec<f64>> {
        let seeds = self.seed_maps(&run.tapes);
        let names = self.component_names();
        let directions = self.parameter_seeds(&run.tapes);
        let cost = |tape: &Tape, component: usize, tag: usize, adjoints: &mut [f64]| {
            self.add_cost_adjoints(tape, component, tag, adjoints)
        };
        let recording = self.recording(run, &seeds, &names);
        forward::sweep(recording, &directions, &cost)
    }

    /// Per component, where its inputs and observed variables sit in its derivative seeds.
    fn seed_maps(&self, tapes: &[Tape]) -> Vec<SeedMap> {
        let components = &self.system.components;
        let reference = |port: Port| port.seed(components);
        tapes
            .iter()
            .zip(&self.wiring)
            .map(|(tape, wiring)| {
                let derivatives = tape.derivatives.as_ref().expect("checked");
                SeedMap::new(
                    wiring,
                    &derivatives.layout,
                    derivatives.state_size,
                    &reference,
                )
            })
            .collect()
    }

    /// Adds `dJ/dy` of component `component`'s sample `tag` (recorded in `tape`) to
    /// `adjoints`, by observed slot.
    fn add_cost_adjoints(&self, tape: &Tape, component: usize, tag: usize, adjoints: &mut [f64]) {
        let Some(point) = tag.checked_sub(tape.start_tag) else {
            return;
        };
        if point > self.cost.last_point() {
            return;
        }
        for (term, &(c, slot)) in self.cost_slots.iter().enumerate() {
            if c == component {
                let y = tape.cost_value(point, slot);
                adjoints[slot] += self.cost.derivative(term, point, y);
            }
        }
    }

    /// Per parameter, its component and its index among that component's parameter seeds
    /// (`None` if its FMU's manifest does not list it).
    fn parameter_seeds(&self, tapes: &[Tape]) -> Vec<Option<(usize, usize)>> {
        self.parameters
            .iter()
            .map(|p| {
                let component = p.port.component;
                let layout = &tapes[component]
                    .derivatives
                    .as_ref()
                    .expect("checked")
                    .layout;
                layout
                    .parameters
                    .iter()
                    .position(|&seed| seed == p.seed())
                    .map(|index| (component, index))
            })
            .collect()
    }

    /// The component names, for messages.
    fn component_names(&self) -> Vec<String> {
        self.system
            .components
            .iter()
            .map(|c| c.name.clone())
            .collect()
    }

    /// What the sweeps read of a recorded run.
    fn recording<'a>(
        &'a self,
        run: &'a mut Run,
        seeds: &'a [SeedMap],
        names: &'a [String],
    ) -> Recording<'a> {
        Recording {
            cosimulation: &mut run.cosimulation,
            system: &self.system,
            stages: &mut run.stages,
            differentiate_stages: self.stage_derivatives,
            tapes: &mut run.tapes,
            shared: &run.shared,
            checkpoints: &mut run.checkpoints,
            wiring: &self.wiring,
            seeds,
            order: &self.system.schedule.order,
            names,
            start: self.system.start,
        }
    }
}

/// Why the adjoint cannot be used where `system` couples implicitly. It goes through the
/// converged values of every macro point by the implicit function theorem (see the reverse
/// pass's `interface`), which it differentiates where each participant's state at the end of a
/// macro step depends on them through the holds of its Co-Simulation steps only: held at each
/// (sub-)step's start on the line toward the values converged at the end. A Model Exchange
/// component is integrated along that line by the master, and the Hermite waveform's inputs
/// follow the values' time derivatives: finite differences of whole runs differentiate those.
fn implicit_obstacle(system: &System) -> Option<String> {
    let implicit = system.schedule.implicit.as_ref()?;
    if implicit.waveform == Waveform::Hermite {
        return Some(
            "the system couples implicitly on the Hermite waveform ([schedule] implicit), whose \
             inputs follow the time derivatives of the values exchanged, which the adjoint does \
             not differentiate"
                .to_string(),
        );
    }
    system
        .components
        .iter()
        .find_map(|component| model_exchange::obstacle(system, component))
}
