//! The default experiment and log categories.

/// The DefaultExperiment element.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DefaultExperiment {
    /// Start time.
    pub start_time: Option<f64>,
    /// Stop time.
    pub stop_time: Option<f64>,
    /// Relative tolerance.
    pub tolerance: Option<f64>,
    /// Communication or output step size.
    pub step_size: Option<f64>,
}

/// A log category the FMU offers.
#[derive(Debug, Clone, PartialEq)]
pub struct LogCategory {
    /// Name passed to setDebugLogging.
    pub name: String,
    /// Description.
    pub description: Option<String>,
}
