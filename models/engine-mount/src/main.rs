fn main() { fmu_export::describe::main::<fmu_export::MechanicalSystem<engine_mount::EngineMount>>("engine_mount") }
