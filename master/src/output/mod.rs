//! Writing results.

pub mod csv;
