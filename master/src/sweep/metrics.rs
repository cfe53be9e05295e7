//! `--metric kind:column`: one number per run from a result column, over the rows the run wrote
//! (the macro-step grid): its final value, minimum, maximum, mean or root mean square.

use crate::error::{Error, Result};
use crate::simulate::Trace;
use crate::suggest::did_you_mean;

/// What a metric makes of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The value in the last row.
    Final,
    /// The smallest value.
    Min,
    /// The largest value.
    Max,
    /// The mean over the rows.
    Mean,
    /// The root mean square over the rows.
    Rms,
}

/// A metric of one result column.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// What it computes.
    pub kind: Kind,
    /// The result column (`component.variable`, or an energy column).
    pub column: String,
}

impl Metric {
    /// Parses `final:c.y` (also `min:`, `max:`, `mean:`, `rms:`).
    pub fn parse(text: &str) -> Result<Metric> {
        let invalid = |message: &str| {
            Error::invalid_value(
                format!("--metric {text}"),
                format!(
                    "{message} (expected final:, min:, max:, mean: or rms: and a result column)"
                ),
            )
        };
        let (kind, column) = text
            .split_once(':')
            .ok_or_else(|| invalid("no ':' after the kind"))?;
        let kind = match kind.trim() {
            "final" => Kind::Final,
            "min" => Kind::Min,
            "max" => Kind::Max,
            "mean" => Kind::Mean,
            "rms" => Kind::Rms,
            other => return Err(invalid(&format!("unknown kind {other}"))),
        };
        Ok(Metric {
            kind,
            column: column.trim().to_string(),
        })
    }

    /// The table's column name: `kind:column`.
    pub fn name(&self) -> String {
        let kind = match self.kind {
            Kind::Final => "final",
            Kind::Min => "min",
            Kind::Max => "max",
            Kind::Mean => "mean",
            Kind::Rms => "rms",
        };
        format!("{kind}:{}", self.column)
    }

    /// An error unless the result files have the column (`header`, without time).
    pub fn check(&self, header: &[String], system: &str) -> Result<()> {
        if header.contains(&self.column) {
            return Ok(());
        }
        Err(Error::invalid_value(
            format!("--metric {}", self.name()),
            format!(
                "{} is no result column of {system} (they are: {}){}",
                self.column,
                header.join(", "),
                did_you_mean(&self.column, header.iter().map(String::as_str))
            ),
        ))
    }

    /// The metric of a run's rows; the column was checked.
    pub fn of(&self, trace: &Trace) -> f64 {
        let index = trace
            .names
            .iter()
            .position(|name| *name == self.column)
            .expect("metric columns are checked against the result columns");
        let values = &trace.columns[index];
        let rows = values.len() as f64;
        match self.kind {
            Kind::Final => values.last().copied().unwrap_or(f64::NAN),
            Kind::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
            Kind::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Kind::Mean => values.iter().sum::<f64>() / rows,
            Kind::Rms => (values.iter().map(|v| v * v).sum::<f64>() / rows).sqrt(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fmi_host::model_description::VariableType;

    #[test]
    fn metrics_of_a_column() {
        let trace = Trace {
            names: vec!["a.x".into(), "b.y".into()],
            types: vec![VariableType::Float64; 2],
            time: vec![0.0, 1.0, 2.0, 3.0],
            columns: vec![vec![0.0; 4], vec![3.0, -4.0, 1.0, 2.0]],
        };
        let of = |text: &str| Metric::parse(text).unwrap().of(&trace);
        assert_eq!(of("final:b.y"), 2.0);
        assert_eq!(of("min:b.y"), -4.0);
        assert_eq!(of("max: b.y"), 3.0);
        assert_eq!(of("mean:b.y"), 0.5);
        assert_eq!(of("rms:b.y"), (30.0f64 / 4.0).sqrt());
    }

    #[test]
    fn unknown_kinds_and_columns_are_named() {
        let message = Metric::parse("median:a.x").unwrap_err().to_string();
        assert!(message.contains("unknown kind median"), "{message}");
        let metric = Metric::parse("final:a.xx").unwrap();
        let message = metric
            .check(&["a.x".into()], "s.toml")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("a.xx is no result column of s.toml"),
            "{message}"
        );
    }
}
