//! Where the participants of a Jacobi macro step advance: in turn on the calling thread, or in
//! parallel on a pool. Parallel steps pay a hand-off (waking the pool's threads and waiting for
//! the last one, some microseconds, more on a loaded machine) that only pays for itself when
//! the participants' work per step is larger; how large is known only by trying. So with
//! `threads = "auto"` the [`Chooser`] times a few steps in each layout, runs the faster one for
//! a stretch of steps, and compares again after it: a longer stretch while the winner stays the
//! same, a short one after a change (the work per step may change during a run, and so may the
//! load of the machine). Timing whole steps of both layouts, rather than each participant's step
//! alone, measures the hand-off itself instead of assuming its cost.
//!
//! The losing layout's trial steps are the price of adapting. When the layouts are close that
//! price is small whatever the stretch; when one is many times slower (cheap FMUs, where a
//! parallel step is mostly hand-off) each trial step costs many steps' time, so the stretch
//! grows with the measured ratio, up to a length at which the trials cost at most
//! [`TRIAL_BUDGET`] of the run.

use std::time::Duration;

/// Where the participants of a Jacobi macro step advance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One after another on the calling thread.
    InTurn,
    /// At once on the pool.
    Parallel,
}

/// Steps timed in each layout per comparison; the median of these decides.
const TRIAL_STEPS: usize = 8;
/// Steps run in the chosen layout after a comparison that changed it.
const FIRST_STRETCH: usize = 64;
/// The longest stretch between comparisons of close layouts: the losing layout's trial steps
/// then cost at most 8 / 8192 of the run's steps.
const LONGEST_STRETCH: usize = 8192;
/// The share of a stretch's time that the next comparison's losing trial steps may cost; sets
/// the longest stretch when one layout is many times slower than the other.
const TRIAL_BUDGET: f64 = 0.005;
/// The most a stretch grows at one comparison, however lopsided the layouts.
const LARGEST_GROWTH: f64 = 16.0;

/// Chooses the layout of every macro step.
#[derive(Debug)]
pub struct Chooser {
    adaptive: Option<Trials>,
    /// The layout of the steps outside trials.
    chosen: Layout,
}

/// The comparison of the layouts over a run.
#[derive(Debug)]
struct Trials {
    /// Step times of the comparison under way, per layout (in turn, parallel).
    times: [Vec<Duration>; 2],
    /// Steps left in the chosen layout before the next comparison; 0 during one.
    left: usize,
    /// The length of the latest stretch.
    stretch: usize,
}

impl Chooser {
    /// Every step in `layout`.
    pub fn fixed(layout: Layout) -> Self {
        Chooser {
            adaptive: None,
            chosen: layout,
        }
    }

    /// The faster layout as timed, starting with a comparison.
    pub fn adaptive() -> Self {
        Chooser {
            adaptive: Some(Trials {
                times: [
                    Vec::with_capacity(TRIAL_STEPS),
                    Vec::with_capacity(TRIAL_STEPS),
                ],
                left: 0,
                stretch: FIRST_STRETCH / 2,
            }),
            chosen: Layout::InTurn,
        }
    }

    /// The layout of the next step, and whether its time should be reported to
    /// [`Chooser::record`].
    pub fn next(&mut self) -> (Layout, bool) {
        let Some(trials) = &mut self.adaptive else {
            return (self.chosen, false);
        };
        if trials.left > 0 {
            trials.left -= 1;
            return (self.chosen, false);
        }
        if trials.times[0].len() < TRIAL_STEPS {
            (Layout::InTurn, true)
        } else {
            (Layout::Parallel, true)
        }
    }

    /// Takes the time of a step in `layout` that [`Chooser::next`] asked to be timed; after
    /// the last step of a comparison, chooses the layout of the next stretch.
    pub fn record(&mut self, layout: Layout, time: Duration) {
        let Some(trials) = &mut self.adaptive else {
            return;
        };
        let [in_turn, parallel] = &mut trials.times;
        match layout {
            Layout::InTurn => in_turn.push(time),
            Layout::Parallel => parallel.push(time),
        }
        if parallel.len() < TRIAL_STEPS {
            return;
        }
        let (in_turn_time, parallel_time) = (median(in_turn), median(parallel));
        let (winner, ratio) = if parallel_time < in_turn_time {
            (Layout::Parallel, slowdown(in_turn_time, parallel_time))
        } else {
            (Layout::InTurn, slowdown(parallel_time, in_turn_time))
        };
        trials.stretch = if winner == self.chosen {
            next_stretch(trials.stretch, ratio)
        } else {
            FIRST_STRETCH
        };
        trials.left = trials.stretch;
        in_turn.clear();
        parallel.clear();
        self.chosen = winner;
    }
}

/// How many times slower the losing layout's step is than the winner's (at least 1).
fn slowdown(loser: Duration, winner: Duration) -> f64 {
    if winner.is_zero() {
        return LARGEST_GROWTH;
    }
    (loser.as_secs_f64() / winner.as_secs_f64()).max(1.0)
}

/// The stretch after a comparison that confirmed the chosen layout, the loser `ratio` times
/// slower: it grows by the ratio (at least doubling, at most [`LARGEST_GROWTH`] times), up to
/// the length at which the next comparison's losing steps cost [`TRIAL_BUDGET`] of it, and at
/// least up to [`LONGEST_STRETCH`].
fn next_stretch(stretch: usize, ratio: f64) -> usize {
    let growth = ratio.clamp(2.0, LARGEST_GROWTH);
    // Trial steps of the loser cost `(ratio - 1)` winner steps each beyond a winner's step.
    let affordable = TRIAL_STEPS as f64 * (ratio - 1.0) / TRIAL_BUDGET;
    let longest = affordable.max(LONGEST_STRETCH as f64);
    (stretch as f64 * growth).min(longest).round() as usize
}

/// The median of `times` (sorts them).
fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `steps` steps whose time in each layout is given, and returns the layouts taken.
    fn layouts(
        chooser: &mut Chooser,
        steps: usize,
        mut time: impl FnMut(Layout) -> u64,
    ) -> Vec<Layout> {
        (0..steps)
            .map(|_| {
                let (layout, timed) = chooser.next();
                if timed {
                    chooser.record(layout, Duration::from_micros(time(layout)));
                }
                layout
            })
            .collect()
    }

    fn count(layouts: &[Layout], layout: Layout) -> usize {
        layouts.iter().filter(|&&l| l == layout).count()
    }

    #[test]
    fn a_fixed_layout_never_changes() {
        let mut chooser = Chooser::fixed(Layout::Parallel);
        let taken = layouts(&mut chooser, 1000, |l| {
            if l == Layout::Parallel {
                50
            } else {
                1
            }
        });
        assert_eq!(count(&taken, Layout::Parallel), 1000);
    }

    #[test]
    fn cheap_steps_stay_in_turn_after_the_first_comparison_and_trial_parallel_rarely() {
        let mut chooser = Chooser::adaptive();
        let taken = layouts(&mut chooser, 100_000, |l| match l {
            Layout::InTurn => 3,
            Layout::Parallel => 50,
        });
        assert_eq!(&taken[..8], &[Layout::InTurn; 8]);
        assert_eq!(&taken[8..16], &[Layout::Parallel; 8]);
        // Parallel is 16.7 times slower: stretches of 512, 8192, then 25 067 steps follow.
        let parallel = count(&taken, Layout::Parallel);
        assert!(parallel <= 8 * 6, "{parallel} parallel steps");
        assert!(taken[16..16 + 64].iter().all(|&l| l == Layout::InTurn));
        // The losing trials cost at most 2 % of the whole run.
        let time_of = |l: &Layout| if *l == Layout::InTurn { 3.0 } else { 50.0 };
        let run: f64 = taken.iter().map(time_of).sum();
        assert!(run <= 1.02 * 3.0 * 100_000.0, "run {run} us");
    }

    #[test]
    fn close_layouts_are_compared_at_least_every_8192_steps() {
        assert_eq!(next_stretch(64, 1.1), 128);
        assert_eq!(next_stretch(8192, 1.1), 8192);
        assert_eq!(next_stretch(64, 3.0), 192);
        assert_eq!(next_stretch(8192, 3.0), 8192);
        assert_eq!(next_stretch(32, 100.0), 32 * 16);
        assert_eq!(next_stretch(1 << 20, 100.0), 158_400);
    }

    #[test]
    fn heavy_steps_go_parallel_and_a_change_of_cost_is_noticed() {
        let mut chooser = Chooser::adaptive();
        let taken = layouts(&mut chooser, 20_000, |l| match l {
            Layout::InTurn => 100,
            Layout::Parallel => 55,
        });
        assert!(count(&taken[16..], Layout::Parallel) > 19_000);
        assert_eq!(chooser.chosen, Layout::Parallel);
        // The machine gets loaded: parallel steps now wait for a core.
        layouts(&mut chooser, 20_000, |l| match l {
            Layout::InTurn => 100,
            Layout::Parallel => 400,
        });
        assert_eq!(chooser.chosen, Layout::InTurn);
    }

    #[test]
    fn one_slow_trial_step_does_not_decide() {
        let mut chooser = Chooser::adaptive();
        let mut step = 0;
        layouts(&mut chooser, 16, |l| {
            step += 1;
            match (l, step) {
                (Layout::Parallel, 9) => 10_000,
                (Layout::Parallel, _) => 40,
                (Layout::InTurn, _) => 100,
            }
        });
        assert_eq!(chooser.chosen, Layout::Parallel);
    }
}
