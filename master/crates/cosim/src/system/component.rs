//! One component: its FMU opened with the interface it runs with, its step as a number of
//! sub-steps per macro step, the clocks of a Scheduled Execution component, and its parameter
//! and start values checked against the model description.

use std::path::{Path, PathBuf};

use super::description::{ComponentDescription, Located, Location, SystemDescription, ValueKind};
use super::shared_fmus::SharedFmus;
use crate::coupling::Extrapolation;
use crate::error::{Error, Result};
use crate::scheduled_execution::Clocks;
use crate::start_values::{array_value, check_settable_array, StartValue};
use fmi_host::model_description::{Causality, InterfaceType, Shapes};
use fmi_host::suggest::did_you_mean;
use fmi_host::Fmu;
use tandem_ode::solver::Method;

/// Relative tolerance of the master's integrator for Model Exchange components whose FMU
/// suggests none.
const DEFAULT_TOLERANCE: f64 = 1e-6;

/// A component of a system, ready to be instantiated.
pub struct Component {
    /// Instance name.
    pub name: String,
    /// The opened FMU.
    pub fmu: Fmu,
    /// The FMU file for messages (inside a package: the package path joined with the source).
    pub fmu_label: String,
    /// Co-Simulation (the FMU steps itself), Model Exchange (the master integrates it) or
    /// Scheduled Execution (the master activates its model partitions at its clocks' ticks).
    pub interface: InterfaceType,
    /// Steps a Co-Simulation component takes per macro step (its step is the macro step
    /// divided by this); 1 for the other interfaces.
    pub sub_steps: usize,
    /// The clocks of a Scheduled Execution component, as checked when loading: at least one
    /// input clock ticks without the user (a system has no input file to tick the others).
    pub clocks: Option<Clocks>,
    /// Relative tolerance of the master's integrator (Model Exchange components).
    pub tolerance: f64,
    /// The master's integrator (Model Exchange components).
    pub solver: Method,
    /// Its own input extrapolation, replacing the schedule's.
    pub extrapolation: Option<Extrapolation>,
    /// Parameter and start values, set before initialization.
    pub start_values: Vec<StartValue>,
}

impl Component {
    /// Whether the FMU can get and set its state (`canGetAndSetFMUState`) for the interface
    /// the component runs with: what a master needs to take a macro step back.
    pub fn can_get_and_set_state(&self) -> bool {
        self.fmu
            .model_description()
            .interface(self.interface)
            .is_some_and(|(_, capabilities)| capabilities.can_get_and_set_fmu_state)
    }

    /// The shapes of the FMU's variables, sized by the structural parameters the system sets.
    pub fn shapes(&self) -> Shapes<'_> {
        self.start_values
            .iter()
            .filter(|value| value.structural)
            .filter_map(|value| {
                let size = value.value.f64_at(0)?;
                (size >= 0.0).then_some((value.value_reference, size as u64))
            })
            .fold(
                Shapes::new(self.fmu.model_description()),
                |shapes, (reference, size)| shapes.with(reference, size),
            )
    }
}

/// Where components' FMUs are looked for.
#[derive(Clone, Copy)]
pub(super) struct FmuLocation<'a> {
    /// The system, whose folder `fmu` paths are relative to.
    pub system: &'a SystemDescription,
    /// `--fmu-dir`: when given, every FMU is taken from this folder by file name.
    pub fmu_dir: Option<&'a Path>,
}

impl FmuLocation<'_> {
    /// The file of the FMU written as `written`, and how messages name it.
    fn resolve(&self, written: &str) -> Option<(PathBuf, String)> {
        match self.fmu_dir {
            Some(dir) => Path::new(written).file_name().map(|name| {
                let path = dir.join(name);
                let label = path.display().to_string();
                (path, label)
            }),
            None if self.system.packaged => Some((
                self.system.folder.join(written),
                self.system.path.join(written).display().to_string(),
            )),
            None => {
                let path = self.system.folder.join(written);
                let label = path.display().to_string();
                Some((path, label))
            }
        }
    }

    /// Where the user should look when the FMU is missing.
    fn hint(&self) -> String {
        match self.fmu_dir {
            Some(dir) => format!("looked in --fmu-dir {}", dir.display()),
            None if self.system.packaged => "the package has no such file".to_string(),
            None => "paths are relative to the system file".to_string(),
        }
    }
}

/// The component of `entry` with its FMU opened and its interface chosen; its step and values
/// are checked by [`configure`] once the macro step is known.
pub(super) struct Opened<'a> {
    entry: &'a ComponentDescription,
    fmu: Fmu,
    fmu_label: String,
    interface: InterfaceType,
}

impl Opened<'_> {
    /// The step the FMU suggests (its DefaultExperiment stepSize), if any.
    pub fn suggested_step(&self) -> Option<f64> {
        self.fmu
            .model_description()
            .default_experiment
            .as_ref()
            .and_then(|e| e.step_size)
            .filter(|step| *step > 0.0 && step.is_finite())
    }
}

/// Opens the FMU of `entry` (or shares the one of an earlier component of the same file,
/// from `fmus`) and chooses its interface.
pub(super) fn open<'a>(
    entry: &'a ComponentDescription,
    location: FmuLocation<'_>,
    fmus: &mut SharedFmus,
) -> Result<Opened<'a>> {
    let system = location.system;
    let error = |at: &Location, message: String| {
        system.error(at, format!("component {}: {message}", entry.name.value))
    };
    let written = &entry.fmu.value;
    let (path, fmu_label) = location
        .resolve(written)
        .ok_or_else(|| error(&entry.fmu.at, format!("\"{written}\" names no file")))?;
    if !path.is_file() {
        return Err(error(
            &entry.fmu.at,
            format!("FMU file {fmu_label} not found ({})", location.hint()),
        ));
    }
    // Inside a package the path is in a temporary folder, gone after the run: name the FMU by
    // its label (the package and the entry) instead.
    let fmu = fmus
        .get_or_open(&path, || {
            Fmu::open(&path)
                .and_then(|fmu| fmu.check_valid().map(|()| fmu))
                .map_err(|e| {
                    let message = e
                        .to_string()
                        .replace(&path.display().to_string(), &fmu_label);
                    error(&entry.fmu.at, message)
                })
        })?
        .shown_as(&fmu_label);
    let md = fmu.model_description();
    let (has_cs, has_me, has_se) = (
        md.co_simulation.is_some(),
        md.model_exchange.is_some(),
        md.scheduled_execution.is_some(),
    );
    let interface = match &entry.interface {
        Some(Located { value, at }) => {
            let present = match value {
                InterfaceType::CoSimulation => has_cs,
                InterfaceType::ModelExchange => has_me,
                InterfaceType::ScheduledExecution => has_se,
            };
            if !present {
                return Err(error(
                    at,
                    format!(
                        "{fmu_label} has no {value} interface (it implements: {})",
                        md.interfaces_text()
                    ),
                ));
            }
            *value
        }
        None if has_cs => InterfaceType::CoSimulation,
        None if has_me => InterfaceType::ModelExchange,
        None if has_se => InterfaceType::ScheduledExecution,
        None => {
            return Err(error(
                &entry.fmu.at,
                format!("{fmu_label} implements no FMI interface"),
            ))
        }
    };
    Ok(Opened {
        entry,
        fmu,
        fmu_label,
        interface,
    })
}

/// Completes an opened component: its sub-steps per macro step, its integrator tolerance and
/// its parameter and start values; SSP values for variables the FMU does not have are added to
/// `ignored` as `component.variable`; values passed with a warning add it to `warnings`.
pub(super) fn configure(
    opened: Opened<'_>,
    system: &SystemDescription,
    macro_step: f64,
    ignored: &mut Vec<Located<String>>,
    warnings: &mut Vec<String>,
) -> Result<Component> {
    let Opened {
        entry,
        fmu,
        fmu_label,
        interface,
    } = opened;
    let name = &entry.name.value;
    let error =
        |at: &Location, message: String| system.error(at, format!("component {name}: {message}"));
    let model_exchange = interface == InterfaceType::ModelExchange;
    let sub_steps = match (&entry.step, interface) {
        (None, _) => 1,
        (Some(step), InterfaceType::CoSimulation) => {
            sub_steps(step.value, macro_step).map_err(|m| error(&step.at, m))?
        }
        (Some(step), InterfaceType::ModelExchange) => {
            return Err(error(
                &step.at,
                format!(
                    "step {} applies to Co-Simulation components; a Model Exchange component is \
                     integrated by the master with adaptive steps",
                    step.value
                ),
            ))
        }
        (Some(step), InterfaceType::ScheduledExecution) => {
            return Err(error(
                &step.at,
                format!(
                    "step {} applies to Co-Simulation components; a Scheduled Execution \
                     component runs its model partitions at the ticks of its clocks",
                    step.value
                ),
            ))
        }
    };
    // What controls the integration of a component the master does not integrate.
    let own_integration = match interface {
        InterfaceType::ScheduledExecution => "a Scheduled Execution FMU's partitions compute",
        _ => "a Co-Simulation FMU controls its own integration",
    };
    let tolerance = match &entry.tolerance {
        Some(tolerance) if !model_exchange => {
            return Err(error(
                &tolerance.at,
                format!("tolerance applies to Model Exchange components ({own_integration})"),
            ))
        }
        Some(Located { value, at }) if !(*value > 0.0 && value.is_finite()) => {
            return Err(error(at, format!("tolerance {value} must be positive")))
        }
        Some(tolerance) => tolerance.value,
        None => fmu
            .model_description()
            .default_experiment
            .as_ref()
            .and_then(|e| e.tolerance)
            .filter(|t| *t > 0.0)
            .unwrap_or(DEFAULT_TOLERANCE),
    };
    let solver = match &entry.solver {
        Some(solver) if !model_exchange => {
            return Err(error(
                &solver.at,
                format!(
                    "solver {} applies to Model Exchange components ({own_integration})",
                    solver.value
                ),
            ))
        }
        Some(solver) => solver.value,
        None => Method::default(),
    };
    let mut warn = |at: &Location, message: String| {
        warnings.push(format!(
            "{}: {at}: component {name}: {message}",
            system.path.display()
        ))
    };
    let clocks = match interface {
        InterfaceType::ScheduledExecution => {
            let at = entry.interface.as_ref().map_or(&entry.fmu.at, |i| &i.at);
            Some(clocks(&fmu, &fmu_label, at, &error, &mut warn)?)
        }
        _ => None,
    };
    let start_values = start_values(&fmu, &fmu_label, entry, &error, &mut warn, ignored)?;
    Ok(Component {
        name: name.clone(),
        fmu,
        fmu_label,
        interface,
        sub_steps,
        clocks,
        tolerance,
        solver,
        extrapolation: entry.extrapolation,
        start_values,
    })
}

/// The clocks of the Scheduled Execution FMU `fmu`, written at `at`: refused when the master
/// cannot schedule one, or when only the user ticks its input clocks (triggered clocks, from
/// the input file of `tandem simulate`), since nothing in a system ticks them; a triggered
/// input clock beside others passes with a `warn`ing that it never ticks.
fn clocks(
    fmu: &Fmu,
    fmu_label: &str,
    at: &Location,
    error: &dyn Fn(&Location, String) -> Error,
    warn: &mut dyn FnMut(&Location, String),
) -> Result<Clocks> {
    let clocks = Clocks::of(fmu.model_description(), fmu.path())
        .map_err(|e| error(at, format!("Scheduled Execution: {e}")))?;
    let triggered: Vec<&str> = clocks.triggered_inputs().collect();
    if !clocks.ticks_by_itself() {
        let what = match triggered.as_slice() {
            [] => "has no input clock".to_string(),
            names => format!(
                "has only triggered input clocks ({}), which tick only when the user ticks \
                 them (`tandem simulate --input-file`)",
                names.join(", ")
            ),
        };
        return Err(error(
            at,
            format!(
                "{fmu_label} {what}: a system ticks periodic, changing and countdown input \
                 clocks only, so no model partition of this Scheduled Execution component \
                 would run"
            ),
        ));
    }
    if !triggered.is_empty() {
        warn(
            at,
            format!(
                "the triggered input clocks of {fmu_label} ({}) never tick in a system (only \
                 the input file of `tandem simulate` ticks triggered clocks); its other input \
                 clocks run their partitions",
                triggered.join(", ")
            ),
        );
    }
    Ok(clocks)
}

/// The number of sub-steps of `step` in `macro_step`, which must be a whole number.
fn sub_steps(step: f64, macro_step: f64) -> std::result::Result<usize, String> {
    let ratio = macro_step / step;
    let rounded = ratio.round();
    if step > 0.0 && rounded >= 1.0 && (ratio - rounded).abs() <= 1e-9 * rounded {
        Ok(rounded as usize)
    } else {
        Err(format!(
            "step {step} is not the macro step {macro_step} divided by a whole number \
             (components may step faster than the macro step, not slower: make the macro \
             step the longest component step)"
        ))
    }
}

/// The parameter and start values of `entry`, checked against the model description. SSP
/// parameter sets may carry values for variables the FMU does not have, which the standard
/// ignores: they go to `ignored`. A value in a unit its file does not declare passes with a
/// `warn`ing.
fn start_values(
    fmu: &Fmu,
    fmu_label: &str,
    entry: &ComponentDescription,
    error: &dyn Fn(&Location, String) -> Error,
    warn: &mut dyn FnMut(&Location, String),
    ignored: &mut Vec<Located<String>>,
) -> Result<Vec<StartValue>> {
    let md = fmu.model_description();
    let (known, unknown): (Vec<_>, Vec<_>) = entry
        .values
        .iter()
        .partition(|value| value.kind != ValueKind::Any || md.variable(&value.name).is_some());
    ignored.extend(unknown.into_iter().map(|value| {
        Located::new(
            format!("{}.{}", entry.name.value, value.name),
            value.at.clone(),
        )
    }));
    // The structural parameters given size the arrays the other values fill.
    let shapes = known
        .iter()
        .filter_map(|value| {
            let variable = md.variable(&value.name)?;
            let size = value.text.trim().parse::<u64>().ok()?;
            (variable.causality == Causality::StructuralParameter)
                .then_some((variable.value_reference, size))
        })
        .fold(Shapes::new(md), |shapes, (reference, size)| {
            shapes.with(reference, size)
        });
    known
        .into_iter()
        .map(|value| {
            let name = &value.name;
            let label = match value.kind {
                ValueKind::Parameter => format!("parameters.{name}"),
                ValueKind::Start => format!("start.{name}"),
                ValueKind::Any => format!("value of {name}"),
            };
            let fail = |message: String| error(&value.at, format!("{label}: {message}"));
            let variable = md.variable(name).ok_or_else(|| {
                fail(format!(
                    "{fmu_label} has no variable \"{name}\"{}",
                    did_you_mean(name, md.variable_names())
                ))
            })?;
            let is_parameter = matches!(
                variable.causality,
                Causality::Parameter | Causality::StructuralParameter
            );
            match value.kind {
                ValueKind::Parameter if !is_parameter => {
                    return Err(fail(format!(
                        "{name} is a {} variable, not a parameter: give it under [component.start]",
                        variable.causality
                    )))
                }
                ValueKind::Start if is_parameter => {
                    return Err(fail(format!(
                        "{name} is a parameter: give it under [component.parameters]"
                    )))
                }
                _ => {}
            }
            check_settable_array(variable).map_err(&fail)?;
            if let Some(unit) = &value.unit {
                let written = &unit.name;
                if let Some(declared) = md.unit_of(variable).filter(|d| d != written) {
                    match &unit.undeclared_among {
                        None => {
                            return Err(fail(format!(
                                "the value is given in {written} but {name} is in {declared}; \
                                 units are not converted"
                            )))
                        }
                        Some(units) => warn(
                            &value.at,
                            format!(
                                "{label}: the unit \"{written}\" is not declared in its file \
                                 ({}); the value passes unconverted to {name}, which is in \
                                 {declared}",
                                match units.as_slice() {
                                    [] => "which declares no units".to_string(),
                                    units => format!("which declares {}", units.join(", ")),
                                }
                            ),
                        ),
                    }
                }
            }
            let parsed = array_value(&shapes, variable, &value.text).map_err(&fail)?;
            Ok(StartValue::new(variable, parsed))
        })
        .collect()
}
