//! The energy plot of a run: the total energy, the residual power and residual energy of
//! every bond and, when correcting, the correction forces and leftovers, one panel per
//! quantity over a shared time axis.

use std::path::Path;

use crate::energy::{EnergyColumn, Quantity};
use crate::error::Result;
use crate::output::plot::{grouped_time_series, PlotOptions};
use crate::simulate::Trace;

/// The panels, top to bottom.
const PANELS: [Quantity; 5] = [
    Quantity::TotalEnergy,
    Quantity::ResidualPower,
    Quantity::ResidualEnergy,
    Quantity::CorrectionForce,
    Quantity::Leftover,
];

/// Draws the energy `columns` of `trace` (which holds them by name) into `path` (`.png` or
/// `.svg`), titled `title`.
pub fn draw(path: &Path, title: &str, trace: &Trace, columns: &[EnergyColumn]) -> Result<()> {
    let groups: Vec<Vec<(&str, &[f64])>> = PANELS
        .iter()
        .map(|&quantity| {
            columns
                .iter()
                .filter(|c| c.quantity == quantity)
                .filter_map(|column| signal(trace, column))
                .collect::<Vec<_>>()
        })
        .filter(|group| !group.is_empty())
        .collect();
    let groups: Vec<&[(&str, &[f64])]> = groups.iter().map(Vec::as_slice).collect();
    let options = PlotOptions {
        title: Some(title.to_string()),
        ..PlotOptions::default()
    };
    grouped_time_series(path, &trace.time, &groups, &options)
}

/// The samples of `column` in `trace`, with its name.
fn signal<'a>(trace: &'a Trace, column: &'a EnergyColumn) -> Option<(&'a str, &'a [f64])> {
    trace
        .names
        .iter()
        .position(|name| *name == column.name)
        .map(|index| (column.name.as_str(), trace.columns[index].as_slice()))
}
