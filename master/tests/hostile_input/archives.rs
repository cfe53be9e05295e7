//! Archives and XML files made to exhaust the machine: elements nested far deeper than any
//! reader accepts (which overflowed the stack), zip bombs (an entry of zeros that would unpack
//! to a GB, many entries each small enough, an XML entry too large to read into memory), and
//! entries whose name or link leads out of the folder a package is unpacked into.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::common::{self, Run};
use tandem_tests::fmus::{self, FmiVersion};

/// The ceiling on virtual memory of the runs that read a bomb: 8 times what a normal
/// `tandem simulate` of the bouncing ball needs (the debug binary runs under 32 MiB, not under
/// 16 MiB), far below the entries of the bombs.
const MEMORY_LIMIT_KIB: u64 = 256 << 10;

/// A run of `tandem` in a scratch folder, its temporary files in a fresh `TMPDIR`.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        Scratch { dir }
    }

    /// `name` in the scratch folder.
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs `tandem args` in the scratch folder, with at most `memory_kib` of virtual memory
    /// when given, and asserts a clean failure whose message holds every one of `needles`;
    /// that `inputs` are unchanged; and that no temporary folder is left behind.
    fn assert_refused(
        &self,
        args: &[&str],
        memory_kib: Option<u64>,
        inputs: &[&Path],
        needles: &[&str],
    ) -> Run {
        let before: Vec<Vec<u8>> = inputs.iter().map(|p| std::fs::read(p).unwrap()).collect();
        let mut command = match memory_kib {
            Some(kib) => {
                let mut shell = Command::new("sh");
                shell
                    .arg("-c")
                    .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
                    .arg(env!("CARGO_BIN_EXE_tandem"));
                shell
            }
            None => Command::new(env!("CARGO_BIN_EXE_tandem")),
        };
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("TMPDIR", self.path("tmp"));
        let run = common::run(command);
        let (first, rest) = needles.split_first().expect("a needle");
        run.assert_fails_with(first);
        for needle in rest {
            assert!(
                run.stderr.contains(needle),
                "expected {needle:?} on stderr, got: {}",
                run.stderr
            );
        }
        for (path, bytes) in inputs.iter().zip(before) {
            assert!(
                std::fs::read(path).unwrap() == bytes,
                "{} changed",
                path.display()
            );
        }
        let left: Vec<_> = std::fs::read_dir(self.path("tmp")).unwrap().collect();
        assert!(left.is_empty(), "left in TMPDIR: {left:?}");
        run
    }
}

/// `depth` nested elements, one per line, whose start tags cycle through `tags` (a name and
/// attributes).
fn nested(tags: &[&str], depth: usize) -> String {
    let tag = |level: usize| tags[level % tags.len()];
    let mut text: String = (0..depth)
        .map(|level| format!("<{}>\n", tag(level)))
        .collect();
    for level in (0..depth).rev() {
        let name = tag(level).split(' ').next().unwrap();
        text.push_str(&format!("</{name}>\n"));
    }
    text
}

/// An SSD whose root holds `depth` systems, each nested in the elements of the one before:
/// `2 * depth` elements deep; the first too deep is on line 258.
fn deep_ssd(depth: usize) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription \
         xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" version=\"1.0\" \
         name=\"deep\">\n{}</ssd:SystemStructureDescription>\n",
        nested(&["ssd:System name=\"s\"", "ssd:Elements"], 2 * depth - 1)
    )
}

/// The element at depth 257 of [`deep_ssd`].
const TOO_DEEP: &str = "<ssd:Elements> is nested deeper than 256 elements";

#[test]
fn a_system_nested_twenty_thousand_deep_is_refused_at_the_line_too_deep() {
    let scratch = Scratch::new();
    let ssd = scratch.path("deep.ssd");
    std::fs::write(&ssd, deep_ssd(20_000)).unwrap();
    let args = ["run", ssd.to_str().unwrap()];
    scratch.assert_refused(
        &args,
        None,
        &[&ssd],
        &["deep.ssd: line 258, column 1", TOO_DEEP],
    );
}

#[test]
fn a_packaged_description_nested_too_deep_is_refused_naming_the_entry() {
    let scratch = Scratch::new();
    let ssp = scratch.path("deep.ssp");
    common::write_zip(
        &ssp,
        &[("SystemStructure.ssd", deep_ssd(20_000).as_bytes())],
    );
    let args = ["run", ssp.to_str().unwrap()];
    let needles = [
        "deep.ssp: SystemStructure.ssd, line 258, column 1",
        TOO_DEEP,
    ];
    scratch.assert_refused(&args, None, &[&ssp], &needles);
}

#[test]
fn a_model_description_nested_too_deep_is_refused_at_the_line() {
    let scratch = Scratch::new();
    let fmu = scratch.path("deep.fmu");
    let deep = nested(&["Annotations"], 20_000);
    let edit = format!("{deep}</fmiModelDescription>");
    let bytes =
        common::fmu_with_model_description("bouncing_ball", &[("</fmiModelDescription>", &edit)]);
    std::fs::write(&fmu, bytes).unwrap();
    for command in ["info", "simulate"] {
        let run = scratch.assert_refused(
            &[command, fmu.to_str().unwrap()],
            None,
            &[&fmu],
            &[
                "deep.fmu: modelDescription.xml line",
                "<Annotations> is nested deeper than 256 elements",
            ],
        );
        assert!(!run.stderr.contains("overflow"), "{}", run.stderr);
    }
}

#[test]
fn an_adjoint_manifest_nested_too_deep_is_refused() {
    let scratch = Scratch::new();
    let fmu = scratch.path("deep-manifest.fmu");
    let mut entries = entries_of(&fmus::find("bouncing_ball", FmiVersion::Fmi3).path);
    let manifest = entries
        .iter_mut()
        .find(|(name, _)| name == tandem::import::ADJOINT_MANIFEST)
        .expect("the bouncing ball has an adjoint manifest");
    manifest.1 = format!(
        "<?xml version=\"1.0\"?>\n{}",
        nested(&["Extension"], 20_000)
    )
    .into_bytes();
    write_entries(&fmu, &entries, &[]);
    scratch.assert_refused(
        &["info", fmu.to_str().unwrap()],
        None,
        &[&fmu],
        &[
            "deep-manifest.fmu: extra/org.tandem.adjoint/manifest.xml line 258",
            "nested deeper than 256 elements",
        ],
    );
}

/// The files of the archive `path` (name, content), folders left out.
fn entries_of(path: &Path) -> Vec<(String, Vec<u8>)> {
    use std::io::Read;
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    (0..archive.len())
        .filter_map(|i| {
            let mut entry = archive.by_index(i).unwrap();
            let mut content = Vec::new();
            entry.read_to_end(&mut content).unwrap();
            (!entry.is_dir()).then(|| (entry.name().unwrap().to_string(), content))
        })
        .collect()
}

/// A large entry: its name, how it is stored, and its size in bytes of zeros.
struct Zeros<'a> {
    name: &'a str,
    method: zip::CompressionMethod,
    size: u64,
}

/// Writes the archive `path` of `entries` (deflated) and then `zeros`, streamed in blocks.
fn write_entries(path: &Path, entries: &[(String, Vec<u8>)], zeros: &[Zeros<'_>]) {
    let mut writer = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, content) in entries {
        writer.start_file(name.as_str(), deflated).unwrap();
        writer.write_all(content).unwrap();
    }
    let block = vec![0u8; 1 << 20];
    for entry in zeros {
        let options = deflated
            .compression_method(entry.method)
            .large_file(entry.size >= 1 << 32);
        writer.start_file(entry.name, options).unwrap();
        let mut left = entry.size;
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            writer.write_all(&block[..n]).unwrap();
            left -= n as u64;
        }
    }
    writer.finish().unwrap();
}

/// The bouncing ball (FMI 3.0) with `zeros` added, or put in place of the entries of the same
/// name, at `path`.
fn bouncing_ball_with(path: &Path, zeros: &[Zeros<'_>]) {
    let mut entries = entries_of(&fmus::find("bouncing_ball", FmiVersion::Fmi3).path);
    entries.retain(|(name, _)| zeros.iter().all(|z| z.name != name));
    write_entries(path, &entries, zeros);
}

/// The name of the bouncing ball's binary for this platform.
fn binary_entry() -> String {
    entries_of(&fmus::find("bouncing_ball", FmiVersion::Fmi3).path)
        .into_iter()
        .map(|(name, _)| name)
        .find(|name| name.starts_with("binaries/"))
        .expect("a binary")
}

#[test]
fn a_gigabyte_of_zeros_in_place_of_the_binary_is_refused_before_it_is_unpacked() {
    let scratch = Scratch::new();
    let fmu = scratch.path("bomb.fmu");
    let binary = binary_entry();
    bouncing_ball_with(
        &fmu,
        &[Zeros {
            name: &binary,
            method: zip::CompressionMethod::Deflated,
            size: 1 << 30,
        }],
    );
    assert!(
        std::fs::metadata(&fmu).unwrap().len() < 4 << 20,
        "the bomb is small"
    );
    let entry = format!("bomb.fmu: entry {binary}: compression ratio exceeds 100:1 (zip bomb?)");
    scratch.assert_refused(
        &["simulate", fmu.to_str().unwrap()],
        Some(MEMORY_LIMIT_KIB),
        &[&fmu],
        &[&entry],
    );
}

#[test]
fn a_model_description_too_large_to_read_into_memory_is_refused() {
    let scratch = Scratch::new();
    let fmu = scratch.path("large.fmu");
    // Stored, so that no compression ratio gives it away: only its size.
    let size = (64 << 20) + 1;
    bouncing_ball_with(
        &fmu,
        &[Zeros {
            name: "modelDescription.xml",
            method: zip::CompressionMethod::Stored,
            size,
        }],
    );
    let needle =
        "large.fmu: entry modelDescription.xml: uncompressed size exceeds 64 MiB (zip bomb?)";
    for command in ["info", "simulate"] {
        scratch.assert_refused(
            &[command, fmu.to_str().unwrap()],
            Some(MEMORY_LIMIT_KIB),
            &[&fmu],
            &[needle],
        );
    }
}

/// A package with a description that references nothing, `zeros`, `links` (name, target) and
/// `files` (name, content).
fn package(path: &Path, zeros: &[Zeros<'_>], links: &[(&str, &str)], files: &[(&str, &[u8])]) {
    let ssd = deep_ssd(1);
    let mut entries = vec![("SystemStructure.ssd".to_string(), ssd.into_bytes())];
    entries.extend(files.iter().map(|(n, c)| (n.to_string(), c.to_vec())));
    write_entries(path, &entries, zeros);
    if !links.is_empty() {
        // Appends the links to the archive just written.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .unwrap();
        let mut writer = zip::ZipWriter::new_append(file).unwrap();
        for (name, target) in links {
            writer
                .add_symlink(*name, *target, zip::write::SimpleFileOptions::default())
                .unwrap();
        }
        writer.finish().unwrap();
    }
}

#[test]
fn a_package_with_a_bomb_is_refused_naming_the_entry() {
    let scratch = Scratch::new();
    let ssp = scratch.path("bomb.ssp");
    let zeros = [Zeros {
        name: "resources/zeros.bin",
        method: zip::CompressionMethod::Deflated,
        size: 256 << 20,
    }];
    package(&ssp, &zeros, &[], &[]);
    let needle = "bomb.ssp: entry resources/zeros.bin: compression ratio exceeds 100:1 (zip bomb?)";
    scratch.assert_refused(
        &["run", ssp.to_str().unwrap()],
        Some(MEMORY_LIMIT_KIB),
        &[&ssp],
        &[needle],
    );
}

#[test]
fn a_package_parameter_file_too_large_to_read_is_refused() {
    let scratch = Scratch::new();
    let ssp = scratch.path("large.ssp");
    let zeros = [Zeros {
        name: "resources/huge.ssv",
        method: zip::CompressionMethod::Stored,
        size: (64 << 20) + 1,
    }];
    package(&ssp, &zeros, &[], &[]);
    let needle =
        "large.ssp: entry resources/huge.ssv: uncompressed size exceeds 64 MiB (zip bomb?)";
    scratch.assert_refused(&["run", ssp.to_str().unwrap()], None, &[&ssp], &[needle]);
}

#[test]
fn package_entries_each_small_but_together_a_bomb_are_refused_and_the_folder_removed() {
    let scratch = Scratch::new();
    let ssp = scratch.path("many.ssp");
    let names: Vec<String> = (0..4).map(|i| format!("resources/zeros{i}.bin")).collect();
    let zeros: Vec<Zeros> = names
        .iter()
        .map(|name| Zeros {
            name,
            method: zip::CompressionMethod::Deflated,
            size: 3 << 20,
        })
        .collect();
    package(&ssp, &zeros, &[], &[]);
    // The description and the first entry of zeros are unpacked (3 MiB is below the floor of
    // the ratio); with the second the total is beyond it.
    let needle =
        "many.ssp: entry resources/zeros1.bin: the entries unpacked up to this one exceed \
                  a compression ratio of 100:1 together (zip bomb?)";
    scratch.assert_refused(&["run", ssp.to_str().unwrap()], None, &[&ssp], &[needle]);
}

#[test]
fn a_package_entry_leading_out_of_the_folder_is_refused_naming_it() {
    let scratch = Scratch::new();
    let ssp = scratch.path("escape.ssp");
    package(&ssp, &[], &[], &[("../escaped.txt", b"outside")]);
    let needles = [
        "escape.ssp: not a valid SSP package (corrupt zip): Invalid file path \"../escaped.txt\"",
    ];
    scratch.assert_refused(&["run", ssp.to_str().unwrap()], None, &[&ssp], &needles);
    assert!(!scratch.path("escaped.txt").exists());
    assert!(!scratch
        .dir
        .path()
        .parent()
        .unwrap()
        .join("escaped.txt")
        .exists());
}

#[cfg(unix)]
#[test]
fn a_package_link_leading_out_of_its_folder_is_refused_naming_it() {
    let scratch = Scratch::new();
    let ssp = scratch.path("link.ssp");
    package(
        &ssp,
        &[],
        &[("resources/passwd", "../../../../etc/passwd")],
        &[],
    );
    let needles = [
        "link.ssp: not a valid SSP package (corrupt zip): Invalid file path: resources/passwd \
         links to \"../../../../etc/passwd\", outside its folder",
    ];
    scratch.assert_refused(&["run", ssp.to_str().unwrap()], None, &[&ssp], &needles);
}
