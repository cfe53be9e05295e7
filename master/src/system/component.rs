//! One `[[component]]`: its FMU opened and checked, its step as a number of sub-steps per
//! macro step, and its parameter and start values checked against the model description.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::Spanned;

use super::file::ComponentEntry;
use super::source::SourceText;
use crate::error::Result;
use crate::model_description::{Causality, Values};
use crate::schedule::Extrapolation;
use crate::simulate::start_values::check_settable;
use crate::simulate::StartValue;
use crate::Fmu;

/// A component of a system, ready to be instantiated.
pub struct Component {
    /// Instance name.
    pub name: String,
    /// The opened FMU.
    pub fmu: Fmu,
    /// Steps the component takes per macro step (its step is the macro step divided by this).
    pub sub_steps: usize,
    /// Its own input extrapolation, replacing the schedule's.
    pub extrapolation: Option<Extrapolation>,
    /// Parameter and start values, set before initialization.
    pub start_values: Vec<StartValue>,
}

/// Where a component's FMU is looked for.
#[derive(Clone, Copy)]
pub(super) struct FmuLocation<'a> {
    /// The folder of the system file, against which `fmu` paths are resolved.
    pub system_folder: &'a Path,
    /// `--fmu-dir`: when given, every FMU is taken from this folder by file name.
    pub fmu_dir: Option<&'a Path>,
}

impl FmuLocation<'_> {
    fn resolve(&self, written: &str) -> Option<PathBuf> {
        match self.fmu_dir {
            Some(dir) => Path::new(written).file_name().map(|name| dir.join(name)),
            None => Some(self.system_folder.join(written)),
        }
    }
}

/// Opens and checks the component of `entry`; `macro_step` is the experiment's step.
pub(super) fn load(
    entry: &ComponentEntry,
    source: &SourceText,
    location: FmuLocation<'_>,
    macro_step: f64,
) -> Result<Component> {
    let name = entry.name.get_ref();
    let error = |span: std::ops::Range<usize>, message: String| {
        source.error(span, format!("component {name}: {message}"))
    };
    let written = entry.fmu.get_ref();
    let path = location
        .resolve(written)
        .ok_or_else(|| error(entry.fmu.span(), format!("\"{written}\" names no file")))?;
    if !path.is_file() {
        let hint = match location.fmu_dir {
            Some(dir) => format!("looked in --fmu-dir {}", dir.display()),
            None => "paths are relative to the system file".to_string(),
        };
        return Err(error(
            entry.fmu.span(),
            format!("FMU file {} not found ({hint})", path.display()),
        ));
    }
    let fmu = Fmu::open(&path).map_err(|e| error(entry.fmu.span(), e.to_string()))?;
    if fmu.model_description().co_simulation.is_none() {
        return Err(error(
            entry.fmu.span(),
            format!(
                "{} has no Co-Simulation interface; `tandem run` steps Co-Simulation FMUs only",
                path.display()
            ),
        ));
    }
    let sub_steps = match &entry.step {
        None => 1,
        Some(step) => sub_steps(*step.get_ref(), macro_step).map_err(|m| error(step.span(), m))?,
    };
    let mut start_values = start_values_of(&fmu, "parameters", true, &entry.parameters, &error)?;
    start_values.extend(start_values_of(&fmu, "start", false, &entry.start, &error)?);
    Ok(Component {
        name: name.clone(),
        fmu,
        sub_steps,
        extrapolation: entry.extrapolation,
        start_values,
    })
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
             (components may step faster than the macro step, not slower: make [experiment] \
             step the longest component step)"
        ))
    }
}

/// The values of `[component.parameters]` (`parameters` true) or `[component.start]`.
fn start_values_of(
    fmu: &Fmu,
    table: &str,
    parameters: bool,
    values: &BTreeMap<String, Spanned<toml::Value>>,
    error: &dyn Fn(std::ops::Range<usize>, String) -> crate::Error,
) -> Result<Vec<StartValue>> {
    let md = fmu.model_description();
    values
        .iter()
        .map(|(name, value)| {
            let fail = |message: String| error(value.span(), format!("{table}.{name}: {message}"));
            let variable = md.variable(name).ok_or_else(|| {
                fail(format!(
                    "{} has no variable \"{name}\"",
                    fmu.path().display()
                ))
            })?;
            let is_parameter = matches!(
                variable.causality,
                Causality::Parameter | Causality::StructuralParameter
            );
            if parameters && !is_parameter {
                return Err(fail(format!(
                    "{name} is a {} variable, not a parameter: give it under [component.start]",
                    variable.causality
                )));
            }
            if !parameters && is_parameter {
                return Err(fail(format!(
                    "{name} is a parameter: give it under [component.parameters]"
                )));
            }
            check_settable(variable).map_err(&fail)?;
            let text = match value.get_ref() {
                toml::Value::String(text) => text.clone(),
                toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_) => {
                    value.get_ref().to_string()
                }
                other => {
                    return Err(fail(format!(
                        "expected a number, boolean or string, found a {}",
                        other.type_str()
                    )))
                }
            };
            let value = Values::parse(variable.ty, &[&text]).map_err(&fail)?;
            Ok(StartValue {
                name: name.clone(),
                value_reference: variable.value_reference,
                ty: variable.ty,
                value,
            })
        })
        .collect()
}
