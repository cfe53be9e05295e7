fn main() { fmu_export::describe::main::<fmu_export::OdeSystem<steel_law::SteelLaw>>("steel_law") }
