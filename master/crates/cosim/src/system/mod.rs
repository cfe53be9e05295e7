//! Systems: FMUs as components, connections between their variables, the schedule and the
//! recorded variables, read from a TOML system file or an SSP 1.0 `.ssd`/`.ssp` (see
//! `docs/system-file.md`) and checked against the components' model descriptions before
//! anything is instantiated. Each format has a reader that produces a [`SystemDescription`];
//! one checking path turns any description into a [`System`].

pub mod algebraic_loop;
mod component;
mod connection;
mod connection_units;
pub mod dependency_order;
pub mod description;
pub mod energy_setup;
mod parameter_mapping;
mod parameter_set;
mod port;
mod shared_fmus;
mod ssd;
mod ssp;
mod system_connectors;
pub mod toml_file;
mod transform;
mod xml_file;

pub(crate) use algebraic_loop::depends_directly;

pub use component::Component;
pub use connection::Connection;
pub use description::SystemDescription;
pub use energy_setup::EnergySetup;
pub use port::resolve as resolve_port;
pub use port::resolve_element;
pub use port::Port;
pub use transform::{Transform, ValueMap};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::column::Column;
use crate::coupling::{
    AdaptiveMethod, AdaptiveSettings, ImplicitSettings, InterfaceJacobian, ScheduleKind,
    ScheduleSettings, Threads,
};
use crate::error::{Error, Result};
use crate::start_values::StartValue;
use component::FmuLocation;
use description::Located;
use fmi_host::model_description::{Causality, Values, Variable, VariableType};
use fmi_host::suggest::did_you_mean;
use shared_fmus::SharedFmus;

/// Reads a TOML system file (which may hold the top-level tables `sections` of other commands,
/// see [`LoadOptions::sections`]) or a bare `.ssd` (by extension) into its description, without
/// opening any FMU: the readers of [`System::load`] (except the unpacking of an `.ssp`).
pub fn read_description(path: &Path, sections: &[&'static str]) -> Result<SystemDescription> {
    if path.extension().and_then(|e| e.to_str()) == Some("ssd") {
        let folder = path.parent().unwrap_or(Path::new(""));
        let file = path.file_name().map(Path::new).unwrap_or(path);
        ssd::read(path, folder, file, false)
    } else {
        toml_file::read(path, sections)
    }
}

/// Macro steps per run when neither the system, the command line nor any component's FMU
/// suggests a macro step.
const DEFAULT_MACRO_STEPS: f64 = 500.0;

/// A checked system.
pub struct System {
    /// The system file.
    pub path: PathBuf,
    /// Start time.
    pub start: f64,
    /// Stop time.
    pub stop: f64,
    /// Macro (communication) step H.
    pub macro_step: f64,
    /// The components, in file order.
    pub components: Vec<Component>,
    /// The connections.
    pub connections: Vec<Connection>,
    /// How the components advance.
    pub schedule: ScheduleSettings,
    /// The variables written to the result file, in column order.
    pub recorded: Vec<Port>,
    /// The result columns of `recorded` (`component.name`, an alias's display unit).
    pub recorded_columns: Vec<Column>,
    /// The result file named by the system, resolved against the system file's folder.
    pub output_file: Option<PathBuf>,
    /// `[output] interval`: the result rows at this interval, interpolated between the macro
    /// points (none: a row per macro point).
    pub output_interval: Option<f64>,
    /// Power bonds and energy settings, when the system monitors energy.
    pub energy: Option<EnergySetup>,
    /// What loading the system left out without failing, one line per file, shown by `load`.
    pub notes: Vec<String>,
    /// What loading the system let pass that may not be what the files mean (a unit a file
    /// does not declare), shown by `load`.
    pub warnings: Vec<String>,
}

/// What the command line may change in a system file, and which tables of other commands it
/// may hold.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions<'a> {
    /// Replaces the system's stop time.
    pub stop_time: Option<f64>,
    /// Replaces the system's macro step.
    pub step_size: Option<f64>,
    /// Takes every FMU from this folder, by file name, instead of the path in the file.
    pub fmu_dir: Option<&'a Path>,
    /// Replaces the system's `[schedule] threads`.
    pub threads: Option<Threads>,
    /// Couples implicitly with this Jacobian (replacing `[schedule] implicit.jacobian`; the
    /// file's other implicit settings, or the defaults).
    pub implicit: Option<InterfaceJacobian>,
    /// Chooses the macro steps by the coupling's error with this tolerance (replacing
    /// `[schedule] adaptive.tolerance`; the file's other adaptive settings, or the defaults).
    pub adaptive: Option<f64>,
    /// The top-level tables of a TOML system file that other commands read for themselves:
    /// accepted unread. Any other key the system does not know is an error that lists these.
    pub sections: &'a [&'static str],
}

impl System {
    /// The number of macro steps of a run on the grid: the uniform one of the macro step (the
    /// last step cut at the stop time), or the frozen points of an adaptive run.
    pub fn intervals(&self) -> usize {
        match &self.schedule.frozen {
            Some(points) => points.len() - 1,
            None => crate::time_grid::grid_intervals(self.start, self.macro_step, self.stop),
        }
    }

    /// The time of macro point `k` of the grid (see [`System::intervals`]).
    pub fn point(&self, k: usize) -> f64 {
        match &self.schedule.frozen {
            Some(points) => points[k],
            None => crate::time_grid::grid_point(self.start, self.macro_step, k, self.stop),
        }
    }

    /// Turns the energy correction of the power bonds on or off, replacing the system file's
    /// `[energy] correction` (`None` keeps it); returns whether the runs correct. Turning it on
    /// needs energy monitoring, and explicit coupling.
    pub fn set_energy_correction(&mut self, correction: Option<bool>) -> Result<bool> {
        match (&mut self.energy, correction) {
            (Some(setup), Some(on)) => setup.settings.correction = on,
            (None, Some(true)) => {
                return Err(Error::InvalidValue {
                    item: self.path.display().to_string(),
                    message: "the energy correction needs energy monitoring: declare [[bond]] \
                              tables or an [energy] table (with monitor = true)"
                        .into(),
                })
            }
            (_, _) => {}
        }
        let on = self
            .energy
            .as_ref()
            .is_some_and(|setup| setup.settings.correction);
        if on && self.schedule.implicit.is_some() {
            return Err(Error::InvalidValue {
                item: self.path.display().to_string(),
                message: "the energy correction removes the energy a hold injects where the \
                          values exchanged lag by a macro step; implicit coupling exchanges \
                          converged values, and correcting them takes the system's own energy \
                          out (on the double oscillator with kc = 1e4 N/m the energy fell by \
                          99.9 % in 10 s); turn one of the two off"
                    .into(),
            });
        }
        Ok(on)
    }

    /// Reads, opens and checks the system file `path`: a TOML system file, an SSP package
    /// (`.ssp`) or a bare system structure description (`.ssd`), by extension. Every error
    /// names the file, the line and, in SSP files, the element.
    pub fn load(path: &Path, options: LoadOptions<'_>) -> Result<System> {
        let system = System::read(path, options)?;
        for note in &system.notes {
            eprintln!("note: {note}");
        }
        for warning in &system.warnings {
            eprintln!("warning: {warning}");
        }
        Ok(system)
    }

    /// [`System::load`] without showing the notes.
    pub fn read(path: &Path, options: LoadOptions<'_>) -> Result<System> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("ssp") => {
                let package = ssp::Package::unpack(path)?;
                let description =
                    ssd::read(path, package.folder(), Path::new(ssp::DESCRIPTION), true)?;
                System::check(&description, options)
            }
            _ => System::check(&read_description(path, options.sections)?, options),
        }
    }

    /// Opens the components of `description` and checks everything against their model
    /// descriptions: the one checking path of every format.
    pub fn check(description: &SystemDescription, options: LoadOptions<'_>) -> Result<System> {
        let (start, stop) = interval(description, options.stop_time)?;
        check_names(description)?;
        let location = FmuLocation {
            system: description,
            fmu_dir: options.fmu_dir,
        };
        let mut fmus = SharedFmus::default();
        let opened = description
            .components
            .iter()
            .map(|entry| component::open(entry, location, &mut fmus))
            .collect::<Result<Vec<_>>>()?;
        let macro_step = macro_step(description, options.step_size, &opened, (start, stop))?;
        let mut ignored = description.ignored.clone();
        let mut warnings = Vec::new();
        let components = opened
            .into_iter()
            .map(|c| component::configure(c, description, macro_step, &mut ignored, &mut warnings))
            .collect::<Result<Vec<_>>>()?;
        let notes = ignored_notes(description, &ignored);
        let connections = connection::resolve(description, &components)?;
        let schedule = schedule(
            description,
            &components,
            options.threads,
            options.implicit,
            options.adaptive,
        )?;
        let (recorded, recorded_columns) = recorded(description, &components)?.into_iter().unzip();
        let energy = EnergySetup::check(description, &components, &connections, &schedule)?;
        let output_file = description
            .output_file
            .as_ref()
            .map(|f| description.path.parent().unwrap_or(Path::new("")).join(f));
        let output_interval = description
            .output_interval
            .as_ref()
            .map(|Located { value, at }| {
                crate::time_grid::check_step("output interval", start, stop, *value)
                    .map(|()| *value)
                    .map_err(|message| description.error(at, format!("output.interval: {message}")))
            })
            .transpose()?;
        Ok(System {
            path: description.path.clone(),
            start,
            stop,
            macro_step,
            components,
            connections,
            schedule,
            recorded,
            recorded_columns,
            output_file,
            output_interval,
            energy,
            notes,
            warnings,
        })
    }

    /// Makes `value` the start value of the float variable at `port` (set before
    /// initialization), replacing the file's; for an element of an FMI 3.0 array, of that
    /// element, the others keeping the file's values (else the FMU's).
    pub fn set_start_value(&mut self, port: Port, value: f64) {
        let component = &self.components[port.component];
        let variable = port.variable(&self.components);
        let given = component
            .start_values
            .iter()
            .position(|s| s.value_reference == variable.value_reference);
        let numbers = match port.element {
            None => vec![value],
            Some(element) => {
                let count = component
                    .shapes()
                    .count(variable)
                    .unwrap_or(0)
                    .max(element + 1);
                let base = given
                    .map(|index| &component.start_values[index].value)
                    .or(variable.start.as_ref());
                // A start value written once stands for every element.
                let mut numbers: Vec<f64> = (0..count)
                    .map(|i| {
                        base.and_then(|b| b.f64_at(i).or_else(|| b.f64_at(0)))
                            .unwrap_or(0.0)
                    })
                    .collect();
                numbers[element] = value;
                numbers
            }
        };
        let start = StartValue::new(variable, Values::from_numbers(variable.ty, &numbers));
        let starts = &mut self.components[port.component].start_values;
        match given {
            Some(index) => starts[index].value = start.value,
            None => starts.push(start),
        }
    }

    /// Records `ports` instead of the file's choice, each under its variable's own name.
    pub fn set_recorded(&mut self, ports: Vec<Port>) {
        self.recorded_columns = ports
            .iter()
            .map(|port| {
                let mut column = Column::plain(port.variable(&self.components));
                column.name = port.display(&self.components).to_string();
                column.element = port.element;
                column
            })
            .collect();
        self.recorded = ports;
    }

    /// The system file's name without extension, for default output names.
    pub fn name(&self) -> String {
        self.path
            .file_stem()
            .map_or_else(|| "system".into(), |s| s.to_string_lossy().into_owned())
    }
}

/// How many names a note about ignored values lists before "...".
const NOTED_NAMES: usize = 5;

/// One note per file that holds ignored values: how many, and the first few names.
fn ignored_notes(system: &SystemDescription, ignored: &[Located<String>]) -> Vec<String> {
    let mut files: Vec<(Option<&String>, Vec<&str>)> = Vec::new();
    for value in ignored {
        let file = value.at.file.as_ref();
        match files.iter_mut().find(|(f, _)| *f == file) {
            Some((_, names)) => names.push(&value.value),
            None => files.push((file, vec![&value.value])),
        }
    }
    files
        .into_iter()
        .map(|(file, names)| {
            let more = if names.len() > NOTED_NAMES {
                ", ..."
            } else {
                ""
            };
            let shown = names[..names.len().min(NOTED_NAMES)].join(", ");
            let path = system.path.display();
            let place = file.map_or_else(|| path.to_string(), |f| format!("{path}, {f}"));
            format!(
                "{place}: {} value(s) set nothing in the system and are ignored, as SSP \
                 prescribes: {shown}{more}",
                names.len()
            )
        })
        .collect()
}

/// Start and stop time, checked; `stop_time` replaces the system's stop.
// The negated comparisons also reject NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn interval(system: &SystemDescription, stop_time: Option<f64>) -> Result<(f64, f64)> {
    let start = system.start.as_ref().map_or(0.0, |s| s.value);
    let stop = match (stop_time, &system.stop) {
        (Some(stop), _) => stop,
        (None, Some(stop)) => stop.value,
        (None, None) => {
            return Err(system.error_in_system(
                "no stop time: the system gives none (SSP: ssd:DefaultExperiment stopTime); pass --stop-time",
            ))
        }
    };
    if let Err(message) = crate::time_grid::check_interval(start, stop) {
        return Err(match (stop_time, &system.stop, &system.start) {
            (_, _, Some(written)) if !start.is_finite() => system.error(&written.at, message),
            (None, Some(written), _) => system.error(&written.at, message),
            _ => Error::InvalidValue {
                item: "--stop-time".into(),
                message,
            },
        });
    }
    if !(stop > start) {
        let message = format!("stop time {stop} must be after the start time {start}");
        return Err(match (stop_time, &system.stop) {
            (None, Some(written)) => system.error(&written.at, message),
            _ => Error::InvalidValue {
                item: "--stop-time".into(),
                message,
            },
        });
    }
    Ok((start, stop))
}

/// The macro step: `--step-size`, else the system's, else the smallest step any component's
/// FMU suggests, else the run divided into [`DEFAULT_MACRO_STEPS`] steps.
// The negated comparison also rejects NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn macro_step(
    system: &SystemDescription,
    step_size: Option<f64>,
    components: &[component::Opened<'_>],
    (start, stop): (f64, f64),
) -> Result<f64> {
    let duration = stop - start;
    let (step, written) = match (step_size, &system.step) {
        (Some(step), _) => (step, None),
        (None, Some(Located { value, at })) => (*value, Some(at)),
        (None, None) => {
            let suggested = components
                .iter()
                .filter_map(component::Opened::suggested_step)
                .fold(f64::INFINITY, f64::min);
            let step = if suggested.is_finite() {
                suggested
            } else {
                duration / DEFAULT_MACRO_STEPS
            };
            (step, None)
        }
    };
    let checked = if !(step > 0.0 && step.is_finite()) {
        Err(format!("the macro step {step} must be positive"))
    } else {
        crate::time_grid::check_step("macro step", start, stop, step)
    };
    if let Err(message) = checked {
        return Err(match written {
            Some(at) => system.error(at, message),
            None => Error::InvalidValue {
                item: "--step-size".into(),
                message,
            },
        });
    }
    Ok(step)
}

/// Component names: present, unique, without empty dot-separated parts, and none followed by
/// a dot the beginning of another (so that `a.b.c` names one component's variable).
fn check_names(system: &SystemDescription) -> Result<()> {
    if system.components.is_empty() {
        return Err(system.error_in_system("the system has no components"));
    }
    let mut seen = HashMap::new();
    for (index, entry) in system.components.iter().enumerate() {
        let name = &entry.name.value;
        if name.split('.').any(str::is_empty) || name.trim() != name {
            return Err(system.error(
                &entry.name.at,
                format!(
                    "component name \"{name}\" must be non-empty, without surrounding spaces \
                     or empty parts between dots"
                ),
            ));
        }
        if seen.insert(name.as_str(), index).is_some() {
            return Err(system.error(
                &entry.name.at,
                format!("component name \"{name}\" is used twice"),
            ));
        }
    }
    for entry in &system.components {
        let name = &entry.name.value;
        // The names before each dot, looked up: linear in the names' length, where comparing
        // every pair of components grows with their square. The first such component in the
        // file is named.
        let outer = name
            .match_indices('.')
            .filter_map(|(at, _)| seen.get(&name[..at]).copied())
            .min()
            .map(|index| &system.components[index]);
        if let Some(outer) = outer {
            return Err(system.error(
                &entry.name.at,
                format!(
                    "component name \"{name}\" begins with the component name \"{}\" and a \
                     dot, so {name}.x would be ambiguous",
                    outer.name.value
                ),
            ));
        }
    }
    Ok(())
}

/// The schedule: kind, stepping order, extrapolation, threads and implicit coupling (`threads`
/// and `implicit` replacing the file's).
fn schedule(
    system: &SystemDescription,
    components: &[Component],
    threads: Option<Threads>,
    implicit: Option<InterfaceJacobian>,
    adaptive: Option<f64>,
) -> Result<ScheduleSettings> {
    let entry = &system.schedule;
    let order = match (&entry.order, entry.kind) {
        (None, _) => (0..components.len()).collect(),
        (Some(order), ScheduleKind::Jacobi) => {
            return Err(system.error(
                &order.at,
                "schedule.order applies to the gauss-seidel schedule only (jacobi steps every component at once)",
            ))
        }
        (Some(order), ScheduleKind::GaussSeidel) => {
            let mut indices = Vec::new();
            for name in &order.value {
                let index = components
                    .iter()
                    .position(|c| c.name == name.value)
                    .ok_or_else(|| {
                        system.error(
                            &name.at,
                            format!(
                                "schedule.order: unknown component \"{}\"{}",
                                name.value,
                                did_you_mean(&name.value, components.iter().map(|c| c.name.as_str()))
                            ),
                        )
                    })?;
                if indices.contains(&index) {
                    return Err(system.error(
                        &name.at,
                        format!("schedule.order: component {} is listed twice", name.value),
                    ));
                }
                indices.push(index);
            }
            if let Some(missing) = (0..components.len()).find(|i| !indices.contains(i)) {
                return Err(system.error(
                    &order.at,
                    format!(
                        "schedule.order: component {} is missing (the order lists every component once)",
                        components[missing].name
                    ),
                ));
            }
            indices
        }
    };
    if let Some(written) = &entry.implicit {
        if let Some(problem) = written.value.problem() {
            return Err(system.error(&written.at, format!("schedule.{problem}")));
        }
    }
    if let Some(written) = &entry.adaptive {
        if let Some(problem) = written.value.problem() {
            return Err(system.error(&written.at, format!("schedule.{problem}")));
        }
    }
    let adaptive = match (entry.adaptive.as_ref().map(|w| w.value), adaptive) {
        (written, Some(tolerance)) => {
            let settings = AdaptiveSettings {
                tolerance,
                ..written.unwrap_or(AdaptiveSettings {
                    method: AdaptiveMethod::default(),
                    tolerance,
                    min_step: None,
                    max_step: None,
                })
            };
            if let Some(problem) = settings.problem() {
                return Err(Error::invalid_value("--adaptive", problem));
            }
            Some(settings)
        }
        (written, None) => written,
    };
    let written = entry.implicit.as_ref().map(|written| written.value);
    let implicit = match implicit {
        Some(jacobian) => Some(ImplicitSettings {
            jacobian,
            ..written.unwrap_or_default()
        }),
        None => written,
    };
    Ok(ScheduleSettings {
        kind: entry.kind,
        order,
        extrapolation: entry.extrapolation,
        threads: threads.unwrap_or(entry.threads),
        implicit,
        adaptive,
        frozen: None,
    })
}

/// The recorded variables and their columns: the listed ones (aliases under their own names,
/// arrays by element), or every output of every component.
fn recorded(system: &SystemDescription, components: &[Component]) -> Result<Vec<(Port, Column)>> {
    let Some(names) = &system.recorded else {
        let mut recorded = Vec::new();
        for (component, c) in components.iter().enumerate() {
            let md = c.fmu.model_description();
            for (variable, v) in md.variables.iter().enumerate() {
                if v.causality != Causality::Output || !recordable(v) {
                    continue;
                }
                let mut column = Column::plain(v);
                column.name = format!("{}.{}", c.name, v.name);
                // An array whose size the system leaves unknown cannot be recorded; its
                // connections name the problem.
                if let Ok(shape) = c.shapes().of(v) {
                    recorded.extend(by_element(Port::whole(component, variable), column, &shape));
                }
            }
        }
        return Ok(recorded);
    };
    let mut recorded = Vec::new();
    for name in names {
        let error =
            |message: String| system.error(&name.at, format!("output.variables: {message}"));
        let port = port::resolve_element(&name.value, components).map_err(error)?;
        let variable = port.variable(components);
        if !recordable(variable) {
            return Err(error(format!(
                "{} is a {} variable; only numbers and booleans can be recorded",
                name.value, variable.ty,
            )));
        }
        let text = name.value.trim();
        // Component names may hold dots (flattened SSP systems): strip the resolved one.
        let component = &components[port.component];
        let variable_name = text
            .strip_prefix(component.name.as_str())
            .and_then(|rest| rest.strip_prefix('.'))
            .expect("a resolved port begins with its component's name");
        let md = component.fmu.model_description();
        let column = match Column::named(md, variable_name) {
            Some((_, column)) => column,
            // An element, `y[2]`, is no name of the model description.
            None => Column::plain(variable),
        };
        let column = Column {
            name: text.to_string(),
            element: port.element,
            ..column
        };
        if port.element.is_some() {
            recorded.push((port, column));
            continue;
        }
        let shape = component.shapes().of(variable).map_err(error)?;
        recorded.extend(by_element(port, column, &shape));
    }
    Ok(recorded)
}

/// The port and column of every element of the variable of `port`, of shape `shape` (the port
/// and column themselves for a scalar).
fn by_element(port: Port, column: Column, shape: &[usize]) -> Vec<(Port, Column)> {
    column
        .elements(shape)
        .into_iter()
        .map(|column| {
            let port = Port {
                element: column.element,
                ..port
            };
            (port, column)
        })
        .collect()
}

/// Numbers and booleans, which the result file can hold (arrays by element).
fn recordable(variable: &Variable) -> bool {
    variable.ty.is_numeric() || variable.ty == VariableType::Boolean
}
