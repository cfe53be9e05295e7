//! Writing results: CSV files, plots, the progress bar and the run summary.

pub mod csv;
mod drawing_error;
pub mod fit;
pub mod plot;
pub mod progress;
pub mod summary;
