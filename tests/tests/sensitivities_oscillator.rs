//! The oscillator's (HHT) sensitivity outputs `d(y)/d(c)`, `d(y)/d(d)` in Co-Simulation
//! against central finite differences.

use fmu_export::MechanicalSystem;
use oscillator::Oscillator;
use tandem_tests::sensitivities::{by_parameter, differences, relative_error, run, TOLERANCE};

#[test]
fn oscillator_sensitivities_match_central_differences() {
    let steps = 200;
    let exact = by_parameter(&run::<MechanicalSystem<Oscillator>>(steps, &[]).sensitivities);
    let error = relative_error(&exact, &differences::<MechanicalSystem<Oscillator>>(steps));
    println!("oscillator: largest relative error of d(y)/d(c, d) after {steps} steps: {error:e}");
    assert!(error < TOLERANCE, "relative error {error:e}");
}
