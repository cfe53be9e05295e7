//! The per-thread tape: one node per recorded operation, holding the slots of its (up to two)
//! operands and the partial derivatives with respect to them; and the sweep back along it that
//! turns output adjoints into input adjoints.

use std::cell::RefCell;

use super::Rev;

/// The slot of a constant (no node).
pub(super) const CONSTANT: u32 = u32::MAX;

/// One recorded operation.
#[derive(Clone, Copy, Debug)]
struct Node {
    operands: [u32; 2],
    partials: [f64; 2],
}

/// An input: a node without operands.
const LEAF: Node = Node {
    operands: [CONSTANT; 2],
    partials: [0.0; 2],
};

thread_local! {
    static TAPE: RefCell<Vec<Node>> = const { RefCell::new(Vec::new()) };
    /// The adjoints of the latest recording, kept for their capacity.
    static ADJOINTS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    /// The buffer of [`with_scratch`], kept for its capacity.
    static SCRATCH: RefCell<Vec<Rev>> = const { RefCell::new(Vec::new()) };
}

/// Appends `node` and returns the number it produces.
#[inline]
fn record(value: f64, node: Node) -> Rev {
    let slot = TAPE.with_borrow_mut(|tape| {
        tape.push(node);
        tape.len() - 1
    });
    let slot = u32::try_from(slot)
        .ok()
        .filter(|&s| s != CONSTANT)
        .expect("a tape has fewer than 2^32 - 1 nodes");
    Rev { value, slot }
}

/// The result `value` of an operation on `x`, whose derivative with respect to `x` is
/// `partial`.
#[inline]
pub(super) fn unary(value: f64, x: Rev, partial: f64) -> Rev {
    if x.is_constant() {
        Rev::constant(value)
    } else {
        record(
            value,
            Node {
                operands: [x.slot, CONSTANT],
                partials: [partial, 0.0],
            },
        )
    }
}

/// The result `value` of an operation on `a` and `b` with partial derivatives `da` and `db`.
#[inline]
pub(super) fn binary(value: f64, a: Rev, da: f64, b: Rev, db: f64) -> Rev {
    match (a.is_constant(), b.is_constant()) {
        (true, true) => Rev::constant(value),
        (false, true) => unary(value, a, da),
        (true, false) => unary(value, b, db),
        (false, false) => record(
            value,
            Node {
                operands: [a.slot, b.slot],
                partials: [da, db],
            },
        ),
    }
}

/// `x` plus a constant: its derivative with respect to `x` is 1, so it can share `x`'s slot
/// (every adjoint it receives is `x`'s) and records nothing. Seeding the states with their
/// base values plus the recorded inputs costs no node this way.
#[inline]
pub(super) fn shifted(value: f64, x: Rev) -> Rev {
    Rev {
        value,
        slot: x.slot,
    }
}

/// One reverse-mode product: inputs are recorded with [`Recording::input`], the code runs on
/// them, results are seeded with [`Recording::seed`], [`Recording::sweep`] carries the seeds
/// back, and [`Recording::adjoint`] reads the adjoint of any recorded number. Dropping it
/// removes what it recorded from the tape (also when the code panicked: the FMI guard turns
/// that panic into an Error, and the next product must start from a clean tape).
pub struct Recording {
    start: usize,
    adjoints: Vec<f64>,
}

impl Recording {
    /// Starts recording at the end of the thread's tape.
    pub fn new() -> Recording {
        // Taken, not borrowed, so that recordings may nest (an inner one allocates its own).
        let adjoints = ADJOINTS.with_borrow_mut(std::mem::take);
        Recording {
            start: TAPE.with_borrow(Vec::len),
            adjoints,
        }
    }

    /// A new input of value `value`.
    #[inline]
    pub fn input(&self, value: f64) -> Rev {
        record(value, LEAF)
    }

    /// The index of `slot` in this recording's adjoints, if it was recorded here.
    fn local(&self, slot: u32) -> Option<usize> {
        if slot == CONSTANT {
            None
        } else {
            (slot as usize).checked_sub(self.start)
        }
    }

    /// Makes the adjoints cover everything recorded so far (new entries zero).
    fn cover(&mut self) {
        let recorded = TAPE.with_borrow(Vec::len) - self.start;
        if self.adjoints.len() < recorded {
            self.adjoints.resize(recorded, 0.0);
        }
    }

    /// Adds `adjoint` to the adjoint of the result `y` (nothing for a constant).
    pub fn seed(&mut self, y: Rev, adjoint: f64) {
        if let Some(i) = self.local(y.slot) {
            if i >= self.adjoints.len() {
                self.cover();
            }
            self.adjoints[i] += adjoint;
        }
    }

    /// Carries the seeds back to every recorded number (once, after seeding).
    pub fn sweep(&mut self) {
        self.cover();
        let (start, adjoints) = (self.start, &mut self.adjoints[..]);
        TAPE.with_borrow(|tape| {
            for (i, node) in tape[start..].iter().enumerate().rev() {
                let adjoint = adjoints[i];
                // A zero adjoint contributes nothing (many nodes of a sparse model get one).
                if adjoint == 0.0 {
                    continue;
                }
                for (&operand, &partial) in node.operands.iter().zip(&node.partials) {
                    // A constant's slot, or one recorded before this recording started, wraps
                    // to an index past the end (the tape holds fewer than 2^32 − 1 nodes).
                    let j = operand.wrapping_sub(start as u32) as usize;
                    if let Some(a) = adjoints.get_mut(j) {
                        *a += adjoint * partial;
                    }
                }
            }
        });
    }

    /// The adjoint of `x` after [`Recording::sweep`] (zero for a constant or a number recorded
    /// elsewhere).
    pub fn adjoint(&self, x: Rev) -> f64 {
        self.local(x.slot)
            .and_then(|i| self.adjoints.get(i))
            .copied()
            .unwrap_or(0.0)
    }
}

impl Default for Recording {
    fn default() -> Recording {
        Recording::new()
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        TAPE.with_borrow_mut(|tape| tape.truncate(self.start));
        let mut adjoints = std::mem::take(&mut self.adjoints);
        adjoints.clear();
        ADJOINTS.with_borrow_mut(|kept| *kept = adjoints);
    }
}

/// Runs `f` on `len` zeros from the thread's scratch buffer, whose capacity is kept between
/// calls (a nested call gets a buffer of its own).
pub fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [Rev]) -> R) -> R {
    let mut buffer = SCRATCH.with_borrow_mut(std::mem::take);
    buffer.clear();
    buffer.resize(len, Rev::constant(0.0));
    let result = f(&mut buffer);
    SCRATCH.with_borrow_mut(|kept| *kept = buffer);
    result
}

/// `out = seedᵀ ∂f/∂x` at `x`: records `f` (which writes `seed.len()` results) once, seeds its
/// results with `seed` and sweeps back. `out` must have `x.len()` entries. Allocates nothing
/// once the thread's tape and buffers have grown to this function's size.
pub fn vjp_into<F>(x: &[f64], seed: &[f64], out: &mut [f64], f: F)
where
    F: FnOnce(&[Rev], &mut [Rev]),
{
    assert_eq!(out.len(), x.len(), "one adjoint per input");
    with_scratch(x.len() + seed.len(), |buffer| {
        let (inputs, outputs) = buffer.split_at_mut(x.len());
        let mut recording = Recording::new();
        for (input, &value) in inputs.iter_mut().zip(x) {
            *input = recording.input(value);
        }
        f(inputs, outputs);
        for (&y, &s) in outputs.iter().zip(seed) {
            recording.seed(y, s);
        }
        recording.sweep();
        for (o, &input) in out.iter_mut().zip(inputs.iter()) {
            *o = recording.adjoint(input);
        }
    });
}

/// The number of nodes on this thread's tape (for tests: a finished product leaves none).
#[cfg(test)]
pub(super) fn recorded() -> usize {
    TAPE.with_borrow(Vec::len)
}
