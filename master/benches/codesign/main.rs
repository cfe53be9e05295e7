//! Co-design benchmark: the cost of one df/dd relative to one evaluation of f, by the coupled
//! adjoint and by central differences, at n_d = 3 (the cart-pole) and n_d = 20 (the mass
//! chain), each through its FMI 3.0 plant FMU; and where the adjoint's time goes (the
//! closed-loop reverse sweep, the Riccati seeds, the steady state). Prints a Markdown table;
//! nothing is asserted.
//!
//! Usage: `codesign --fmus <folder with fmi3/> [--repetitions R]`.

#[path = "../arguments.rs"]
mod arguments;
#[path = "../machine.rs"]
mod machine;

use std::path::Path;
use std::time::{Duration, Instant};

use tandem::codesign::fmu_plant::FmuPlant;
use tandem::codesign::problem_file;
use tandem::codesign::{analyze, central_differences, gradient};
use tandem::Fmu;

/// The example problems measured, with their plant FMUs.
const PROBLEMS: [(&str, &str); 2] = [("cart-pole", "cart_pole"), ("mass-chain", "mass_chain")];

fn main() {
    let (fmus, repetitions) = arguments::fmus_and_repetitions("codesign", 5);
    machine::print_machine();
    println!("| problem | n_x | n_d | f | df/dd adjoint | adjoint / f | central differences / f |");
    println!("|---|---|---|---|---|---|---|");
    for (problem, model) in PROBLEMS {
        measure(&fmus, problem, model, repetitions);
    }
}

/// Times f, the adjoint and central differences of `problem` (medians of `repetitions`).
fn measure(fmus: &Path, problem: &str, model: &str, repetitions: usize) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/codesign");
    let file = problem_file::read(&examples.join(format!("{problem}.toml")))
        .unwrap_or_else(|e| panic!("{problem}: {e}"));
    let path = fmus.join("fmi3").join(format!("{model}.fmu"));
    let fmu = Fmu::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut plant = FmuPlant::new(&fmu, &file.plant).expect("instantiate the plant");
    let d = file.start();
    let (mut f_times, mut adjoint_times, mut fd_times) = (vec![], vec![], vec![]);
    for _ in 0..repetitions {
        let start = Instant::now();
        let analysis = analyze(&mut plant, &file.problem, &d).expect("f");
        f_times.push(start.elapsed());
        let start = Instant::now();
        gradient(&mut plant, &file.problem, &analysis).expect("adjoint");
        adjoint_times.push(start.elapsed());
        let start = Instant::now();
        central_differences(&mut plant, &file.problem, &d, 1e-4).expect("differences");
        fd_times.push(start.elapsed());
    }
    let (f, adjoint, fd) = (median(f_times), median(adjoint_times), median(fd_times));
    let ms = |t: Duration| format!("{:.1} ms", t.as_secs_f64() * 1e3);
    println!(
        "| {problem} | {} | {} | {} | {} | {:.2} | {:.1} |",
        file.problem.x_target.len(),
        d.len(),
        ms(f),
        ms(adjoint),
        adjoint.as_secs_f64() / f.as_secs_f64(),
        fd.as_secs_f64() / f.as_secs_f64(),
    );
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}
