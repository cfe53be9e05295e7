//! `--grid comp.p=lo:hi:n` (or `comp.p=log:lo:hi:n`): evenly spaced values of one parameter,
//! and the full factorial of several grids.

use crate::error::{Error, Result};

/// How the values of a grid are spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spacing {
    /// Equal differences.
    Linear,
    /// Equal ratios (both ends positive).
    Log,
}

/// The values of one parameter over a grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// `component.parameter`.
    pub name: String,
    /// The first value.
    pub low: f64,
    /// The last value.
    pub high: f64,
    /// How many values (from 1).
    pub count: usize,
    /// Linear or logarithmic.
    pub spacing: Spacing,
}

impl Grid {
    /// Parses `comp.p=lo:hi:n` or `comp.p=log:lo:hi:n`.
    pub fn parse(text: &str) -> Result<Grid> {
        let invalid = |message: &str| {
            Error::invalid_value(
                format!("--grid {text}"),
                format!(
                    "{message} (expected component.parameter=low:high:count or \
                              component.parameter=log:low:high:count)"
                ),
            )
        };
        let (name, range) = text
            .split_once('=')
            .ok_or_else(|| invalid("no '=' after the parameter"))?;
        let (spacing, range) = match range.trim().strip_prefix("log:") {
            Some(rest) => (Spacing::Log, rest),
            None => (Spacing::Linear, range.trim()),
        };
        let parts: Vec<&str> = range.split(':').map(str::trim).collect();
        let [low, high, count] = parts[..] else {
            return Err(invalid("the range needs three fields"));
        };
        let number = |field: &str, what: &str| {
            field
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| invalid(&format!("{what} {field} is not a finite number")))
        };
        let (low, high) = (number(low, "low")?, number(high, "high")?);
        let count = count
            .parse::<usize>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| invalid(&format!("count {count} is not a whole number from 1")))?;
        if spacing == Spacing::Log && (low <= 0.0 || high <= 0.0) {
            return Err(invalid("a log grid needs positive ends"));
        }
        Ok(Grid {
            name: name.trim().to_string(),
            low,
            high,
            count,
            spacing,
        })
    }

    /// The values, from `low` to `high` (both exact).
    pub fn values(&self) -> Vec<f64> {
        if self.count == 1 {
            return vec![self.low];
        }
        let last = (self.count - 1) as f64;
        (0..self.count)
            .map(|i| {
                let fraction = i as f64 / last;
                match (i, self.spacing) {
                    (0, _) => self.low,
                    (i, _) if i == self.count - 1 => self.high,
                    (_, Spacing::Linear) => self.low + (self.high - self.low) * fraction,
                    (_, Spacing::Log) => {
                        (self.low.ln() + (self.high.ln() - self.low.ln()) * fraction).exp()
                    }
                }
            })
            .collect()
    }
}

/// Every combination of the grids' values, the first grid varying slowest.
pub fn factorial(grids: &[Grid]) -> Vec<Vec<f64>> {
    grids.iter().fold(vec![Vec::new()], |sets, grid| {
        let values = grid.values();
        sets.iter()
            .flat_map(|set| {
                values.iter().map(move |&value| {
                    let mut longer = set.clone();
                    longer.push(value);
                    longer
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_and_log_grids_hit_both_ends() {
        let linear = Grid::parse("a.k = 1:2:5").unwrap();
        assert_eq!(linear.name, "a.k");
        assert_eq!(linear.values(), [1.0, 1.25, 1.5, 1.75, 2.0]);
        let log = Grid::parse("a.k=log:1e-2:1e2:5").unwrap();
        let values = log.values();
        for (value, expected) in values.iter().zip([1e-2, 1e-1, 1.0, 1e1, 1e2]) {
            assert!((value / expected - 1.0).abs() < 1e-14, "{values:?}");
        }
        assert_eq!(values[0], 1e-2);
        assert_eq!(values[4], 1e2);
        assert_eq!(Grid::parse("a.k=3:9:1").unwrap().values(), [3.0]);
    }

    #[test]
    fn the_factorial_varies_the_first_grid_slowest() {
        let grids = [
            Grid::parse("a.x=0:1:2").unwrap(),
            Grid::parse("b.y=10:30:3").unwrap(),
        ];
        let sets = factorial(&grids);
        assert_eq!(
            sets,
            [
                [0.0, 10.0],
                [0.0, 20.0],
                [0.0, 30.0],
                [1.0, 10.0],
                [1.0, 20.0],
                [1.0, 30.0]
            ]
        );
    }

    #[test]
    fn bad_grids_say_what_is_wrong() {
        for (text, needle) in [
            ("a.k", "no '='"),
            ("a.k=1:2", "three fields"),
            ("a.k=1:x:3", "high x is not a finite number"),
            ("a.k=1:2:0", "count 0"),
            ("a.k=log:0:2:3", "positive ends"),
        ] {
            let message = Grid::parse(text).unwrap_err().to_string();
            assert!(message.contains(needle), "{text}: {message}");
            assert!(message.contains(text), "{text}: {message}");
        }
    }
}
