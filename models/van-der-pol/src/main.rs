fn main() { fmu_export::describe::main::<fmu_export::OdeSystem<van_der_pol::VanDerPol>>("van_der_pol") }
