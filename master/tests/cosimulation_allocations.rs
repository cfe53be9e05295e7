//! The master's macro step allocates nothing: a chain of the Reference-FMUs (`benches/fmus`),
//! `Dahlquist.x -> Feedthrough -> Feedthrough`, stepped under Gauss-Seidel and under Jacobi
//! in turn makes (almost) no heap allocation over a thousand macro steps, counted by a global
//! allocator. (The FMUs' own code allocates nothing per step either.)

use std::alloc::{GlobalAlloc, Layout, System as SystemAllocator};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use tandem::coupling::Threads;
use tandem::instance::LogSettings;
use tandem::schedule::{CoSimulation, Progress};
use tandem::system::{LoadOptions, System};

/// The system allocator, counting allocations.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; the counter is an atomic.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's layout promise is passed on.
        unsafe { SystemAllocator.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { SystemAllocator.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as for `alloc` and `dealloc`.
        unsafe { SystemAllocator.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The chain under schedule `kind`, the FMUs by file name.
fn system_file(kind: &str) -> String {
    format!(
        r#"connections = [
    "dahlquist.x -> ft1.Float64_continuous_input",
    "ft1.Float64_continuous_output -> ft2.Float64_continuous_input",
]

[experiment]
stop = 10.0
step = 1e-3

[[component]]
name = "dahlquist"
fmu = "Dahlquist.fmu"

[[component]]
name = "ft1"
fmu = "Feedthrough.fmu"

[[component]]
name = "ft2"
fmu = "Feedthrough.fmu"

[schedule]
kind = "{kind}"

[output]
variables = ["ft2.Float64_continuous_output"]
"#
    )
}

/// Allocations made by macro steps 1001 to 2000 of the chain under `kind` (the first thousand
/// let every kept buffer reach its size).
fn allocations_of_steps(kind: &str) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chain.toml");
    std::fs::write(&path, system_file(kind)).unwrap();
    let fmu_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fmus/fmi3");
    let options = LoadOptions {
        fmu_dir: Some(&fmu_dir),
        threads: Some(Threads::Count(1.try_into().unwrap())),
        ..LoadOptions::default()
    };
    let system = System::load(&path, options).unwrap();
    let mut cosimulation = CoSimulation::initialize(&system, &LogSettings::default()).unwrap();
    let mut step = |k: usize| {
        let progress = cosimulation.step(k as f64 * system.macro_step).unwrap();
        assert!(progress == Progress::Reached, "{kind}: step {k} ended the run");
    };
    (1..=1000).for_each(&mut step);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    (1001..=2000).for_each(&mut step);
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

// One test for both schedules: tests of one program run on parallel threads, whose
// allocations the global counter would mix.
#[test]
fn a_macro_step_allocates_nothing_under_gauss_seidel_and_jacobi_in_turn() {
    for kind in ["gauss-seidel", "jacobi"] {
        let count = allocations_of_steps(kind);
        assert!(count < 10, "{kind}: {count} allocations in 1000 macro steps");
    }
}
