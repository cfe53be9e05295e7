//! The describe program of the `switching-ode` model: `cargo xtask fmus` runs it to write the FMU's
//! model descriptions and adjoint-extension manifest.

fn main() {
    fmu_export::describe::main::<fmu_export::OdeSystem<switching_ode::SwitchingOde>>(
        "switching_ode",
    )
}
