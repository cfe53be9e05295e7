//! Importing an .fmu: unpack, parse modelDescription.xml (and the adjoint extension's
//! manifest, when present), load the platform binary and create instances.

mod adjoint_manifest;
mod archive;
pub mod entry_limits;
pub mod unpack;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tempfile::TempDir;

use crate::binding::{self, SharedLibrary};
use crate::error::{Error, Result};
use crate::instance::{Fmu2Instance, Fmu3Instance, FmuInstance, LogSettings};
use crate::model_description::validate::{validate, Problem};
use crate::model_description::{FmiVersion, InterfaceType, ModelDescription};

pub use adjoint_manifest::{
    AdjointManifest, ManifestVariable, ADJOINT_EXTENSION, ADJOINT_EXTENSION_VERSION,
    ADJOINT_MANIFEST, JACOBIAN_ADJOINT_DERIVATIVE, KEEP_STEP_LINEARIZATIONS,
};
use archive::Archive;
pub use archive::MODEL_DESCRIPTION;

/// The unpacked files of an FMU and its parsed model description; the folder is removed when
/// the last owner (the [`Fmu`] or one of its instances) is dropped.
pub struct Extracted {
    directory: TempDir,
    /// The folders under `binaries/` in the archive, for the error when this platform's is
    /// missing.
    platforms: Vec<String>,
    model_description: ModelDescription,
    adjoint_manifest: Option<AdjointManifest>,
}

impl Extracted {
    /// The parsed model description.
    pub fn model_description(&self) -> &ModelDescription {
        &self.model_description
    }

    /// The folder the FMU was unpacked into: modelDescription.xml, this platform's binaries
    /// and `resources/`.
    pub fn directory(&self) -> &Path {
        self.directory.path()
    }

    /// The adjoint extension's manifest, if the FMU has one.
    pub fn adjoint_manifest(&self) -> Option<&AdjointManifest> {
        self.adjoint_manifest.as_ref()
    }

    /// The `resources` folder as an FMI 2.0 file URI.
    pub fn resource_uri(&self) -> String {
        let path = self.directory().join("resources");
        let mut uri = String::from("file://");
        for byte in path.to_string_lossy().bytes() {
            if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
                uri.push(byte as char);
            } else {
                uri.push_str(&format!("%{byte:02X}"));
            }
        }
        uri
    }

    /// The `resources` folder as an FMI 3.0 path, ending with a separator.
    pub fn resource_path(&self) -> String {
        let mut path = self
            .directory()
            .join("resources")
            .to_string_lossy()
            .into_owned();
        path.push(std::path::MAIN_SEPARATOR);
        path
    }
}

/// A loaded binary for one interface.
#[derive(Clone)]
enum LoadedBinary {
    V2(Arc<binding::fmi2::Binding>),
    V3(Arc<binding::fmi3::Binding>),
}

/// An imported FMU.
pub struct Fmu {
    /// How messages name the FMU: its file, or what [`Fmu::shown_as`] set.
    path: PathBuf,
    files: Arc<Extracted>,
    /// The loaded binaries, shared with every [`Fmu::share`] of this one.
    binaries: Arc<Mutex<HashMap<InterfaceType, LoadedBinary>>>,
}

impl Fmu {
    /// Parses `path`'s modelDescription.xml and, if present, the adjoint extension's manifest
    /// (checked against the description), straight from the archive, and unpacks what a run
    /// reads (the description, this platform's binaries, `resources/`) into a temporary
    /// folder. The binary is loaded later, by [`Fmu::load`] or the first instantiation.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let mut archive = Archive::open(path)?;
        let bytes = archive.read(MODEL_DESCRIPTION)?.unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let model_description = ModelDescription::parse(text).map_err(|source| {
            match source.unsupported_version.clone() {
                Some(version) => Error::UnsupportedFmiVersion {
                    path: path.to_path_buf(),
                    version,
                },
                None => Error::ModelDescription {
                    path: path.to_path_buf(),
                    source,
                },
            }
        })?;
        let adjoint_manifest = read_adjoint_manifest(path, &mut archive, &model_description)?;
        let directory = archive.unpack(platform(model_description.fmi_version))?;
        Ok(Fmu {
            path: path.to_path_buf(),
            files: Arc::new(Extracted {
                directory,
                platforms: archive.platforms(),
                model_description,
                adjoint_manifest,
            }),
            binaries: Arc::default(),
        })
    }

    /// The same FMU again, sharing the unpacked files and the loaded binaries: instances of
    /// both run one copy of the library, which costs no unpacking, loading or memory per
    /// instance. An FMU that declares `canBeInstantiatedOnlyOncePerProcess` needs its own
    /// copy per instance ([`Fmu::needs_own_copy`]): open it again instead.
    pub fn share(&self) -> Fmu {
        Fmu {
            path: self.path.clone(),
            files: self.files.clone(),
            binaries: self.binaries.clone(),
        }
    }

    /// Whether an interface of the FMU declares `canBeInstantiatedOnlyOncePerProcess`: a
    /// second instance needs a second copy of its library, loaded from a second folder.
    pub fn needs_own_copy(&self) -> bool {
        let md = self.model_description();
        [
            InterfaceType::CoSimulation,
            InterfaceType::ModelExchange,
            InterfaceType::ScheduledExecution,
        ]
        .into_iter()
        .filter_map(|interface| md.interface(interface))
        .any(|(_, capabilities)| capabilities.can_be_instantiated_only_once_per_process)
    }

    /// The .fmu file, as messages name it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Names the FMU `shown` in every later message instead of the file it was opened from:
    /// an FMU unpacked from an SSP package lives in a temporary folder the user never sees.
    pub fn shown_as(self, shown: impl Into<PathBuf>) -> Self {
        Fmu {
            path: shown.into(),
            ..self
        }
    }

    /// The parsed model description.
    pub fn model_description(&self) -> &ModelDescription {
        &self.files.model_description
    }

    /// Refuses an FMU whose model description breaks the standard (the errors `tandem
    /// validate` reports; its notes pass): a run of it would record wrong values, for
    /// instance a variable sharing another's value reference.
    pub fn check_valid(&self) -> Result<()> {
        let errors: Vec<String> = validate(self.model_description())
            .into_iter()
            .filter(Problem::is_error)
            .map(|problem| problem.to_string())
            .collect();
        if errors.is_empty() {
            return Ok(());
        }
        Err(Error::InvalidModelDescription {
            path: self.path.clone(),
            problems: errors,
        })
    }

    /// The folder the FMU was unpacked into.
    pub fn directory(&self) -> &Path {
        self.files.directory()
    }

    /// The adjoint extension's manifest, if the FMU has one.
    pub fn adjoint_manifest(&self) -> Option<&AdjointManifest> {
        self.files.adjoint_manifest()
    }

    /// The binary of `interface` for this platform: its path inside the unpacked folder.
    pub fn binary_path(&self, interface: InterfaceType) -> Result<PathBuf> {
        self.binary_location(interface).map(|(full, _)| full)
    }

    /// The binary's full path and its path relative to the archive root.
    fn binary_location(&self, interface: InterfaceType) -> Result<(PathBuf, String)> {
        let md = self.model_description();
        let (identifier, _) =
            md.interface(interface)
                .ok_or_else(|| Error::InterfaceNotProvided {
                    path: self.path().to_path_buf(),
                    interface,
                    available: md.interfaces_text(),
                })?;
        let relative = format!(
            "binaries/{}/{identifier}.{}",
            platform(md.fmi_version),
            binding::LIBRARY_EXTENSION
        );
        let full = self.directory().join(&relative);
        if full.is_file() {
            return Ok((full, relative));
        }
        let available = &self.files.platforms;
        Err(Error::NoBinary {
            path: self.path().to_path_buf(),
            expected: relative,
            available: if available.is_empty() {
                "none".into()
            } else {
                available.join(", ")
            },
        })
    }

    /// Loads the binary of `interface` and resolves all its functions (once per interface).
    pub fn load(&self, interface: InterfaceType) -> Result<()> {
        self.binary(interface).map(|_| ())
    }

    fn binary(&self, interface: InterfaceType) -> Result<LoadedBinary> {
        let mut binaries = self
            .binaries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(loaded) = binaries.get(&interface) {
            return Ok(loaded.clone());
        }
        let (full, relative) = self.binary_location(interface)?;
        let library = SharedLibrary::open(&full, &self.path().join(relative))?;
        let loaded = match self.model_description().fmi_version {
            FmiVersion::V2 => LoadedBinary::V2(Arc::new(binding::fmi2::Binding::resolve(
                library, interface,
            )?)),
            FmiVersion::V3 => LoadedBinary::V3(Arc::new(binding::fmi3::Binding::resolve(
                library, interface,
            )?)),
        };
        binaries.insert(interface, loaded.clone());
        Ok(loaded)
    }

    /// Creates an instance named `name` of `interface`, of either FMI version.
    pub fn instantiate(
        &self,
        interface: InterfaceType,
        name: &str,
        log: LogSettings,
    ) -> Result<Box<dyn FmuInstance>> {
        Ok(match self.binary(interface)? {
            LoadedBinary::V2(binding) => Box::new(Fmu2Instance::instantiate(
                binding,
                self.files.clone(),
                interface,
                name,
                log,
            )?),
            LoadedBinary::V3(binding) => Box::new(Fmu3Instance::instantiate(
                binding,
                self.files.clone(),
                interface,
                name,
                log,
            )?),
        })
    }

    /// Creates an FMI 3.0 instance, for the calls only FMI 3.0 has (all value types, clocks).
    pub fn instantiate_fmi3(
        &self,
        interface: InterfaceType,
        name: &str,
        log: LogSettings,
    ) -> Result<Fmu3Instance> {
        match self.binary(interface)? {
            LoadedBinary::V3(binding) => {
                Fmu3Instance::instantiate(binding, self.files.clone(), interface, name, log)
            }
            LoadedBinary::V2(_) => Err(Error::InvalidValue {
                item: self.path().display().to_string(),
                message: "is an FMI 2.0 FMU, not FMI 3.0".into(),
            }),
        }
    }
}

/// This platform's folder under `binaries/` for FMI `version`.
fn platform(version: FmiVersion) -> &'static str {
    match version {
        FmiVersion::V2 => binding::FMI2_PLATFORM,
        FmiVersion::V3 => binding::FMI3_PLATFORM,
    }
}

/// The manifest at [`ADJOINT_MANIFEST`] in the FMU `path`, read from its `archive`, parsed and
/// checked against `md`; `None` if the FMU has none.
fn read_adjoint_manifest(
    path: &Path,
    archive: &mut Archive,
    md: &ModelDescription,
) -> Result<Option<AdjointManifest>> {
    let Some(bytes) = archive.read(ADJOINT_MANIFEST)? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let invalid = std::io::Error::new(std::io::ErrorKind::InvalidData, e);
        Error::io(path.join(ADJOINT_MANIFEST), invalid)
    })?;
    AdjointManifest::parse(&text, md)
        .map(Some)
        .map_err(|source| Error::AdjointManifest {
            path: path.to_path_buf(),
            source,
        })
}
