//! Part 4: three cheap C FMUs of the Modelica Reference-FMUs in a chain, `Dahlquist.x ->
//! Feedthrough1 -> Feedthrough2`, 10^5 macro steps of 1 ms: Jacobi in each layout against
//! Gauss-Seidel. The FMUs' own work per step is a few arithmetic operations, so the time per
//! component and macro step is nearly all the master's: writing the inputs, the step call,
//! reading the outputs and the hand-over between macro steps.

use std::path::Path;

use tandem::coupling::Threads;

use crate::layouts::{compare as compare_layouts, Variant};
use crate::statistics::seconds;

/// The system file of the chain under `kind`, FMUs by file name (`Dahlquist.fmu`,
/// `Feedthrough.fmu`): `chain.toml` (Gauss-Seidel) with its schedule replaced.
fn system_file(kind: &str) -> String {
    include_str!("chain.toml").replace(r#"kind = "gauss-seidel""#, &format!(r#"kind = "{kind}""#))
}

/// Times the chain, `repetitions` runs of each variant.
pub fn compare(repetitions: usize) {
    let fmu_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fmus/fmi3");
    let folder = tempfile::tempdir().expect("create a temporary folder");
    let [jacobi, gauss_seidel] = ["jacobi", "gauss-seidel"].map(|kind| {
        let path = folder.path().join(format!("chain-{kind}.toml"));
        std::fs::write(&path, system_file(kind)).expect("write a system file");
        path
    });
    println!("## Reference-FMU chain Dahlquist -> Feedthrough -> Feedthrough, 10^5 macro steps of 1 ms\n");
    let variants = [
        Variant {
            label: "Jacobi, threads = \"auto\"",
            path: &jacobi,
            threads: Some(Threads::Auto),
            copies: 1,
        },
        Variant {
            label: "Jacobi, threads = 1 (in turn)",
            path: &jacobi,
            threads: Some(Threads::Count(1.try_into().expect("1 > 0"))),
            copies: 1,
        },
        Variant {
            label: "Jacobi, threads = 2 (parallel)",
            path: &jacobi,
            threads: Some(Threads::Count(2.try_into().expect("2 > 0"))),
            copies: 1,
        },
        Variant {
            label: "Gauss-Seidel",
            path: &gauss_seidel,
            threads: None,
            copies: 1,
        },
    ];
    let medians = compare_layouts(&variants, &fmu_dir, 3, repetitions);
    println!(
        "Jacobi auto / Gauss-Seidel (medians): {:.2}; Jacobi parallel / Gauss-Seidel: {:.2}\n",
        seconds(medians[0]) / seconds(medians[3]),
        seconds(medians[2]) / seconds(medians[3])
    );
}
