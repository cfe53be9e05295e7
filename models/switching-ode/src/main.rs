fn main() { fmu_export::describe::main::<fmu_export::OdeSystem<switching_ode::SwitchingOde>>("switching_ode") }
