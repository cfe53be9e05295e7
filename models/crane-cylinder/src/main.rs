fn main() {
    fmu_export::describe::main::<fmu_export::OdeSystem<crane_cylinder::CraneCylinder>>(
        "crane_cylinder",
    )
}
