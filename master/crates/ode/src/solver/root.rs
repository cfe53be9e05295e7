//! Locating the first zero crossing of any event indicator inside a step, by the Illinois
//! variant of regula falsi on the step's dense output.

/// Whether an indicator moved between the FMI domains `z > 0` and `z <= 0`.
pub fn sign_changed(before: f64, after: f64) -> bool {
    (before > 0.0) != (after > 0.0)
}

/// A bracketed crossing: no indicator changed sign up to `before`, at least one has at `after`.
#[derive(Debug, Clone, PartialEq)]
pub struct Crossing {
    /// Latest time known to be before the crossing.
    pub before: f64,
    /// Earliest time known to be after the crossing.
    pub after: f64,
    /// Indicators at `after`.
    pub indicators_after: Vec<f64>,
}

/// Narrows the bracket [`t0`, `t1`] (indicators `z0` at `t0`, `z1` at `t1`, with at least one
/// sign change) until it is shorter than `time_tolerance`; `indicators(t, z)` evaluates the
/// indicators at an interior time.
pub fn locate_crossing<E>(
    t0: f64,
    z0: &[f64],
    t1: f64,
    z1: &[f64],
    time_tolerance: f64,
    mut indicators: impl FnMut(f64, &mut [f64]) -> Result<(), E>,
) -> Result<Crossing, E> {
    let (mut ta, mut tb) = (t0, t1);
    let mut za = z0.to_vec();
    let mut zb = z1.to_vec();
    let mut zc = vec![0.0; z0.len()];
    // Illinois: halve the weight of the end that stays fixed twice in a row.
    let (mut weight_a, mut weight_b) = (1.0, 1.0);
    let mut last_side = 0i8;
    for _ in 0..200 {
        if tb - ta <= time_tolerance {
            break;
        }
        let secant = (0..za.len())
            .filter(|&i| sign_changed(za[i], zb[i]))
            .map(|i| {
                let (fa, fb) = (za[i] * weight_a, zb[i] * weight_b);
                ta + (tb - ta) * fa / (fa - fb)
            })
            .fold(f64::INFINITY, f64::min);
        // Keep the trial strictly inside so the bracket always shrinks.
        let margin = 0.01 * (tb - ta);
        let tc = if secant.is_finite() {
            secant.clamp(ta + margin, tb - margin)
        } else {
            0.5 * (ta + tb)
        };
        indicators(tc, &mut zc)?;
        if (0..za.len()).any(|i| sign_changed(za[i], zc[i])) {
            tb = tc;
            zb.copy_from_slice(&zc);
            weight_b = 1.0;
            if last_side == -1 {
                weight_a *= 0.5;
            }
            last_side = -1;
        } else {
            ta = tc;
            za.copy_from_slice(&zc);
            weight_a = 1.0;
            if last_side == 1 {
                weight_b *= 0.5;
            }
            last_side = 1;
        }
    }
    Ok(Crossing {
        before: ta,
        after: tb,
        indicators_after: zb,
    })
}
