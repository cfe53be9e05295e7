//! Writing results: CSV files, plots, the progress bar and the run summary.

pub mod column;
pub mod csv;
pub mod plot;
pub mod progress;
pub mod summary;
