//! The describe program of the `summing-mass` model: `cargo xtask fmus` runs it to write the FMU's
//! model descriptions and adjoint-extension manifest.

fn main() {
    fmu_export::describe::main::<fmu_export::MechanicalSystem<summing_mass::SummingMass>>(
        "summing_mass",
    )
}
