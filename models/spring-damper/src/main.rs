fn main() { fmu_export::describe::main::<fmu_export::OdeSystem<spring_damper::SpringDamper>>("spring_damper") }
