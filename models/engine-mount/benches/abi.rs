//! The cost of the FMI 3.0 C ABI for this model (run by `cargo xtask bench`).

fn main() {
    tandem_tests::abi_bench::main::<fmu_export::MechanicalSystem<engine_mount::EngineMount>>();
}
