fn main() {
    fmu_export::describe::main::<fmu_export::MechanicalSystem<crane_arm::CraneArm>>("crane_arm")
}
