fn main() {
    fmu_export::describe::main::<fmu_export::MechanicalSystem<coupled_pendulum::CoupledPendulum>>(
        "coupled_pendulum",
    )
}
