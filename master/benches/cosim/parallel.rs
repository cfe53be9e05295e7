//! Part 3: two and eight uncoupled engine mounts (HHT, internal step 0.1 ms), Jacobi with
//! every macro step in parallel on two threads, in turn on the calling thread, and as the
//! adaptive layout chooses, and, as the ceiling of what two threads give on the machine, two
//! systems of half the mounts each in turn on threads of their own with no synchronization.
//! Without connections every Jacobi variant computes the same numbers, so the difference is the
//! threads alone.

use std::path::Path;

use tandem::coupling::Threads;

use crate::layouts::{compare as compare_layouts, Variant};
use crate::statistics::seconds;

/// Macro step (s): ten internal HHT steps of the engine mount per macro step.
const MACRO_STEP: f64 = 1e-3;
/// Simulated time (s), chosen so that a run in turn of eight mounts takes one to three seconds.
const STOP: f64 = 0.5;

/// The system file: `components` engine mounts with no connections, under Jacobi.
fn system_file(components: usize) -> String {
    let list: String = (1..=components)
        .map(|i| format!("[[component]]\nname = \"mount{i}\"\nfmu = \"engine_mount.fmu\"\n\n"))
        .collect();
    format!(
        "[experiment]\nstart = 0.0\nstop = {STOP:?}\nstep = {MACRO_STEP:?}\n\n{list}\
         [schedule]\nkind = \"jacobi\"\nextrapolation = \"zoh\"\n"
    )
}

/// Times the layouts on 2 and 8 mounts, `repetitions` runs each, FMUs from `fmu_dir`.
pub fn compare(fmu_dir: &Path, repetitions: usize) {
    let folder = tempfile::tempdir().expect("create a temporary folder");
    for components in [2, 8] {
        let path = folder.path().join(format!("mounts-{components}.toml"));
        std::fs::write(&path, system_file(components)).expect("write a system file");
        let half = folder
            .path()
            .join(format!("mounts-{}.toml", components / 2));
        std::fs::write(&half, system_file(components / 2)).expect("write a system file");
        println!("## {components} engine mounts, {STOP} s at H = {MACRO_STEP} s: Jacobi in parallel vs in turn\n");
        let variants = [
            Variant {
                label: "threads = 2 (parallel)",
                path: &path,
                threads: Some(Threads::Count(2.try_into().expect("2 > 0"))),
                copies: 1,
            },
            Variant {
                label: "threads = 1 (in turn)",
                path: &path,
                threads: Some(Threads::Count(1.try_into().expect("1 > 0"))),
                copies: 1,
            },
            Variant {
                label: "threads = \"auto\"",
                path: &path,
                threads: Some(Threads::Auto),
                copies: 1,
            },
            // The same work without any synchronization: two systems of half the mounts,
            // each in turn on a thread of its own.
            Variant {
                label: "two independent halves, in turn, at once",
                path: &half,
                threads: Some(Threads::Count(1.try_into().expect("1 > 0"))),
                copies: 2,
            },
        ];
        let medians = compare_layouts(&variants, fmu_dir, components, repetitions);
        println!(
            "Speed-up in turn / parallel (medians): {:.2}; in turn / auto: {:.2}; \
             in turn / two independent halves (the most two threads give here): {:.2}\n",
            seconds(medians[1]) / seconds(medians[0]),
            seconds(medians[1]) / seconds(medians[2]),
            seconds(medians[1]) / seconds(medians[3])
        );
    }
}
