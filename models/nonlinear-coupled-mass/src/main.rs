fn main() {
    fmu_export::describe::main::<
        fmu_export::MechanicalSystem<nonlinear_coupled_mass::NonlinearCoupledMass>,
    >("nonlinear_coupled_mass")
}
