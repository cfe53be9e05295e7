//! What `tandem identify` writes: the fitted parameters (TOML, or CSV by extension) and a plot
//! comparing the measured outputs with the fitted and the start responses.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::Result;
use crate::float_text::format_float;
use crate::gradient::Outputs;
use crate::identify::Fit;
use crate::output::plot::{panels, Mark, Panel, PlotOptions, Signal};

/// Writes the fitted parameters to `path`: a TOML table `[parameters]` of
/// `"component.parameter" = value` (with the start values and bounds as comments), or, for a
/// `.csv` path, the columns `parameter,start,fitted,lower,upper`.
pub fn write_parameters(path: &Path, fit: &Fit) -> Result<()> {
    let csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let bound = |b: Option<f64>| b.map_or(String::new(), format_float);
    let mut text = String::new();
    if csv {
        text.push_str("parameter,start,fitted,lower,upper\n");
        for ((b, start), fitted) in fit.bounds.iter().zip(&fit.start).zip(&fit.fitted) {
            let _ = writeln!(
                text,
                "{},{},{},{},{}",
                b.name,
                format_float(*start),
                format_float(*fitted),
                bound(b.lower),
                bound(b.upper)
            );
        }
    } else {
        let _ = writeln!(
            text,
            "# Fitted by tandem identify: J from {} to {} in {} iterations ({}).",
            format_float(fit.start_cost),
            format_float(fit.cost),
            fit.iterations.last().map_or(0, |i| i.number),
            fit.stopped
        );
        text.push_str("[parameters]\n");
        for ((b, start), fitted) in fit.bounds.iter().zip(&fit.start).zip(&fit.fitted) {
            let _ = writeln!(
                text,
                "\"{}\" = {}  # start {}, bounds {}:{}",
                b.name,
                toml_float(*fitted),
                format_float(*start),
                bound(b.lower),
                bound(b.upper)
            );
        }
    }
    Ok(crate::files::write_output(path, text)?)
}

/// A float as TOML writes it (always with a decimal point or exponent).
fn toml_float(value: f64) -> String {
    toml::Value::Float(value).to_string()
}

/// Palette indices of the compared signals.
const MEASURED_COLOR: usize = 7;
const FITTED_COLOR: usize = 0;
const START_COLOR: usize = 1;

/// Draws into `path` (`.png` or `.svg`) one panel per cost output with the measurements as
/// markers, the `fitted` response as a line and the `start` response dashed, then a panel of
/// the residuals (measured − fitted) of the measured outputs. `fitted` and `start` come from
/// the same problem, so their times and columns match.
pub fn plot(path: &Path, fitted: &Outputs, start: &Outputs) -> Result<()> {
    let residuals = residuals(fitted);
    let options = PlotOptions {
        title: Some("tandem identify: measured, fitted and start responses".into()),
        ..PlotOptions::default()
    };
    panels(
        path,
        &fitted.times,
        &figure(fitted, start, &residuals),
        &options,
    )
}

/// Each measured output's name and residuals, measured − fitted.
fn residuals(fitted: &Outputs) -> Vec<(&str, Vec<f64>)> {
    fitted
        .columns
        .iter()
        .filter_map(|(name, fitted, measured)| {
            let measured = measured.as_ref()?;
            Some((
                name.as_str(),
                measured.iter().zip(fitted).map(|(m, f)| m - f).collect(),
            ))
        })
        .collect()
}

/// The panels of [`plot`]: one per output, then the residuals when any output is measured.
fn figure<'a>(
    fitted: &'a Outputs,
    start: &'a Outputs,
    residuals: &'a [(&'a str, Vec<f64>)],
) -> Vec<Panel<'a>> {
    let mut figure: Vec<Panel> = fitted
        .columns
        .iter()
        .zip(&start.columns)
        .map(|((name, fitted, measured), (_, start, _))| {
            let mut signals = Vec::with_capacity(3);
            if let Some(measured) = measured {
                signals.push(Signal {
                    name: "measured",
                    values: measured,
                    mark: Mark::Markers,
                    color: MEASURED_COLOR,
                });
            }
            signals.push(Signal {
                name: "fitted",
                values: fitted,
                mark: Mark::Line,
                color: FITTED_COLOR,
            });
            signals.push(Signal {
                name: "start",
                values: start,
                mark: Mark::Dashed,
                color: START_COLOR,
            });
            Panel {
                label: Some(name.as_str()),
                signals,
            }
        })
        .collect();
    if !residuals.is_empty() {
        figure.push(Panel {
            label: Some("measured − fitted"),
            signals: residuals
                .iter()
                .enumerate()
                .map(|(index, (name, values))| Signal {
                    name,
                    values,
                    mark: Mark::Line,
                    color: index,
                })
                .collect(),
        });
    }
    figure
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(fitted: [f64; 3], measured: Option<[f64; 3]>) -> Outputs {
        Outputs {
            times: vec![0.0, 0.5, 1.0],
            columns: vec![
                ("a.y".into(), fitted.to_vec(), measured.map(|m| m.to_vec())),
                ("b.y".into(), fitted.to_vec(), None),
            ],
        }
    }

    #[test]
    fn each_output_compares_measured_fitted_and_start_over_a_residual_panel() {
        let fitted = outputs([1.0, 2.0, 3.0], Some([1.5, 2.0, 2.0]));
        let start = outputs([0.0, 0.0, 0.0], Some([1.5, 2.0, 2.0]));
        let residuals = residuals(&fitted);
        let figure = figure(&fitted, &start, &residuals);
        let summary: Vec<_> = figure
            .iter()
            .map(|p| {
                (
                    p.label,
                    p.signals.iter().map(|s| (s.name, s.mark)).collect(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (
                    Some("a.y"),
                    vec![
                        ("measured", Mark::Markers),
                        ("fitted", Mark::Line),
                        ("start", Mark::Dashed)
                    ]
                ),
                (
                    Some("b.y"),
                    vec![("fitted", Mark::Line), ("start", Mark::Dashed)]
                ),
                (Some("measured − fitted"), vec![("a.y", Mark::Line)]),
            ]
        );
        assert_eq!(
            figure[0].signals[2].values,
            [0.0, 0.0, 0.0],
            "the start response"
        );
        assert_eq!(figure[2].signals[0].values, [0.5, 0.0, -1.0]);
    }
}
