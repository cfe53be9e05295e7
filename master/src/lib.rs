//! The Tandem co-simulation master.
