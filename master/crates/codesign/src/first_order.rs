//! The first-order optimality (KKT) check of the optimizer's result: −∇f must be a
//! non-negative combination of the outward normals of the bounds and linear constraints that
//! are active there. SLSQP may stop on rounding (NLopt's "roundoff limited") at a true
//! optimum or short of one; this check tells which.

use nalgebra::{DMatrix, DVector};

use super::problem_file::{DesignEntry, LinearConstraint};

/// A bound or constraint counts as active within this fraction of the design's ranges.
const ACTIVE: f64 = 1e-6;

/// The result of the check.
#[derive(Debug, Clone)]
pub struct FirstOrder {
    /// The active bounds and constraints, as `m = 0.5 (min)` or `m + M = 3.5 (min)`.
    pub active: Vec<String>,
    /// min over μ ≥ 0 of |∇f + Σ μᵢ nᵢ|, relative to the baseline's |∇f|: zero at a KKT point.
    pub residual: f64,
}

impl FirstOrder {
    /// Whether the point satisfies the first-order conditions to `tolerance`.
    pub fn holds(&self, tolerance: f64) -> bool {
        self.residual <= tolerance
    }
}

/// Checks the design `d` with gradient `gradient` against the bounds of `design` and
/// `constraints`; `reference` is the gradient norm the residual is measured against.
pub fn check(
    d: &[f64],
    gradient: &[f64],
    reference: f64,
    design: &[DesignEntry],
    constraints: &[LinearConstraint],
) -> FirstOrder {
    let n = d.len();
    let mut normals: Vec<DVector<f64>> = Vec::new();
    let mut active = Vec::new();
    let unit = |i: usize, sign: f64| DVector::from_fn(n, |k, _| if k == i { sign } else { 0.0 });
    for (i, entry) in design.iter().enumerate() {
        let tolerance = ACTIVE * (entry.max - entry.min).abs().max(f64::MIN_POSITIVE);
        // An active lower bound pushes outward along −eᵢ, an upper one along +eᵢ.
        if (d[i] - entry.min).abs() <= tolerance {
            normals.push(unit(i, -1.0));
            active.push(format!("{} = {} (min)", entry.name, entry.min));
        } else if (d[i] - entry.max).abs() <= tolerance {
            normals.push(unit(i, 1.0));
            active.push(format!("{} = {} (max)", entry.name, entry.max));
        }
    }
    for constraint in constraints {
        let a = DVector::from_column_slice(&constraint.coefficients);
        let value: f64 = a.iter().zip(d).map(|(a, d)| a * d).sum();
        let scale: f64 = a
            .iter()
            .zip(design)
            .map(|(a, e)| (a * (e.max - e.min)).abs())
            .sum::<f64>()
            .max(f64::MIN_POSITIVE);
        if let Some(min) = constraint
            .min
            .filter(|min| (value - min).abs() <= ACTIVE * scale)
        {
            normals.push(-a.clone());
            active.push(format!("{} = {min} (min)", constraint.text));
        } else if let Some(max) = constraint
            .max
            .filter(|max| (value - max).abs() <= ACTIVE * scale)
        {
            normals.push(a);
            active.push(format!("{} = {max} (max)", constraint.text));
        }
    }
    let g = DVector::from_column_slice(gradient);
    let reference = if reference > 0.0 { reference } else { 1.0 };
    let residual = if normals.is_empty() {
        g.norm()
    } else {
        let matrix = DMatrix::from_columns(&normals);
        let mu = non_negative_least_squares(&matrix, &(-&g));
        (&g + &matrix * &mu).norm()
    };
    FirstOrder {
        active,
        residual: residual / reference,
    }
}

/// argmin over μ ≥ 0 of |A μ − b| by Lawson and Hanson's active-set method (a handful of
/// columns here, so plain least squares on the passive set each time).
fn non_negative_least_squares(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    let k = a.ncols();
    let mut mu = DVector::zeros(k);
    let mut passive = vec![false; k];
    let tolerance = 1e-12 * (a.norm() * b.norm()).max(f64::MIN_POSITIVE);
    // Each outer pass frees one column; 3k passes bound a degenerate cycle.
    for _ in 0..3 * k {
        let w = a.transpose() * (b - a * &mu);
        let Some(j) = (0..k)
            .filter(|&j| !passive[j] && w[j] > tolerance)
            .max_by(|&i, &j| w[i].total_cmp(&w[j]))
        else {
            break;
        };
        passive[j] = true;
        loop {
            let columns: Vec<usize> = (0..k).filter(|&i| passive[i]).collect();
            let sub = a.select_columns(&columns);
            let solution = sub
                .svd(true, true)
                .solve(b, 1e-12)
                .expect("the SVD was computed with both factors");
            let mut s = DVector::zeros(k);
            for (index, &column) in columns.iter().enumerate() {
                s[column] = solution[index];
            }
            if columns.iter().all(|&i| s[i] > 0.0) {
                mu = s;
                break;
            }
            // Step from μ towards s until the first passive multiplier reaches zero.
            let alpha = columns
                .iter()
                .filter(|&&i| s[i] <= 0.0)
                .map(|&i| mu[i] / (mu[i] - s[i]))
                .fold(f64::INFINITY, f64::min);
            mu += (s - &mu) * alpha;
            for &i in &columns {
                if mu[i] <= tolerance {
                    mu[i] = 0.0;
                    passive[i] = false;
                }
            }
        }
    }
    mu
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, min: f64, max: f64) -> DesignEntry {
        DesignEntry {
            name: name.into(),
            start: min,
            min,
            max,
        }
    }

    #[test]
    fn a_vertex_where_the_limits_hold_back_the_descent_is_an_optimum() {
        let design = [entry("a", 0.0, 1.0), entry("b", 0.0, 1.0)];
        let sum = LinearConstraint {
            coefficients: vec![1.0, 1.0],
            min: Some(1.0),
            max: None,
            text: "a + b".into(),
        };
        // f grows with a and with b, faster with a: the optimum is a = 0, b = 1 on a + b = 1.
        let at = check(
            &[0.0, 1.0],
            &[2.0, 1.0],
            2.0,
            &design,
            std::slice::from_ref(&sum),
        );
        assert_eq!(at.active, ["a = 0 (min)", "b = 1 (max)", "a + b = 1 (min)"]);
        assert!(at.holds(1e-10), "{at:?}");
        // At a = 1, b = 0 moving along a + b = 1 towards b lowers f: a multiplier is negative.
        let wrong = check(&[1.0, 0.0], &[2.0, 1.0], 2.0, &design, &[sum]);
        assert!(!wrong.holds(1e-6), "{wrong:?}");
        assert!(
            (wrong.residual - 0.5f64.sqrt() / 2.0).abs() < 1e-12,
            "{wrong:?}"
        );
        // Inside the box with a non-zero gradient: not an optimum.
        let inside = check(&[0.5, 0.5], &[2.0, 1.0], 2.0, &design, &[]);
        assert!(inside.active.is_empty() && !inside.holds(1e-6));
        // Inside with a vanishing gradient: an optimum.
        assert!(check(&[0.5, 0.5], &[1e-12, 0.0], 2.0, &design, &[]).holds(1e-10));
    }
}
