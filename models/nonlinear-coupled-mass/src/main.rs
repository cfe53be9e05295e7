//! The describe program of the `nonlinear-coupled-mass` model: `cargo xtask fmus` runs it to write the FMU's
//! model descriptions and adjoint-extension manifest.

fn main() {
    fmu_export::describe::main::<
        fmu_export::MechanicalSystem<nonlinear_coupled_mass::NonlinearCoupledMass>,
    >("nonlinear_coupled_mass")
}
