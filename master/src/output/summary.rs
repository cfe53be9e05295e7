//! The one-line summary printed at the end of a simulation or co-simulation run.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// How the run advanced in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Steps {
    /// A master's integrator (Model Exchange): accepted and rejected steps.
    Integrator {
        /// Accepted steps.
        accepted: usize,
        /// Rejected attempts.
        rejected: usize,
    },
    /// Communication steps of one Co-Simulation FMU.
    Communication(usize),
    /// Macro steps of a coupled system.
    Macro(usize),
    /// Model partition activations of a Scheduled Execution FMU.
    Activations(usize),
}

/// What a finished run reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The model or system name.
    pub subject: String,
    /// How it was simulated, e.g. "Model Exchange (dopri5)".
    pub mode: String,
    /// The time reached.
    pub final_time: f64,
    /// Steps taken.
    pub steps: Steps,
    /// Events handled, where the run handles events.
    pub events: Option<usize>,
    /// Calls made to the FMUs.
    pub fmu_calls: u64,
    /// Wall-clock time of the run.
    pub wall_time: Duration,
    /// Result rows written.
    pub rows: usize,
    /// The result file.
    pub output: PathBuf,
    /// Remarks appended to the line (e.g. "the FMU ended the run early").
    pub remarks: Vec<String>,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} to t = {}: ",
            self.subject, self.mode, self.final_time
        )?;
        match self.steps {
            Steps::Integrator { accepted, rejected } => {
                write!(f, "{accepted} steps ({rejected} rejected)")?
            }
            Steps::Communication(n) => write!(f, "{n} steps")?,
            Steps::Macro(n) => write!(f, "{n} macro steps")?,
            Steps::Activations(n) => write!(f, "{n} partition activations")?,
        }
        if let Some(events) = self.events {
            write!(f, ", {events} events")?;
        }
        write!(
            f,
            ", {} FMU calls, {} wall time; {} rows written to {}",
            self.fmu_calls,
            format_duration(self.wall_time),
            self.rows,
            self.output.display()
        )?;
        for remark in &self.remarks {
            write!(f, "; {remark}")?;
        }
        Ok(())
    }
}

/// Seconds with three significant digits, or milliseconds below one second.
fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds < 1.0 {
        format!("{:.1} ms", seconds * 1e3)
    } else {
        format!("{seconds:.2} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(steps: Steps, events: Option<usize>) -> Summary {
        Summary {
            subject: "ball".into(),
            mode: "Model Exchange (esdirk)".into(),
            final_time: 3.0,
            steps,
            events,
            fmu_calls: 1234,
            wall_time: Duration::from_millis(1500),
            rows: 301,
            output: PathBuf::from("ball.csv"),
            remarks: vec!["the FMU ended the run early".into()],
        }
    }

    #[test]
    fn the_line_names_steps_events_calls_and_time() {
        let line = summary(
            Steps::Integrator {
                accepted: 80,
                rejected: 3,
            },
            Some(7),
        )
        .to_string();
        assert_eq!(
            line,
            "ball: Model Exchange (esdirk) to t = 3: 80 steps (3 rejected), 7 events, \
             1234 FMU calls, 1.50 s wall time; 301 rows written to ball.csv; \
             the FMU ended the run early"
        );
        let line = summary(Steps::Macro(300), None).to_string();
        assert!(
            line.contains("to t = 3: 300 macro steps, 1234 FMU calls"),
            "{line}"
        );
    }

    #[test]
    fn short_runs_are_in_milliseconds() {
        assert_eq!(format_duration(Duration::from_micros(2500)), "2.5 ms");
        assert_eq!(format_duration(Duration::from_secs(12)), "12.00 s");
    }
}
