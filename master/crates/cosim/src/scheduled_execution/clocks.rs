//! The clocks of a Scheduled Execution FMU as the master schedules them: when each input
//! clock ticks (from the model description, from the FMU's answers, or from the input file)
//! and which output clocks the FMU reports. What the master cannot schedule is refused here,
//! naming the clock, before the FMU is instantiated.

use std::path::{Path, PathBuf};

use super::queue::{Tick, TickQueue};
use crate::error::{Error, Result};
use fmi_host::instance::{ClockInterval, Fmu3Instance};
use fmi_host::model_description::{
    Causality, ClockAttributes, IntervalVariability, ModelDescription, Variable, VariableType,
};

/// How the master learns when an input clock ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Timing {
    /// Periodic with the interval and shift of the model description (`constant`, and `fixed`
    /// or `tunable` with `intervalDecimal`, whose interval the master leaves at its default).
    Declared { interval: f64, shift: f64 },
    /// Periodic with the interval and shift the FMU gives in Initialization Mode (`fixed` or
    /// `tunable` without `intervalDecimal`); a tunable one is asked again after each tick.
    Asked { tunable: bool },
    /// Aperiodic: the FMU gives each next interval after a tick (`changing`).
    Changing,
    /// Aperiodic: the FMU announces each tick through the clock-update callback (`countdown`).
    Countdown,
    /// Ticked by the user, from the input file (`triggered`).
    Triggered,
}

/// An input clock: a model partition the master activates.
#[derive(Debug, Clone)]
struct InputClock {
    name: String,
    reference: u32,
    priority: u32,
    timing: Timing,
    /// The column of the clock in the result file.
    column: usize,
    /// The current period of a periodic clock: ticks at `base + k * interval`.
    period: Option<Period>,
    /// The time of the last activation (activation times must increase strictly).
    last: Option<f64>,
}

/// The ticks of a periodic clock from `base` on.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Period {
    base: f64,
    interval: f64,
    /// The index of the next tick.
    next: u64,
}

impl Period {
    /// Computed from the base rather than accumulated, so that rounding does not drift.
    fn next_time(&self) -> f64 {
        self.base + self.next as f64 * self.interval
    }
}

/// The clocks of an FMU and the schedule of its input clocks.
#[derive(Debug, Clone)]
pub struct Clocks {
    /// The FMU, for messages.
    fmu: PathBuf,
    /// The names of every input and output clock, in model description order: the clock
    /// columns of the result file.
    pub columns: Vec<String>,
    inputs: Vec<InputClock>,
    /// `(value reference, column)` of the output clocks.
    outputs: Vec<(u32, usize)>,
    /// The value references of the output clocks, asked for after each clock update (kept,
    /// so that an update allocates no list of its own).
    output_references: Vec<u32>,
    /// The countdown clocks, by index among the input clocks.
    countdown: Vec<usize>,
    /// The value references of the countdown clocks, asked for their intervals after each
    /// clock update.
    countdown_references: Vec<u32>,
}

/// Whether `x` is a finite number above 0 (NaN is not).
fn positive(x: f64) -> bool {
    x.is_finite() && x > 0.0
}

/// Whether `x` is a finite number of at least 0 (NaN is not).
fn non_negative(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

/// An error about the clock `name` of the FMU `fmu`.
fn clock_error(fmu: &Path, name: &str, message: impl Into<String>) -> Error {
    Error::invalid_value(format!("{}: clock {name}", fmu.display()), message)
}

impl Clocks {
    /// The clocks of `md` (the FMU `fmu`), refusing those the master cannot schedule.
    pub fn of(md: &ModelDescription, fmu: &Path) -> Result<Self> {
        let mut clocks = Clocks {
            fmu: fmu.to_path_buf(),
            columns: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            output_references: Vec::new(),
            countdown: Vec::new(),
            countdown_references: Vec::new(),
        };
        for variable in md.variables.iter().filter(|v| v.ty == VariableType::Clock) {
            let error = |message: String| clock_error(fmu, &variable.name, message);
            let attributes = variable.clock.as_ref().ok_or_else(|| {
                error("declares no intervalVariability (nor does a ClockType it refers to)".into())
            })?;
            let column = clocks.columns.len();
            match variable.causality {
                Causality::Input => clocks
                    .inputs
                    .push(input_clock(variable, attributes, column).map_err(error)?),
                Causality::Output => clocks.outputs.push((variable.value_reference, column)),
                other => {
                    return Err(error(format!(
                        "is a {other} clock; Scheduled Execution has input and output clocks only"
                    )))
                }
            }
            clocks.columns.push(variable.name.clone());
        }
        clocks.output_references = clocks.outputs.iter().map(|&(r, _)| r).collect();
        clocks.countdown = (0..clocks.inputs.len())
            .filter(|&i| clocks.inputs[i].timing == Timing::Countdown)
            .collect();
        clocks.countdown_references = clocks
            .countdown
            .iter()
            .map(|&i| clocks.inputs[i].reference)
            .collect();
        Ok(clocks)
    }

    /// The names of the triggered input clocks, which only the user ticks.
    pub fn triggered_inputs(&self) -> impl Iterator<Item = &str> {
        self.inputs
            .iter()
            .filter(|clock| clock.timing == Timing::Triggered)
            .map(|clock| clock.name.as_str())
    }

    /// Whether some input clock ticks without the user: periodic, changing or countdown.
    pub fn ticks_by_itself(&self) -> bool {
        self.inputs
            .iter()
            .any(|clock| clock.timing != Timing::Triggered)
    }

    /// The index among the input clocks of the triggered input clock called `name`; the error
    /// says why the column cannot tick it.
    pub fn triggered(&self, name: &str) -> std::result::Result<usize, String> {
        let index = self
            .inputs
            .iter()
            .position(|clock| clock.name == name)
            .ok_or_else(|| format!("column \"{name}\" is no input clock"))?;
        match self.inputs[index].timing {
            Timing::Triggered => Ok(index),
            _ => Err(format!(
                "column \"{name}\": only triggered input clocks are ticked from the input file; \
                 this clock ticks as the model description and the FMU say"
            )),
        }
    }

    /// Schedules the first ticks from `start`, asking the FMU for intervals and shifts where
    /// the standard says so; called in Initialization Mode. `triggered` holds the input
    /// file's ticks of each triggered clock (by index among the input clocks).
    pub(super) fn schedule_first(
        &mut self,
        instance: &mut Fmu3Instance,
        queue: &mut TickQueue,
        start: f64,
        triggered: &[(usize, Vec<f64>)],
        calls: &mut u64,
    ) -> Result<()> {
        for index in 0..self.inputs.len() {
            let clock = &self.inputs[index];
            let first = match clock.timing {
                Timing::Declared { interval, shift } => {
                    self.inputs[index].period = Some(Period {
                        base: start + shift,
                        interval,
                        next: 0,
                    });
                    Some(start + shift)
                }
                Timing::Asked { .. } => {
                    let interval = self.asked_interval(instance, index, calls)?;
                    *calls += 1;
                    let shift = instance.get_shift_decimal(&[clock.reference])?[0];
                    self.inputs[index].period = Some(Period {
                        base: start + shift,
                        interval,
                        next: 0,
                    });
                    Some(start + shift)
                }
                Timing::Changing | Timing::Countdown => {
                    *calls += 1;
                    match instance.get_interval_decimal(&[clock.reference])?[0] {
                        ClockInterval::Changed(interval) => Some(start + interval),
                        ClockInterval::Unchanged(_) | ClockInterval::NotYetKnown => None,
                    }
                }
                Timing::Triggered => None,
            };
            if let Some(time) = first {
                self.push(queue, index, time);
            }
        }
        for (index, times) in triggered {
            for &time in times {
                self.push(queue, *index, time);
            }
        }
        Ok(())
    }

    /// The interval of a periodic clock that the FMU gives (in Initialization Mode, or after
    /// a tick of a tunable clock), which must be positive.
    fn asked_interval(
        &self,
        instance: &mut Fmu3Instance,
        index: usize,
        calls: &mut u64,
    ) -> Result<f64> {
        let clock = &self.inputs[index];
        *calls += 1;
        match instance.get_interval_decimal(&[clock.reference])?[0] {
            ClockInterval::Changed(interval) | ClockInterval::Unchanged(interval)
                if positive(interval) =>
            {
                Ok(interval)
            }
            answer => Err(clock_error(
                &self.fmu,
                &clock.name,
                format!("fmi3GetIntervalDecimal answered {answer:?} for a periodic clock, whose interval must be positive"),
            )),
        }
    }

    fn push(&self, queue: &mut TickQueue, index: usize, time: f64) {
        queue.push(Tick {
            time,
            priority: self.inputs[index].priority,
            clock: index,
        });
    }

    /// The value reference, column and name of the input clock `index`, refusing a second
    /// activation at the time `time` or before.
    pub(super) fn activating(&mut self, index: usize, time: f64) -> Result<(u32, usize)> {
        let clock = &mut self.inputs[index];
        if clock.last.is_some_and(|last| last >= time) {
            return Err(Error::simulation(
                time,
                format!(
                    "clock {} would tick twice at t = {time}; the standard activates a model \
                     partition once per time",
                    clock.name
                ),
            ));
        }
        clock.last = Some(time);
        Ok((clock.reference, clock.column))
    }

    /// Schedules what follows the tick of input clock `index` at `time`: the next tick of a
    /// periodic clock, or of a tunable or changing one by the interval the FMU gives now.
    pub(super) fn after_tick(
        &mut self,
        instance: &mut Fmu3Instance,
        queue: &mut TickQueue,
        index: usize,
        time: f64,
        calls: &mut u64,
    ) -> Result<()> {
        let clock = &self.inputs[index];
        let reference = clock.reference;
        match clock.timing {
            Timing::Declared { .. } | Timing::Asked { tunable: false } => {}
            Timing::Asked { tunable: true } => {
                *calls += 1;
                // A changed interval counts from now, the later ticks from one another.
                if let ClockInterval::Changed(interval) =
                    instance.get_interval_decimal(&[reference])?[0]
                {
                    if !positive(interval) {
                        return Err(clock_error(
                            &self.fmu,
                            &clock.name,
                            format!("fmi3GetIntervalDecimal changed the interval to {interval}, which must be positive"),
                        ));
                    }
                    self.inputs[index].period = Some(Period {
                        base: time,
                        interval,
                        next: 0,
                    });
                }
            }
            Timing::Changing => {
                *calls += 1;
                match instance.get_interval_decimal(&[reference])?[0] {
                    ClockInterval::Changed(interval) if non_negative(interval) => {
                        self.push(queue, index, time + interval)
                    }
                    answer => {
                        return Err(clock_error(
                            &self.fmu,
                            &clock.name,
                            format!("fmi3GetIntervalDecimal answered {answer:?} right after a tick of this changing clock, which must give the next (non-negative) interval"),
                        ))
                    }
                }
            }
            Timing::Countdown | Timing::Triggered => {}
        }
        if let Some(period) = &mut self.inputs[index].period {
            period.next += 1;
            let next = period.next_time();
            self.push(queue, index, next);
        }
        Ok(())
    }

    /// Asks the FMU, after it called the clock-update callback during a partition run at
    /// `time`, which output clocks ticked (marked in `ticked`, by column) and which countdown
    /// clocks have a new interval (re-scheduled from `time`).
    pub(super) fn clock_update(
        &mut self,
        instance: &mut Fmu3Instance,
        queue: &mut TickQueue,
        time: f64,
        ticked: &mut [bool],
        calls: &mut u64,
    ) -> Result<()> {
        if !self.outputs.is_empty() {
            *calls += 1;
            let active = instance.get_clock(&self.output_references)?;
            for (&(_, column), active) in self.outputs.iter().zip(active) {
                ticked[column] |= active;
            }
        }
        if self.countdown.is_empty() {
            return Ok(());
        }
        *calls += 1;
        let intervals = instance.get_interval_decimal(&self.countdown_references)?;
        for (&index, interval) in self.countdown.iter().zip(intervals) {
            if let ClockInterval::Changed(interval) = interval {
                if !non_negative(interval) {
                    return Err(clock_error(
                        &self.fmu,
                        &self.inputs[index].name,
                        format!("fmi3GetIntervalDecimal gave the countdown interval {interval}, which must not be negative"),
                    ));
                }
                queue.cancel(index);
                self.push(queue, index, time + interval);
            }
        }
        Ok(())
    }
}

/// The input clock `variable` with the result column `column`, or why the master cannot
/// schedule it.
fn input_clock(
    variable: &Variable,
    attributes: &ClockAttributes,
    column: usize,
) -> std::result::Result<InputClock, String> {
    let priority = attributes
        .priority
        .ok_or("has no priority, which Scheduled Execution requires of every clock")?;
    let declared = attributes.declared_interval();
    let timing = match attributes.interval_variability {
        IntervalVariability::Constant => {
            let interval = declared
                .ok_or("is constant but declares neither intervalDecimal nor intervalCounter")?;
            Timing::Declared {
                interval,
                shift: attributes.declared_shift(),
            }
        }
        IntervalVariability::Fixed | IntervalVariability::Tunable => match declared {
            Some(interval) => Timing::Declared {
                interval,
                shift: attributes.declared_shift(),
            },
            None => Timing::Asked {
                tunable: attributes.interval_variability == IntervalVariability::Tunable,
            },
        },
        IntervalVariability::Changing => Timing::Changing,
        IntervalVariability::Countdown => Timing::Countdown,
        IntervalVariability::Triggered => Timing::Triggered,
    };
    if let Timing::Declared { interval, shift } = timing {
        if !positive(interval) || !non_negative(shift) {
            return Err(format!(
                "declares the interval {interval} and the shift {shift}; the interval must be \
                 positive and the shift not negative"
            ));
        }
    }
    Ok(InputClock {
        name: variable.name.clone(),
        reference: variable.value_reference,
        priority,
        timing,
        column,
        period: None,
        last: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn description(clocks: &str) -> ModelDescription {
        ModelDescription::parse(&format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="m" instantiationToken="{{x}}">
  <ScheduledExecution modelIdentifier="m"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    {clocks}
  </ModelVariables>
  <ModelStructure/>
</fmiModelDescription>"#
        ))
        .unwrap()
    }

    fn refusal(clocks: &str) -> String {
        Clocks::of(&description(clocks), Path::new("m.fmu"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn clocks_the_master_cannot_schedule_are_refused_by_name() {
        let message = refusal(
            r#"<Clock name="c" valueReference="1" causality="input" intervalVariability="constant"/>"#,
        );
        assert!(
            message.contains("clock c") && message.contains("has no priority"),
            "{message}"
        );
        let message = refusal(
            r#"<Clock name="k" valueReference="1" causality="input" intervalVariability="constant" priority="0" supportsFraction="true"/>"#,
        );
        assert!(
            message.contains("clock k") && message.contains("neither intervalDecimal"),
            "{message}"
        );
        let message = refusal(
            r#"<Clock name="l" valueReference="1" causality="local" intervalVariability="triggered"/>"#,
        );
        assert!(message.contains("is a local clock"), "{message}");
    }

    #[test]
    fn counters_give_the_interval_and_shift_and_columns_follow_the_file() {
        let md = description(
            r#"<Clock name="out" valueReference="2" causality="output" intervalVariability="triggered"/>
    <Clock name="in" valueReference="1" causality="input" intervalVariability="constant" priority="3" intervalCounter="3" shiftCounter="1" resolution="4"/>"#,
        );
        let clocks = Clocks::of(&md, Path::new("m.fmu")).unwrap();
        assert_eq!(clocks.columns, ["out", "in"]);
        assert_eq!(clocks.outputs, [(2, 0)]);
        assert_eq!(
            clocks.inputs[0].timing,
            Timing::Declared {
                interval: 0.75,
                shift: 0.25
            }
        );
        assert!(clocks
            .triggered("in")
            .unwrap_err()
            .contains("only triggered"));
        assert!(clocks
            .triggered("out")
            .unwrap_err()
            .contains("no input clock"));
    }
}
