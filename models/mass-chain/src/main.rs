fn main() {
    fmu_export::describe::main::<
        fmu_export::OdeSystem<codesign_equations::PlantModel<codesign_equations::MassChain>>,
    >("mass_chain")
}
