fn main() {
    fmu_export::describe::main::<fmu_export::MechanicalSystem<pendulum::ForcedPendulum>>("pendulum")
}
