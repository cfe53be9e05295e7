//! A system as written, in any format (TOML system file, SSP/SSD): what each reader produces and
//! the one checking path turns into a [`System`](super::System). Every item keeps where it was
//! written, so that the checks against the FMUs can point back into the file.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::coupling::{AdaptiveSettings, Extrapolation, ImplicitSettings, ScheduleKind, Threads};
use crate::error::Error;
use fmi_host::model_description::InterfaceType;
use tandem_ode::solver::Method;

use super::energy_setup::EnergySettings;
use super::transform::{Transform, ValueMap};

/// Where an item was written: the line and, in XML files, the element (and the file inside a
/// package or a referenced parameter file, when it is not the system file itself).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// The file holding the item, relative to the system file or package; `None` for the
    /// system file itself.
    pub file: Option<String>,
    /// 1-based line.
    pub line: usize,
    /// The XML element, as written (`ssd:Connection`).
    pub element: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}, ")?;
        }
        write!(f, "line {}", self.line)?;
        if let Some(element) = &self.element {
            write!(f, ", <{element}>")?;
        }
        Ok(())
    }
}

impl Location {
    /// An error at this location in the files of the system `path`.
    pub fn error(&self, path: &Path, message: impl fmt::Display) -> Error {
        Error::InputFile {
            path: path.to_path_buf(),
            message: format!("{self}: {message}"),
        }
    }
}

/// A value and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub at: Location,
}

impl<T> Located<T> {
    /// `value` written at `at`.
    pub fn new(value: T, at: Location) -> Self {
        Located { value, at }
    }
}

/// A system as written, before any check against the FMUs.
#[derive(Debug, Clone)]
pub struct SystemDescription {
    /// The file given to `tandem run` (a TOML file, an `.ssd` or an `.ssp` package).
    pub path: PathBuf,
    /// The folder component sources are relative to (inside an unpacked package for `.ssp`).
    pub folder: PathBuf,
    /// Whether the components come from an unpacked package (for messages about missing files).
    pub packaged: bool,
    /// Start time (default 0).
    pub start: Option<Located<f64>>,
    /// Stop time (required unless `--stop-time` is given).
    pub stop: Option<Located<f64>>,
    /// Macro step H (default: see [`super::System::load`]).
    pub step: Option<Located<f64>>,
    /// The components, in file order.
    pub components: Vec<ComponentDescription>,
    /// The connections, in file order.
    pub connections: Vec<ConnectionDescription>,
    /// Connections joined through the connectors of (nested) systems (SSP).
    pub nets: Vec<NetDescription>,
    /// The schedule.
    pub schedule: ScheduleDescription,
    /// Recorded variables as `component.variable` (default: every output of every component).
    pub recorded: Option<Vec<Located<String>>>,
    /// Result file, relative to the system file's folder.
    pub output_file: Option<String>,
    /// The interval of the result rows (default: a row per macro point).
    pub output_interval: Option<Located<f64>>,
    /// Power bonds, in file order.
    pub bonds: Vec<BondDescription>,
    /// The energy settings (TOML `[energy]`), when given.
    pub energy: Option<Located<EnergySettings>>,
    /// Where messages about the whole system point (`None`: at the file as a whole).
    pub at: Option<Location>,
    /// Values the reader ignored because they name nothing in the system (SSP parameter sets
    /// may carry more than the system uses), each located where it was written.
    pub ignored: Vec<Located<String>>,
}

impl SystemDescription {
    /// An error at `at` in this system's files.
    pub fn error(&self, at: &Location, message: impl fmt::Display) -> Error {
        at.error(&self.path, message)
    }

    /// An error about the system as a whole.
    pub fn error_in_system(&self, message: impl fmt::Display) -> Error {
        match &self.at {
            Some(at) => self.error(at, message),
            None => Error::InputFile {
                path: self.path.clone(),
                message: message.to_string(),
            },
        }
    }
}

/// One component: an FMU instance with its settings.
#[derive(Debug, Clone)]
pub struct ComponentDescription {
    /// Instance name.
    pub name: Located<String>,
    /// The FMU file as written, relative to [`SystemDescription::folder`].
    pub fmu: Located<String>,
    /// The interface to use (default: Co-Simulation when the FMU has it, else Model Exchange,
    /// else Scheduled Execution).
    pub interface: Option<Located<InterfaceType>>,
    /// The component's own step, the macro step divided by a whole number (Co-Simulation).
    pub step: Option<Located<f64>>,
    /// Relative tolerance of the master's integrator (Model Exchange).
    pub tolerance: Option<Located<f64>>,
    /// The master's integrator (Model Exchange; default: auto).
    pub solver: Option<Located<Method>>,
    /// The component's own input extrapolation (default: the schedule's).
    pub extrapolation: Option<Extrapolation>,
    /// Parameter and start values, set before initialization; at most one per variable.
    pub values: Vec<ValueDescription>,
}

/// Which variables a value may be given for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// Parameters only (TOML `[component.parameters]`).
    Parameter,
    /// Variables other than parameters (TOML `[component.start]`).
    Start,
    /// Any settable variable (SSP parameter sets).
    Any,
}

/// The unit a value is written in.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueUnit {
    /// Its name.
    pub name: String,
    /// The units the value's file declares, when this is none of them (SSP). OMSimulator
    /// passes such a value unconverted, and so does Tandem, with a warning; a declared unit is
    /// checked against the variable's.
    pub undeclared_among: Option<Vec<String>>,
}

/// A parameter or start value as written.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueDescription {
    /// Variable name.
    pub name: String,
    /// The value as text, parsed against the variable's type once the FMU is open.
    pub text: String,
    /// Which variables it may be given for.
    pub kind: ValueKind,
    /// The unit the value is given in, which must be the variable's (no conversion is made)
    /// unless its file does not declare it.
    pub unit: Option<ValueUnit>,
    /// Where it was written.
    pub at: Location,
}

/// A connection as written: `from` and `to` as `component.variable`.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionDescription {
    /// `component.variable` of one end.
    pub from: String,
    /// `component.variable` of the other end.
    pub to: String,
    /// Whether `from` must be the output; otherwise the causalities decide the direction
    /// (SSP: start and end do not imply the direction of the data flow).
    pub directed: bool,
    /// The map written on the connection (SSP `ssc:LinearTransformation`, TOML
    /// `factor`/`offset`), from the output's value to the input's.
    pub transform: Option<Transform>,
    /// The value map written on the connection (SSP boolean and integer mappings).
    pub mapping: Option<ValueMap>,
    /// Whether values are converted between the ends' units (SSP `suppressUnitConversion`
    /// turns it off).
    pub convert_units: bool,
    /// Where it was written.
    pub at: Location,
}

/// Component connectors joined through the connectors of (nested) systems: the one output
/// among them, if any, feeds every other end; without an output the ends are driven from
/// outside the system and keep their start values.
#[derive(Debug, Clone, PartialEq)]
pub struct NetDescription {
    /// The component ends, `component.variable`.
    pub ends: Vec<String>,
    /// The system connectors joining them, `system.connector` (top level: `connector`).
    pub via: Vec<String>,
    /// Where the first connection of the net was written.
    pub at: Location,
}

/// The schedule as written.
#[derive(Debug, Clone, Default)]
pub struct ScheduleDescription {
    /// Jacobi (default) or Gauss-Seidel.
    pub kind: ScheduleKind,
    /// Gauss-Seidel stepping order (default: component order).
    pub order: Option<Located<Vec<Located<String>>>>,
    /// Input extrapolation (default ZOH).
    pub extrapolation: Extrapolation,
    /// Threads of a Jacobi macro step (default auto).
    pub threads: Threads,
    /// Implicit coupling (default: explicit), where it was written.
    pub implicit: Option<Located<ImplicitSettings>>,
    /// Adaptive macro steps (default: the fixed macro step), where they were written.
    pub adaptive: Option<Located<AdaptiveSettings>>,
}

/// A power bond as written: effort outputs of one component and flow outputs of another, as
/// `component.variable`, paired in order (one of each for a scalar bond).
#[derive(Debug, Clone, PartialEq)]
pub struct BondDescription {
    /// The effort outputs (force, torque, pressure...).
    pub effort: Vec<String>,
    /// The flow outputs (velocity, angular velocity, volume flow...).
    pub flow: Vec<String>,
    /// Where it was written.
    pub at: Location,
}
