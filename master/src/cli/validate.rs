//! `tandem validate X.fmu`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::error::Result;
use crate::model_description::validate::validate;
use crate::Fmu;

/// Arguments of `tandem validate`.
#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// The FMU.
    pub fmu: PathBuf,
}

/// Prints every problem found; exit code 1 when there is any.
pub fn run(args: &ValidateArgs) -> Result<ExitCode> {
    let fmu = Fmu::open(&args.fmu)?;
    let problems = validate(fmu.model_description());
    for interface in fmu.model_description().interfaces() {
        if let Err(error) = fmu.binary_path(interface) {
            println!("note: {error}");
        }
    }
    if problems.is_empty() {
        println!("{}: the model description is valid", args.fmu.display());
        return Ok(ExitCode::SUCCESS);
    }
    for problem in &problems {
        eprintln!("{}: modelDescription.xml {problem}", args.fmu.display());
    }
    eprintln!(
        "{} problem{} found",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    Ok(ExitCode::FAILURE)
}
