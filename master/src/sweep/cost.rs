//! `--cost` and `--gradient` of `tandem sweep`: the system file's `[gradient]` cost of each run,
//! and its gradient with respect to the `[gradient]` parameters, as `tandem gradient` computes
//! them for the run's set.

use std::path::Path;

use crate::error::{Error, Result};
use crate::gradient::section::{self, GradientSection};
use crate::gradient::{Checkpointing, CostSource, CostSpec, Problem};
use crate::instance::LogSettings;
use crate::system::System;

/// The `[gradient]` problem of a system file, without its system.
pub struct CostColumns {
    parameters: Vec<String>,
    cost: CostSpec,
    checkpointing: Checkpointing,
    gradient: bool,
}

impl CostColumns {
    /// The `[gradient]` section of `system_file`; `gradient` asks for `dJ/dp` besides `J`.
    pub fn read(system_file: &Path, gradient: bool) -> Result<CostColumns> {
        let section: GradientSection =
            section::read(system_file, section::SECTION)?.ok_or_else(|| {
                Error::input_file(
                    system_file.to_path_buf(),
                    "--cost and --gradient need a [gradient] section (parameters and cost)",
                )
            })?;
        let data = section
            .data
            .as_ref()
            .map(|d| section::resolve(system_file, d));
        Ok(CostColumns {
            cost: CostSpec::new(
                section.cost.as_deref(),
                data,
                section.weights.into_iter().collect(),
                &CostSource::of(None, system_file, "gradient"),
            )?,
            parameters: section.parameters,
            checkpointing: Checkpointing::every(section.checkpoint_interval),
            gradient,
        })
    }

    /// The table's columns: `cost`, then `dJ/d<parameter>` with `--gradient`.
    pub fn names(&self) -> Vec<String> {
        let derivatives = self.parameters.iter().filter(|_| self.gradient);
        std::iter::once("cost".to_string())
            .chain(derivatives.map(|p| format!("dJ/d{p}")))
            .collect()
    }

    /// `system` back after checking that the problem is well posed on it (the parameters and
    /// the cost's outputs exist).
    pub fn check(&self, system: System) -> Result<System> {
        let problem = Problem::new(
            system,
            &self.parameters,
            &self.cost,
            "[gradient] parameters",
        )?;
        Ok(problem.into_system())
    }

    /// `J` (and `dJ/dp`) of `system` as its start values stand, and the system back unless
    /// the evaluation failed.
    pub fn evaluate(
        &self,
        system: System,
        log: &LogSettings,
    ) -> (Result<Vec<f64>>, Option<System>) {
        let problem = Problem::new(
            system,
            &self.parameters,
            &self.cost,
            "[gradient] parameters",
        );
        let mut problem = match problem {
            Ok(problem) => problem
                .with_checkpointing(self.checkpointing)
                .with_log(log.clone()),
            Err(error) => return (Err(error.into()), None),
        };
        let values = problem.start_values();
        let result = if self.gradient {
            problem.gradient(&values).map(|evaluation| {
                std::iter::once(evaluation.cost)
                    .chain(evaluation.gradient)
                    .collect()
            })
        } else {
            problem.cost(&values).map(|cost| vec![cost])
        };
        let system = result.is_ok().then(|| problem.into_system());
        (result.map_err(Into::into), system)
    }
}
