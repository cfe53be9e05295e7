fn main() { fmu_export::describe::main::<fmu_export::OdeSystem<bouncing_ball::BouncingBall>>("bouncing_ball") }
