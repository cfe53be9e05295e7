//! A gradient problem as the commands set it up: the system file, what the command's section
//! of it gives (its defaults), and what the caller gives instead (a command line, or a library
//! user such as the Python package), merged the same way for every caller.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cost::{CostSource, CostSpec};
use crate::problem::{Checkpointing, Problem};
use crate::section::{resolve, GradientSection};
use fmi_host::instance::LogSettings;
use tandem_cosim::system::{LoadOptions, System};
use tandem_cosim::Result;

/// The top-level tables of a system file that the commands built on this crate read for
/// themselves (`[gradient]`, `[identify]`, `[[experiments]]`): a system loaded for any of them,
/// or for a plain run of the same file, accepts them unread.
pub const COMMAND_SECTIONS: &[&str] = &[
    crate::section::SECTION,
    crate::identify::section::SECTION,
    crate::experiments::SECTION,
];

/// What a command's section of the system file (`[gradient]`, `[identify]`) gives for the
/// problem: defaults the caller overrides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SectionDefaults {
    /// The cost text.
    pub cost: Option<String>,
    /// Measurements, relative to the system file.
    pub data: Option<PathBuf>,
    /// Weights by column.
    pub weights: BTreeMap<String, f64>,
    /// Checkpoint interval.
    pub checkpoint_interval: Option<usize>,
}

impl GradientSection {
    /// The parameters to differentiate by: `given` when there are any (`--parameters`, as
    /// messages name them), else the section's; where they came from; and the section's
    /// defaults for the rest of the problem.
    pub fn choose(self, given: Vec<String>) -> (Vec<String>, &'static str, SectionDefaults) {
        let (parameters, option) = if given.is_empty() {
            (self.parameters, "[gradient] parameters")
        } else {
            (given, "--parameters")
        };
        let defaults = SectionDefaults {
            cost: self.cost,
            data: self.data,
            weights: self.weights,
            checkpoint_interval: self.checkpoint_interval,
        };
        (parameters, option, defaults)
    }
}

/// What the caller gives for the problem besides the parameters and the cost; each given
/// value overrides the section's.
#[derive(Clone)]
pub struct Overrides<'a> {
    /// The system file (TOML).
    pub system: &'a Path,
    /// Measurements (CSV) for a least-squares cost.
    pub data: Option<PathBuf>,
    /// Weights of measured columns (none given: the section's).
    pub weights: Vec<(String, f64)>,
    /// Keep FMU states at every this many macro points (0: all).
    pub checkpoint_interval: Option<usize>,
    /// How to load the system.
    pub load: LoadOptions<'a>,
    /// The energy correction switch (`None`: the file's).
    pub correction: Option<bool>,
    /// The FMUs' logging.
    pub log: LogSettings,
}

/// Everything a problem of the system is made from, merged from the caller's values and the
/// section's defaults: one problem ([`Setup::problem`]), or one per experiment.
pub struct Setup<'a> {
    /// The system file.
    pub system: &'a Path,
    /// How to load it.
    pub load: LoadOptions<'a>,
    /// The energy correction switch (`None`: the file's).
    pub correction: Option<bool>,
    /// The parameters, `component.parameter`.
    pub parameters: &'a [String],
    /// The cost text (default least squares against the data).
    pub cost: Option<&'a str>,
    /// Where the cost text was given.
    pub cost_source: CostSource,
    /// The measurements of a single experiment: the caller's, else the section's.
    pub data: Option<PathBuf>,
    /// Weights of measured columns.
    pub weights: Vec<(String, f64)>,
    /// Which FMU states the adjoint keeps.
    pub checkpointing: Checkpointing,
    /// The FMUs' logging.
    pub log: LogSettings,
    /// Where the parameter names came from, for messages.
    pub option: &'a str,
}

impl<'a> Setup<'a> {
    /// The setup of `parameters` (named by `option` in messages) and `cost` (the caller's:
    /// `None` takes the section's) from the caller's `overrides` and the section's `defaults`.
    pub fn new(
        overrides: &Overrides<'a>,
        defaults: &'a SectionDefaults,
        parameters: &'a [String],
        cost: Option<&'a str>,
        option: &'a str,
    ) -> Self {
        let system = overrides.system;
        let weights = if overrides.weights.is_empty() {
            defaults
                .weights
                .iter()
                .map(|(name, &weight)| (name.clone(), weight))
                .collect()
        } else {
            overrides.weights.clone()
        };
        Setup {
            system,
            load: overrides.load,
            correction: overrides.correction,
            parameters,
            cost: cost.or(defaults.cost.as_deref()),
            cost_source: CostSource::of(cost, system, "gradient"),
            data: overrides
                .data
                .clone()
                .or_else(|| defaults.data.as_ref().map(|data| resolve(system, data))),
            weights,
            checkpointing: Checkpointing::every(
                overrides
                    .checkpoint_interval
                    .or(defaults.checkpoint_interval),
            ),
            log: overrides.log.clone(),
            option,
        }
    }

    /// The problem of the system as its file gives it, against [`Setup::data`].
    pub fn problem(&self) -> Result<Problem> {
        let mut system = System::load(self.system, self.load)?;
        system.set_energy_correction(self.correction)?;
        let cost = CostSpec::new(
            self.cost,
            self.data.clone(),
            self.weights.clone(),
            &self.cost_source,
        )?;
        Ok(Problem::new(system, self.parameters, &cost, self.option)?
            .with_checkpointing(self.checkpointing)
            .with_log(self.log.clone()))
    }
}
