//! modelDescription.xml for FMI 2.0 and FMI 3.0, generated from a model's [`Declaration`]
//! through its [`VariableTable`] (the value references the C ABI serves) and its equations
//! (the dependency structure).
//!
//! Each description declares Model Exchange and Co-Simulation in one file, with the
//! capability flags of [`crate::capabilities`]. The adjoint extension's manifest
//! ([`adjoint_manifest`]) is written from the same variable table.

pub mod adjoint_manifest;
mod fmi2;
mod fmi3;
pub mod structure;
pub mod units;

pub use adjoint_manifest::adjoint_manifest;
pub use fmi2::fmi2;
pub use fmi3::fmi3;

use std::io;

use quick_xml::events::{BytesDecl, Event};
use quick_xml::Writer;

use crate::capabilities::LOG_CATEGORIES;
use crate::declaration::{Declaration, Experiment};
use crate::system::System;
use crate::variables::{
    Causality, Initial, ModelVariable, Role, ValueReference, VarType, Variability, VariableTable,
};
use structure::{ModelStructure, Unknown, Version};

/// The XML writer both generators write into.
type Xml = Writer<Vec<u8>>;

/// What differs between the FMI 2.0 and FMI 3.0 model descriptions; [`describe`] writes the
/// rest, in the order both schemas share.
trait Schema {
    /// The `fmiVersion` attribute.
    const FMI_VERSION: &'static str;
    /// The dependency structure the version declares.
    const STRUCTURE: Version;
    /// How other elements refer to the variable at entry `vr` of `table`.
    fn reference(table: &VariableTable, vr: ValueReference) -> u32;
    /// The root element's attributes of this version (the instantiation token ...).
    fn root(root: Element, decl: &Declaration) -> Element;
    /// `<ModelExchange>` and `<CoSimulation>`.
    fn interfaces(w: &mut Xml, model_identifier: &str) -> io::Result<()>;
    /// The variable at entry `v` of `table` in `<ModelVariables>` (nothing where the version
    /// declares it as part of another); `reinit` tells whether the model has events.
    fn variable(
        w: &mut Xml,
        table: &VariableTable,
        v: &ModelVariable,
        reinit: bool,
    ) -> io::Result<()>;
    /// `<ModelStructure>`.
    fn model_structure(w: &mut Xml, table: &VariableTable, s: &ModelStructure) -> io::Result<()>;
}

/// The complete model description of `sys` in schema `V`, for Model Exchange and
/// Co-Simulation, whose binary is `<model_identifier>.so/.dll/.dylib`.
fn describe<V: Schema, S: System>(sys: &S, model_identifier: &str) -> String {
    let decl = sys.declaration();
    let table = VariableTable::new(decl);
    let structure = ModelStructure::new(sys, &table, V::STRUCTURE);
    let reinit = has_events(sys);
    document(V::root(root(decl, V::FMI_VERSION), decl), |w| {
        V::interfaces(w, model_identifier)?;
        unit_definitions(w, &table)?;
        log_categories(w)?;
        default_experiment(w, &decl.experiment)?;
        Element::new("ModelVariables").with_children(w, |w| {
            table
                .iter()
                .try_for_each(|v| V::variable(w, &table, v, reinit))
        })?;
        V::model_structure(w, &table, &structure)
    })
}

/// One XML element with its attributes in writing order.
struct Element {
    name: &'static str,
    attributes: Vec<(&'static str, String)>,
}

impl Element {
    fn new(name: &'static str) -> Self {
        Element {
            name,
            attributes: Vec::new(),
        }
    }

    /// Adds an attribute; the writer escapes the value.
    fn attr(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.attributes.push((key, value.into()));
        self
    }

    /// Adds an attribute if there is a value.
    fn opt_attr(self, key: &'static str, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(value) => self.attr(key, value),
            None => self,
        }
    }

    /// Adds a boolean attribute.
    fn flag(self, key: &'static str, value: bool) -> Self {
        self.attr(key, if value { "true" } else { "false" })
    }

    fn empty(self, w: &mut Xml) -> io::Result<()> {
        let attributes = self.attributes.iter().map(|(k, v)| (*k, v.as_str()));
        w.create_element(self.name)
            .with_attributes(attributes)
            .write_empty()?;
        Ok(())
    }

    fn with_children(
        self,
        w: &mut Xml,
        children: impl FnOnce(&mut Xml) -> io::Result<()>,
    ) -> io::Result<()> {
        let attributes = self.attributes.iter().map(|(k, v)| (*k, v.as_str()));
        w.create_element(self.name)
            .with_attributes(attributes)
            .write_inner_content(children)?;
        Ok(())
    }
}

/// Writes a UTF-8 XML document with root element `root`.
fn document(root: Element, body: impl FnOnce(&mut Xml) -> io::Result<()>) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
        .and_then(|()| root.with_children(&mut w, body))
        .expect("writing XML into memory cannot fail");
    let mut text = String::from_utf8(w.into_inner()).expect("the XML writer writes UTF-8");
    text.push('\n');
    text
}

/// The root element's attributes shared by both versions (the caller adds the token).
fn root(decl: &Declaration, fmi_version: &str) -> Element {
    Element::new("fmiModelDescription")
        .attr("fmiVersion", fmi_version)
        .attr("modelName", decl.model_name.as_str())
        .opt_attr("description", non_empty(&decl.description))
        .attr(
            "generationTool",
            concat!("Tandem fmu-export ", env!("CARGO_PKG_VERSION")),
        )
        .attr("variableNamingConvention", "structured")
}

/// `<UnitDefinitions>` with every unit a variable uses, in order of first use, with SI base
/// units where the unit string is understood.
fn unit_definitions(w: &mut Xml, table: &VariableTable) -> io::Result<()> {
    let mut used: Vec<&str> = Vec::new();
    for unit in table.iter().filter_map(|v| v.var.unit.as_deref()) {
        if !used.contains(&unit) {
            used.push(unit);
        }
    }
    if used.is_empty() {
        return Ok(());
    }
    Element::new("UnitDefinitions").with_children(w, |w| {
        for unit in used {
            let element = Element::new("Unit").attr("name", unit);
            match units::base_unit(unit) {
                Some(base) => element.with_children(w, |w| {
                    let mut b = Element::new("BaseUnit");
                    for (name, &exponent) in units::EXPONENT_NAMES.iter().zip(&base.exponents) {
                        if exponent != 0 {
                            b = b.attr(name, exponent.to_string());
                        }
                    }
                    if base.factor != 1.0 {
                        b = b.attr("factor", real(base.factor));
                    }
                    b.empty(w)
                })?,
                None => element.empty(w)?,
            }
        }
        Ok(())
    })
}

/// `<LogCategories>` from [`LOG_CATEGORIES`].
fn log_categories(w: &mut Xml) -> io::Result<()> {
    Element::new("LogCategories").with_children(w, |w| {
        for (name, description) in LOG_CATEGORIES {
            Element::new("Category")
                .attr("name", *name)
                .attr("description", *description)
                .empty(w)?;
        }
        Ok(())
    })
}

/// `<DefaultExperiment>`.
fn default_experiment(w: &mut Xml, e: &Experiment) -> io::Result<()> {
    Element::new("DefaultExperiment")
        .attr("startTime", real(e.start))
        .attr("stopTime", real(e.stop))
        .attr("tolerance", real(e.tolerance))
        .attr("stepSize", real(e.step))
        .empty(w)
}

/// The attributes that name and classify a variable (the same in both versions): `name` (the
/// variable's own, or its array's), then those of `v`.
fn variable_attributes(element: Element, name: &str, v: &ModelVariable) -> Element {
    element
        .attr("name", name)
        .attr("valueReference", v.vr.to_string())
        .opt_attr("description", non_empty(&v.var.description))
        .attr("causality", causality(v.causality))
        .attr("variability", variability(v.variability))
        .opt_attr("initial", v.initial.map(initial))
}

/// The attributes both versions give a variable's value: unit, nominal, bounds and start, each
/// formatted for the variable's type, then the state it is the derivative of and, for a state
/// of a model with events (`reinit`), that events may reinitialize it.
fn value_attributes<V: Schema>(
    element: Element,
    table: &VariableTable,
    v: &ModelVariable,
    reinit: bool,
) -> Element {
    let element = bounds(element, v).opt_attr("start", start(v)).opt_attr(
        "derivative",
        v.derivative_of
            .map(|state| V::reference(table, state).to_string()),
    );
    if reinit && matches!(v.role, Role::State(_)) {
        element.flag("reinit", true)
    } else {
        element
    }
}

/// Unit, nominal and bounds, each formatted for the variable's type.
fn bounds(element: Element, v: &ModelVariable) -> Element {
    let format = |x: f64| value(v, x);
    let element = match v.ty {
        VarType::Real => element
            .opt_attr("unit", v.var.unit.clone())
            .opt_attr("nominal", v.var.nominal.map(real)),
        VarType::Integer | VarType::Boolean | VarType::String => element,
    };
    match v.ty {
        VarType::Real | VarType::Integer => element
            .opt_attr("min", v.var.min.map(format))
            .opt_attr("max", v.var.max.map(format)),
        VarType::Boolean | VarType::String => element,
    }
}

/// The start value of `v` as written in the model description, if it has one.
fn start(v: &ModelVariable) -> Option<String> {
    if !v.has_start() {
        None
    } else if v.ty == VarType::String {
        v.text_start.clone()
    } else {
        Some(value(v, v.var.start))
    }
}

/// `x` written as a value of `v`'s type.
fn value(v: &ModelVariable, x: f64) -> String {
    match v.ty {
        VarType::Real => real(x),
        VarType::Integer => {
            assert!(
                x.fract() == 0.0 && x.abs() <= f64::from(i32::MAX),
                "integer variable {}: {x} is not a 32-bit integer",
                v.var.name
            );
            format!("{}", x as i32)
        }
        VarType::Boolean => (x != 0.0).to_string(),
        VarType::String => unreachable!("String variables have no numeric values"),
    }
}

/// An `xs:double` literal that reads back to exactly `x` (shortest round-trip form).
fn real(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "INF" } else { "-INF" }.to_owned()
    } else if x == 0.0 || (1e-3..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// The FMI causality keyword (the same in both versions).
fn causality(c: Causality) -> &'static str {
    match c {
        Causality::Independent => "independent",
        Causality::Parameter => "parameter",
        Causality::Input => "input",
        Causality::Output => "output",
        Causality::Local => "local",
    }
}

/// The FMI variability keyword (the same in both versions).
fn variability(v: Variability) -> &'static str {
    match v {
        Variability::Fixed => "fixed",
        Variability::Tunable => "tunable",
        Variability::Discrete => "discrete",
        Variability::Continuous => "continuous",
    }
}

/// The FMI initial keyword (the same in both versions).
fn initial(i: Initial) -> &'static str {
    match i {
        Initial::Exact => "exact",
        Initial::Approx => "approx",
        Initial::Calculated => "calculated",
    }
}

/// One unknown of `<ModelStructure>`: the element `name` that refers to the unknown with the
/// attribute `key`, and to its dependencies (the elements of an array a version declares as
/// one variable are one dependency).
fn unknown<V: Schema>(
    w: &mut Xml,
    table: &VariableTable,
    name: &'static str,
    key: &'static str,
    u: &Unknown,
) -> io::Result<()> {
    let dependencies = u.dependencies.as_ref().map(|d| {
        let mut references: Vec<u32> = d.iter().map(|&vr| V::reference(table, vr)).collect();
        // Ascending entries stay ascending, and an array's elements are consecutive entries.
        references.dedup();
        number_list(references)
    });
    Element::new(name)
        .attr(key, V::reference(table, u.vr).to_string())
        .opt_attr("dependencies", dependencies)
        .empty(w)
}

/// Whether the FMU may reinitialize states at events (the `reinit` attribute): when the model
/// has event indicators or announces a time event from its start point.
fn has_events<S: System>(sys: &S) -> bool {
    let decl = sys.declaration();
    decl.event_indicators > 0
        || sys
            .next_time_event(
                decl.experiment.start,
                &decl.parameter_starts(),
                &decl.discrete_starts(),
            )
            .is_some()
}

fn non_empty(text: &str) -> Option<&str> {
    (!text.is_empty()).then_some(text)
}

/// Space-separated list of numbers, as `dependencies` attributes want them.
fn number_list(values: impl IntoIterator<Item = u32>) -> String {
    values
        .into_iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_round_trip_and_use_exponents_only_when_needed() {
        for x in [
            0.01,
            400.0,
            1e-8,
            -2.5e20,
            1.0 / 3.0,
            123456.789,
            f64::MIN_POSITIVE,
        ] {
            assert_eq!(real(x).parse::<f64>().unwrap(), x, "{}", real(x));
        }
        assert_eq!(real(400.0), "400");
        assert_eq!(real(0.01), "0.01");
        assert_eq!(real(1e-8), "1e-8");
        assert_eq!(real(-0.0), "-0");
        assert_eq!(real(f64::NEG_INFINITY), "-INF");
    }
}
