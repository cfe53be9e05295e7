//! The arguments most benchmarks take: `--fmus <folder>` and `--repetitions N` (cargo's own
//! `--bench` flag is ignored).

use std::path::PathBuf;

/// `--fmus` and `--repetitions` (default `repetitions`) of the benchmark `name`; panics with the
/// usage on anything else.
pub fn fmus_and_repetitions(name: &str, repetitions: usize) -> (PathBuf, usize) {
    let usage = format!("usage: {name} --fmus <folder> [--repetitions N]");
    let mut fmus = None;
    let mut repetitions = repetitions;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--fmus" => fmus = args.next().map(PathBuf::from),
            "--repetitions" => {
                repetitions = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .unwrap_or_else(|| panic!("--repetitions takes a positive integer; {usage}"))
            }
            "--bench" => {}
            other => panic!("unknown argument {other}; {usage}"),
        }
    }
    (fmus.unwrap_or_else(|| panic!("{usage}")), repetitions)
}
