//! The describe program of the `van-der-pol` model: `cargo xtask fmus` runs it to write the FMU's
//! model descriptions and adjoint-extension manifest.

fn main() {
    fmu_export::describe::main::<fmu_export::OdeSystem<van_der_pol::VanDerPol>>("van_der_pol")
}
