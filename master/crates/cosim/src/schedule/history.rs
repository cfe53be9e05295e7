//! The values communicated at past communication points, and the polynomial through the
//! latest of them that gives a connected input its value at any time (ZOH, FOH, SOH), or the
//! cubic through the latest two values and their time derivatives (an implicit coupling's
//! Hermite waveform).
//!
//! Every sample carries a tag: the index of the participant's communication it came from
//! (0 for its first values in initialization, counting every later one). A [`Hold`] names
//! the tagged samples an input's value was computed from and their weights, which is what a
//! reverse (adjoint) pass needs to send an input's sensitivity back to the outputs it came from.

use std::ops::Range;

use crate::system::Port;

/// Samples kept per variable: enough for the second-order hold.
const DEPTH: usize = 3;

/// How an input's value was computed: `sum of weight * sample` over the samples it names.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Hold {
    terms: [(usize, f64); DEPTH],
    len: usize,
}

impl Hold {
    /// The `(tag, weight)` pairs: the tag of each sample used and its Lagrange weight.
    pub fn terms(&self) -> &[(usize, f64)] {
        &self.terms[..self.len]
    }

    /// The hold of `factor` times the value: every weight scaled.
    pub fn scaled(mut self, factor: f64) -> Hold {
        for (_, weight) in &mut self.terms[..self.len] {
            *weight *= factor;
        }
        self
    }
}

/// The latest communicated values of one variable, oldest first.
#[derive(Debug, Clone, Default)]
pub struct History {
    times: Vec<f64>,
    values: Vec<f64>,
    /// The values' time derivatives, where known (NaN otherwise).
    rates: Vec<f64>,
    tags: Vec<usize>,
}

impl History {
    /// Appends the value at `time` (after every earlier sample), dropping the oldest beyond three.
    pub fn push(&mut self, time: f64, value: f64, tag: usize) {
        if self.times.len() == DEPTH {
            self.times.remove(0);
            self.values.remove(0);
            self.rates.remove(0);
            self.tags.remove(0);
        }
        self.times.push(time);
        self.values.push(value);
        self.rates.push(f64::NAN);
        self.tags.push(tag);
    }

    /// Forgets every sample but `value` at `time` (initialization updates values in place).
    pub fn reset(&mut self, time: f64, value: f64, tag: usize) {
        self.times.clear();
        self.values.clear();
        self.rates.clear();
        self.tags.clear();
        self.push(time, value, tag);
    }

    /// Gives the latest sample the time derivative `rate`.
    pub fn set_latest_rate(&mut self, rate: f64) {
        if let Some(latest) = self.rates.last_mut() {
            *latest = rate;
        }
    }

    /// The latest sample's time derivative (NaN where unknown).
    pub fn latest_rate(&self) -> f64 {
        self.rates.last().copied().unwrap_or(f64::NAN)
    }

    /// The cubic through the latest two samples and their rates (Hermite), evaluated at
    /// `time`; where the earlier has no rate, the quadratic through both values and the latest
    /// rate; where the latest has none, the line. One sample: its value.
    pub fn hermite_at(&self, time: f64) -> f64 {
        let n = self.times.len();
        if n < 2 {
            return self.latest();
        }
        let (t0, t1) = (self.times[n - 2], self.times[n - 1]);
        let (y0, y1) = (self.values[n - 2], self.values[n - 1]);
        let (r0, r1) = (self.rates[n - 2], self.rates[n - 1]);
        let h = t1 - t0;
        let s = (time - t0) / h;
        let chord = y1 - y0;
        let line = y0 + chord * s;
        match (r0.is_nan(), r1.is_nan()) {
            (_, true) => line,
            // p(s) = line + c s (s - 1), with p'(1) = chord + c = h r1.
            (true, false) => line + (h * r1 - chord) * s * (s - 1.0),
            // The Hermite basis around the line: p(s) = line + s (s - 1) (a (1 - s) + b s)
            // with p'(0) = chord - a = h r0 and p'(1) = chord + b = h r1.
            (false, false) => {
                let (a, b) = (chord - h * r0, h * r1 - chord);
                line + s * (s - 1.0) * (a * (1.0 - s) + b * s)
            }
        }
    }

    /// Replaces the latest sample's value (an algebraic loop solved at its time).
    pub fn set_latest(&mut self, value: f64) {
        if let Some(latest) = self.values.last_mut() {
            *latest = value;
        }
    }

    /// The latest sample's value (NaN before any sample).
    pub fn latest(&self) -> f64 {
        self.values.last().copied().unwrap_or(f64::NAN)
    }

    /// The polynomial of degree `degree` (or lower while fewer samples exist) through the
    /// latest `degree + 1` samples, evaluated at `time`: it extrapolates beyond the latest
    /// sample and interpolates between samples (Lagrange form).
    pub fn value_at(&self, time: f64, degree: usize) -> f64 {
        let (used, weights) = self.weights(time, degree);
        self.values[used]
            .iter()
            .zip(weights)
            .map(|(value, weight)| weight * value)
            .sum()
    }

    /// Which samples [`History::value_at`] combines for `time` and `degree`, with their weights.
    pub fn hold_at(&self, time: f64, degree: usize) -> Hold {
        let (used, weights) = self.weights(time, degree);
        let mut hold = Hold {
            len: used.len(),
            ..Hold::default()
        };
        for (term, (&tag, weight)) in hold
            .terms
            .iter_mut()
            .zip(self.tags[used].iter().zip(weights))
        {
            *term = (tag, weight);
        }
        hold
    }

    /// The samples used (the latest `degree + 1`, or all while there are fewer) and the
    /// Lagrange weight of each, first ones valid (an array: this runs for every input at every
    /// step).
    fn weights(&self, time: f64, degree: usize) -> (Range<usize>, [f64; DEPTH]) {
        let used = (degree + 1).min(self.times.len());
        let range = self.times.len() - used..self.times.len();
        let times = &self.times[range.clone()];
        let mut weights = [0.0; DEPTH];
        for (i, weight) in weights[..used].iter_mut().enumerate() {
            *weight = (0..used)
                .filter(|&j| j != i)
                .map(|j| (time - times[j]) / (times[i] - times[j]))
                .product();
        }
        (range, weights)
    }
}

/// The histories of every observed variable of every participant.
#[derive(Debug, Clone, Default)]
pub struct Histories {
    participants: Vec<Vec<History>>,
    /// Per participant, the tag its next communicated values get.
    next_tags: Vec<usize>,
}

/// Where a connected input takes its value from: a participant and one of its observed slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// Participant index.
    pub participant: usize,
    /// Slot among the participant's observed variables.
    pub slot: usize,
}

impl Source {
    /// Where the histories keep `port`, among the ports each participant observes
    /// (`observed`); none when its participant does not observe it.
    pub fn of(observed: &[Vec<Port>], port: Port) -> Option<Source> {
        let slot = observed[port.component].iter().position(|&p| p == port)?;
        Some(Source {
            participant: port.component,
            slot,
        })
    }
}

impl Histories {
    /// Empty histories for participants observing `slots[i]` variables each.
    pub fn new(slots: impl IntoIterator<Item = usize>) -> Self {
        let participants: Vec<Vec<History>> = slots
            .into_iter()
            .map(|n| vec![History::default(); n])
            .collect();
        Histories {
            next_tags: vec![0; participants.len()],
            participants,
        }
    }

    /// The value of `source` at `time` by the hold of `degree`.
    pub fn value_at(&self, source: Source, time: f64, degree: usize) -> f64 {
        self.participants[source.participant][source.slot].value_at(time, degree)
    }

    /// The samples of `source` that [`Histories::value_at`] combines, with their weights.
    pub fn hold_at(&self, source: Source, time: f64, degree: usize) -> Hold {
        self.participants[source.participant][source.slot].hold_at(time, degree)
    }

    /// The tag of the latest sample of `source`.
    pub fn latest_tag(&self, source: Source) -> Option<usize> {
        self.participants[source.participant][source.slot]
            .tags
            .last()
            .copied()
    }

    /// The latest value of `source`.
    pub fn latest(&self, source: Source) -> f64 {
        self.participants[source.participant][source.slot].latest()
    }

    /// The value of `source` at `time` on the Hermite cubic ([`History::hermite_at`]).
    pub fn hermite_at(&self, source: Source, time: f64) -> f64 {
        self.participants[source.participant][source.slot].hermite_at(time)
    }

    /// The latest time derivative of `source` (NaN where unknown).
    pub fn latest_rate(&self, source: Source) -> f64 {
        self.participants[source.participant][source.slot].latest_rate()
    }

    /// Gives the latest sample of `source` the time derivative `rate`.
    pub fn set_latest_rate(&mut self, source: Source, rate: f64) {
        self.participants[source.participant][source.slot].set_latest_rate(rate);
    }

    /// Gives the latest samples of every observed variable of `participant` the time
    /// derivatives `rates`.
    pub fn replace_latest_rates(&mut self, participant: usize, rates: &[f64]) {
        for (history, &rate) in self.participants[participant].iter_mut().zip(rates) {
            history.set_latest_rate(rate);
        }
    }

    /// Appends the observed `values` of `participant` at `time`.
    pub fn push(&mut self, participant: usize, time: f64, values: &[f64]) {
        let tag = self.next_tag(participant);
        for (history, &value) in self.participants[participant].iter_mut().zip(values) {
            history.push(time, value, tag);
        }
    }

    /// Replaces the latest value of `source`.
    pub fn set_latest(&mut self, source: Source, value: f64) {
        self.participants[source.participant][source.slot].set_latest(value);
    }

    /// Replaces the latest values of every observed variable of `participant`.
    pub fn replace_latest(&mut self, participant: usize, values: &[f64]) {
        for (history, &value) in self.participants[participant].iter_mut().zip(values) {
            history.set_latest(value);
        }
    }

    /// Replaces the histories of `participant` by `values` at `time`.
    pub fn reset(&mut self, participant: usize, time: f64, values: &[f64]) {
        let tag = self.next_tag(participant);
        for (history, &value) in self.participants[participant].iter_mut().zip(values) {
            history.reset(time, value, tag);
        }
    }

    /// The tag of `participant`'s next communicated values, counted.
    fn next_tag(&mut self, participant: usize) -> usize {
        let tag = self.next_tags[participant];
        self.next_tags[participant] += 1;
        tag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(f: impl Fn(f64) -> f64, times: &[f64]) -> History {
        let mut h = History::default();
        for (tag, &t) in times.iter().enumerate() {
            h.push(t, f(t), tag);
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
        h.push(0.0, 1.0, 0);
        assert_eq!(h.value_at(5.0, 2), 1.0, "one sample: constant");
        h.push(1.0, 3.0, 1);
        assert_eq!(h.value_at(2.0, 2), 5.0, "two samples: the line");
        h.push(2.0, 9.0, 2);
        h.push(3.0, 19.0, 3);
        // The oldest sample is gone: 3, 9, 19 at 1, 2, 3 lie on 2 t^2 + 1.
        assert_eq!(h.value_at(4.0, 2), 33.0);
        assert_eq!(h.value_at(4.0, 1), 29.0);
        assert_eq!(h.value_at(4.0, 0), 19.0);
        assert_eq!(h.latest(), 19.0);
        h.reset(3.0, -1.0, 4);
        assert_eq!(h.value_at(4.0, 2), -1.0);
    }

    #[test]
    fn the_hermite_waveform_reproduces_cubics_and_falls_back_to_the_quadratic_and_the_line() {
        let cubic = |t: f64| 1.5 - 2.0 * t + 3.0 * t * t - 4.0 * t * t * t;
        let rate = |t: f64| -2.0 + 6.0 * t - 12.0 * t * t;
        let (t0, t1) = (0.3, 0.55);
        let mut h = History::default();
        h.push(t0, cubic(t0), 0);
        assert_eq!(h.hermite_at(0.4), cubic(t0), "one sample: its value");
        h.push(t1, cubic(t1), 1);
        let line = h.value_at(0.4, 1);
        assert_eq!(h.hermite_at(0.4), line, "no rates: the line");
        h.set_latest_rate(rate(t1));
        let quadratic = h.hermite_at(0.4);
        // The quadratic through both values with the end's slope.
        let (s, hh) = ((0.4 - t0) / (t1 - t0), t1 - t0);
        let c = hh * rate(t1) - (cubic(t1) - cubic(t0));
        assert!((quadratic - (line + c * s * (s - 1.0))).abs() < 1e-14);
        h.rates[0] = rate(t0);
        for t in [t0, 0.35, 0.4, 0.5, t1] {
            assert!((h.hermite_at(t) - cubic(t)).abs() < 1e-13, "t = {t}");
        }
        assert!((h.hermite_at(0.4) - line).abs() > 1e-3);
        // A new sample has no rate until given one.
        h.push(0.8, cubic(0.8), 2);
        assert!(h.latest_rate().is_nan());
    }

    #[test]
    fn a_hold_names_the_samples_and_weights_of_the_value() {
        let mut h = History::default();
        for (tag, (t, v)) in [(0.0, 1.0), (1.0, 3.0), (2.0, 9.0), (3.0, 19.0)]
            .into_iter()
            .enumerate()
        {
            h.push(t, v, tag);
        }
        let hold = h.hold_at(4.0, 2);
        let tags: Vec<usize> = hold.terms().iter().map(|&(tag, _)| tag).collect();
        assert_eq!(tags, [1, 2, 3], "the oldest sample is gone");
        let by_tag = |tag: usize| [1.0, 3.0, 9.0, 19.0][tag];
        let combined: f64 = hold.terms().iter().map(|&(tag, w)| w * by_tag(tag)).sum();
        assert_eq!(combined, h.value_at(4.0, 2));
        assert_eq!(h.hold_at(4.0, 0).terms(), [(3, 1.0)]);
    }
}
