//! The hook for coupling stages: what the master computes at macro points, from the values the
//! components communicated, and feeds back into the run (the energy correction of seed 004,
//! `f_corr = -(mu H dP + nu U) v / (|v|^2 H)`, capped, added to the effort the flow side
//! receives). The adjoint of the co-simulation is only exact if every such stage takes part in
//! the sweeps, so a stage supplies its forward map and both its derivatives.
//!
//! **Offsets, not values.** A stage does not change the values a component communicates: it
//! adds an *offset* to inputs of their consumers, after the hold (ZOH/FOH/SOH extrapolation or
//! Gauss-Seidel interpolation of the communicated values), over the whole macro step that starts
//! where it was set, multi-rate sub-steps and the inputs written at the step's end included.
//! Rewriting the communicated samples instead would have the holds extrapolate corrected
//! values, which is not what a run does. Offsets need nothing new from the recording: every
//! input value it records already includes them (so replays restore the corrected inputs), and
//! an offset enters an input like one more term of its hold, with weight one. The reverse pass
//! adds the adjoint of every input written during a macro step to the adjoint of that input's
//! offset over the step; the forward sweep adds the offset's tangent to the input's.
//!
//! **Contract.** `at_point(point, ..)` (the stage's [`PointStage`] part, which the macro-step
//! loop of [`tandem_cosim::macro_loop`] drives) is called once the run reached macro point `point`
//! (`0`: the start, after initialization), when every component's values there are
//! communicated and before the next macro step; it may set input offsets for the macro step
//! starting there (an offset keeps its value until set again; none set is zero).
//! `reverse(point, ..)` is called for the points last to first, after every input written during
//! the macro step starting at `point` has been reversed and before the components' output maps
//! at `point` are: the adjoints of that step's offsets are then complete, and the stage adds
//! what they and its own state carry into the adjoints of the values communicated at `point` and
//! earlier points, keeping the rest in its state for `point - 1`. `tangents(point, ..)` is called
//! for the points first to last, once the tangents of every value communicated at `point` are
//! known, and sets the tangents of the offsets set at `point`.
//!
//! **Segments.** With checkpoints (module `checkpoints`) the sweeps see one segment of macro
//! steps at a time, re-run from the checkpoint before it: the run keeps each stage's
//! [`CouplingStage::checkpoint`] there (taken after `at_point` there), and a re-run calls
//! [`CouplingStage::rewind`] with it, then `at_point` at the segment's points again, which must
//! set the very offsets of the first run, bit for bit. The views answer inside the segment the
//! sweep is at (`Communicated::values` for its points, from first to last), so a stage keeps what
//! it needs of its own forward computation for the points since its latest rewind.

use std::any::Any;

use super::samples::Samples;
use super::tape::Tape;
use tandem_cosim::macro_loop::PointStage;
use tandem_cosim::Result;

/// Tangents, per direction, of one vector.
pub(super) type Tangents = Vec<Vec<f64>>;

/// What a stage needs to come back to a macro point ([`CouplingStage::checkpoint`]); only the
/// stage that made it reads it.
pub type StageCheckpoint = Box<dyn Any>;

/// The values the components communicated, by participant and macro point: those of the
/// segment the sweep is at.
pub struct Communicated<'a> {
    pub(super) tapes: &'a [Tape],
}

impl Communicated<'_> {
    /// The values participant `participant` communicated at macro point `point` (of the current
    /// segment), by observed slot.
    pub fn values(&self, participant: usize, point: usize) -> &[f64] {
        self.tapes[participant].values(point)
    }

    /// The tag of those values.
    fn tag(&self, participant: usize, point: usize) -> usize {
        self.tapes[participant].point_tag(point)
    }
}

/// What a stage reads and adds to in the reverse pass.
pub struct SampleAdjoints<'a> {
    /// The values communicated.
    pub communicated: Communicated<'a>,
    pub(super) adjoints: &'a mut Samples<Vec<f64>>,
    /// The adjoints of a sample the pass has not touched yet (participant, tag).
    pub(super) fresh: &'a dyn Fn(usize, usize) -> Vec<f64>,
    pub(super) offsets: &'a [Vec<f64>],
}

impl SampleAdjoints<'_> {
    /// The adjoints of participant `participant`'s values at macro point `point`, by observed
    /// slot.
    pub fn adjoints(&mut self, participant: usize, point: usize) -> &mut [f64] {
        let tag = self.communicated.tag(participant, point);
        let fresh = self.fresh;
        self.adjoints
            .entry(participant, tag, || fresh(participant, tag))
    }

    /// The adjoint of the offset on input `input` (in connection order) of component
    /// `component` over the macro step starting at the point being reversed.
    pub fn offset(&self, component: usize, input: usize) -> f64 {
        self.offsets[component][input]
    }
}

/// What a stage reads and sets in the forward sweep, along every direction.
pub struct SampleTangents<'a> {
    /// The values communicated.
    pub communicated: Communicated<'a>,
    /// Per participant and sample tag (the latest few).
    pub(super) tangents: &'a Samples<Tangents>,
    /// `[component][input][direction]`.
    pub(super) offsets: &'a mut [Tangents],
    pub(super) directions: usize,
}

impl SampleTangents<'_> {
    /// The number of directions.
    pub fn directions(&self) -> usize {
        self.directions
    }

    /// The tangents of participant `participant`'s values at macro point `point` (the current
    /// one or the one before), per direction and observed slot.
    pub fn tangents(&self, participant: usize, point: usize) -> &[Vec<f64>] {
        let tag = self.communicated.tag(participant, point);
        self.tangents
            .get(participant, tag)
            .expect("the sweep keeps the tangents of the latest macro points")
    }

    /// The tangents, per direction, of the offset on input `input` (in connection order) of
    /// component `component` over the macro step starting at the current point.
    pub fn offset(&mut self, component: usize, input: usize) -> &mut [f64] {
        &mut self.offsets[component][input]
    }
}

/// A map at macro points from communicated values to input offsets ([`PointStage::at_point`]),
/// with its derivatives.
pub trait CouplingStage: PointStage {
    /// Its state at the macro point the run reached (after [`PointStage::at_point`] there),
    /// for a re-run from that point.
    fn checkpoint(&self) -> StageCheckpoint;

    /// Puts the stage back at macro point `point`, in the state `checkpoint` taken there, for
    /// a re-run of the macro steps after it; what the sweeps read is kept from there on.
    fn rewind(&mut self, point: usize, checkpoint: StageCheckpoint);

    /// The reverse of [`PointStage::at_point`] at `point` (see the contract).
    fn reverse(&mut self, point: usize, adjoints: &mut SampleAdjoints<'_>) -> Result<()>;

    /// The forward derivative of [`PointStage::at_point`] at `point` (see the contract).
    fn tangents(&mut self, point: usize, tangents: &mut SampleTangents<'_>) -> Result<()>;
}
