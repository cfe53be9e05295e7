//! Components of one FMU file share its unpacked copy and loaded library, each with its own
//! instance; an FMU that declares `canBeInstantiatedOnlyOncePerProcess` gets a copy per
//! component.

mod common;

use std::path::Path;

use common::generated_systems::{system_file, Shape};
use tandem::system::{LoadOptions, System};

/// The unpacked folder of each component of `n` Feedthroughs in a ring, from `fmu_dir`.
fn folders(dir: &Path, fmu_dir: &Path, n: usize) -> Vec<std::path::PathBuf> {
    let path = dir.join("ring.toml");
    std::fs::write(&path, system_file(Shape::Ring, n, "jacobi", 1)).expect("write the system");
    let options = LoadOptions {
        fmu_dir: Some(fmu_dir),
        ..LoadOptions::default()
    };
    let system = System::load(&path, options).unwrap_or_else(|e| panic!("{e}"));
    let folders = system
        .components
        .iter()
        .map(|c| c.fmu.directory().to_path_buf())
        .collect();
    // Each component still runs its own instance.
    let summary = tandem::run::run(
        &path,
        &tandem::run::RunOptions {
            output_file: Some(dir.join("ring.csv")),
            fmu_dir: Some(fmu_dir.to_path_buf()),
            ..tandem::run::RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(summary.macro_steps, 1);
    folders
}

#[test]
fn components_of_one_fmu_file_share_its_unpacked_copy() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let fmu_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference-fmus/fmi3");
    let folders = folders(dir.path(), &fmu_dir, 3);
    assert!(folders.iter().all(|f| *f == folders[0]), "{folders:?}");
}

#[test]
fn an_fmu_instantiated_only_once_per_process_is_unpacked_per_component() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let fmu_dir = dir.path().join("fmus");
    std::fs::create_dir(&fmu_dir).expect("create the FMU folder");
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reference-fmus/fmi3/Feedthrough.fmu");
    common::edit_model_description(&source, &fmu_dir.join("Feedthrough.fmu"), |text| {
        text.replacen(
            "<CoSimulation\n    modelIdentifier=\"Feedthrough\"",
            "<CoSimulation\n    modelIdentifier=\"Feedthrough\"\n    \
             canBeInstantiatedOnlyOncePerProcess=\"true\"",
            1,
        )
    });
    let folders = folders(dir.path(), &fmu_dir, 3);
    assert!(
        folders[0] != folders[1] && folders[1] != folders[2] && folders[0] != folders[2],
        "{folders:?}"
    );
}
