fn main() {
    fmu_export::describe::main::<fmu_export::MechanicalSystem<oscillator::Oscillator>>("oscillator")
}
