//! The TOML system file: its schema, read with serde keeping the position of every item, and
//! its translation into a [`SystemDescription`].

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::description::{
    BondDescription, ComponentDescription, ConnectionDescription, Located, Location,
    ScheduleDescription, SystemDescription, ValueDescription, ValueKind,
};
use super::energy_setup::{EnergyEntry, EnergySettings};
use super::transform::Transform;
use crate::coupling::{Extrapolation, ScheduleKind, Threads};
use crate::error::{Error, Result};
use crate::model_description::InterfaceType;
use crate::solver::Method;

/// A system file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SystemFile {
    /// Short-form connections, `"a.y -> b.u"` (a top-level key: it must come before the first table).
    #[serde(default)]
    connections: Vec<Spanned<String>>,
    experiment: ExperimentEntry,
    #[serde(default, rename = "component")]
    components: Vec<ComponentEntry>,
    #[serde(default, rename = "connection")]
    connection_tables: Vec<ConnectionEntry>,
    #[serde(default)]
    schedule: ScheduleEntry,
    #[serde(default)]
    output: OutputEntry,
    /// `[[bond]]`: power bonds between components.
    #[serde(default, rename = "bond")]
    bonds: Vec<BondEntry>,
    /// `[energy]`: energy monitoring and correction.
    energy: Option<Spanned<EnergyEntry>>,
    /// `[gradient]`: read by `tandem gradient` (see the gradient module), not by the system.
    #[allow(dead_code)]
    gradient: Option<toml::Value>,
    /// `[identify]`: read by `tandem identify` (see the identify module), not by the system.
    #[allow(dead_code)]
    identify: Option<toml::Value>,
    /// `[[experiments]]`: read by `tandem identify` and `tandem gradient` (see the experiments
    /// module), not by the system.
    #[allow(dead_code)]
    experiments: Option<toml::Value>,
}

/// `[experiment]`: the simulated interval and the macro (communication) step.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExperimentEntry {
    start: Option<Spanned<f64>>,
    stop: Spanned<f64>,
    step: Spanned<f64>,
}

/// One `[[component]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ComponentEntry {
    name: Spanned<String>,
    fmu: Spanned<String>,
    /// `"cs"` or `"me"`.
    interface: Option<Spanned<String>>,
    step: Option<Spanned<f64>>,
    tolerance: Option<Spanned<f64>>,
    /// `"auto"`, `"dopri5"` or `"esdirk"`.
    solver: Option<Spanned<Method>>,
    extrapolation: Option<Extrapolation>,
    #[serde(default)]
    parameters: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default)]
    start: BTreeMap<String, Spanned<toml::Value>>,
}

/// One `[[connection]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConnectionEntry {
    from: Spanned<String>,
    to: Spanned<String>,
    factor: Option<f64>,
    offset: Option<f64>,
}

/// One `[[bond]]`: `effort` and `flow` are `"component.output"` or arrays of them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BondEntry {
    effort: Spanned<toml::Value>,
    flow: Spanned<toml::Value>,
}

/// `[schedule]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScheduleEntry {
    #[serde(default)]
    kind: ScheduleKind,
    order: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    extrapolation: Extrapolation,
    #[serde(default)]
    threads: Threads,
}

/// `[output]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputEntry {
    file: Option<Spanned<String>>,
    variables: Option<Vec<Spanned<String>>>,
}

/// Reads the TOML system file `path`; syntax and schema errors give the line and column.
pub fn read(path: &Path) -> Result<SystemDescription> {
    let text = crate::files::read_text(path).map_err(|e| Error::io(path, e))?;
    let lines = Lines(&text);
    let file: SystemFile = toml::from_str(&text).map_err(|e| {
        let message = e.message().trim_end();
        Error::InputFile {
            path: path.to_path_buf(),
            message: match e.span() {
                Some(span) => {
                    let (line, column) = lines.position(span.start);
                    format!("line {line}, column {column}: {message}")
                }
                None => message.to_string(),
            },
        }
    })?;
    let mut connections: Vec<ConnectionDescription> = file
        .connection_tables
        .iter()
        .map(|c| ConnectionDescription {
            from: c.from.get_ref().clone(),
            to: c.to.get_ref().clone(),
            directed: true,
            transform: (c.factor.is_some() || c.offset.is_some()).then(|| Transform {
                factor: c.factor.unwrap_or(1.0),
                offset: c.offset.unwrap_or(0.0),
            }),
            mapping: None,
            convert_units: true,
            at: lines.at(c.from.span()),
        })
        .collect();
    for short in &file.connections {
        let at = lines.at(short.span());
        let (from, to) = short.get_ref().split_once("->").ok_or_else(|| {
            at.error(
                path,
                format!(
                    "connection \"{}\": expected \"component.output -> component.input\"",
                    short.get_ref()
                ),
            )
        })?;
        connections.push(ConnectionDescription {
            from: from.trim().to_string(),
            to: to.trim().to_string(),
            directed: true,
            transform: None,
            mapping: None,
            convert_units: true,
            at,
        });
    }
    let components = file
        .components
        .iter()
        .map(|entry| component(entry, &lines, path))
        .collect::<Result<Vec<_>>>()?;
    let bonds = file
        .bonds
        .iter()
        .enumerate()
        .map(|(index, entry)| bond(index, entry, &lines, path))
        .collect::<Result<Vec<_>>>()?;
    let energy = match &file.energy {
        None => None,
        Some(entry) => {
            let error = |span: Range<usize>, message: String| lines.at(span).error(path, message);
            let settings = EnergySettings::check(entry.get_ref(), &error)?;
            Some(Located::new(settings, lines.at(entry.span())))
        }
    };
    Ok(SystemDescription {
        path: path.to_path_buf(),
        folder: path.parent().unwrap_or(Path::new("")).to_path_buf(),
        packaged: false,
        start: file.experiment.start.as_ref().map(|v| lines.located(v)),
        stop: Some(lines.located(&file.experiment.stop)),
        step: Some(lines.located(&file.experiment.step)),
        components,
        connections,
        nets: Vec::new(),
        schedule: ScheduleDescription {
            kind: file.schedule.kind,
            order: file.schedule.order.as_ref().map(|order| {
                let names = order
                    .get_ref()
                    .iter()
                    .map(|name| lines.located(name))
                    .collect();
                Located::new(names, lines.at(order.span()))
            }),
            extrapolation: file.schedule.extrapolation,
            threads: file.schedule.threads,
        },
        recorded: file
            .output
            .variables
            .as_ref()
            .map(|names| names.iter().map(|name| lines.located(name)).collect()),
        output_file: file.output.file.as_ref().map(|f| f.get_ref().clone()),
        bonds,
        energy,
        at: None,
        ignored: Vec::new(),
    })
}

/// The description of one `[[component]]`.
fn component(
    entry: &ComponentEntry,
    lines: &Lines<'_>,
    path: &Path,
) -> Result<ComponentDescription> {
    let name = entry.name.get_ref();
    let error = |span: Range<usize>, message: String| {
        lines
            .at(span)
            .error(path, format!("component {name}: {message}"))
    };
    let interface = match &entry.interface {
        None => None,
        Some(written) => {
            let interface = match written.get_ref().as_str() {
                "cs" => InterfaceType::CoSimulation,
                "me" => InterfaceType::ModelExchange,
                other => {
                    return Err(error(
                        written.span(),
                        format!("interface \"{other}\": expected \"cs\" (Co-Simulation) or \"me\" (Model Exchange)"),
                    ))
                }
            };
            Some(Located::new(interface, lines.at(written.span())))
        }
    };
    let mut values = Vec::new();
    for (table, kind, entries) in [
        ("parameters", ValueKind::Parameter, &entry.parameters),
        ("start", ValueKind::Start, &entry.start),
    ] {
        for (variable, value) in entries {
            let text = match value.get_ref() {
                toml::Value::String(text) => text.clone(),
                toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => {
                    value.get_ref().to_string()
                }
                // An array parameter: a list, or a list of rows, of numbers or booleans,
                // passed on as the list text that `--start-value` takes.
                list @ toml::Value::Array(_) if is_plain_list(list) => list.to_string(),
                other => {
                    return Err(error(
                        value.span(),
                        format!(
                            "{table}.{variable}: expected a number, boolean, string or list of \
                             numbers, found a {}",
                            other.type_str()
                        ),
                    ))
                }
            };
            values.push(ValueDescription {
                name: variable.clone(),
                text,
                kind,
                unit: None,
                at: lines.at(value.span()),
            });
        }
    }
    Ok(ComponentDescription {
        name: lines.located(&entry.name),
        fmu: lines.located(&entry.fmu),
        interface,
        step: entry.step.as_ref().map(|v| lines.located(v)),
        tolerance: entry.tolerance.as_ref().map(|v| lines.located(v)),
        solver: entry.solver.as_ref().map(|v| lines.located(v)),
        extrapolation: entry.extrapolation,
        values,
    })
}

/// Whether `value` is a list (of lists ...) of numbers and booleans.
fn is_plain_list(value: &toml::Value) -> bool {
    match value {
        toml::Value::Array(items) => items.iter().all(is_plain_list),
        toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => true,
        _ => false,
    }
}

/// The description of `[[bond]]` number `index` (from 0): the names its keys give.
fn bond(
    index: usize,
    entry: &BondEntry,
    lines: &Lines<'_>,
    path: &Path,
) -> Result<BondDescription> {
    let names = |key: &str, value: &Spanned<toml::Value>| {
        let error = |message: String| {
            lines
                .at(value.span())
                .error(path, format!("bond {}: {key}: {message}", index + 1))
        };
        match value.get_ref() {
            toml::Value::String(name) => Ok(vec![name.clone()]),
            toml::Value::Array(items) if !items.is_empty() => items
                .iter()
                .map(|item| {
                    item.as_str().map(str::to_string).ok_or_else(|| {
                        error(format!(
                            "expected strings \"component.output\", found {item}"
                        ))
                    })
                })
                .collect(),
            other => Err(error(format!(
                "expected \"component.output\" or a non-empty array of them, found {other}"
            ))),
        }
    };
    Ok(BondDescription {
        effort: names("effort", &entry.effort)?,
        flow: names("flow", &entry.flow)?,
        at: lines.at(entry.effort.span()),
    })
}

/// The text of the file, to turn byte positions into lines.
pub(crate) struct Lines<'a>(pub(crate) &'a str);

impl Lines<'_> {
    /// The 1-based line and column of byte `offset`.
    pub(crate) fn position(&self, offset: usize) -> (usize, usize) {
        let before = &self.0[..offset.min(self.0.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    /// `value` with its location.
    fn located<T: Clone>(&self, value: &Spanned<T>) -> Located<T> {
        Located::new(value.get_ref().clone(), self.at(value.span()))
    }

    /// The location of the item spanning `span`.
    fn at(&self, span: Range<usize>) -> Location {
        Location {
            line: self.position(span.start).0,
            ..Location::default()
        }
    }
}
