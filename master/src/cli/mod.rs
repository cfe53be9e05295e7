//! The `tandem` command line (conventions of fmusim and FMPy). The arguments of the commands
//! that run systems and the functions that turn them into the libraries' settings are public:
//! the Python package builds the same arguments from its keywords, so that its calls mean
//! what the options mean.

pub mod codesign;
pub mod gradient;
pub mod identify;
mod info;
mod name_list;
pub mod run;
mod simulate;
mod stdout;
pub mod sweep;
mod validate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use stdout::out;

use crate::cluster::Cluster;

/// The top-level tables of a system file that commands read for themselves, beside the system:
/// the system reader accepts them unread.
pub const SYSTEM_FILE_SECTIONS: &[&str] = crate::gradient::setup::COMMAND_SECTIONS;

/// Tandem: co-simulation master for FMI 2.0 and 3.0 FMUs.
#[derive(Parser, Debug)]
#[command(name = "tandem", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
// Parsed once per process: the size of the largest arguments does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Show the model name, FMI version, interfaces, capabilities, default experiment and variables.
    Info(info::InfoArgs),
    /// Check the model description for structural and semantic problems.
    Validate(validate::ValidateArgs),
    /// Simulate a single FMU and write the results as CSV.
    #[command(allow_negative_numbers = true)]
    Simulate(simulate::SimulateArgs),
    /// Co-simulate a system of FMUs described by a TOML system file and write the results as CSV.
    #[command(allow_negative_numbers = true)]
    Run(run::RunArgs),
    /// The gradient of a cost with respect to component parameters (adjoint of the
    /// co-simulation, or finite differences), with an optional finite-difference check.
    #[command(allow_negative_numbers = true)]
    Gradient(gradient::GradientArgs),
    /// Control co-design of one plant FMU: LQR cost of a design and its gradient by the
    /// coupled adjoint.
    #[command(allow_negative_numbers = true)]
    Codesign(codesign::CodesignArgs),
    /// Fit bounded component parameters to measurements (L-BFGS on the gradient).
    #[command(allow_negative_numbers = true)]
    Identify(identify::IdentifyArgs),
    /// Run a system once per parameter set (grid, Monte Carlo samples or a CSV of sets) and
    /// write a table with a row per run: the parameters, status, wall time and metrics.
    #[command(allow_negative_numbers = true)]
    Sweep(sweep::SweepArgs),
}

/// Parses the command line, runs the command and turns errors into a message and exit code 1.
/// `sweep`, `identify` and `gradient` run on the MPI job that started them, if any: every rank
/// gets the same error (see [`Cluster::agree`]), which rank 0 prints.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // What runs killed before they could clean up left behind.
    crate::temporary::remove_abandoned();
    let cluster = match cli.command {
        Command::Gradient(_) | Command::Identify(_) | Command::Sweep(_) => Cluster::join(),
        _ => Ok(Cluster::Alone),
    };
    let result = cluster
        .as_ref()
        .map_err(|e| e.to_string())
        .and_then(|cluster| {
            let result = match cli.command {
                Command::Info(args) => info::run(&args),
                Command::Validate(args) => validate::run(&args),
                Command::Simulate(args) => simulate::run(&args),
                Command::Run(args) => run::run(&args),
                Command::Gradient(args) => gradient::run(&args, cluster),
                Command::Identify(args) => identify::run(&args, cluster),
                Command::Codesign(args) => codesign::run(&args),
                Command::Sweep(args) => sweep::run(&args, cluster),
            };
            result.map_err(|error| {
                if cluster.is_root() {
                    error.to_string()
                } else {
                    String::new()
                }
            })
        });
    match result {
        Ok(code) => code,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("error: {message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Writes rows as left-aligned columns separated by two spaces.
fn print_table(header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, &width)| format!("{cell:<width$}"))
            .collect();
        out!("{}", padded.join("  ").trim_end());
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
}
