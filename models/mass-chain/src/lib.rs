//! The mass chain of the control co-design examples as an FMU; the equations live in
//! `codesign-equations`, which the master's co-design tests also link.

fmu_export::export_fmu!(
    fmu_export::OdeSystem<codesign_equations::PlantModel<codesign_equations::MassChain>>
);
