fn main() {
    fmu_export::describe::main::<fmu_export::MechanicalSystem<summing_mass::SummingMass>>(
        "summing_mass",
    )
}
