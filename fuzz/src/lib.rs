//! Mutation fuzzing of Tandem's readers on stable Rust (no libFuzzer, which needs nightly):
//! each [`targets::Target`] starts from the repository's own valid files, [`mutate`] changes
//! bytes and XML/TOML structure with a seeded generator, and [`engine`] feeds every mutant to
//! the reader, which must return Ok or an error for any input, never panic, hang or abort.
//! `cargo xtask fuzz TARGET --runs N [--seed S]` runs it; the test suite runs a short pass.

pub mod engine;
pub mod mutate;
pub mod signals;
pub mod targets;

pub use engine::{Options, Report};
pub use targets::{Harness, Target};
