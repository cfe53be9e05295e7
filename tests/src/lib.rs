//! Shared helpers for the end-to-end tests.

pub mod cdylib;
pub mod double_oscillator;
pub mod fmpy;
pub mod fmus;
pub mod oscillator;
pub mod python;
pub mod trajectory;
