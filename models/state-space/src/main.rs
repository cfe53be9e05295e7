//! The describe program of the `state-space` model: `cargo xtask fmus` runs it to write the FMU's
//! model descriptions and adjoint-extension manifest.

fn main() {
    fmu_export::describe::main::<fmu_export::OdeSystem<state_space::StateSpace>>("state_space")
}
