//! Shared helpers for the end-to-end tests.

pub mod cdylib;
pub mod python;
