//! The describe program of the `mass-chain` model: `cargo xtask fmus` runs it to write the FMU's
//! model descriptions and adjoint-extension manifest.

fn main() {
    fmu_export::describe::main::<
        fmu_export::OdeSystem<codesign_equations::PlantModel<codesign_equations::MassChain>>,
    >("mass_chain")
}
