//! Shared helpers for the end-to-end tests.

pub mod fmpy;
pub mod fmus;
pub mod oscillator;
pub mod cdylib;
pub mod python;
pub mod trajectory;
