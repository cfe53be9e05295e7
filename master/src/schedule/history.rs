//! The values communicated at past communication points, and the polynomial through the
//! latest of them that gives a connected input its value at any time (ZOH, FOH, SOH).

/// Samples kept per variable: enough for the second-order hold.
const DEPTH: usize = 3;

/// The latest communicated values of one variable, oldest first.
#[derive(Debug, Clone, Default)]
pub struct History {
    times: Vec<f64>,
    values: Vec<f64>,
}

impl History {
    /// Appends the value at `time` (after every earlier sample), dropping the oldest beyond three.
    pub fn push(&mut self, time: f64, value: f64) {
        if self.times.len() == DEPTH {
            self.times.remove(0);
            self.values.remove(0);
        }
        self.times.push(time);
        self.values.push(value);
    }

    /// Forgets every sample but `value` at `time` (initialization updates values in place).
    pub fn reset(&mut self, time: f64, value: f64) {
        self.times.clear();
        self.values.clear();
        self.push(time, value);
    }

    /// The latest sample's value (NaN before any sample).
    pub fn latest(&self) -> f64 {
        self.values.last().copied().unwrap_or(f64::NAN)
    }

    /// The polynomial of degree `degree` (or lower while fewer samples exist) through the
    /// latest `degree + 1` samples, evaluated at `time`: it extrapolates beyond the latest
    /// sample and interpolates between samples (Lagrange form).
    pub fn value_at(&self, time: f64, degree: usize) -> f64 {
        let used = (degree + 1).min(self.times.len());
        let first = self.times.len() - used;
        let (times, values) = (&self.times[first..], &self.values[first..]);
        (0..used)
            .map(|i| {
                let weight: f64 = (0..used)
                    .filter(|&j| j != i)
                    .map(|j| (time - times[j]) / (times[i] - times[j]))
                    .product();
                weight * values[i]
            })
            .sum()
    }
}

/// The histories of every observed variable of every participant.
#[derive(Debug, Clone, Default)]
pub struct Histories {
    participants: Vec<Vec<History>>,
}

/// Where a connected input takes its value from: a participant and one of its observed slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// Participant index.
    pub participant: usize,
    /// Slot among the participant's observed variables.
    pub slot: usize,
}

impl Histories {
    /// Empty histories for participants observing `slots[i]` variables each.
    pub fn new(slots: impl IntoIterator<Item = usize>) -> Self {
        Histories {
            participants: slots
                .into_iter()
                .map(|n| vec![History::default(); n])
                .collect(),
        }
    }

    /// The value of `source` at `time` by the hold of `degree`.
    pub fn value_at(&self, source: Source, time: f64, degree: usize) -> f64 {
        self.participants[source.participant][source.slot].value_at(time, degree)
    }

    /// The latest value of `source`.
    pub fn latest(&self, source: Source) -> f64 {
        self.participants[source.participant][source.slot].latest()
    }

    /// Appends the observed `values` of `participant` at `time`.
    pub fn push(&mut self, participant: usize, time: f64, values: &[f64]) {
        for (history, &value) in self.participants[participant].iter_mut().zip(values) {
            history.push(time, value);
        }
    }

    /// Replaces the histories of `participant` by `values` at `time`.
    pub fn reset(&mut self, participant: usize, time: f64, values: &[f64]) {
        for (history, &value) in self.participants[participant].iter_mut().zip(values) {
            history.reset(time, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(f: impl Fn(f64) -> f64, times: &[f64]) -> History {
        let mut h = History::default();
        for &t in times {
            h.push(t, f(t));
        }
        h
    }

    #[test]
    fn each_hold_reproduces_polynomials_of_its_degree_and_not_the_next() {
        let times = [0.1, 0.25, 0.3, 0.45];
        let polynomials: [fn(f64) -> f64; 3] =
            [|_| 2.5, |t| 2.5 - 4.0 * t, |t| 2.5 - 4.0 * t + 7.0 * t * t];
        for (degree, p) in polynomials.iter().enumerate() {
            let h = history(p, &times);
            // Beyond the latest sample (extrapolation) and between samples (interpolation).
            for t in [0.45, 0.5, 0.6, 0.35, 0.27] {
                assert!(
                    (h.value_at(t, degree) - p(t)).abs() < 1e-12,
                    "degree {degree}, t = {t}"
                );
            }
        }
        let quadratic = history(polynomials[2], &times);
        for degree in 0..2 {
            assert!((quadratic.value_at(0.6, degree) - polynomials[2](0.6)).abs() > 1e-3);
        }
    }

    #[test]
    fn a_hold_uses_only_the_latest_samples_and_falls_back_while_there_are_few() {
        let mut h = History::default();
        h.push(0.0, 1.0);
        assert_eq!(h.value_at(5.0, 2), 1.0, "one sample: constant");
        h.push(1.0, 3.0);
        assert_eq!(h.value_at(2.0, 2), 5.0, "two samples: the line");
        h.push(2.0, 9.0);
        h.push(3.0, 19.0);
        // The oldest sample is gone: 3, 9, 19 at 1, 2, 3 lie on 2 t^2 + 1.
        assert_eq!(h.value_at(4.0, 2), 33.0);
        assert_eq!(h.value_at(4.0, 1), 29.0);
        assert_eq!(h.value_at(4.0, 0), 19.0);
        assert_eq!(h.latest(), 19.0);
        h.reset(3.0, -1.0);
        assert_eq!(h.value_at(4.0, 2), -1.0);
    }
}
