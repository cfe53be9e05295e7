//! The TOML system file: its schema, read with serde keeping the position of every item, and
//! its translation into a [`SystemDescription`]. Commands that keep tables of their own in the
//! file read them themselves; the reader is told their names, to accept them unread.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use toml::Spanned;

use super::description::{
    BondDescription, ComponentDescription, ConnectionDescription, Located, Location,
    ScheduleDescription, SystemDescription, ValueDescription, ValueKind,
};
use super::energy_setup::{EnergyEntry, EnergySettings};
use super::transform::Transform;
use crate::coupling::{AdaptiveSettings, Extrapolation, ImplicitSettings, ScheduleKind, Threads};
use crate::error::{Error, Result};
use fmi_host::model_description::InterfaceType;
use tandem_ode::solver::Method;

/// A system file as written (read by [`SystemFileSeed`]).
#[derive(Debug)]
struct SystemFile {
    /// Short-form connections, `"a.y -> b.u"` (a top-level key: it must come before the first table).
    connections: Vec<Spanned<String>>,
    experiment: ExperimentEntry,
    components: Vec<ComponentEntry>,
    connection_tables: Vec<ConnectionEntry>,
    schedule: ScheduleEntry,
    output: OutputEntry,
    /// `[[bond]]`: power bonds between components.
    bonds: Vec<BondEntry>,
    /// `[energy]`: energy monitoring and correction.
    energy: Option<Spanned<EnergyEntry>>,
}

/// The top-level keys of [`SystemFile`], in the order serde's derive would list them.
const FIELDS: &[&str] = &[
    "connections",
    "experiment",
    "component",
    "connection",
    "schedule",
    "output",
    "bond",
    "energy",
];

/// Reads a [`SystemFile`] as `#[derive(Deserialize)]` with `deny_unknown_fields` would, except
/// that the top-level tables `sections` of other commands are accepted unread. An unknown key
/// gets serde's own message, listing these sections after the system's keys. The derive cannot
/// do this: its list of keys is fixed where the type is written.
struct SystemFileSeed<'s> {
    sections: &'s [&'static str],
}

/// A top-level key of the system file.
enum Key {
    Connections,
    Experiment,
    Components,
    ConnectionTables,
    Schedule,
    Output,
    Bonds,
    Energy,
    /// A table of another command.
    Section,
}

impl<'de> DeserializeSeed<'de> for SystemFileSeed<'_> {
    type Value = SystemFile;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<SystemFile, D::Error> {
        deserializer.deserialize_struct("SystemFile", FIELDS, self)
    }
}

impl<'de> Visitor<'de> for SystemFileSeed<'_> {
    type Value = SystemFile;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("struct SystemFile")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SystemFile, A::Error> {
        let (mut connections, mut experiment, mut components, mut connection_tables) =
            (None, None, None, None);
        let (mut schedule, mut output, mut bonds, mut energy) = (None, None, None, None);
        let key = KeySeed {
            sections: self.sections,
        };
        while let Some(found) = map.next_key_seed(key)? {
            match found {
                Key::Connections => once(&mut map, &mut connections, "connections")?,
                Key::Experiment => once(&mut map, &mut experiment, "experiment")?,
                Key::Components => once(&mut map, &mut components, "component")?,
                Key::ConnectionTables => once(&mut map, &mut connection_tables, "connection")?,
                Key::Schedule => once(&mut map, &mut schedule, "schedule")?,
                Key::Output => once(&mut map, &mut output, "output")?,
                Key::Bonds => once(&mut map, &mut bonds, "bond")?,
                Key::Energy => once(&mut map, &mut energy, "energy")?,
                Key::Section => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(SystemFile {
            connections: connections.unwrap_or_default(),
            experiment: experiment.ok_or_else(|| de::Error::missing_field("experiment"))?,
            components: components.unwrap_or_default(),
            connection_tables: connection_tables.unwrap_or_default(),
            schedule: schedule.unwrap_or_default(),
            output: output.unwrap_or_default(),
            bonds: bonds.unwrap_or_default(),
            energy: energy.flatten(),
        })
    }
}

/// Reads the value of the key just read into `slot`, refusing a second one as the derive does.
fn once<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Reads a top-level key; an unknown one fails here, so that the error points at the key.
#[derive(Clone, Copy)]
struct KeySeed<'s> {
    sections: &'s [&'static str],
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        Ok(match key {
            "connections" => Key::Connections,
            "experiment" => Key::Experiment,
            "component" => Key::Components,
            "connection" => Key::ConnectionTables,
            "schedule" => Key::Schedule,
            "output" => Key::Output,
            "bond" => Key::Bonds,
            "energy" => Key::Energy,
            _ if self.sections.contains(&key) => Key::Section,
            _ => {
                // serde wants the names for `'static`; leaked once, as reading stops here.
                let expected: Vec<&'static str> =
                    FIELDS.iter().chain(self.sections).copied().collect();
                return Err(E::unknown_field(
                    key,
                    Box::leak(expected.into_boxed_slice()),
                ));
            }
        })
    }
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
    implicit: Option<Spanned<ImplicitEntry>>,
    adaptive: Option<Spanned<AdaptiveSettings>>,
}

/// `implicit = true`, `false`, or a table of [`ImplicitSettings`].
#[derive(Debug, PartialEq)]
struct ImplicitEntry(Option<ImplicitSettings>);

impl<'de> Deserialize<'de> for ImplicitEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = ImplicitEntry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true, false or a table { jacobian, tolerance, max-iterations }")
            }
            fn visit_bool<E: de::Error>(self, on: bool) -> std::result::Result<ImplicitEntry, E> {
                Ok(ImplicitEntry(on.then(ImplicitSettings::default)))
            }
            fn visit_map<M: MapAccess<'de>>(
                self,
                map: M,
            ) -> std::result::Result<ImplicitEntry, M::Error> {
                let settings =
                    ImplicitSettings::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(ImplicitEntry(Some(settings)))
            }
        }
        deserializer.deserialize_any(EntryVisitor)
    }
}

/// `[output]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputEntry {
    file: Option<Spanned<String>>,
    variables: Option<Vec<Spanned<String>>>,
    interval: Option<Spanned<f64>>,
}

/// Reads the TOML system file `path`, which may hold the top-level tables `sections` of other
/// commands; syntax and schema errors give the line and column.
pub fn read(path: &Path, sections: &[&'static str]) -> Result<SystemDescription> {
    let text = tandem_files::read_text(path).map_err(|e| Error::io(path, e))?;
    let lines = Lines::new(&text);
    let parsed = toml::Deserializer::parse(&text)
        .and_then(|document| SystemFileSeed { sections }.deserialize(document));
    let file: SystemFile = parsed.map_err(|e| {
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
            implicit: file.schedule.implicit.as_ref().and_then(|entry| {
                let at = lines.at(entry.span());
                entry.get_ref().0.map(|settings| Located::new(settings, at))
            }),
            adaptive: file
                .schedule
                .adaptive
                .as_ref()
                .map(|entry| lines.located(entry)),
        },
        recorded: file
            .output
            .variables
            .as_ref()
            .map(|names| names.iter().map(|name| lines.located(name)).collect()),
        output_file: file.output.file.as_ref().map(|f| f.get_ref().clone()),
        output_interval: file.output.interval.as_ref().map(|i| lines.located(i)),
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
                "se" => InterfaceType::ScheduledExecution,
                other => {
                    return Err(error(
                        written.span(),
                        format!("interface \"{other}\": expected \"cs\" (Co-Simulation), \"me\" (Model Exchange) or \"se\" (Scheduled Execution)"),
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
pub struct Lines<'a> {
    text: &'a str,
    /// The byte offset of each line's start: a position is found by bisection, where counting
    /// the line breaks before it would cost a file of a thousand components the square.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    /// The lines of `text`.
    pub fn new(text: &'a str) -> Self {
        let breaks = text.match_indices('\n').map(|(at, _)| at + 1);
        Lines {
            text,
            starts: std::iter::once(0).chain(breaks).collect(),
        }
    }

    /// The 1-based line and column of byte `offset`.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&start| start <= offset);
        let column = self.text[self.starts[line - 1]..offset].chars().count() + 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The system file as `#[derive(Deserialize)]` reads it, with the sections of other
    /// commands as fields: the messages the reader must keep.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Derived {
        connections: Option<IgnoredAny>,
        experiment: IgnoredAny,
        component: Option<IgnoredAny>,
        connection: Option<IgnoredAny>,
        schedule: Option<IgnoredAny>,
        output: Option<IgnoredAny>,
        bond: Option<IgnoredAny>,
        energy: Option<IgnoredAny>,
        gradient: Option<IgnoredAny>,
        identify: Option<IgnoredAny>,
        experiments: Option<IgnoredAny>,
    }

    const SECTIONS: &[&str] = &["gradient", "identify", "experiments"];

    fn read(text: &str) -> std::result::Result<SystemFile, toml::de::Error> {
        toml::Deserializer::parse(text)
            .and_then(|document| SystemFileSeed { sections: SECTIONS }.deserialize(document))
    }

    #[test]
    fn the_sections_of_other_commands_are_accepted_unread() {
        let file = read(
            "[experiment]\nstop = 1.0\nstep = 0.1\n[gradient]\nparameters = [\"a.k\"]\n\
             [[experiments]]\ndata = \"m.csv\"\n[identify]\nmax-iterations = 3\n",
        )
        .unwrap();
        assert_eq!(*file.experiment.stop.get_ref(), 1.0);
    }

    #[test]
    fn unknown_and_missing_keys_fail_as_with_the_derive() {
        for text in [
            "stepp = 1\n[experiment]\nstop = 1.0\nstep = 0.1\n",
            "[experiment]\nstop = 1.0\nstep = 0.1\n[gradients]\nparameters = []\n",
            "[schedule]\nkind = \"jacobi\"\n",
        ] {
            let ours = read(text).unwrap_err();
            let derived = toml::from_str::<Derived>(text).unwrap_err();
            assert_eq!(ours.message(), derived.message(), "{text}");
            assert_eq!(ours.span(), derived.span(), "{text}");
        }
    }

    #[test]
    fn implicit_coupling_is_a_switch_or_a_table_of_settings() {
        let implicit = |value: &str| {
            read(&format!(
                "[experiment]\nstop = 1.0\nstep = 0.1\n[schedule]\nimplicit = {value}\n"
            ))
            .map(|file| file.schedule.implicit.map(|entry| entry.into_inner().0))
            .map_err(|e| e.message().to_string())
        };
        assert_eq!(implicit("false"), Ok(Some(None)));
        assert_eq!(
            implicit("true"),
            Ok(Some(Some(ImplicitSettings::default())))
        );
        let table =
            implicit("{ jacobian = \"broyden\", max-iterations = 5, waveform = \"hermite\" }");
        let expected = ImplicitSettings {
            jacobian: crate::coupling::InterfaceJacobian::Broyden,
            max_iterations: 5,
            waveform: crate::coupling::Waveform::Hermite,
            ..ImplicitSettings::default()
        };
        assert_eq!(table, Ok(Some(Some(expected))));
        assert!(implicit("3")
            .unwrap_err()
            .contains("true, false or a table"));
        let misspelt = implicit("{ tolerence = 1e-8 }").unwrap_err();
        assert!(misspelt.contains("unknown field `tolerence`"), "{misspelt}");
    }
}
