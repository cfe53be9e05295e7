fn main() { fmu_export::describe::main::<fmu_export::MechanicalSystem<mass::Mass>>("mass") }
