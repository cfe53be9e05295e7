//! What is fuzzed: each reader with its seed inputs, the repository's own valid files.

use std::path::PathBuf;

use fmu_export::description::{adjoint_manifest, fmi2, fmi3};
use fmu_export::OdeSystem;
use tandem::import::AdjointManifest;
use tandem::model_description::validate::validate;
use tandem::model_description::ModelDescription;
use tandem::system::{LoadOptions, System};

/// A reader under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The FMI 2.0 modelDescription.xml parser and `tandem validate`'s checks.
    Fmi2ModelDescription,
    /// The FMI 3.0 modelDescription.xml parser and `tandem validate`'s checks.
    Fmi3ModelDescription,
    /// The TOML system-file reader.
    SystemToml,
    /// The SSP system structure description (`.ssd`) reader.
    Ssd,
    /// SSP packages (`.ssp`): zip extraction, then the `.ssd` reader and the checks against
    /// the components (whose FMUs the seeds do not contain).
    Ssp,
    /// The adjoint extension's manifest reader, against a valid FMI 3.0 description.
    AdjointManifest,
    /// FMU archives (`.fmu`): opening one reads its model description and manifest from the
    /// zip and unpacks this platform's binaries and `resources/`.
    FmuArchive,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 7] = [
        Target::Fmi2ModelDescription,
        Target::Fmi3ModelDescription,
        Target::SystemToml,
        Target::Ssd,
        Target::Ssp,
        Target::AdjointManifest,
        Target::FmuArchive,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::Fmi2ModelDescription => "fmi2-model-description",
            Target::Fmi3ModelDescription => "fmi3-model-description",
            Target::SystemToml => "system-toml",
            Target::Ssd => "ssd",
            Target::Ssp => "ssp",
            Target::AdjointManifest => "adjoint-manifest",
            Target::FmuArchive => "fmu-archive",
        }
    }

    /// The target called `name`.
    pub fn named(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether the reader accepts the seeds: an SSP package's seeds name component FMUs they
    /// do not contain, so every load ends in an error, and what is fuzzed is that it is clean.
    pub fn accepts_seeds(self) -> bool {
        self != Target::Ssp
    }

    /// The valid inputs mutations start from.
    pub fn seeds(self) -> Vec<Vec<u8>> {
        let ball = OdeSystem::<bouncing_ball::BouncingBall>::default();
        let methods = [
            zip::CompressionMethod::Stored,
            zip::CompressionMethod::Deflated,
        ];
        if self == Target::Ssp {
            return methods.into_iter().map(ssp_package).collect();
        }
        if self == Target::FmuArchive {
            return methods.into_iter().map(fmu_archive).collect();
        }
        let texts: Vec<String> = match self {
            Target::Fmi2ModelDescription => vec![
                fmi2(&ball, "bouncing_ball"),
                include_str!("../../master/tests/fixtures/fmi2_bouncing_ball.xml").into(),
                include_str!("../../master/tests/fixtures/fmi2_state_selection.xml").into(),
            ],
            Target::Fmi3ModelDescription => {
                vec![
                    fmi3(&ball, "bouncing_ball"),
                    include_str!("../../master/tests/fixtures/fmi3_feature_tour.xml").into(),
                ]
            }
            Target::SystemToml => vec![
                include_str!("../../master/systems/double-oscillator-multirate.toml").into(),
                include_str!("../../master/systems/energy-crane-multirate.toml").into(),
                include_str!("../../master/systems/energy-pendula.toml").into(),
            ],
            Target::Ssd => vec![include_str!("../seeds/documented.ssd").into()],
            Target::Ssp | Target::FmuArchive => unreachable!("archives are built above"),
            Target::AdjointManifest => {
                vec![adjoint_manifest(&ball).expect("the bouncing ball has an adjoint extension")]
            }
        };
        texts.into_iter().map(String::into_bytes).collect()
    }

    /// Inputs the reader must refuse, which mutations start from as well: the kinds that once
    /// took the process down (an SSD nested 20 000 elements deep overflowed the stack; the
    /// seed is nested 300 deep, beyond the 256 every XML reader accepts, and its mutants
    /// land on both sides of the limit).
    pub fn rejected_seeds(self) -> Vec<Vec<u8>> {
        match self {
            Target::Ssd => vec![include_bytes!("../seeds/deep-nesting.ssd").to_vec()],
            _ => Vec::new(),
        }
    }

    /// Every input mutations start from: the [`seeds`](Target::seeds), then the
    /// [`rejected seeds`](Target::rejected_seeds).
    pub fn corpus(self) -> Vec<Vec<u8>> {
        let mut corpus = self.seeds();
        corpus.extend(self.rejected_seeds());
        corpus
    }
}

/// Runs one target on inputs; keeps what every input needs (a scratch folder, the model
/// description a manifest is checked against).
pub struct Harness {
    target: Target,
    scratch: tempfile::TempDir,
    manifest_md: Option<ModelDescription>,
}

impl Harness {
    /// A harness for `target`.
    pub fn new(target: Target) -> std::io::Result<Self> {
        let manifest_md = (target == Target::AdjointManifest).then(|| {
            let ball = OdeSystem::<bouncing_ball::BouncingBall>::default();
            ModelDescription::parse(&fmi3(&ball, "bouncing_ball"))
                .expect("Tandem's own description parses")
        });
        let scratch = tempfile::tempdir()?;
        if target == Target::Ssd {
            // The parameter set the seed description refers to.
            std::fs::create_dir(scratch.path().join("resources"))?;
            std::fs::write(
                scratch.path().join("resources/mass2.ssv"),
                include_str!("../seeds/mass2.ssv"),
            )?;
        }
        Ok(Harness {
            target,
            scratch,
            manifest_md,
        })
    }

    /// Feeds `input` to the reader. A reader may accept or reject any input; what it must not
    /// do is panic, which propagates from here. Returns whether the input was accepted.
    pub fn run(&self, input: &[u8]) -> bool {
        match self.target {
            Target::Fmi2ModelDescription | Target::Fmi3ModelDescription => {
                // The importer reads the file as UTF-8 text first.
                let Ok(text) = std::str::from_utf8(input) else {
                    return false;
                };
                match ModelDescription::parse(text) {
                    Ok(md) => {
                        let _ = validate(&md);
                        true
                    }
                    Err(_) => false,
                }
            }
            Target::SystemToml => self.read_system("system.toml", input),
            Target::Ssd => self.read_system("system.ssd", input),
            Target::Ssp => {
                let path = self.scratch.path().join("system.ssp");
                std::fs::write(&path, input).expect("write into the scratch folder");
                System::load(&path, LoadOptions::default()).is_ok()
            }
            Target::AdjointManifest => {
                let Ok(text) = std::str::from_utf8(input) else {
                    return false;
                };
                let md = self.manifest_md.as_ref().expect("made for this target");
                AdjointManifest::parse(text, md).is_ok()
            }
            Target::FmuArchive => {
                let path = self.scratch.path().join("model.fmu");
                std::fs::write(&path, input).expect("write into the scratch folder");
                tandem::Fmu::open(&path).is_ok()
            }
        }
    }

    /// Writes `input` to `name` in the scratch folder and reads it as a system file.
    fn read_system(&self, name: &str, input: &[u8]) -> bool {
        let path: PathBuf = self.scratch.path().join(name);
        std::fs::write(&path, input).expect("write into the scratch folder");
        tandem::system::read_description(&path, tandem::cli::SYSTEM_FILE_SECTIONS).is_ok()
    }
}

/// An SSP package of the documented description and its parameter set, its entries stored
/// with `method`.
fn ssp_package(method: zip::CompressionMethod) -> Vec<u8> {
    zip_of(
        &[
            (
                "SystemStructure.ssd",
                include_bytes!("../seeds/documented.ssd"),
            ),
            ("resources/mass2.ssv", include_bytes!("../seeds/mass2.ssv")),
        ],
        method,
    )
}

/// An FMU archive of the bouncing ball's FMI 3.0 description and adjoint manifest, a stand-in
/// binary for this platform (opening an FMU does not load it), a resource and documentation,
/// its entries stored with `method`.
fn fmu_archive(method: zip::CompressionMethod) -> Vec<u8> {
    let ball = OdeSystem::<bouncing_ball::BouncingBall>::default();
    let description = fmi3(&ball, "bouncing_ball");
    let manifest = adjoint_manifest(&ball).expect("the bouncing ball has an adjoint extension");
    zip_of(
        &[
            ("modelDescription.xml", description.as_bytes()),
            (tandem::import::ADJOINT_MANIFEST, manifest.as_bytes()),
            (
                "binaries/x86_64-linux/bouncing_ball.so",
                b"\x7fELF stand-in",
            ),
            ("resources/table.csv", b"t,y\n0,1\n"),
            ("documentation/index.html", b"<html></html>"),
        ],
        method,
    )
}

/// A zip archive in memory of `entries` (name, content), stored with `method`.
fn zip_of(entries: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
    use std::io::Write;
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, content) in entries {
        writer.start_file(*name, options).expect("zip into memory");
        writer.write_all(content).expect("zip into memory");
    }
    writer.finish().expect("zip into memory").into_inner()
}
