//! Shared helpers for the end-to-end tests.

pub mod abi_bench;
pub mod bouncing_ball;
pub mod cdylib;
pub mod double_oscillator;
pub mod fmpy;
pub mod fmus;
pub mod lti;
pub mod models;
pub mod oscillator;
pub mod python;
pub mod sensitivities;
pub mod trajectory;
