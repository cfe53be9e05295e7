//! The energy manager of one run (the manager algorithm of Rodríguez et al. 2022, per bond
//! and per macro step): at every communication point it reads each bond's effort and flow,
//! computes the residual power and energy, watches them for warnings, and, with the
//! correction on, sets the force added to the effort during the next macro step. It also sums
//! the components' `energy` outputs into the total energy.

use std::fmt;

use super::correction::{Correction, CorrectionLaw};
use super::monitor::{dot, BondMonitor};
use super::warnings::{Warning, Watch};
use crate::error::{Error, Result};
use crate::schedule::CoSimulation;
use crate::system::energy_setup::Bond;
use crate::system::{EnergySetup, Port, System};

/// What a column of the energy record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// Sum of the components' energy outputs (J).
    TotalEnergy,
    /// Residual power of a bond (W).
    ResidualPower,
    /// Residual energy of a bond since the start (J).
    ResidualEnergy,
    /// A component of a bond's correction force.
    CorrectionForce,
    /// A bond's accumulated leftover `U` of the correction (J).
    Leftover,
}

/// One column of the energy record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnergyColumn {
    /// The result-file header: `bond1.dP`, `bond1.dE`, `bond1.f_corr`, `bond1.U`, `total_energy`.
    pub name: String,
    /// What it holds.
    pub quantity: Quantity,
}

/// One bond during a run.
#[derive(Clone)]
struct BondRun {
    bond: Bond,
    monitor: BondMonitor,
    correction: Option<Correction>,
    watch: Watch,
    /// The effort and flow read at the latest communication point (kept, so that a macro step
    /// allocates nothing).
    effort: Vec<f64>,
    flow: Vec<f64>,
}

/// Monitoring (and correction) of a running co-simulation.
#[derive(Clone)]
pub struct EnergyManager {
    bonds: Vec<BondRun>,
    energy_outputs: Vec<Port>,
    time: f64,
    initial_energy: Option<f64>,
    energy: Option<f64>,
}

/// What the energy monitor found over a run.
#[derive(Debug, Clone, PartialEq)]
pub struct EnergyReport {
    /// Total energy at the start and at the end (when components report one).
    pub energy: Option<(f64, f64)>,
    /// The time reached.
    pub final_time: f64,
    /// Per bond: what it joins, its mu (and the rule that gave it), its residual energy.
    pub bonds: Vec<BondReport>,
    /// Whether the efforts were corrected.
    pub corrected: bool,
    /// Intervals where the residual power flagged the run as unreliable.
    pub warnings: Vec<Warning>,
}

/// The summary of one bond.
#[derive(Debug, Clone, PartialEq)]
pub struct BondReport {
    /// `effort x flow`.
    pub name: String,
    /// The factor mu, or why `mu = "auto"` gives none.
    pub mu: std::result::Result<f64, String>,
    /// How mu was chosen (automatic rules), if it was.
    pub rule: Option<String>,
    /// The residual energy at the end (J).
    pub residual_energy: f64,
}

impl EnergyManager {
    /// Starts monitoring `system` (whose energy part is `setup`) at the start of
    /// `cosimulation`; `correct` turns the correction on.
    pub fn start(
        setup: &EnergySetup,
        system: &System,
        cosimulation: &mut CoSimulation,
        correct: bool,
    ) -> Result<Self> {
        if correct && setup.bonds.is_empty() {
            return Err(Error::InvalidValue {
                item: system.path.display().to_string(),
                message: "the energy correction is on, but the system declares no [[bond]]".into(),
            });
        }
        let settings = &setup.settings;
        let bonds = setup
            .bonds
            .iter()
            .enumerate()
            .map(|(index, bond)| {
                let mu = match (&bond.mu, correct) {
                    (Ok(mu), _) => *mu,
                    (Err(why), true) => {
                        return Err(Error::InvalidValue {
                            item: system.path.display().to_string(),
                            message: format!("bond {}: {why}", index + 1),
                        })
                    }
                    (Err(_), false) => 0.0,
                };
                let (effort, flow) = (
                    values(cosimulation, &bond.effort),
                    values(cosimulation, &bond.flow),
                );
                Ok(BondRun {
                    monitor: BondMonitor::new(effort.clone(), flow.clone()),
                    effort,
                    flow,
                    correction: correct.then(|| {
                        let law = CorrectionLaw {
                            mu,
                            nu: settings.nu,
                            cap: settings.cap,
                            v_epsilon: settings.v_epsilon,
                        };
                        Correction::new(law, bond.effort.len())
                    }),
                    watch: Watch::new(index + 1, settings.warnings, cosimulation.time()),
                    bond: bond.clone(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut manager = EnergyManager {
            bonds,
            energy_outputs: setup.energy_outputs.clone(),
            time: cosimulation.time(),
            initial_energy: None,
            energy: None,
        };
        manager.energy = manager.total_energy(system, cosimulation)?;
        manager.initial_energy = manager.energy;
        Ok(manager)
    }

    /// Takes the values at the communication point `cosimulation` just reached: residual
    /// power and energy, warnings, the correction for the next macro step, total energy.
    pub fn after_step(&mut self, system: &System, cosimulation: &mut CoSimulation) -> Result<()> {
        let time = cosimulation.time();
        let step = time - self.time;
        // A step-size control plans the next step before the stages act.
        let next_step = cosimulation
            .next_step()
            .unwrap_or_else(|| next_step(system, time));
        for run in &mut self.bonds {
            read(cosimulation, &run.bond.effort, &mut run.effort);
            read(cosimulation, &run.bond.flow, &mut run.flow);
            let power = run.monitor.advance(&run.effort, &run.flow, step);
            run.watch
                .record(time, step, power, net_power(run, power, &run.flow));
            if let Some(correction) = &mut run.correction {
                let force = correction.update(power, step, &run.effort, &run.flow, next_step);
                for (&input, &value) in run.bond.corrected.iter().zip(force) {
                    let applied = cosimulation.set_input_offset(input, value);
                    assert!(
                        applied,
                        "a bond's corrected input is checked to be a connected continuous float"
                    );
                }
            }
        }
        self.time = time;
        self.energy = self.total_energy(system, cosimulation)?;
        Ok(())
    }

    /// The correction of bond `bond` (numbered from 0), when correcting.
    pub fn correction(&self, bond: usize) -> Option<&Correction> {
        self.bonds[bond].correction.as_ref()
    }

    /// Replaces `values` by the current values of the columns [`setup_columns`] names, in its
    /// order (into the caller's buffer: a run writes them at every macro point).
    pub fn write_values(&self, values: &mut Vec<f64>) {
        values.clear();
        values.extend(self.energy);
        for run in &self.bonds {
            values.push(run.monitor.power());
            values.push(run.monitor.energy());
            if let Some(correction) = &run.correction {
                values.extend_from_slice(correction.force());
                values.push(correction.leftover());
            }
        }
    }

    /// The summary of the run so far, with the warnings of the whole run.
    pub fn finish(self, system: &System) -> EnergyReport {
        let corrected = self.bonds.iter().any(|run| run.correction.is_some());
        let mut warnings = Vec::new();
        let bonds = self
            .bonds
            .into_iter()
            .map(|run| {
                warnings.extend(run.watch.finish(self.time));
                BondReport {
                    name: run.bond.describe(&system.components).to_string(),
                    mu: run.bond.mu.clone(),
                    rule: run.bond.rule.map(|rule| rule.to_string()),
                    residual_energy: run.monitor.energy(),
                }
            })
            .collect();
        warnings.sort_by(|a, b| a.from.total_cmp(&b.from));
        EnergyReport {
            energy: self.initial_energy.zip(self.energy),
            final_time: self.time,
            bonds,
            corrected,
            warnings,
        }
    }

    /// The sum of the components' energy outputs, read consistently at the current time.
    fn total_energy(
        &self,
        system: &System,
        cosimulation: &mut CoSimulation,
    ) -> Result<Option<f64>> {
        if self.energy_outputs.is_empty() {
            return Ok(None);
        }
        let energies = cosimulation.read_consistent(system, &self.energy_outputs)?;
        Ok(Some(energies.iter().sum()))
    }
}

/// The length of the macro step that starts at the communication point `time` of `system`
/// (the length a correction computed there spreads its energy over): on the grid of the macro
/// step, or to the next frozen point of an adaptive run; past the last point, the last step's
/// length.
pub fn next_step(system: &System, time: f64) -> f64 {
    if let Some(points) = &system.schedule.frozen {
        // The first point is the start: every time of the run has one at or before it.
        let next = points.partition_point(|&t| t <= time);
        return match points.get(next) {
            Some(point) => point - time,
            None => points[next - 1] - points[next.saturating_sub(2)],
        };
    }
    let remaining = system.stop - time;
    if remaining > 0.0 {
        system.macro_step.min(remaining)
    } else {
        system.macro_step
    }
}

/// The columns a run of `setup` adds to the result file, with the correction on or off, in the
/// order of [`EnergyManager::write_values`].
pub fn setup_columns(setup: &EnergySetup, correct: bool) -> Vec<EnergyColumn> {
    let mut columns = Vec::new();
    let mut column =
        |name: String, quantity: Quantity| columns.push(EnergyColumn { name, quantity });
    if !setup.energy_outputs.is_empty() {
        column("total_energy".into(), Quantity::TotalEnergy);
    }
    for (index, bond) in setup.bonds.iter().enumerate() {
        let prefix = format!("bond{}", index + 1);
        column(format!("{prefix}.dP"), Quantity::ResidualPower);
        column(format!("{prefix}.dE"), Quantity::ResidualEnergy);
        if correct {
            match bond.effort.len() {
                1 => column(format!("{prefix}.f_corr"), Quantity::CorrectionForce),
                n => (1..=n).for_each(|j| {
                    column(format!("{prefix}.f_corr[{j}]"), Quantity::CorrectionForce)
                }),
            }
            column(format!("{prefix}.U"), Quantity::Leftover);
        }
    }
    columns
}

/// The residual power left after the correction applied over the step that just ended, in
/// residual-power units: the step's energy error `mu H dP` plus the work of the correction
/// force `f_corr . v H`, divided by `mu H`. Without correction (or with `mu = 0`, which never
/// corrects) it is the residual power itself.
fn net_power(run: &BondRun, power: f64, flow: &[f64]) -> f64 {
    match &run.correction {
        Some(correction) if correction.mu() > 0.0 => {
            power + dot(correction.force(), flow) / correction.mu()
        }
        _ => power,
    }
}

/// The latest communicated values of `ports`.
fn values(cosimulation: &CoSimulation, ports: &[Port]) -> Vec<f64> {
    ports.iter().map(|&port| cosimulation.value(port)).collect()
}

/// The latest communicated values of `ports`, into `values` (of their length).
fn read(cosimulation: &CoSimulation, ports: &[Port], values: &mut [f64]) {
    for (value, &port) in values.iter_mut().zip(ports) {
        *value = cosimulation.value(port);
    }
}

impl fmt::Display for EnergyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((initial, last)) = self.energy {
            write!(
                f,
                "energy: E(start) = {initial:.6e} J, E(t = {}) = {last:.6e} J",
                self.final_time
            )?;
            if initial != 0.0 {
                write!(f, " ({:+.3} %)", 100.0 * (last - initial) / initial.abs())?;
            }
        } else {
            write!(f, "energy: no component has an `energy` output")?;
        }
        write!(
            f,
            "; correction {}",
            if self.corrected { "on" } else { "off" }
        )?;
        for (index, bond) in self.bonds.iter().enumerate() {
            write!(
                f,
                "\nbond {} ({}): residual energy dE = {:.6e} J, ",
                index + 1,
                bond.name,
                bond.residual_energy,
            )?;
            match (&bond.mu, &bond.rule) {
                (Ok(mu), Some(rule)) => write!(f, "mu = {mu} ({rule})")?,
                (Ok(mu), None) => write!(f, "mu = {mu}")?,
                (Err(why), _) => write!(f, "no mu: {why}")?,
            }
        }
        for warning in &self.warnings {
            write!(f, "\nwarning: {warning}")?;
        }
        Ok(())
    }
}
