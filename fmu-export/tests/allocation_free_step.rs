//! Once an instance runs, a communication step of a small mechanical model allocates nothing:
//! neither the integrator's step nor the instance's doStep with the inputs set before it and
//! the outputs read after it (the calls a master makes at every step).

mod common;

use std::alloc::{GlobalAlloc, Layout, System as Heap};
use std::cell::Cell;

use common::Oscillator;
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
