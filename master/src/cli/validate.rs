//! `tandem validate X.fmu`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::stdout::out;
use crate::error::Result;
use crate::model_description::validate::{validate, Problem};
use crate::Fmu;

/// Arguments of `tandem validate`.
#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// The FMU.
    pub fmu: PathBuf,
}

/// Prints every problem found; exit code 1 when any is an error (notes alone keep 0).
pub fn run(args: &ValidateArgs) -> Result<ExitCode> {
    let fmu = Fmu::open(&args.fmu)?;
    let (errors, notes): (Vec<_>, Vec<_>) = validate(fmu.model_description())
        .into_iter()
        .partition(Problem::is_error);
    for interface in fmu.model_description().interfaces() {
        if let Err(error) = fmu.binary_path(interface) {
            out!("note: {error}");
        }
    }
    for note in &notes {
        out!("note: modelDescription.xml {note}");
    }
    if errors.is_empty() {
        out!("{}: the model description is valid", args.fmu.display());
        return Ok(ExitCode::SUCCESS);
    }
    for problem in &errors {
        eprintln!("{}: modelDescription.xml {problem}", args.fmu.display());
    }
    eprintln!(
        "{} problem{} found",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    );
    Ok(ExitCode::FAILURE)
}
