//! The check every gradient test makes: the adjoint against central differences of whole runs.

use tandem::gradient::{Differences, Method, Problem};

/// The adjoint gradient at the start values (asserted to be the adjoint for every parameter)
/// and central differences of whole runs, with the relative error of each parameter, printed
/// under `label`.
pub fn adjoint_and_differences(problem: &mut Problem, label: &str) -> Vec<f64> {
    let values = problem.start_values();
    let evaluation = problem.gradient(&values).expect("the gradient");
    assert!(
        evaluation.methods.iter().all(|m| *m == Method::Adjoint),
        "{label}: {:?}",
        evaluation.methods
    );
    let all: Vec<usize> = (0..values.len()).collect();
    let check = problem
        .finite_differences(&values, &all, Differences::CHECK)
        .expect("the check");
    let names: Vec<String> = problem
        .parameters()
        .iter()
        .map(|p| p.name.clone())
        .collect();
    evaluation
        .gradient
        .iter()
        .zip(&check)
        .zip(&names)
        .map(|((&g, &c), name)| {
            let error = (g - c).abs() / c.abs();
            println!("{label} {name}: adjoint {g:e}, differences {c:e}, error {error:.1e}");
            error
        })
        .collect()
}
