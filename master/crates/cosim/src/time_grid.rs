//! The time grids a run walks (communication steps, macro steps, output rows), checked before
//! the run starts: a grid whose ends are not finite, whose step does not advance time in
//! floating point (`t + h == t`) or that has more than 2^53 points never ends, and would only
//! fill the disk with rows at one time.

use fmi_host::float_text::format_float;

/// Most points of a grid: past 2^53 a point's index is no longer exact as a float.
pub const MAX_POINTS: f64 = 9_007_199_254_740_992.0;

/// Checks that the interval from `start` to `stop` has finite ends; the message names the
/// end that is not.
pub fn check_interval(start: f64, stop: f64) -> Result<(), String> {
    for (name, value) in [("start time", start), ("stop time", stop)] {
        if !value.is_finite() {
            return Err(format!(
                "the {name} {} is not a finite number: a run to it never ends",
                format_float(value)
            ));
        }
    }
    Ok(())
}

/// Checks that a grid of spacing `step`, called `what` in the message, from `start` to
/// `stop` (finite, `start < stop`) advances time at every point and has at most
/// [`MAX_POINTS`] points.
pub fn check_step(what: &str, start: f64, stop: f64, step: f64) -> Result<(), String> {
    let step_text = format_float(step);
    if !(step > 0.0 && step.is_finite()) {
        return Err(format!(
            "the {what} {step_text} must be positive and finite"
        ));
    }
    // The largest magnitude on the grid has the coarsest floats: if the step advances time
    // there, it does everywhere.
    let widest = start.abs().max(stop.abs());
    if widest + step == widest {
        let smallest = widest.next_up() - widest;
        return Err(format!(
            "the {what} {step_text} does not advance time at t = {} in floating point (t + \
             {step_text} == t): it must be at least {} there",
            format_float(widest),
            format_float(smallest)
        ));
    }
    let points = (stop - start) / step;
    if points > MAX_POINTS {
        return Err(format!(
            "the {what} {step_text} makes {} steps from {} to {}, more than 2^53: the run would \
             never end",
            format_float(points.ceil()),
            format_float(start),
            format_float(stop)
        ));
    }
    Ok(())
}

/// The bytes a CSV result file of `rows` rows of `columns` numbers (time included) is expected
/// to take: a number as the result files write it takes up to about 20 characters.
pub fn expected_csv_bytes(rows: f64, columns: usize) -> f64 {
    const BYTES_PER_VALUE: f64 = 20.0;
    rows * columns as f64 * BYTES_PER_VALUE
}

/// Result files expected to be larger than this need `--force`.
pub const MAX_UNFORCED_OUTPUT: f64 = 10e9;

/// Refuses a result file expected to exceed [`MAX_UNFORCED_OUTPUT`] bytes unless `force`:
/// `rows` rows of `columns` numbers, `option` the option that sets the rows' spacing.
pub fn check_output_size(
    rows: f64,
    columns: usize,
    force: bool,
    option: &str,
) -> Result<(), String> {
    let bytes = expected_csv_bytes(rows, columns);
    if force || bytes <= MAX_UNFORCED_OUTPUT {
        return Ok(());
    }
    Err(format!(
        "the result file would take about {:.0} GB ({} rows of {columns} columns): give a \
         larger {option}, or --force to write it anyway",
        bytes / 1e9,
        format_float(rows.ceil())
    ))
}

/// The `k`-th point of a grid from `start` with spacing `step`, computed without accumulating
/// rounding error and clipped to `stop`.
pub fn grid_point(start: f64, step: f64, k: usize, stop: f64) -> f64 {
    (start + k as f64 * step).min(stop)
}

/// Number of grid intervals of `step` needed to reach `stop` from `start` (the last may be shorter).
pub fn grid_intervals(start: f64, step: f64, stop: f64) -> usize {
    let exact = (stop - start) / step;
    let rounded = exact.round();
    if (exact - rounded).abs() <= 1e-9 * rounded.max(1.0) {
        rounded as usize
    } else {
        exact.ceil() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_that_never_end_are_refused() {
        assert!(check_interval(0.0, 1.0).is_ok());
        assert_eq!(
            check_interval(0.0, f64::INFINITY).unwrap_err(),
            "the stop time inf is not a finite number: a run to it never ends"
        );
        assert!(check_step("step size", 1.0, 2.0, 1e-3).is_ok());
        let stuck = check_step("output interval", 1.0, 2.0, 1e-17).unwrap_err();
        assert!(
            stuck.contains("does not advance time at t = 2")
                && stuck.contains("4.440892098500626e-16"),
            "{stuck}"
        );
        let tiny = check_step("step size", 0.0, 1.0, 1e-300).unwrap_err();
        assert!(tiny.contains("does not advance time at t = 1 "), "{tiny}");
        let endless = check_step("step size", 0.0, 1e10, 1e-6).unwrap_err();
        assert!(endless.contains("1e16 steps"), "{endless}");
        let far = check_step("step size", 0.0, 1e308, 1.0).unwrap_err();
        assert!(far.contains("does not advance time at t = 1e308"), "{far}");
    }

    #[test]
    fn large_results_need_force() {
        assert!(check_output_size(1e6, 3, false, "--output-interval").is_ok());
        let error = check_output_size(1e9, 11, false, "--output-interval").unwrap_err();
        assert!(error.contains("about 220 GB"), "{error}");
        assert!(check_output_size(1e9, 11, true, "--output-interval").is_ok());
    }
}
