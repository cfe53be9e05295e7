//! What a sweep carries per communicated sample (adjoints, or tangents), kept only while the
//! sweep can still read or add to it: a hold reads the latest few samples of a variable, so
//! a sweep over a long run needs a handful per participant at a time, not one per macro step.

use std::collections::BTreeMap;

/// Per participant, values by sample tag.
pub struct Samples<T> {
    kept: Vec<BTreeMap<usize, T>>,
}

impl<T> Samples<T> {
    /// None kept, for `participants` participants.
    pub fn new(participants: usize) -> Self {
        Samples {
            kept: (0..participants).map(|_| BTreeMap::new()).collect(),
        }
    }

    /// The value of `participant`'s sample `tag`, made by `fresh` if none is kept.
    pub fn entry(&mut self, participant: usize, tag: usize, fresh: impl FnOnce() -> T) -> &mut T {
        self.kept[participant].entry(tag).or_insert_with(fresh)
    }

    /// The value of `participant`'s sample `tag`, if kept.
    pub fn get(&self, participant: usize, tag: usize) -> Option<&T> {
        self.kept[participant].get(&tag)
    }

    /// The value of `participant`'s sample `tag`, no longer kept.
    pub fn remove(&mut self, participant: usize, tag: usize) -> Option<T> {
        self.kept[participant].remove(&tag)
    }

    /// Forgets `participant`'s samples older than tag `tag`.
    pub fn forget_before(&mut self, participant: usize, tag: usize) {
        let kept = &mut self.kept[participant];
        *kept = kept.split_off(&tag);
    }
}
