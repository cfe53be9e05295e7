//! What `tandem identify` writes: the fitted parameters (TOML, or CSV by extension) and a plot
//! of the measured and fitted outputs.

use std::fmt::Write as _;
use std::path::Path;

use super::Fit;
use crate::error::{Error, Result};
use crate::gradient::Outputs;
use crate::output::csv::format_float;
use crate::output::plot::{time_series, Layout, PlotOptions, TimeSeries};

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
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

/// A float as TOML writes it (always with a decimal point or exponent).
fn toml_float(value: f64) -> String {
    toml::Value::Float(value).to_string()
}

/// Draws the measured and the fitted values of every cost output into `path` (`.png` or
/// `.svg`): one panel with both when there is one output, stacked panels otherwise.
pub fn plot(path: &Path, outputs: &Outputs) -> Result<()> {
    let names: Vec<(String, String)> = outputs
        .columns
        .iter()
        .map(|(name, _, _)| (format!("{name} measured"), format!("{name} fitted")))
        .collect();
    let mut columns: Vec<(&str, &[f64])> = Vec::new();
    for ((measured_name, fitted_name), (_, fitted, measured)) in names.iter().zip(&outputs.columns)
    {
        if let Some(measured) = measured {
            columns.push((measured_name.as_str(), measured.as_slice()));
        }
        columns.push((fitted_name.as_str(), fitted.as_slice()));
    }
    let options = PlotOptions {
        title: Some("tandem identify: measured and fitted".into()),
        layout: if outputs.columns.len() == 1 {
            Layout::Overlay
        } else {
            Layout::Stacked
        },
        ..PlotOptions::default()
    };
    time_series(
        path,
        &TimeSeries {
            time: &outputs.times,
            columns,
        },
        &options,
    )
}
