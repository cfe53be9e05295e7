//! The energy correction of power bonds ([`tandem_cosim::energy`]) as a coupling stage of the
//! gradient: the forward run applies exactly the corrections `tandem run` applies (the same
//! [`EnergyStage`] computes and sets them), and the sweeps differentiate them.
//!
//! At every macro point `p >= 1` a bond's correction maps
//! `x = (f_{p-1}, v_{p-1}, f_p, v_p, sigma_{p-1}, U_{p-1}, F_{p-1})` (the effort and flow
//! communicated at the previous and the current point, and the correction's state after the
//! previous update) to its new state `s_p = (sigma_p, U_p, F_p)`; the force `F_p` is the offset
//! on the corrected inputs over the macro step from `t_p`. The Jacobian of that map comes from
//! the very functions the run evaluates ([`residual_power`], [`Correction::update`]), in dual
//! numbers at the recorded point, one column per entry of `x` (`5 d + 2` for a bond of `d`
//! efforts, whatever the number of parameters). Its branches (the cap, `v_epsilon`) test the
//! recorded values, so the Jacobian is that of the branch the run took. The reverse pass applies
//! its transpose, the forward sweep the Jacobian itself.
//!
//! The sweeps read each point's correction state and step lengths, kept per point like the
//! components' records: for the whole run, or, with checkpoints, for the segment re-run last. A
//! checkpoint keeps the [`EnergyStage`] (every bond's residual energy, correction state and
//! the effort and flow it read last) and the bonds' corrections there; a re-run resumes from
//! it and sets the very offsets of the first run.

use num_dual::Dual64;

use super::stage::{Communicated, CouplingStage, SampleAdjoints, SampleTangents, StageCheckpoint};
use super::wiring::Wiring;
use tandem_cosim::energy::correction::{Correction, CorrectionLaw};
use tandem_cosim::energy::manager;
use tandem_cosim::energy::monitor::{dot, residual_power};
use tandem_cosim::energy::scalar::Scalar;
use tandem_cosim::energy::EnergyStage;
use tandem_cosim::macro_loop::PointStage;
use tandem_cosim::schedule::{connections_into, CoSimulation};
use tandem_cosim::system::{EnergySetup, Port, System};
use tandem_cosim::Result;

/// Where a communicated value sits: its participant and observed slot.
#[derive(Debug, Clone, Copy)]
struct Slot {
    participant: usize,
    slot: usize,
}

/// One bond's correction at one macro point of the forward run.
#[derive(Clone)]
struct Point {
    /// The correction after its update there (at the start: none yet).
    correction: Correction,
    /// The length of the macro step that ended there.
    step: f64,
    /// The length of the macro step that starts there.
    next_step: f64,
}

/// One bond: where its values are, what the run computed, and the derivatives carried.
struct BondStage {
    effort: Vec<Slot>,
    flow: Vec<Slot>,
    /// Per effort, the corrected input: its component and index in connection order.
    corrected: Vec<(usize, usize)>,
    /// Per macro point from [`EnergyCorrection::first`] to the latest reached.
    points: Vec<Point>,
    /// Reverse pass: the adjoint of the state after the update at the point being reversed,
    /// `(sigma, U, F)`.
    adjoint: Vec<f64>,
    /// Forward sweep: the tangents of that state, per direction.
    tangents: Vec<Vec<f64>>,
}

/// The energy correction of every bond of a system, as a coupling stage.
pub struct EnergyCorrection {
    /// The run's energy stage, over the system's energy part without the energy outputs: the
    /// correction does not need the total energy, and reading it would cost FMU calls at every
    /// point.
    energy: EnergyStage,
    bonds: Vec<BondStage>,
    /// The time of the latest macro point reached.
    time: f64,
    /// Whether the bonds keep every point's record since `first` (otherwise only the latest).
    recorded: bool,
    /// The macro point of the bonds' first record.
    first: usize,
}

/// The correction at a macro point: what a re-run from there starts from.
struct Reached {
    energy: EnergyStage,
    time: f64,
    /// Per bond, its record there.
    points: Vec<Point>,
}

impl EnergyCorrection {
    /// The correction of the bonds of `setup`, part of `system`, whose participants are wired
    /// as `wiring` says; `recorded`: whether it keeps what the sweeps read of every point
    /// from the start (otherwise from its first rewind on).
    pub fn new(setup: &EnergySetup, system: &System, wiring: &[Wiring], recorded: bool) -> Self {
        let slot = |port: Port| Slot {
            participant: port.component,
            slot: wiring[port.component]
                .observed
                .iter()
                .position(|&p| p == port)
                .expect("a bond's effort and flow feed connections, so they are observed"),
        };
        let input = |port: Port| {
            let index = connections_into(system, port.component)
                .position(|c| c.to == port)
                .expect("a bond's corrected input is connected");
            (port.component, index)
        };
        let bonds = setup
            .bonds
            .iter()
            .map(|bond| BondStage {
                effort: bond.effort.iter().copied().map(slot).collect(),
                flow: bond.flow.iter().copied().map(slot).collect(),
                corrected: bond.corrected.iter().copied().map(input).collect(),
                points: Vec::new(),
                adjoint: Vec::new(),
                tangents: Vec::new(),
            })
            .collect();
        EnergyCorrection {
            energy: EnergyStage::new(
                EnergySetup {
                    energy_outputs: Vec::new(),
                    ..setup.clone()
                },
                true,
            ),
            bonds,
            time: system.start,
            recorded,
            first: 0,
        }
    }
}

impl PointStage for EnergyCorrection {
    fn at_point(
        &mut self,
        point: usize,
        system: &System,
        cosimulation: &mut CoSimulation,
    ) -> Result<()> {
        self.energy.at_point(point, system, cosimulation)?;
        let manager = self.energy.manager().expect("the stage acted at the point");
        let time = cosimulation.time();
        let step = if point == 0 { 0.0 } else { time - self.time };
        self.time = time;
        if !self.recorded {
            self.first = point;
        }
        for (index, bond) in self.bonds.iter_mut().enumerate() {
            let correction = manager
                .correction(index)
                .expect("the manager was started correcting")
                .clone();
            if !self.recorded {
                bond.points.clear();
            }
            bond.points.push(Point {
                correction,
                step,
                next_step: manager::next_step(system, time),
            });
        }
        Ok(())
    }
}

impl CouplingStage for EnergyCorrection {
    fn checkpoint(&self) -> StageCheckpoint {
        Box::new(Reached {
            energy: self.energy.clone(),
            time: self.time,
            points: self
                .bonds
                .iter()
                .map(|bond| bond.points.last().expect("reached a point").clone())
                .collect(),
        })
    }

    fn rewind(&mut self, point: usize, checkpoint: StageCheckpoint) {
        let reached = checkpoint
            .downcast::<Reached>()
            .expect("a checkpoint the energy correction took");
        self.energy = reached.energy;
        self.time = reached.time;
        self.recorded = true;
        self.first = point;
        for (bond, at) in self.bonds.iter_mut().zip(reached.points) {
            bond.points = vec![at];
        }
    }

    fn reverse(&mut self, point: usize, adjoints: &mut SampleAdjoints<'_>) -> Result<()> {
        for bond in &mut self.bonds {
            if point == 0 {
                // The correction starts from constants, and its first force is zero; the next
                // reverse pass starts afresh.
                bond.adjoint.clear();
                continue;
            }
            if bond.adjoint.is_empty() {
                // The last point: nothing later uses the state.
                bond.adjoint = vec![0.0; bond.state_size()];
            }
            let mut bar_state = std::mem::take(&mut bond.adjoint);
            for (j, &(component, input)) in bond.corrected.iter().enumerate() {
                bar_state[2 + j] += adjoints.offset(component, input);
            }
            if bar_state.iter().all(|&a| a == 0.0) {
                bond.adjoint = bar_state;
                continue;
            }
            let columns = bond.jacobian(self.first, point, &adjoints.communicated);
            let bar: Vec<f64> = columns.iter().map(|c| dot(c, &bar_state)).collect();
            let d = bond.effort.len();
            for (offset, slots, at) in bond.samples(point) {
                for (j, slot) in slots.iter().enumerate() {
                    adjoints.adjoints(slot.participant, at)[slot.slot] += bar[offset + j];
                }
            }
            bond.adjoint = bar[4 * d..].to_vec();
        }
        Ok(())
    }

    fn tangents(&mut self, point: usize, tangents: &mut SampleTangents<'_>) -> Result<()> {
        let directions = tangents.directions();
        for bond in &mut self.bonds {
            let size = bond.state_size();
            if point == 0 {
                bond.tangents = vec![vec![0.0; size]; directions];
                for &(component, input) in &bond.corrected {
                    tangents.offset(component, input).fill(0.0);
                }
                continue;
            }
            let columns = bond.jacobian(self.first, point, &tangents.communicated);
            let d = bond.effort.len();
            for direction in 0..directions {
                let mut d_x = vec![0.0; 4 * d];
                for (offset, slots, at) in bond.samples(point) {
                    for (j, slot) in slots.iter().enumerate() {
                        d_x[offset + j] =
                            tangents.tangents(slot.participant, at)[direction][slot.slot];
                    }
                }
                d_x.extend_from_slice(&bond.tangents[direction]);
                let mut d_state = vec![0.0; size];
                for (column, &tangent) in columns.iter().zip(&d_x) {
                    for (out, &entry) in d_state.iter_mut().zip(column) {
                        *out += entry * tangent;
                    }
                }
                for (j, &(component, input)) in bond.corrected.iter().enumerate() {
                    tangents.offset(component, input)[direction] = d_state[2 + j];
                }
                bond.tangents[direction] = d_state;
            }
        }
        Ok(())
    }
}

impl BondStage {
    /// The length of the correction's state `(sigma, U, F)`.
    fn state_size(&self) -> usize {
        2 + self.effort.len()
    }

    /// The communicated values of the update at `point`, as they sit in `x`: the position of
    /// each group's first entry, its slots and its macro point.
    fn samples(&self, point: usize) -> [(usize, &[Slot], usize); 4] {
        let d = self.effort.len();
        [
            (0, &self.effort, point - 1),
            (d, &self.flow, point - 1),
            (2 * d, &self.effort, point),
            (3 * d, &self.flow, point),
        ]
    }

    /// The Jacobian of the update at `point` (> `first`, the point of the first record), by
    /// columns: one per entry of `x`, each the derivatives of `(sigma, U, F)`.
    fn jacobian(
        &self,
        first: usize,
        point: usize,
        communicated: &Communicated<'_>,
    ) -> Vec<Vec<f64>> {
        let index = point - first;
        let before = &self.points[index - 1].correction;
        let mut x = Vec::with_capacity(5 * self.effort.len() + 2);
        for (_, slots, at) in self.samples(point) {
            x.extend(
                slots
                    .iter()
                    .map(|s| communicated.values(s.participant, at)[s.slot]),
            );
        }
        let has_error = before.error().is_some();
        x.push(before.error().unwrap_or(0.0));
        x.push(before.leftover());
        x.extend_from_slice(before.force());
        let Point {
            step, next_step, ..
        } = self.points[index];
        let law = *before.law();
        debug_assert_eq!(
            update(&law, &x, has_error, step, next_step),
            state(&self.points[index].correction),
            "the correction recomputed at point {point} differs from the run's"
        );
        columns(&law, &x, has_error, step, next_step)
    }
}

/// The Jacobian of [`update`] at `x`, by columns (one per entry of `x`).
fn columns(
    law: &CorrectionLaw,
    x: &[f64],
    has_error: bool,
    step: f64,
    next_step: f64,
) -> Vec<Vec<f64>> {
    let d = (x.len() - 2) / 5;
    let error_column = 4 * d;
    (0..x.len())
        .map(|column| {
            if column == error_column && !has_error {
                // No energy error before the first point: nothing to differentiate.
                return vec![0.0; d + 2];
            }
            let seeded: Vec<Dual64> = x
                .iter()
                .enumerate()
                .map(|(i, &value)| Dual64::new(value, if i == column { 1.0 } else { 0.0 }))
                .collect();
            update(law, &seeded, has_error, step, next_step)
                .iter()
                .map(|entry| entry.eps)
                .collect()
        })
        .collect()
}

/// The update of a bond's correction at a macro point as a function of
/// `x = (f_prev, v_prev, f, v, sigma_prev, U_prev, F_prev)` (`sigma_prev` ignored without
/// `has_error`): its state after, `(sigma, U, F)`.
fn update<T: Scalar>(
    law: &CorrectionLaw,
    x: &[T],
    has_error: bool,
    step: f64,
    next_step: f64,
) -> Vec<T> {
    let d = (x.len() - 2) / 5;
    let (effort_before, rest) = x.split_at(d);
    let (flow_before, rest) = rest.split_at(d);
    let (effort, rest) = rest.split_at(d);
    let (flow, rest) = rest.split_at(d);
    let error = has_error.then_some(rest[0]);
    let mut correction = Correction::resume(*law, error, rest[1], rest[2..].to_vec());
    let power = residual_power(effort_before, flow_before, effort, flow);
    correction.update(power, step, effort, flow, next_step);
    state(&correction)
}

/// `(sigma, U, F)` of a correction that has been updated.
fn state<T: Scalar>(correction: &Correction<T>) -> Vec<T> {
    let error = correction.error().expect("updated");
    let mut state = vec![error, correction.leftover()];
    state.extend_from_slice(correction.force());
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_cosim::system::energy_setup::settings::Cap;

    /// The dual-number Jacobian against central differences of the update in `f64`, for a
    /// vector bond with the leftover on, capped and uncapped.
    #[test]
    fn the_jacobian_is_that_of_the_update() {
        // f_prev, v_prev, f, v (d = 2), sigma_prev, U_prev, F_prev.
        let x = [
            3.0, -1.0, 0.4, 0.9, 2.5, -1.5, 0.6, 1.1, 0.02, -0.01, -0.3, 0.2,
        ];
        for fraction in [f64::INFINITY, 0.05] {
            let law = CorrectionLaw {
                mu: 0.5,
                nu: 0.5,
                cap: Cap {
                    fraction,
                    absolute: None,
                },
                v_epsilon: 1e-9,
            };
            for has_error in [false, true] {
                let jacobian = columns(&law, &x, has_error, 1e-3, 1e-3);
                for (column, derivatives) in jacobian.iter().enumerate() {
                    let h = 1e-7;
                    let at = |shift: f64| {
                        let mut shifted = x;
                        shifted[column] += shift;
                        update(&law, &shifted, has_error, 1e-3, 1e-3)
                    };
                    let (plus, minus) = (at(h), at(-h));
                    for (row, &exact) in derivatives.iter().enumerate() {
                        let difference = (plus[row] - minus[row]) / (2.0 * h);
                        let scale = exact.abs().max(1.0);
                        assert!(
                            (difference - exact).abs() < 1e-6 * scale,
                            "cap {fraction}, error {has_error}: d s[{row}] / d x[{column}] = \
                             {exact}, differences {difference}"
                        );
                    }
                }
            }
        }
    }
}
