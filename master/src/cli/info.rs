//! `tandem info X.fmu`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::stdout::out;
use crate::error::Result;
use crate::import::{AdjointManifest, ManifestVariable, ADJOINT_EXTENSION};
use crate::model_description::{Capabilities, ModelDescription, Shapes, Variable};
use crate::Fmu;

/// Arguments of `tandem info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The FMU.
    pub fmu: PathBuf,
}

/// Prints the summary of an FMU.
pub fn run(args: &InfoArgs) -> Result<ExitCode> {
    let fmu = Fmu::open(&args.fmu)?;
    let md = fmu.model_description();
    let optional = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".into());
    out!("Model name           {}", md.model_name);
    out!("FMI version          {}", md.fmi_version_text);
    out!("Instantiation token  {}", md.instantiation_token);
    out!("Description          {}", optional(&md.description));
    out!("Generation tool      {}", optional(&md.generation_tool));
    // Array states count by elements, as fmi3GetNumberOfContinuousStates does.
    out!("Continuous states    {}", md.continuous_state_elements());
    out!("Event indicators     {}", md.number_of_event_indicators());
    if let Some(me) = &md.model_exchange {
        let mut flags = capability_names(&me.capabilities);
        if me.needs_completed_integrator_step {
            flags.push("needsCompletedIntegratorStep");
        }
        out!(
            "Model Exchange       {} [{}]",
            me.model_identifier,
            flags.join(", ")
        );
    }
    if let Some(cs) = &md.co_simulation {
        let mut flags = capability_names(&cs.capabilities);
        let extra = [
            (
                cs.can_handle_variable_communication_step_size,
                "canHandleVariableCommunicationStepSize",
            ),
            (cs.can_interpolate_inputs, "canInterpolateInputs"),
            (cs.has_event_mode, "hasEventMode"),
            (
                cs.might_return_early_from_do_step,
                "mightReturnEarlyFromDoStep",
            ),
            (
                cs.provides_intermediate_update,
                "providesIntermediateUpdate",
            ),
        ];
        flags.extend(
            extra
                .into_iter()
                .filter(|(on, _)| *on)
                .map(|(_, name)| name),
        );
        let order = if cs.max_output_derivative_order > 0 {
            format!(
                ", maxOutputDerivativeOrder={}",
                cs.max_output_derivative_order
            )
        } else {
            String::new()
        };
        out!(
            "Co-Simulation        {} [{}{order}]",
            cs.model_identifier,
            flags.join(", ")
        );
    }
    if let Some(se) = &md.scheduled_execution {
        out!(
            "Scheduled Execution  {} [{}]",
            se.model_identifier,
            capability_names(&se.capabilities).join(", ")
        );
    }
    print_default_experiment(md);
    if let Some(manifest) = fmu.adjoint_manifest() {
        print_adjoint_extension(manifest);
    }
    out!();
    out!("Variables ({}):", md.variables.len());
    // An FMI 3.0 alias is a row of its own under its variable: a name that can be used
    // anywhere, with its own description and display unit.
    let shapes = Shapes::new(md);
    let rows: Vec<Vec<String>> = md
        .variables
        .iter()
        .flat_map(|v| {
            let shape = shape_text(&shapes, v);
            let own = vec![
                v.name.clone(),
                shape.clone(),
                v.value_reference.to_string(),
                v.ty.to_string(),
                v.causality.to_string(),
                v.variability.to_string(),
                v.initial().map(|i| i.to_string()).unwrap_or_default(),
                v.start.as_ref().map(|s| s.to_string()).unwrap_or_default(),
                md.unit_of(v).unwrap_or("").to_string(),
                v.description.clone().unwrap_or_default(),
            ];
            let aliases = v.aliases.iter().map(move |a| {
                let unit = a.display_unit.as_deref().or(md.unit_of(v)).unwrap_or("");
                let description = a.description.as_deref().or(v.description.as_deref());
                vec![
                    a.name.clone(),
                    shape.clone(),
                    v.value_reference.to_string(),
                    v.ty.to_string(),
                    format!("alias of {}", v.name),
                    String::new(),
                    String::new(),
                    String::new(),
                    unit.to_string(),
                    description.unwrap_or("").to_string(),
                ]
            });
            std::iter::once(own).chain(aliases)
        })
        .collect();
    super::print_table(
        &[
            "Name",
            "Shape",
            "ValueRef",
            "Type",
            "Causality",
            "Variability",
            "Initial",
            "Start",
            "Unit",
            "Description",
        ],
        &rows,
    );
    Ok(ExitCode::SUCCESS)
}

/// `[3]`, `[3,3]` for an array (`?` for a size that cannot be known), nothing for a scalar.
fn shape_text(shapes: &Shapes<'_>, variable: &Variable) -> String {
    if variable.is_scalar() {
        return String::new();
    }
    match shapes.of(variable) {
        Ok(shape) => format!(
            "[{}]",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
        Err(_) => "[?]".to_string(),
    }
}

fn print_default_experiment(md: &ModelDescription) {
    let Some(experiment) = &md.default_experiment else {
        out!("Default experiment   -");
        return;
    };
    let parts: Vec<String> = [
        ("startTime", experiment.start_time),
        ("stopTime", experiment.stop_time),
        ("tolerance", experiment.tolerance),
        ("stepSize", experiment.step_size),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.map(|v| format!("{name}={v}")))
    .collect();
    out!("Default experiment   {}", parts.join(", "));
}

/// One line on the adjoint extension: version, state length and the seed variables.
fn print_adjoint_extension(manifest: &AdjointManifest) {
    let names = |list: &[ManifestVariable]| {
        list.iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    out!(
        "Adjoint extension    {ADJOINT_EXTENSION} v{}, nState = {}, inputs [{}], parameters [{}], outputs [{}]",
        manifest.version,
        manifest.n_state,
        names(&manifest.inputs),
        names(&manifest.parameters),
        names(&manifest.outputs)
    );
}

fn capability_names(capabilities: &Capabilities) -> Vec<&'static str> {
    [
        (capabilities.needs_execution_tool, "needsExecutionTool"),
        (
            capabilities.can_be_instantiated_only_once_per_process,
            "canBeInstantiatedOnlyOncePerProcess",
        ),
        (
            capabilities.can_get_and_set_fmu_state,
            "canGetAndSetFMUState",
        ),
        (capabilities.can_serialize_fmu_state, "canSerializeFMUState"),
        (
            capabilities.provides_directional_derivatives,
            "providesDirectionalDerivatives",
        ),
        (
            capabilities.provides_adjoint_derivatives,
            "providesAdjointDerivatives",
        ),
        (
            capabilities.provides_evaluate_discrete_states,
            "providesEvaluateDiscreteStates",
        ),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| name)
    .collect()
}
