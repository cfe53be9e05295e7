//! Systems: FMUs as components, connections between their variables, the schedule and the
//! recorded variables, read from a TOML system file (see `docs/system-file.md`) and checked
//! against the components' model descriptions before anything is instantiated.

mod algebraic_loop;
mod component;
mod connection;
mod file;
mod port;
mod source;

pub(crate) use algebraic_loop::depends_directly;
pub use component::Component;
pub use connection::Connection;
pub use file::SystemFile;
pub(crate) use port::resolve as resolve_port;
pub use port::Port;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::energy::EnergySetup;
use crate::error::{Error, Result};
use crate::model_description::{Causality, Variable, VariableType};
use crate::schedule::{Extrapolation, ScheduleKind};
use component::FmuLocation;
use source::SourceText;

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
    pub schedule: Schedule,
    /// The variables written to the result file, in column order.
    pub recorded: Vec<Port>,
    /// `[output] file`, resolved against the system file's folder.
    pub output_file: Option<PathBuf>,
    /// Power bonds and energy settings, when the system monitors energy.
    pub energy: Option<EnergySetup>,
}

/// The schedule of a system.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// Jacobi or Gauss-Seidel.
    pub kind: ScheduleKind,
    /// Component indices in stepping order (file order for Jacobi).
    pub order: Vec<usize>,
    /// Input extrapolation.
    pub extrapolation: Extrapolation,
}

/// What the command line may change in a system file.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions<'a> {
    /// Replaces `[experiment] stop`.
    pub stop_time: Option<f64>,
    /// Takes every FMU from this folder, by file name, instead of the path in the file.
    pub fmu_dir: Option<&'a Path>,
}

impl System {
    /// Reads, opens and checks the system file `path`: every error names the file and, where
    /// the TOML reader gives it, the line.
    pub fn load(path: &Path, options: LoadOptions<'_>) -> Result<System> {
        let source = SourceText::read(path)?;
        let file: SystemFile = toml::from_str(source.text()).map_err(|e| {
            let message = e.message().trim_end().to_string();
            match e.span() {
                Some(span) => {
                    let (line, column) = source.position(span.start);
                    source.error_in_file(format!("line {line}, column {column}: {message}"))
                }
                None => source.error_in_file(message),
            }
        })?;
        let (start, stop, macro_step) = experiment(&file, &source, options.stop_time)?;
        check_names(&file, &source)?;
        let system_folder = path.parent().unwrap_or(Path::new(""));
        let location = FmuLocation {
            system_folder,
            fmu_dir: options.fmu_dir,
        };
        let components = file
            .components
            .iter()
            .map(|entry| component::load(entry, &source, location, macro_step))
            .collect::<Result<Vec<_>>>()?;
        let connections = connection::resolve(&file, &components, &source)?;
        let schedule = schedule(&file, &components, &source)?;
        if schedule.kind == ScheduleKind::GaussSeidel {
            if let Some(cycle) = algebraic_loop::find(&components, &connections) {
                return Err(source.error_in_file(format!(
                    "algebraic loop: {} (each input reaches the next output directly, per the \
                     ModelStructure; the gauss-seidel schedule cannot order it: use jacobi or \
                     break the loop)",
                    algebraic_loop::describe(&cycle, &components)
                )));
            }
        }
        let recorded = recorded(&file, &components, &source)?;
        let energy = EnergySetup::check(
            &file.bonds,
            file.energy.as_ref(),
            &components,
            &connections,
            &schedule,
            &|span, message| source.error(span, message),
        )?;
        let output_file = file
            .output
            .file
            .as_ref()
            .map(|f| system_folder.join(f.get_ref()));
        Ok(System {
            path: path.to_path_buf(),
            start,
            stop,
            macro_step,
            components,
            connections,
            schedule,
            recorded,
            output_file,
            energy,
        })
    }

    /// The system file's name without extension, for default output names.
    pub fn name(&self) -> String {
        self.path
            .file_stem()
            .map_or_else(|| "system".into(), |s| s.to_string_lossy().into_owned())
    }
}

/// Start, stop and macro step, checked; `stop_time` replaces the file's stop.
// The negated comparisons also reject NaN.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn experiment(
    file: &SystemFile,
    source: &SourceText,
    stop_time: Option<f64>,
) -> Result<(f64, f64, f64)> {
    let experiment = &file.experiment;
    let start = experiment.start.as_ref().map_or(0.0, |s| *s.get_ref());
    let stop = stop_time.unwrap_or(*experiment.stop.get_ref());
    let step = *experiment.step.get_ref();
    if !(stop > start) {
        let message = format!("stop time {stop} must be after the start time {start}");
        return Err(match stop_time {
            Some(_) => Error::InvalidValue {
                item: "--stop-time".into(),
                message,
            },
            None => source.error(experiment.stop.span(), message),
        });
    }
    if !(step > 0.0 && step.is_finite()) {
        return Err(source.error(
            experiment.step.span(),
            format!("the macro step {step} must be positive"),
        ));
    }
    Ok((start, stop, step))
}

/// Component names: present, unique and free of dots (`a.b.c` splits at the first dot).
fn check_names(file: &SystemFile, source: &SourceText) -> Result<()> {
    if file.components.is_empty() {
        return Err(source.error_in_file("the system has no [[component]]"));
    }
    let mut seen = HashSet::new();
    for entry in &file.components {
        let name = entry.name.get_ref();
        if name.is_empty() || name.contains('.') || name.trim() != name {
            return Err(source.error(
                entry.name.span(),
                format!("component name \"{name}\" must be non-empty, without dots or surrounding spaces"),
            ));
        }
        if !seen.insert(name) {
            return Err(source.error(
                entry.name.span(),
                format!("component name \"{name}\" is used twice"),
            ));
        }
    }
    Ok(())
}

/// The schedule: kind, stepping order and extrapolation.
fn schedule(file: &SystemFile, components: &[Component], source: &SourceText) -> Result<Schedule> {
    let entry = &file.schedule;
    let order = match (&entry.order, entry.kind) {
        (None, _) => (0..components.len()).collect(),
        (Some(order), ScheduleKind::Jacobi) => {
            return Err(source.error(
                order.span(),
                "schedule.order applies to the gauss-seidel schedule only (jacobi steps every component at once)",
            ))
        }
        (Some(order), ScheduleKind::GaussSeidel) => {
            let mut indices = Vec::new();
            for name in order.get_ref() {
                let index = components
                    .iter()
                    .position(|c| &c.name == name.get_ref())
                    .ok_or_else(|| {
                        source.error(
                            name.span(),
                            format!("schedule.order: unknown component \"{}\"", name.get_ref()),
                        )
                    })?;
                if indices.contains(&index) {
                    return Err(source.error(
                        name.span(),
                        format!("schedule.order: component {} is listed twice", name.get_ref()),
                    ));
                }
                indices.push(index);
            }
            if let Some(missing) = (0..components.len()).find(|i| !indices.contains(i)) {
                return Err(source.error(
                    order.span(),
                    format!(
                        "schedule.order: component {} is missing (the order lists every component once)",
                        components[missing].name
                    ),
                ));
            }
            indices
        }
    };
    Ok(Schedule {
        kind: entry.kind,
        order,
        extrapolation: entry.extrapolation,
    })
}

/// The recorded variables: the listed ones, or every output of every component.
fn recorded(file: &SystemFile, components: &[Component], source: &SourceText) -> Result<Vec<Port>> {
    let Some(names) = &file.output.variables else {
        return Ok(components
            .iter()
            .enumerate()
            .flat_map(|(component, c)| {
                c.fmu
                    .model_description()
                    .variables
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.causality == Causality::Output && recordable(v))
                    .map(move |(variable, _)| Port {
                        component,
                        variable,
                    })
            })
            .collect());
    };
    names
        .iter()
        .map(|name| {
            let error =
                |message: String| source.error(name.span(), format!("output.variables: {message}"));
            let port = port::resolve(name.get_ref(), components).map_err(error)?;
            let variable = port.variable(components);
            if !recordable(variable) {
                return Err(error(format!(
                    "{} is a {} {}; only scalar numbers and booleans can be recorded",
                    name.get_ref(),
                    variable.ty,
                    if variable.is_scalar() {
                        "variable"
                    } else {
                        "array"
                    }
                )));
            }
            Ok(port)
        })
        .collect()
}

/// Scalar numbers and booleans, which the result file can hold.
fn recordable(variable: &Variable) -> bool {
    variable.is_scalar() && (variable.ty.is_numeric() || variable.ty == VariableType::Boolean)
}
