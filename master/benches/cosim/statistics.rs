//! The statistic the tables report.

use std::time::Duration;

/// The median of `times` (the lower middle one for an even count); sorts them.
pub fn median(times: &mut [Duration]) -> Duration {
    assert!(!times.is_empty(), "no run was timed");
    times.sort();
    times[(times.len() - 1) / 2]
}

/// `time` in seconds.
pub fn seconds(time: Duration) -> f64 {
    time.as_secs_f64()
}
