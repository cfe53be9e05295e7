//! The double linear oscillator of the energy-correction study as three FMUs, `mass1`, the
//! coupling `spring` and `mass2`: system files for any schedule, in-process runs of them, and
//! their errors against the closed-form solution.

use std::path::{Path, PathBuf};

use tandem::instance::{LogLevel, LogSettings};
use tandem::run::{run, RunOptions, RunSummary};
use tandem_tests::double_oscillator::{DoubleOscillator, State};
use tandem_tests::fmus::{self, FmiVersion};

/// One way of co-simulating the three FMUs.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Masses and springs (the dampers must be zero: the FMUs' dampers are not wired here).
    pub system: DoubleOscillator,
    /// `jacobi` or `gauss-seidel`.
    pub kind: &'static str,
    /// Gauss-Seidel stepping order.
    pub order: Option<[&'static str; 3]>,
    /// `zoh`, `foh` or `soh`.
    pub extrapolation: &'static str,
    /// Macro step H.
    pub macro_step: f64,
    /// Steps of mass2 per macro step.
    pub mass2_sub_steps: usize,
    /// Stop time.
    pub stop: f64,
    /// The masses' interface: `"cs"` (their FMUs step by symplectic Euler) or `"me"` (the
    /// master integrates them).
    pub mass_interface: &'static str,
    /// `[schedule] threads`, if given.
    pub threads: Option<&'static str>,
}

impl Setup {
    /// Jacobi over one second of the undamped benchmark.
    pub fn jacobi(extrapolation: &'static str, macro_step: f64) -> Self {
        Setup {
            system: DoubleOscillator::UNDAMPED,
            kind: "jacobi",
            order: None,
            extrapolation,
            macro_step,
            mass2_sub_steps: 1,
            stop: 1.0,
            mass_interface: "cs",
            threads: None,
        }
    }

    /// Gauss-Seidel in `order` over one second of the undamped benchmark.
    pub fn gauss_seidel(
        order: [&'static str; 3],
        extrapolation: &'static str,
        macro_step: f64,
    ) -> Self {
        Setup {
            kind: "gauss-seidel",
            order: Some(order),
            ..Self::jacobi(extrapolation, macro_step)
        }
    }

    /// The system file, with absolute paths to the test FMUs (FMI 3.0).
    pub fn toml(&self) -> String {
        let mass = fmus::find("mass", FmiVersion::Fmi3)
            .path
            .display()
            .to_string();
        let spring = fmus::find("spring_damper", FmiVersion::Fmi3)
            .path
            .display()
            .to_string();
        let p = &self.system;
        let [x1, x2, v1, v2] = DoubleOscillator::INITIAL_STATE;
        let order = self
            .order
            .map(|o| format!("order = {o:?}\n"))
            .unwrap_or_default();
        let threads = self
            .threads
            .map(|t| format!("threads = {t}\n"))
            .unwrap_or_default();
        // Model Exchange components take no step; Co-Simulation ones keep the line, which
        // other tests edit.
        let (interface, mass2_step) = match self.mass_interface {
            "cs" => (
                String::new(),
                format!(
                    "step = {:?}\n",
                    self.macro_step / self.mass2_sub_steps as f64
                ),
            ),
            other => (format!("interface = \"{other}\"\n"), String::new()),
        };
        format!(
            r#"connections = [
    "mass1.position -> spring.x_a",
    "mass1.velocity -> spring.v_a",
    "mass2.position -> spring.x_b",
    "mass2.velocity -> spring.v_b",
    "spring.f_a -> mass1.F",
    "spring.f_b -> mass2.F",
]

[experiment]
stop = {stop:?}
step = {h:?}

[[component]]
name = "mass1"
fmu = '{mass}'
{interface}parameters = {{ m = {m1:?}, k = {k1:?} }}
start = {{ x = {x1:?}, v = {v1:?} }}

[[component]]
name = "spring"
fmu = '{spring}'
parameters = {{ k = {kc:?} }}

[[component]]
name = "mass2"
fmu = '{mass}'
{interface}{mass2_step}parameters = {{ m = {m2:?}, k = {k2:?} }}
start = {{ x = {x2:?}, v = {v2:?} }}

[schedule]
kind = "{kind}"
{order}{threads}extrapolation = "{extrapolation}"

[output]
variables = ["mass1.position", "mass2.position", "mass1.velocity", "mass2.velocity", "spring.f_a"]
"#,
            stop = self.stop,
            h = self.macro_step,
            m1 = p.m1,
            k1 = p.k1,
            kc = p.kc,
            m2 = p.m2,
            k2 = p.k2,
            kind = self.kind,
            extrapolation = self.extrapolation,
        )
    }

    /// The system file with an algebraic loop: mass1's acceleration, which depends directly
    /// on its force input, feeds the spring's x_a, from which the spring computes that force.
    /// mass1 is then an FMU (written into `dir`) whose acceleration is declared in metres, so
    /// that it may feed a position.
    pub fn acceleration_loop_toml(&self, dir: &Path) -> String {
        self.acceleration_loop_toml_with(dir, &[])
    }

    /// [`Setup::acceleration_loop_toml`] with mass1's model description edited further by
    /// `edits` (each `(from, to)` replacing the first `from`).
    pub fn acceleration_loop_toml_with(&self, dir: &Path, edits: &[(&str, &str)]) -> String {
        let fmu = dir.join("mass-in-metres.fmu");
        let mut all = vec![(r#"unit="m/s2"/>"#, r#"unit="m"/>"#)];
        all.extend_from_slice(edits);
        let edited = super::fmu_with_model_description("mass", &all);
        std::fs::write(&fmu, edited).expect("write the edited FMU");
        let mass = fmus::find("mass", FmiVersion::Fmi3)
            .path
            .display()
            .to_string();
        self.toml()
            .replacen(
                "\"mass1.position -> spring.x_a\"",
                "\"mass1.acceleration -> spring.x_a\"",
                1,
            )
            .replacen(
                &format!("fmu = '{mass}'"),
                &format!("fmu = '{}'", fmu.display()),
                1,
            )
    }

    /// Writes the system file into `dir` and returns its path.
    pub fn write(&self, dir: &Path) -> PathBuf {
        let path = dir.join("double-oscillator.toml");
        std::fs::write(&path, self.toml()).expect("write the system file");
        path
    }

    /// Runs the system in this process with `log`, writing the results into `dir`.
    pub fn run_with(&self, dir: &Path, log: LogSettings) -> (tandem::Result<RunSummary>, PathBuf) {
        let output = dir.join("result.csv");
        let options = RunOptions {
            output_file: Some(output.clone()),
            log,
            ..RunOptions::default()
        };
        (run(&self.write(dir), &options), output)
    }

    /// Runs the system in this process and reads its trajectory; panics if the run fails.
    pub fn run(&self) -> Trajectory {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let log = LogSettings {
            level: LogLevel::Error,
            ..LogSettings::default()
        };
        let (result, output) = self.run_with(dir.path(), log);
        if let Err(error) = result {
            panic!("{self:?} failed: {error}");
        }
        Trajectory::read(&output)
    }
}

/// Recorded states `[x1, x2, v1, v2]` over time.
pub struct Trajectory {
    /// Times of the rows.
    pub times: Vec<f64>,
    /// States at those times.
    pub states: Vec<State>,
    /// The spring's force on mass 1.
    pub force: Vec<f64>,
}

impl Trajectory {
    /// Reads a result file of a [`Setup`] run.
    pub fn read(path: &Path) -> Self {
        let (header, rows) = super::read_csv(path);
        let expected = [
            "time",
            "mass1.position",
            "mass2.position",
            "mass1.velocity",
            "mass2.velocity",
            "spring.f_a",
        ];
        assert_eq!(header, expected, "columns of {}", path.display());
        Trajectory {
            times: rows.iter().map(|r| r[0]).collect(),
            states: rows.iter().map(|r| [r[1], r[2], r[3], r[4]]).collect(),
            force: rows.iter().map(|r| r[5]).collect(),
        }
    }

    /// The largest position error (m) and velocity error (m/s) over both masses and every
    /// row, against the closed-form solution of `system`.
    pub fn errors(&self, system: &DoubleOscillator) -> (f64, f64) {
        let mut errors = (0.0f64, 0.0f64);
        for (&t, state) in self.times.iter().zip(&self.states) {
            let exact = system.solution(&DoubleOscillator::INITIAL_STATE, t);
            for i in 0..2 {
                errors.0 = errors.0.max((state[i] - exact[i]).abs());
                errors.1 = errors.1.max((state[2 + i] - exact[2 + i]).abs());
            }
        }
        errors
    }
}
