//! A corpus of malformed FMUs built from Tandem's bouncing ball (FMI 2.0 and 3.0): broken
//! archives, an entry escaping the folder, a missing, foreign or truncated binary, a binary
//! without the FMI functions, truncated and malformed XML, duplicate value references,
//! mistyped start values. Every case goes through `info`, `validate`, `simulate` and `run`: a
//! command that reads the broken part fails with exit code 1 and a message naming the file and
//! the problem; none dies by a signal or panics, and none writes outside its output file.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};

use common::{write_zip, Run};
use tandem_tests::fmus::{self, FmiVersion};

/// The entries of a good FMU.
fn entries(version: FmiVersion) -> Vec<(String, Vec<u8>)> {
    let path = &fmus::find("bouncing_ball", version).path;
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    (0..archive.len())
        .filter_map(|i| {
            let mut entry = archive.by_index(i).unwrap();
            let name = entry.name().unwrap().to_string();
            let mut content = Vec::new();
            entry.read_to_end(&mut content).unwrap();
            (!name.ends_with('/')).then_some((name, content))
        })
        .collect()
}

/// One malformed FMU: its file name, its bytes, the commands that read the broken part (and
/// must fail), and words their error must contain besides the file name.
struct Case {
    name: String,
    bytes: Vec<u8>,
    failing: &'static [&'static str],
    message: &'static str,
}

/// Every command reads the archive and the model description.
const ALL: &[&str] = &["info", "validate", "simulate", "run"];
/// Only the commands that load the binary.
const LOADING: &[&str] = &["simulate", "run"];

/// Zips `files` into bytes.
fn zipped(dir: &Path, files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let path = dir.join("scratch.zip");
    let list: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_slice()))
        .collect();
    write_zip(&path, &list);
    std::fs::read(&path).unwrap()
}

/// `files` with the entry whose name satisfies `pick` changed by `change` (removed on `None`).
fn edited(
    files: &[(String, Vec<u8>)],
    pick: impl Fn(&str) -> bool,
    change: impl Fn(&[u8]) -> Option<Vec<u8>>,
) -> Vec<(String, Vec<u8>)> {
    files
        .iter()
        .filter_map(|(name, content)| {
            if pick(name) {
                change(content).map(|c| (name.clone(), c))
            } else {
                Some((name.clone(), content.clone()))
            }
        })
        .collect()
}

fn xml_edit(files: &[(String, Vec<u8>)], edit: impl Fn(&str) -> String) -> Vec<(String, Vec<u8>)> {
    edited(
        files,
        |n| n == "modelDescription.xml",
        |c| Some(edit(std::str::from_utf8(c).unwrap()).into_bytes()),
    )
}

fn is_binary(name: &str) -> bool {
    name.starts_with("binaries/")
}

/// A shared library that exports only `fmi2GetVersion` or `fmi3GetVersion` (compiled here
/// with `cc`): a well-formed binary without the functions an instance needs.
fn library_without_fmi_functions(dir: &Path, version: FmiVersion) -> Vec<u8> {
    let prefix = if version == FmiVersion::Fmi3 {
        "fmi3"
    } else {
        "fmi2"
    };
    let source = dir.join(format!("{prefix}_version_only.c"));
    let library = dir.join(format!("{prefix}_version_only.so"));
    std::fs::write(
        &source,
        format!(
            "const char *{prefix}GetVersion(void) {{ return \"{}\"; }}\n",
            &prefix[3..]
        ),
    )
    .unwrap();
    let status = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg(&source)
        .status()
        .expect("run cc");
    assert!(status.success(), "cc failed");
    std::fs::read(&library).unwrap()
}

/// The corpus for one FMI version.
fn corpus(dir: &Path, version: FmiVersion) -> Vec<Case> {
    let good = entries(version);
    let good_zip = zipped(dir, &good);
    let tag = version.folder();
    let case = |name: &str,
                bytes: Vec<u8>,
                failing: &'static [&'static str],
                message: &'static str| Case {
        name: format!("{tag}_{name}.fmu"),
        bytes,
        failing,
        message,
    };
    let xml = |edit: &dyn Fn(&str) -> String| zipped(dir, &xml_edit(&good, edit));
    let mut escaping = good.clone();
    escaping.push(("../escaped.txt".into(), b"outside".to_vec()));
    let foreign = edited(&good, is_binary, |_| None)
        .into_iter()
        .chain([(
            "binaries/x86_64-windows/bouncing_ball.dll".to_string(),
            b"MZ".to_vec(),
        )])
        .collect::<Vec<_>>();
    let without_functions = library_without_fmi_functions(dir, version);
    let duplicate = |t: &str| t.replace(r#"valueReference="2""#, r#"valueReference="1""#);
    vec![
        case(
            "garbage",
            b"PK\x03\x04 not really a zip".to_vec(),
            ALL,
            "not a valid FMU archive",
        ),
        case(
            "truncated_zip",
            good_zip[..good_zip.len() / 3].to_vec(),
            ALL,
            "not a valid FMU archive",
        ),
        case(
            "escaping_entry",
            zipped(dir, &escaping),
            LOADING,
            "Invalid file path",
        ),
        case(
            "missing_binary",
            zipped(dir, &edited(&good, is_binary, |_| None)),
            LOADING,
            "no binary for this platform",
        ),
        case(
            "foreign_binary",
            zipped(dir, &foreign),
            LOADING,
            "no binary for this platform",
        ),
        case(
            "truncated_binary",
            zipped(dir, &edited(&good, is_binary, |b| Some(b[..1000].to_vec()))),
            LOADING,
            "damaged ELF file",
        ),
        case(
            "missing_function",
            zipped(
                dir,
                &edited(&good, is_binary, |_| Some(without_functions.clone())),
            ),
            LOADING,
            "does not export the required function",
        ),
        case(
            "truncated_xml",
            xml(&|t| t[..t.len() / 2].to_string()),
            ALL,
            "modelDescription.xml",
        ),
        case(
            "malformed_xml",
            xml(&|t| t.replacen("<ModelVariables>", "<ModelVariables><<", 1)),
            ALL,
            "modelDescription.xml",
        ),
        case(
            "duplicate_reference",
            xml(&duplicate),
            // FMI 2.0 allows it (the variables become aliases); FMI 3.0 does not, and what
            // `validate` rejects is not run.
            if version == FmiVersion::Fmi3 {
                &["validate", "simulate", "run"]
            } else {
                &[]
            },
            "valueReference 1 is already used",
        ),
        case(
            "mistyped_start",
            xml(&|t| t.replacen(r#"start="9.81""#, r#"start="nine""#, 1)),
            ALL,
            "\"nine\"",
        ),
    ]
}

/// Runs `args` in `cwd`.
fn tandem_in(cwd: &Path, args: &[&str]) -> Run {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tandem"));
    let output = command.args(args).current_dir(cwd).output().unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Every file under `dir`, relative.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found.sort();
    found
}

#[test]
fn every_malformed_fmu_fails_cleanly_in_every_command() {
    let scratch = tempfile::tempdir().unwrap();
    let mut count = 0;
    let mut problems = Vec::new();
    for version in FmiVersion::ALL {
        for case in corpus(scratch.path(), version) {
            let root = tempfile::tempdir().unwrap();
            // The FMU and the system sit one level down, so that an entry escaping the
            // extraction folder would show up in `root`.
            let work = root.path().join("work");
            std::fs::create_dir(&work).unwrap();
            let fmu = work.join(&case.name);
            std::fs::write(&fmu, &case.bytes).unwrap();
            std::fs::write(
                work.join("system.toml"),
                format!(
                    "[experiment]\nstop = 0.1\nstep = 0.01\n\n[[component]]\nname = \"ball\"\nfmu = \"{}\"\n",
                    case.name
                ),
            )
            .unwrap();
            let before = files_under(root.path());
            for command in ["info", "validate", "simulate", "run"] {
                let target = if command == "run" {
                    "system.toml"
                } else {
                    case.name.as_str()
                };
                let mut args = vec![command, target];
                if matches!(command, "simulate" | "run") {
                    args.extend(["--output-file", "out.csv"]);
                }
                let run = tandem_in(&work, &args);
                let label = format!("{} {command}", case.name);
                if run.code.is_none() {
                    problems.push(format!("{label}: killed by a signal\n{}", run.stderr));
                } else if run.stderr.contains("panicked") {
                    problems.push(format!("{label}: panicked: {}", run.stderr));
                } else if case.failing.contains(&command)
                    && (run.code != Some(1)
                        || !run.stderr.contains(&case.name)
                        || !run.stderr.contains(case.message))
                {
                    problems.push(format!(
                        "{label}: expected exit code 1 with {:?}, got {:?}: {}",
                        case.message, run.code, run.stderr
                    ));
                }
                count += 1;
            }
            let mut after = files_under(root.path());
            after.retain(|p| !before.contains(p) && !p.ends_with("out.csv"));
            if !after.is_empty() {
                problems.push(format!("{}: wrote {after:?}", case.name));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // 11 cases of each version, four commands each.
    assert_eq!(count, 2 * 11 * 4);
}
