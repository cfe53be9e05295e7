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

#[test]
fn sensitivity_outputs_are_an_error_in_model_exchange_and_before_the_integrator_starts() {
    use fmu_export::instance::lifecycle::Kind;
    use fmu_export::instance::logging::Silent;
    use fmu_export::instance::Instance;
    use fmu_export::variables::sensitivity_name;

    let read_output = |y: &str, kind: Kind, initialized: bool| {
        let mut instance =
            Instance::<MechanicalSystem<Oscillator>>::new(kind, Box::new(Silent), false);
        let vr = instance
            .table()
            .by_name(&sensitivity_name(y, "c"))
            .unwrap()
            .vr;
        instance.enter_initialization_mode().unwrap();
        if initialized {
            instance.exit_initialization_mode().unwrap();
        }
        let mut value = [0.0];
        instance.get_values(&[vr], &mut value).map(|()| value[0])
    };
    let read = |kind: Kind, initialized: bool| read_output("position", kind, initialized);
    let model_exchange = read(Kind::ModelExchange, true).unwrap_err().message;
    assert!(
        model_exchange.starts_with("'d(position)/d(c)': ")
            && model_exchange.contains("Model Exchange cannot provide them"),
        "{model_exchange}"
    );
    let before = read(Kind::CoSimulation, false).unwrap_err().message;
    assert!(before.contains("after exitInitializationMode"), "{before}");
    // At the start the position (a state start value) does not depend on the stiffness.
    assert_eq!(read(Kind::CoSimulation, true), Ok(0.0));
    // The consistent start acceleration a0 = (-c x0 - d v0) / m gives da0/dc = -x0 / m.
    let da0_dc = read_output("acceleration", Kind::CoSimulation, true).unwrap();
    assert!((da0_dc - (-0.01 / 2.0)).abs() < 1e-15, "da0/dc = {da0_dc}");
}
