fn main() {
    fmu_export::describe::main::<fmu_export::MechanicalSystem<nonlinear_mass::NonlinearMass>>(
        "nonlinear_mass",
    )
}
