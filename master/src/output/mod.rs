//! Showing results: plots, the progress bar and the run summary (the CSV result files are
//! the simulation crate's, [`csv`]).

pub use tandem_simulate::csv;
mod drawing_error;
pub mod fit;
pub mod plot;
pub mod progress;
pub mod summary;
