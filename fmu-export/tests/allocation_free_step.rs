//! Once an instance runs, a communication step of a small mechanical model allocates nothing:
//! neither the integrator's step nor the instance's doStep with the inputs set before it and
//! the outputs read after it (the calls a master makes at every step); nor does a Model
//! Exchange adjoint derivative once the thread's tape has grown (a co-design sweep makes one
//! per step).

mod common;

use std::alloc::{GlobalAlloc, Layout, System as Heap};
use std::cell::Cell;

use common::{Oscillator, MASS, STIFFNESS};
use fmu_export::instance::lifecycle::Kind;
use fmu_export::instance::logging::Silent;
use fmu_export::instance::Instance;
use fmu_export::variables::Role;
use fmu_export::{
    Declaration, Integrator, MechArgs, MechanicalModel, MechanicalSystem, Method, Scalar,
    StepInputs, System,
};

/// The system allocator, counting the allocations of the calling thread (tests run in
/// parallel threads; each counts only its own).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call unchanged to the system allocator; the counter is a
// const-initialized thread-local, whose access does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { Heap.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { Heap.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { Heap.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Allocations made by `f` on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// The shared test oscillator, integrated by HHT-alpha (its own declaration asks for SDIRK).
#[derive(Default)]
struct HhtOscillator(Oscillator);

impl MechanicalModel for HhtOscillator {
    fn declaration(&self) -> Declaration {
        self.0.declaration().cosimulation(Method::Hht { alpha: -0.1 }, 1e-3)
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

#[test]
fn an_hht_step_allocates_nothing() {
    let sys = MechanicalSystem::<HhtOscillator>::default();
    let decl = sys.declaration();
    let (p, mut d) = (decl.parameter_starts(), decl.discrete_starts());
    let mut inputs = StepInputs::held(0.0, &[0.5]);
    let mut integrator = sys.integrator();
    integrator.initialize(&sys, 0.0, &decl.state_starts(), &inputs, &p, &d).unwrap();
    let mut y = vec![0.0; decl.outputs.len()];
    let mut step = |t: f64| {
        inputs.t0 = t;
        inputs.coefficients[0][0] = t.sin();
        integrator.do_step(&sys, t, 1e-3, &inputs, &p, &mut d).unwrap();
        integrator.outputs(&sys, t + 1e-3, &inputs.coefficients[0], &p, &d, &mut y);
    };
    step(0.0);
    let count = allocations(|| (1..100).for_each(|k| step(k as f64 * 1e-3)));
    assert_eq!(count, 0, "99 integrator steps allocated {count} times");
}

#[test]
fn a_cosimulation_do_step_allocates_nothing() {
    let mut inst = Instance::<MechanicalSystem<HhtOscillator>>::new(
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
    assert_eq!(count, 0, "99 doStep calls with set and get allocated {count} times");
    assert!(y[0].is_finite() && y[0] != 0.0, "the steps ran: acceleration {}", y[0]);
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
    inst.adjoint_derivative(&unknowns, &knowns, &seed, &mut out).unwrap();
    let count = allocations(|| {
        (0..100).for_each(|_| inst.adjoint_derivative(&unknowns, &knowns, &seed, &mut out).unwrap())
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
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "known {k}: {a} vs {b}");
    }
}
