//! Shared helpers for the end-to-end tests.

pub mod double_oscillator;
pub mod python;
