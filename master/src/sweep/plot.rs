//! `--plot` of `tandem sweep`: each metric against each swept parameter as markers (one file
//! per parameter, a panel per metric), or for Monte Carlo sets a histogram of each metric (one
//! file per metric), drawn by [`crate::output::plot`]. Failed runs have no point.

use std::path::{Path, PathBuf};

use super::table::SweepTable;
use crate::error::{Error, Result};
use crate::output::plot::{panels, Mark, Panel, PlotOptions, Signal};

/// What `--plot` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Figure {
    /// Each metric against each parameter.
    Scatter,
    /// A histogram of each metric.
    Histogram,
}

/// Draws `table` as `figure` into `path` (`.png` or `.svg`), or into `path` with the
/// parameter's or metric's name after its stem when there are several; returns the files.
pub fn plot(table: &SweepTable, figure: Figure, path: &Path) -> Result<Vec<PathBuf>> {
    if table.metrics.is_empty() {
        return Err(Error::invalid_value(
            format!("--plot {}", path.display()),
            "the sweep has no metric to plot: give --metric, --cost or --gradient",
        ));
    }
    let metrics: Vec<Vec<f64>> = (0..table.metrics.len())
        .map(|column| {
            table
                .rows
                .iter()
                .map(|row| row.outcome.as_ref().map_or(f64::NAN, |m| m[column]))
                .collect()
        })
        .collect();
    match figure {
        Figure::Scatter => scatter(table, &metrics, path),
        Figure::Histogram => histograms(table, &metrics, path),
    }
}

/// One file per parameter: a panel per metric, a marker per run.
fn scatter(table: &SweepTable, metrics: &[Vec<f64>], path: &Path) -> Result<Vec<PathBuf>> {
    let files = named_files(path, &table.parameters);
    for (column, file) in files.iter().enumerate() {
        let x: Vec<f64> = table
            .rows
            .iter()
            .map(|row| row.parameters[column])
            .collect();
        let figure: Vec<Panel> = table
            .metrics
            .iter()
            .zip(metrics)
            .map(|(name, values)| Panel {
                label: None,
                signals: vec![Signal {
                    name,
                    values,
                    mark: Mark::Markers,
                    color: 0,
                }],
            })
            .collect();
        let options = PlotOptions {
            title: Some(format!(
                "tandem sweep: the metrics against {}",
                table.parameters[column]
            )),
            x_label: table.parameters[column].clone(),
            ..PlotOptions::default()
        };
        panels(file, &x, &figure, &options)?;
    }
    Ok(files)
}

/// One file per metric: the count of runs per bin, as steps.
fn histograms(table: &SweepTable, metrics: &[Vec<f64>], path: &Path) -> Result<Vec<PathBuf>> {
    let files = named_files(path, &table.metrics);
    for ((name, values), file) in table.metrics.iter().zip(metrics).zip(&files) {
        let (x, counts) = steps(values);
        let figure = [Panel {
            label: Some("runs"),
            signals: vec![Signal {
                name,
                values: &counts,
                mark: Mark::Line,
                color: 0,
            }],
        }];
        let finite = values.iter().filter(|v| v.is_finite()).count();
        let options = PlotOptions {
            title: Some(format!("tandem sweep: {name} over {finite} runs")),
            x_label: name.clone(),
            ..PlotOptions::default()
        };
        panels(file, &x, &figure, &options)?;
    }
    Ok(files)
}

/// The outline of the histogram of the finite `values` in about sqrt(n) equal bins: the x and
/// y of each corner, from the baseline at the lowest edge to the baseline at the highest.
fn steps(values: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let (low, high) = finite
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    if finite.is_empty() {
        return (vec![0.0], vec![0.0]);
    }
    let bins = ((finite.len() as f64).sqrt().ceil() as usize).clamp(1, 100);
    let width = (high - low) / bins as f64;
    let mut counts = vec![0.0; bins];
    for v in &finite {
        // The highest value belongs to the last bin, not one past it.
        let bin = if width > 0.0 {
            (((v - low) / width) as usize).min(bins - 1)
        } else {
            0
        };
        counts[bin] += 1.0;
    }
    let edge = |i: usize| low + width * i as f64;
    let mut x = vec![edge(0)];
    let mut y = vec![0.0];
    for (i, &count) in counts.iter().enumerate() {
        x.extend([edge(i), edge(i + 1)]);
        y.extend([count, count]);
    }
    x.push(edge(bins));
    y.push(0.0);
    (x, y)
}

/// `path` for a single name, else `path` with each name (made safe for a file name) after its
/// stem.
fn named_files(path: &Path, names: &[String]) -> Vec<PathBuf> {
    if names.len() == 1 {
        return vec![path.to_path_buf()];
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let extension = path.extension().unwrap_or_default().to_string_lossy();
    names
        .iter()
        .map(|name| {
            let safe: String = name
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || "._-".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            path.with_file_name(format!("{stem}_{safe}.{extension}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::table::RunRow;
    use std::time::Duration;

    #[test]
    fn the_histogram_counts_every_finite_value_once() {
        let values = [0.0, 1.0, 1.5, 2.0, 4.0, f64::NAN, 3.9, 0.1, 2.2, 2.3];
        let (x, y) = steps(&values);
        // Nine finite values: three bins of width 4/3.
        assert_eq!(x.len(), y.len());
        assert_eq!((x[0], *x.last().unwrap()), (0.0, 4.0));
        let counts: Vec<f64> = y[1..y.len() - 1].iter().step_by(2).copied().collect();
        assert_eq!(counts, [3.0, 4.0, 2.0]);
        assert_eq!((y[0], *y.last().unwrap()), (0.0, 0.0));
    }

    #[test]
    fn a_file_per_parameter_and_per_metric() {
        let dir = tempfile::tempdir().unwrap();
        let row = |p: f64, m: Option<f64>| RunRow {
            parameters: vec![p, 2.0 * p],
            outcome: m.map(|m| vec![m, -m]).ok_or_else(|| "failed".to_string()),
            wall_time: Duration::ZERO,
        };
        let table = SweepTable {
            parameters: vec!["a.k".into(), "b.k".into()],
            metrics: vec!["final:a.x".into(), "max:b/y".into()],
            rows: vec![row(1.0, Some(3.0)), row(2.0, None), row(3.0, Some(5.0))],
        };
        let path = dir.path().join("sweep.svg");
        let files = plot(&table, Figure::Scatter, &path).unwrap();
        assert_eq!(
            files,
            [
                dir.path().join("sweep_a.k.svg"),
                dir.path().join("sweep_b.k.svg")
            ]
        );
        let svg = std::fs::read_to_string(&files[1]).unwrap();
        for text in ["b.k", "final:a.x", "max:b/y"] {
            assert!(svg.contains(text), "{text} in the scatter plot");
        }
        let files = plot(&table, Figure::Histogram, &path).unwrap();
        assert_eq!(
            files,
            [
                dir.path().join("sweep_final_a.x.svg"),
                dir.path().join("sweep_max_b_y.svg")
            ]
        );
        let svg = std::fs::read_to_string(&files[0]).unwrap();
        assert!(
            svg.contains("final:a.x over 2 runs"),
            "the title counts the runs"
        );
        let empty = SweepTable {
            metrics: Vec::new(),
            ..table
        };
        let message = plot(&empty, Figure::Scatter, &path)
            .unwrap_err()
            .to_string();
        assert!(message.contains("no metric to plot"), "{message}");
    }
}
