//! The Model Exchange loop of `tandem simulate`: a [`MeStepper`] with the chosen solver
//! integrates the FMU's states; rows are recorded on the output grid from the steps' dense
//! output, and around events if asked.

use super::recorder::Recorder;
use super::{grid_intervals, grid_point, InputTable, Run, SimulationSummary};
use crate::progress::StepCounts;
use fmi_host::instance::FmuInstance;
use fmi_host::model_description::InterfaceType;
use tandem_cosim::stop;
use tandem_cosim::Result;
use tandem_ode::model_exchange::{Inputs, MeStepper};
use tandem_ode::solver::{Auto, DormandPrince, Esdirk, EsdirkStatistics, Method, Span, Stepper};

/// A step covers at most 1/50 of the run (as in FMPy), so that an indicator that changes
/// sign twice between step ends is not missed on a smooth stretch.
const MIN_STEPS_PER_RUN: f64 = 50.0;

/// Integrates from start to stop with `method`, recording on the output grid (and around
/// events if asked).
pub(super) fn run(run: Run<'_>, record_events: bool, method: Method) -> Result<SimulationSummary> {
    let n = run.instance.number_of_continuous_states();
    match method {
        Method::Auto => integrate(run, record_events, Auto::new(n), method, |auto: &Auto| {
            (auto.spans().to_vec(), Some(auto.implicit_statistics()))
        }),
        Method::Dopri5 => integrate(run, record_events, DormandPrince::new(n), method, |_| {
            (Vec::new(), None)
        }),
        Method::Esdirk => integrate(run, record_events, Esdirk::new(n), method, |esdirk| {
            (Vec::new(), Some(esdirk.statistics()))
        }),
    }
}

/// Which method ran since when (for a solver that changes methods; empty for one that runs
/// one method throughout), and the implicit method's work (for a solver that has one).
type SolverReport = (Vec<Span>, Option<EsdirkStatistics>);

/// The loop with `solver`, which is `method`; `report` says which method ran when and what
/// the implicit one did.
fn integrate<S: Stepper>(
    run: Run<'_>,
    record_events: bool,
    solver: S,
    method: Method,
    report: impl Fn(&S) -> SolverReport,
) -> Result<SimulationSummary> {
    let Run {
        instance,
        inputs,
        recorder,
        model_description,
        progress,
        experiment,
    } = run;
    let mut summary = SimulationSummary::new(InterfaceType::ModelExchange, experiment.start);
    summary.solver = Some(method);
    let mut me = MeStepper::new(instance, model_description, experiment.tolerance, solver)
        .with_max_step((experiment.stop - experiment.start) / MIN_STEPS_PER_RUN);
    let mut inputs = table_inputs(inputs);
    let intervals = grid_intervals(
        experiment.start,
        experiment.output_interval,
        experiment.stop,
    );
    let mut outputs = (1..=intervals)
        .map(|k| {
            grid_point(
                experiment.start,
                experiment.output_interval,
                k,
                experiment.stop,
            )
        })
        .peekable();
    // After initialization the FMU is in event mode: settle the initial discrete states.
    let terminated = me.start(experiment.start, &mut inputs)?;
    recorder.record(me.instance(), experiment.start)?;
    let mut terminated_by_fmu = terminated;
    while !terminated_by_fmu && me.time() < experiment.stop {
        let due = me.next_time_event().is_some_and(|t| t <= me.time());
        let outcome = if due {
            Default::default()
        } else {
            // Without states there is no dense output: stop at every output point instead.
            let limit = match outputs.peek() {
                Some(&next) if me.state_count() == 0 => next,
                _ => experiment.stop,
            };
            let outcome = me.step(limit, &mut inputs)?;
            if me.state_count() > 0 {
                let now = me.time();
                let passed = std::iter::from_fn(|| outputs.next_if(|&t| t < now));
                me.revisit_last_step(passed, &mut inputs, |instance, time| {
                    Ok(recorder.record(instance, time)?)
                })?;
            }
            let statistics = me.statistics();
            progress.update_steps(
                me.time(),
                StepCounts {
                    accepted: statistics.steps,
                    rejected: statistics.rejected_steps,
                },
            );
            outcome
        };
        terminated_by_fmu = outcome.terminate;
        if !terminated_by_fmu && me.event_due(outcome) {
            if record_events {
                record_now(&mut me, recorder)?;
            }
            terminated_by_fmu = me.handle_event(&mut inputs)?;
            if record_events && !terminated_by_fmu {
                record_now(&mut me, recorder)?;
            }
        }
        if terminated_by_fmu {
            record_now(&mut me, recorder)?;
            break;
        }
        while let Some(time) = outputs.next_if(|&t| t <= me.time()) {
            recorder.record(me.instance(), time)?;
        }
        stop::check(me.time())?;
    }
    let statistics = me.statistics();
    summary.steps = statistics.steps;
    summary.rejected_steps = statistics.rejected_steps;
    summary.events = statistics.events;
    summary.terminated_by_fmu = terminated_by_fmu;
    summary.final_time = me.time();
    (summary.solver_spans, summary.implicit) = report(me.solver());
    Ok(summary)
}

/// Records a row at the stepper's current time.
fn record_now<S: Stepper>(
    me: &mut MeStepper<&mut (dyn FmuInstance + 'static), S>,
    recorder: &mut Recorder,
) -> Result<()> {
    let time = me.time();
    recorder.record(me.instance(), time)
}

/// The inputs of an input table: all of them in event mode, and at every evaluation only if
/// some vary continuously (the others may only change at events).
fn table_inputs(table: Option<&InputTable>) -> Box<Inputs<'_>> {
    let continuous = table.is_some_and(InputTable::has_continuous);
    Box::new(
        move |instance: &mut dyn FmuInstance, time: f64, event: bool| match table {
            Some(table) if event || continuous => Ok(table.apply(instance, time)?),
            _ => Ok(()),
        },
    )
}
