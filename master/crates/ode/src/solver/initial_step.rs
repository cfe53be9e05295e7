//! The starting step size of an adaptive method (Hairer, Nørsett, Wanner, *Solving ODEs I*,
//! II.4, algorithm `hinit`): one explicit Euler trial step estimates the second derivative.

use super::{Ode, Tolerances};

/// A starting step from `(t, x)` with `f0 = f(t, x)` for a method of order `order`, at most
/// `max_step`.
pub fn initial_step<O: Ode + ?Sized>(
    ode: &mut O,
    t: f64,
    x: &[f64],
    f0: &[f64],
    tolerances: &Tolerances,
    max_step: f64,
    order: u32,
) -> Result<f64, O::Error> {
    let n = x.len();
    if n == 0 {
        return Ok(max_step);
    }
    let d0 = tolerances.norm(x, x, |i| x[i]);
    let d1 = tolerances.norm(x, x, |i| f0[i]);
    let h0 = if d0 < 1e-5 || d1 < 1e-5 {
        1e-6
    } else {
        0.01 * d0 / d1
    }
    .min(max_step);
    let trial: Vec<f64> = (0..n).map(|i| x[i] + h0 * f0[i]).collect();
    let mut f1 = vec![0.0; n];
    ode.derivatives(t + h0, &trial, &mut f1)?;
    let d2 = tolerances.norm(x, x, |i| f1[i] - f0[i]) / h0;
    let h1 = if d1.max(d2) <= 1e-15 {
        (h0 * 1e-3).max(1e-6)
    } else {
        (0.01 / d1.max(d2)).powf(1.0 / f64::from(order))
    };
    Ok((100.0 * h0).min(h1).min(max_step))
}
