fn main() {
    fmu_export::describe::main::<fmu_export::OdeSystem<crane::Crane>>("crane")
}
