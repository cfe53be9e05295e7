//! The cost of the FMI 3.0 C ABI: a model stepped through `fmi3DoStep` with the calls a master
//! makes around every step (set the inputs, doStep, get the outputs), against the same
//! integrator called directly in Rust (`Integrator::do_step` and `Integrator::outputs`).
//!
//! Each model crate has a bench program (`benches/abi.rs`, `harness = false`) that calls
//! [`main`] with its system type: the direct side needs the model linked in, and one program
//! can link only one model, since every model library exports the same `fmi*` symbols. The C
//! side loads the crate's own shared library, a separate object, with libloading.
//! `cargo xtask bench` builds and runs them and prints the table.

use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};
use std::time::Instant;

use fmu_export::fmi3::types::*;
use fmu_export::instance::sensitivity::{step_sensitivities, StepArguments};
use fmu_export::token::instantiation_token;
use fmu_export::variables::{Role, VariableTable};
use fmu_export::{Integrator, StepInputs, System};
use libloading::Library;

/// What one bench program measures.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The model's shared library.
    pub library: PathBuf,
    /// Communication steps per run.
    pub steps: usize,
    /// Communication step size; 0 picks the model's max_step, or less so that the run spans
    /// the default experiment (either way a fixed-step method takes one internal step per
    /// communication step).
    pub step_size: f64,
    /// Runs of each side; the medians are reported.
    pub repetitions: usize,
    /// Runs only this side (for an instruction profile of one side); all of them if `None`.
    pub only: Option<Side>,
}

/// One way of stepping the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Through the C ABI of the shared library.
    CAbi,
    /// The integrator called directly, doing what the FMU does (sensitivities included).
    Direct,
    /// The integrator's steps alone.
    Integrator,
}

impl std::str::FromStr for Side {
    type Err = String;

    fn from_str(text: &str) -> Result<Side, String> {
        match text {
            "c-abi" => Ok(Side::CAbi),
            "direct" => Ok(Side::Direct),
            "integrator" => Ok(Side::Integrator),
            other => Err(format!(
                "--only: `{other}` is not c-abi, direct or integrator"
            )),
        }
    }
}

impl Settings {
    /// Reads `--library PATH [--steps N] [--step-size H] [--repetitions R] [--only SIDE]`
    /// (and ignores the `--bench` flag cargo passes).
    pub fn from_args(mut args: impl Iterator<Item = String>) -> Result<Settings, String> {
        let mut settings = Settings {
            library: PathBuf::new(),
            steps: 100_000,
            step_size: 0.0,
            repetitions: 5,
            only: None,
        };
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("`{arg}` needs a value"));
            match arg.as_str() {
                "--bench" => {}
                "--library" => settings.library = PathBuf::from(value()?),
                "--steps" => settings.steps = number(&arg, &value()?)?,
                "--step-size" => settings.step_size = number(&arg, &value()?)?,
                "--repetitions" => settings.repetitions = number(&arg, &value()?)?,
                "--only" => settings.only = Some(value()?.parse()?),
                other => return Err(format!("unknown argument `{other}`")),
            }
        }
        if settings.library.as_os_str().is_empty() {
            return Err("--library PATH is required".into());
        }
        if settings.steps == 0 || settings.repetitions == 0 {
            return Err("--steps and --repetitions must be positive".into());
        }
        Ok(settings)
    }
}

fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{flag}: `{text}` is not a valid number"))
}

/// The medians of one bench program, in seconds per run.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The model identifier.
    pub model: String,
    /// Communication steps per run.
    pub steps: usize,
    /// Communication step size.
    pub step_size: f64,
    /// Runs of each side.
    pub repetitions: usize,
    /// Median time of a run through the C ABI.
    pub c_abi: f64,
    /// Median time of a run calling the integrator directly, doing what the FMU does (the
    /// sensitivities included).
    pub direct: f64,
    /// Median time of a run of the integrator's steps alone (no sensitivities); the same as
    /// `direct` for a model without sensitivity outputs.
    pub integrator: f64,
}

impl Measurement {
    /// The measurement as one JSON object on one line, which `cargo xtask bench` reads.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"model\":\"{}\",\"steps\":{},\"step_size\":{:e},\"repetitions\":{},\"c_abi\":{:e},\"direct\":{:e},\"integrator\":{:e}}}",
            self.model,
            self.steps,
            self.step_size,
            self.repetitions,
            self.c_abi,
            self.direct,
            self.integrator
        )
    }
}

/// The bench program of a model crate: reads [`Settings`] from the command line, measures, and
/// prints the JSON line; exits with status 2 and a message on a usage error.
pub fn main<S: System>() {
    let settings = match Settings::from_args(std::env::args().skip(1)) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("abi bench: {message}");
            std::process::exit(2);
        }
    };
    println!("{}", measure::<S>(&settings).to_json());
}

/// Runs both sides `settings.repetitions` times, alternating, and returns the medians; panics
/// if the two sides do not end on bit-identical outputs (then they did not compute the same).
/// With [`Settings::only`], runs that side alone and reports 0 for the others.
pub fn measure<S: System>(settings: &Settings) -> Measurement {
    let sys = S::default();
    let decl = sys.declaration();
    let span = decl.experiment.stop - decl.experiment.start;
    let step_size = if settings.step_size > 0.0 {
        settings.step_size
    } else {
        decl.cosimulation.max_step.min(span / settings.steps as f64)
    };
    let fmu = CoSimulation::load(&settings.library, &sys);
    let (mut c_abi, mut direct, mut integrator) = (Vec::new(), Vec::new(), Vec::new());
    let has_sensitivities = !decl.sensitivities.is_empty();
    let runs = |side: Side| settings.only.is_none_or(|only| only == side);
    for _ in 0..settings.repetitions {
        let through_c = runs(Side::CAbi).then(|| {
            let (seconds, outputs) = fmu.run(&sys, settings.steps, step_size);
            c_abi.push(seconds);
            outputs
        });
        let in_rust = runs(Side::Direct).then(|| {
            let (seconds, outputs) = run_direct(&sys, settings.steps, step_size, has_sensitivities);
            direct.push(seconds);
            outputs
        });
        if has_sensitivities && runs(Side::Integrator) {
            integrator.push(run_direct(&sys, settings.steps, step_size, false).0);
        }
        if let (Some(through_c), Some(in_rust)) = (through_c, in_rust) {
            assert!(
                bits(&through_c) == bits(&in_rust),
                "{}: the C ABI ends on outputs {through_c:?}, the direct integrator on {in_rust:?}",
                decl.model_name
            );
        }
    }
    if !has_sensitivities {
        integrator.clone_from(&direct);
    }
    Measurement {
        model: decl.model_name.clone(),
        steps: settings.steps,
        step_size,
        repetitions: settings.repetitions,
        c_abi: median(c_abi),
        direct: median(direct),
        integrator: median(integrator),
    }
}

/// The input values at time `t`: a slow sine of unit amplitude on every input, so that the
/// inputs change every step as a coupled master's would.
fn inputs_at(t: f64, n: usize) -> Vec<f64> {
    let mut u = vec![0.0; n];
    write_inputs(t, &mut u);
    u
}

/// [`inputs_at`] into `u` (the timed loops allocate nothing of their own).
fn write_inputs(t: f64, u: &mut [f64]) {
    u.iter_mut()
        .enumerate()
        .for_each(|(i, ui)| *ui = (t + i as f64).sin());
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// The median of `values` (0 for none: a side that was not run).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The model's integrator called directly: `initialize` at the start values, then per step
/// `do_step` with the inputs held and `outputs`. Returns the time of the steps and the last
/// outputs. With `sensitivities` (for a model that declares sensitivity outputs) each step is
/// linearized and the sensitivities are propagated through it, as the model's FMU does at
/// every step, so that both sides do the same work.
fn run_direct<S: System>(sys: &S, steps: usize, h: f64, sensitivities: bool) -> (f64, Vec<f64>) {
    let decl = sys.declaration();
    let (p, mut d) = (decl.parameter_starts(), decl.discrete_starts());
    let (n_u, n_y) = (decl.inputs.len(), decl.outputs.len());
    let mut integrator = sys.integrator();
    let u0 = inputs_at(0.0, n_u);
    integrator
        .initialize(
            sys,
            0.0,
            &decl.state_starts(),
            &StepInputs::held(0.0, &u0),
            &p,
            &d,
        )
        .unwrap_or_else(|e| panic!("{}: initialization failed: {e}", decl.model_name));
    let mut y = vec![0.0; n_y];
    let mut inputs = StepInputs::held(0.0, &u0);
    let columns: &[usize] = if sensitivities {
        &decl.sensitivities
    } else {
        &[]
    };
    // The values of the sensitivities do not change the cost of propagating them.
    let state_len = integrator
        .discrete_adjoint()
        .map_or(0, |adjoint| adjoint.adjoint_state().len());
    let mut s = vec![0.0; columns.len() * state_len];
    let start = Instant::now();
    let mut t = 0.0;
    for _ in 0..steps {
        inputs.t0 = t;
        write_inputs(t, &mut inputs.coefficients[0]);
        let step = match integrator.discrete_adjoint_mut() {
            Some(adjoint) if !columns.is_empty() => {
                let arguments = StepArguments {
                    t,
                    h,
                    inputs: &inputs,
                    p: &p,
                };
                step_sensitivities(adjoint, sys, arguments, &mut d, columns, &mut s)
            }
            _ => integrator
                .do_step(sys, t, h, &inputs, &p, &mut d)
                .map_err(|e| e.to_string()),
        };
        step.unwrap_or_else(|e| panic!("{}: step at t = {t} failed: {e}", decl.model_name));
        t += h;
        integrator.outputs(sys, t, &inputs.coefficients[0], &p, &d, &mut y);
    }
    (start.elapsed().as_secs_f64(), y)
}

type InstantiateCoSimulation = unsafe extern "C" fn(
    Fmi3String,
    Fmi3String,
    Fmi3String,
    Fmi3Boolean,
    Fmi3Boolean,
    Fmi3Boolean,
    Fmi3Boolean,
    *const Fmi3ValueReference,
    usize,
    Fmi3InstanceEnvironment,
    Fmi3LogMessageCallback,
    Fmi3IntermediateUpdateCallback,
) -> Fmi3Instance;
type EnterInitializationMode =
    unsafe extern "C" fn(Fmi3Instance, Fmi3Boolean, f64, f64, Fmi3Boolean, f64) -> Fmi3Status;
type InstanceCall = unsafe extern "C" fn(Fmi3Instance) -> Fmi3Status;
type GetFloat64 = unsafe extern "C" fn(
    Fmi3Instance,
    *const Fmi3ValueReference,
    usize,
    *mut f64,
    usize,
) -> Fmi3Status;
type SetFloat64 = unsafe extern "C" fn(
    Fmi3Instance,
    *const Fmi3ValueReference,
    usize,
    *const f64,
    usize,
) -> Fmi3Status;
type DoStep = unsafe extern "C" fn(
    Fmi3Instance,
    f64,
    f64,
    Fmi3Boolean,
    *mut Fmi3Boolean,
    *mut Fmi3Boolean,
    *mut Fmi3Boolean,
    *mut f64,
) -> Fmi3Status;

/// The FMI 3.0 Co-Simulation functions of a loaded model library, resolved once as a master
/// does, with the value references of the model's inputs and outputs.
struct CoSimulation {
    token: CString,
    inputs: Vec<Fmi3ValueReference>,
    outputs: Vec<Fmi3ValueReference>,
    instantiate: InstantiateCoSimulation,
    enter_initialization_mode: EnterInitializationMode,
    exit_initialization_mode: InstanceCall,
    set_float64: SetFloat64,
    get_float64: GetFloat64,
    do_step: DoStep,
    free_instance: unsafe extern "C" fn(Fmi3Instance),
    _library: Library,
}

impl CoSimulation {
    fn load<S: System>(path: &Path, sys: &S) -> CoSimulation {
        // SAFETY: a Tandem model library, whose initializers only set up Rust statics.
        let library = unsafe { Library::new(path) }
            .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
        fn symbol<F: Copy>(library: &Library, name: &str) -> F {
            // SAFETY: the callers state the FMI 3.0 signature of `name`.
            unsafe {
                *library
                    .get::<F>(name.as_bytes())
                    .unwrap_or_else(|e| panic!("{name}: {e}"))
            }
        }
        let decl = sys.declaration();
        let table = VariableTable::new(decl);
        let vrs = |role: fn(usize) -> Role, n: usize| -> Vec<Fmi3ValueReference> {
            (0..n)
                .map(|i| {
                    table
                        .vr_of(role(i))
                        .expect("every declared variable has a vr")
                })
                .collect()
        };
        CoSimulation {
            token: CString::new(instantiation_token(decl)).expect("the token has no NUL"),
            inputs: vrs(Role::Input, decl.inputs.len()),
            outputs: vrs(Role::Output, decl.outputs.len()),
            instantiate: symbol(&library, "fmi3InstantiateCoSimulation"),
            enter_initialization_mode: symbol(&library, "fmi3EnterInitializationMode"),
            exit_initialization_mode: symbol(&library, "fmi3ExitInitializationMode"),
            set_float64: symbol(&library, "fmi3SetFloat64"),
            get_float64: symbol(&library, "fmi3GetFloat64"),
            do_step: symbol(&library, "fmi3DoStep"),
            free_instance: symbol(&library, "fmi3FreeInstance"),
            _library: library,
        }
    }

    /// Instantiates, initializes at the start values (inputs as [`inputs_at`] 0) and steps;
    /// returns the time of the steps and the last outputs.
    fn run<S: System>(&self, sys: &S, steps: usize, h: f64) -> (f64, Vec<f64>) {
        let name = &sys.declaration().model_name;
        let check = |status: Fmi3Status, call: &str| {
            assert_eq!(status, Fmi3Status::Ok, "{name}: {call} failed");
        };
        let mut y = vec![0.0; self.outputs.len()];
        let (mut event, mut terminate, mut early, mut last) = (0, 0, 0, 0.0);
        let (n_u, n_y) = (self.inputs.len(), self.outputs.len());
        // SAFETY: FMI 3.0 calls in the order the standard prescribes, with arrays of the stated
        // lengths and out-pointers to live locals; the instance is freed once at the end.
        unsafe {
            let instance = (self.instantiate)(
                c"bench".as_ptr(),
                self.token.as_ptr(),
                std::ptr::null(),
                FMI3_FALSE,
                FMI3_FALSE,
                FMI3_FALSE,
                FMI3_FALSE,
                std::ptr::null(),
                0,
                std::ptr::null_mut::<c_void>(),
                None,
                None,
            );
            assert!(
                !instance.is_null(),
                "{name}: fmi3InstantiateCoSimulation returned NULL"
            );
            let u0 = inputs_at(0.0, n_u);
            check(
                (self.set_float64)(instance, self.inputs.as_ptr(), n_u, u0.as_ptr(), n_u),
                "fmi3SetFloat64",
            );
            check(
                (self.enter_initialization_mode)(instance, FMI3_FALSE, 0.0, 0.0, FMI3_FALSE, 0.0),
                "fmi3EnterInitializationMode",
            );
            check(
                (self.exit_initialization_mode)(instance),
                "fmi3ExitInitializationMode",
            );
            let mut u = u0;
            let start = Instant::now();
            let mut t = 0.0;
            for _ in 0..steps {
                write_inputs(t, &mut u);
                if n_u > 0 {
                    let status =
                        (self.set_float64)(instance, self.inputs.as_ptr(), n_u, u.as_ptr(), n_u);
                    check(status, "fmi3SetFloat64");
                }
                let status = (self.do_step)(
                    instance,
                    t,
                    h,
                    FMI3_TRUE,
                    &mut event,
                    &mut terminate,
                    &mut early,
                    &mut last,
                );
                check(status, "fmi3DoStep");
                t += h;
                let status =
                    (self.get_float64)(instance, self.outputs.as_ptr(), n_y, y.as_mut_ptr(), n_y);
                check(status, "fmi3GetFloat64");
            }
            let seconds = start.elapsed().as_secs_f64();
            (self.free_instance)(instance);
            (seconds, y)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> impl Iterator<Item = String> {
        list.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn settings_are_read_and_checked() {
        let s =
            Settings::from_args(args(&["--bench", "--library", "l.so", "--steps", "10"])).unwrap();
        assert_eq!(
            (s.library, s.steps, s.step_size, s.repetitions),
            (PathBuf::from("l.so"), 10, 0.0, 5)
        );
        assert!(Settings::from_args(args(&["--steps", "10"]))
            .unwrap_err()
            .contains("--library"));
        assert!(
            Settings::from_args(args(&["--library", "l", "--steps", "x"]))
                .unwrap_err()
                .contains("not a valid")
        );
        assert!(Settings::from_args(args(&["--frobnicate"]))
            .unwrap_err()
            .contains("unknown argument"));
        let only = Settings::from_args(args(&["--library", "l", "--only", "integrator"]));
        assert_eq!(only.unwrap().only, Some(Side::Integrator));
        assert!(
            Settings::from_args(args(&["--library", "l", "--only", "all"]))
                .unwrap_err()
                .contains("--only")
        );
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(Vec::new()), 0.0);
    }
}
