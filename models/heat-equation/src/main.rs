//! The describe program of the `heat-equation` model: `cargo xtask fmus` runs it to write the
//! FMU's model descriptions and adjoint-extension manifest.

fn main() {
    fmu_export::describe::main::<fmu_export::OdeSystem<heat_equation::HeatEquation>>(
        "heat_equation",
    )
}
