fn main() {
    fmu_export::describe::main::<fmu_export::MechanicalSystem<coupled_mass::CoupledMass>>(
        "coupled_mass",
    )
}
