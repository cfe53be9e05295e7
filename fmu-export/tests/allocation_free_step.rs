//! Once an instance runs, a communication step of a small mechanical model allocates nothing,
//! whichever method integrates it (HHT-alpha, symplectic Euler, SDIRK): neither the
//! integrator's step nor the instance's doStep with the inputs set before it and the outputs
//! read after it (the calls a master makes at every step). Its step VJP allocates
//! only the record of the step it takes, and its output VJP nothing (the calls a gradient's
//! reverse sweep makes at every step); nor does a Model Exchange adjoint derivative once the
//! thread's tape has grown (a co-design sweep makes one per step).

mod common;
mod counting;

use std::marker::PhantomData;

use common::{Oscillator, MASS, STIFFNESS};
use counting::allocations;
use fmu_export::instance::adjoint::{StepArguments, StepResults};
use fmu_export::instance::lifecycle::Kind;
use fmu_export::instance::logging::Silent;
use fmu_export::instance::Instance;
use fmu_export::variables::Role;
use fmu_export::{
    Declaration, Integrator, MechArgs, MechanicalModel, MechanicalSystem, Method, Scalar,
    StepInputs, System,
};

/// A co-simulation method of the mechanical integrator, as a type.
trait Choice: Default + Send + Sync + 'static {
    /// The method.
    const METHOD: Method;
}

#[derive(Default)]
struct Hht;

impl Choice for Hht {
    const METHOD: Method = Method::Hht { alpha: -0.1 };
}

#[derive(Default)]
struct SymplecticEuler;

impl Choice for SymplecticEuler {
    const METHOD: Method = Method::SymplecticEuler;
}

#[derive(Default)]
struct Sdirk;

impl Choice for Sdirk {
    const METHOD: Method = Method::Sdirk {
        rtol: 1e-8,
        atol: 1e-10,
    };
}

/// The shared test oscillator, integrated in co-simulation by the method `C` with steps of at
/// most 1 ms.
#[derive(Default)]
struct Integrated<C>(Oscillator, PhantomData<C>);

impl<C: Choice> MechanicalModel for Integrated<C> {
    fn declaration(&self) -> Declaration {
        self.0.declaration().cosimulation(C::METHOD, 1e-3)
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        self.0.mass_matrix(a, m)
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        self.0.forces(a, f)
    }

    fn outputs<T: Scalar>(&self, a: &MechArgs<T>, acc: &[T], lambda: &[T], y: &mut [T]) {
        self.0.outputs(a, acc, lambda, y)
    }
}

/// The oscillator of the adjoint tests.
type HhtOscillator = Integrated<Hht>;

/// Allocations of 99 integrator steps of the oscillator integrated by `C`, each followed by
/// its outputs, after a first step.
fn integrator_step_allocations<C: Choice>() -> usize {
    let sys = MechanicalSystem::<Integrated<C>>::default();
    let decl = sys.declaration();
    let (p, mut d) = (decl.parameter_starts(), decl.discrete_starts());
    let mut inputs = StepInputs::held(0.0, &[0.5]);
    let mut integrator = sys.integrator();
    integrator
        .initialize(&sys, 0.0, &decl.state_starts(), &inputs, &p, &d)
        .unwrap();
    let mut y = vec![0.0; decl.outputs.len()];
    let mut step = |t: f64| {
        inputs.t0 = t;
        inputs.coefficients[0][0] = t.sin();
        integrator
            .do_step(&sys, t, 1e-3, &inputs, &p, &mut d)
            .unwrap();
        integrator.outputs(&sys, t + 1e-3, &inputs.coefficients[0], &p, &d, &mut y);
    };
    step(0.0);
    allocations(|| (1..100).for_each(|k| step(k as f64 * 1e-3)))
}

#[test]
fn an_integrator_step_allocates_nothing_with_any_mechanical_method() {
    for (method, count) in [
        ("HHT", integrator_step_allocations::<Hht>()),
        (
            "symplectic Euler",
            integrator_step_allocations::<SymplecticEuler>(),
        ),
        ("SDIRK", integrator_step_allocations::<Sdirk>()),
    ] {
        assert_eq!(count, 0, "99 {method} steps allocated {count} times");
    }
}

/// Allocations of 99 doStep calls of a Co-Simulation instance of the oscillator integrated by
/// `C`, each with the input set before it and the output read after it, after a first one.
fn do_step_allocations<C: Choice>() -> usize {
    let mut inst = Instance::<MechanicalSystem<Integrated<C>>>::new(
        Kind::CoSimulation,
        Box::new(Silent),
        false,
    );
    let force = inst.table().vr_of(Role::Input(0)).unwrap();
    let acceleration = inst.table().vr_of(Role::Output(0)).unwrap();
    inst.setup_experiment(None, 0.0, None).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    let mut y = [0.0];
    let mut step = |t: f64| {
        inst.set_values(&[force], &[t.sin()]).unwrap();
        inst.do_step(t, 1e-3).unwrap();
        inst.get_values(&[acceleration], &mut y).unwrap();
    };
    step(0.0);
    let count = allocations(|| (1..100).for_each(|k| step(k as f64 * 1e-3)));
    assert!(
        y[0].is_finite() && y[0] != 0.0,
        "the steps ran: acceleration {}",
        y[0]
    );
    count
}

#[test]
fn a_cosimulation_do_step_allocates_nothing_with_any_mechanical_method() {
    for (method, count) in [
        ("HHT", do_step_allocations::<Hht>()),
        ("symplectic Euler", do_step_allocations::<SymplecticEuler>()),
        ("SDIRK", do_step_allocations::<Sdirk>()),
    ] {
        assert_eq!(
            count, 0,
            "99 {method} doStep calls with set and get allocated {count} times"
        );
    }
}

/// An initialized Co-Simulation instance of the HHT oscillator.
fn started() -> Instance<MechanicalSystem<HhtOscillator>> {
    let mut inst = Instance::new(Kind::CoSimulation, Box::new(Silent), false);
    inst.setup_experiment(None, 0.0, None).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    inst
}

/// The adjoints `(state, inputs, parameters)` a step VJP returns.
type Adjoints = (Vec<f64>, Vec<f64>, Vec<f64>);

/// Zeroed adjoint arrays for `inst` and seeds on its state and outputs.
fn arrays(inst: &Instance<MechanicalSystem<HhtOscillator>>) -> (Adjoints, Vec<f64>, Vec<f64>) {
    let ns = inst.adjoint_state_size().unwrap();
    let decl = inst.declaration();
    let (nu, np, ny) = (decl.inputs.len(), decl.parameters.len(), decl.outputs.len());
    let seeds_state = (0..ns).map(|i| 1.0 + i as f64).collect();
    (
        (vec![0.0; ns], vec![0.0; nu], vec![0.0; np]),
        seeds_state,
        vec![0.5; ny],
    )
}

/// One step VJP of `inst` over 1 ms into `out`.
fn step_vjp(
    inst: &mut Instance<MechanicalSystem<HhtOscillator>>,
    seeds: (&[f64], &[f64]),
    out: &mut Adjoints,
) {
    let results = StepResults {
        state: seeds.0,
        outputs: seeds.1,
    };
    let (state, inputs, params) = (&mut out.0[..], &mut out.1[..], &mut out.2[..]);
    inst.step_vjp(
        1e-3,
        results,
        StepArguments {
            state,
            inputs,
            params,
        },
    )
    .unwrap();
}

/// The allocations a step VJP may make: the record of the step it takes (the driver's tape:
/// the input polynomial, the parameters, the start state, the list of internal steps and the
/// states of its one internal step). Everything else is reused from the previous call.
const STEP_RECORD_ALLOCATIONS: usize = 8;

#[test]
fn a_step_vjp_allocates_only_the_record_of_its_step_and_leaves_the_instance_as_it_was() {
    let (mut inst, mut twin) = (started(), started());
    let force = inst.table().vr_of(Role::Input(0)).unwrap();
    let (mut out, w_bar, y_bar) = arrays(&inst);
    let mut fresh = out.clone();
    for inst in [&mut inst, &mut twin] {
        inst.set_values(&[force], &[0.75]).unwrap();
    }
    step_vjp(&mut inst, (&w_bar, &y_bar), &mut out);
    let calls = 10;
    let count =
        allocations(|| (0..calls).for_each(|_| step_vjp(&mut inst, (&w_bar, &y_bar), &mut out)));
    assert!(
        count <= calls * STEP_RECORD_ALLOCATIONS,
        "{calls} step VJPs allocated {count} times, more than their steps' records"
    );
    // Taken on the instance's own integrator for the linearization, the step is undone: the
    // next doStep is bit for bit the twin's, which computed no VJP.
    let acceleration = inst.table().vr_of(Role::Output(0)).unwrap();
    let (mut y, mut y_twin) = ([0.0], [0.0]);
    for (inst, y) in [(&mut inst, &mut y), (&mut twin, &mut y_twin)] {
        inst.do_step(0.0, 1e-3).unwrap();
        inst.get_values(&[acceleration], y).unwrap();
    }
    assert_eq!(y[0].to_bits(), y_twin[0].to_bits(), "doStep after the VJPs");
    // From the reused linearization at another point: bit for bit the VJP of an instance that
    // linearizes its first step there.
    step_vjp(&mut inst, (&w_bar, &y_bar), &mut out);
    step_vjp(&mut twin, (&w_bar, &y_bar), &mut fresh);
    assert_eq!(out, fresh, "the VJP from reused buffers");
    assert!(out.2.iter().any(|&v| v != 0.0), "the VJP ran: {out:?}");
}

#[test]
fn an_output_vjp_allocates_nothing() {
    let mut inst = started();
    let ((mut state, mut inputs, mut params), _, y_bar) = arrays(&inst);
    let mut output_vjp = |inst: &mut Instance<MechanicalSystem<HhtOscillator>>| {
        let (state, inputs, params) = (&mut state[..], &mut inputs[..], &mut params[..]);
        let out = StepArguments {
            state,
            inputs,
            params,
        };
        inst.output_vjp(&y_bar, out).unwrap();
    };
    output_vjp(&mut inst);
    let count = allocations(|| (0..10).for_each(|_| output_vjp(&mut inst)));
    assert_eq!(count, 0, "10 output VJPs allocated {count} times");
}

#[test]
fn a_model_exchange_adjoint_derivative_allocates_nothing() {
    let mut inst = Instance::<MechanicalSystem<HhtOscillator>>::new(
        Kind::ModelExchange,
        Box::new(Silent),
        false,
    );
    let vr = |role| inst.table().vr_of(role).unwrap();
    // Unknowns q' = v and v' = (F - c q - d v) / m; knowns q, v, F, m, c, d.
    let unknowns = [vr(Role::Derivative(0)), vr(Role::Derivative(1))];
    let knowns = [
        vr(Role::State(0)),
        vr(Role::State(1)),
        vr(Role::Input(0)),
        vr(Role::Parameter(0)),
        vr(Role::Parameter(1)),
        vr(Role::Parameter(2)),
    ];
    inst.setup_experiment(None, 0.0, None).unwrap();
    inst.enter_initialization_mode().unwrap();
    inst.exit_initialization_mode().unwrap();
    let (seed, mut out) = ([0.3, -1.5], [0.0; 6]);
    inst.adjoint_derivative(&unknowns, &knowns, &seed, &mut out)
        .unwrap();
    let count = allocations(|| {
        (0..100).for_each(|_| {
            inst.adjoint_derivative(&unknowns, &knowns, &seed, &mut out)
                .unwrap()
        })
    });
    assert_eq!(count, 0, "100 adjoint derivatives allocated {count} times");
    // At the start (q = 0.01, v = F = d = 0): seed_0 dq'/d. + seed_1 dv'/d. by hand.
    let q = 0.01;
    let expected = [
        -seed[1] * STIFFNESS / MASS,
        seed[0],
        seed[1] / MASS,
        seed[1] * STIFFNESS * q / (MASS * MASS),
        -seed[1] * q / MASS,
        0.0,
    ];
    for (k, (a, b)) in out.iter().zip(expected).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "known {k}: {a} vs {b}"
        );
    }
}
