//! Logging through the host's callback, filtered by the categories the host enabled.

use crate::capabilities::LOG_CATEGORIES;
use crate::instance::outcome::{Outcome, Problem, Status};

/// Where an instance sends its log messages (the FMI 2.0 or FMI 3.0 logger callback).
pub trait Logger: Send {
    /// Delivers one message to the host.
    fn log(&self, status: Status, category: Category, message: &str);
}

/// A logger that drops every message (FMI 3.0 allows a NULL logMessage callback).
pub struct Silent;

impl Logger for Silent {
    fn log(&self, _status: Status, _category: Category, _message: &str) {}
}

/// The log categories of [`LOG_CATEGORIES`], in the same order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// State, time and step events.
    Events = 0,
    /// Calls that return Warning.
    StatusWarning = 1,
    /// Calls that return Discard.
    StatusDiscard = 2,
    /// Calls that return Error.
    StatusError = 3,
    /// Calls that return Fatal.
    StatusFatal = 4,
    /// Every FMI call with its arguments.
    Calls = 5,
}

impl Category {
    /// The category's name as declared in the model description.
    pub fn name(self) -> &'static str {
        LOG_CATEGORIES[self as usize].0
    }

    /// The category that reports a call returning `status` (`None` for OK).
    pub fn for_status(status: Status) -> Option<Category> {
        match status {
            Status::Ok => None,
            Status::Warning => Some(Category::StatusWarning),
            Status::Discard => Some(Category::StatusDiscard),
            Status::Error => Some(Category::StatusError),
            Status::Fatal => Some(Category::StatusFatal),
        }
    }
}

/// Which categories are switched on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogFilter {
    enabled: Vec<bool>,
}

impl LogFilter {
    /// The filter after instantiation: Discard, Error and Fatal are always reported (a host
    /// that gets such a status needs the reason); everything else only with `logging_on`.
    pub fn new(logging_on: bool) -> Self {
        let mut filter = LogFilter {
            enabled: vec![logging_on; LOG_CATEGORIES.len()],
        };
        filter.enabled[Category::StatusDiscard as usize] = true;
        filter.enabled[Category::StatusError as usize] = true;
        filter.enabled[Category::StatusFatal as usize] = true;
        filter
    }

    /// `fmiSetDebugLogging`: with no categories, switches all of them; otherwise only the
    /// named ones. An unknown name rejects the whole call.
    pub fn set(&mut self, logging_on: bool, categories: &[&str]) -> Outcome {
        if categories.is_empty() {
            self.enabled.iter_mut().for_each(|e| *e = logging_on);
            return Ok(());
        }
        let mut indices = Vec::with_capacity(categories.len());
        for name in categories {
            let index = LOG_CATEGORIES
                .iter()
                .position(|(n, _)| n == name)
                .ok_or_else(|| {
                    let known: Vec<_> = LOG_CATEGORIES.iter().map(|(n, _)| *n).collect();
                    Problem::error(format!(
                        "unknown log category \"{name}\" (known: {})",
                        known.join(", ")
                    ))
                })?;
            indices.push(index);
        }
        for index in indices {
            self.enabled[index] = logging_on;
        }
        Ok(())
    }

    /// Whether messages of `category` are delivered.
    pub fn enabled(&self, category: Category) -> bool {
        self.enabled[category as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_match_the_declared_names() {
        let all = [
            Category::Events,
            Category::StatusWarning,
            Category::StatusDiscard,
            Category::StatusError,
            Category::StatusFatal,
            Category::Calls,
        ];
        assert_eq!(all.len(), LOG_CATEGORIES.len());
        let names: Vec<_> = all.iter().map(|c| c.name()).collect();
        let declared: Vec<_> = LOG_CATEGORIES.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, declared);
    }

    #[test]
    fn debug_logging_switches_named_categories_and_rejects_unknown_ones() {
        let mut filter = LogFilter::new(false);
        assert!(filter.enabled(Category::StatusError));
        assert!(!filter.enabled(Category::Events));
        filter.set(true, &["logEvents"]).unwrap();
        assert!(filter.enabled(Category::Events));
        assert!(!filter.enabled(Category::Calls));
        assert!(filter.set(true, &["logCalls", "noSuchCategory"]).is_err());
        assert!(
            !filter.enabled(Category::Calls),
            "a rejected call changes nothing"
        );
        filter.set(false, &[]).unwrap();
        assert!(!filter.enabled(Category::StatusError));
    }
}
