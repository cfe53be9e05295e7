//! Hand-written C types of the FMI 2.0 and 3.0 headers and the loading of an FMU binary
//! with every function resolved up front into a struct of function pointers.

#[cfg(target_os = "linux")]
mod elf;
mod error;
pub mod fmi2;
pub mod fmi3;

pub use error::Error;

use std::path::{Path, PathBuf};

/// The loaded shared library an FMU's function pointers point into.
pub struct SharedLibrary {
    library: libloading::Library,
    path: PathBuf,
}

impl SharedLibrary {
    /// Loads `path`, binding every symbol immediately so that a binary that needs symbols the
    /// process does not provide fails here with a message instead of aborting at first call.
    /// `name` is how errors refer to the file (e.g. the .fmu and the path inside it).
    pub fn open(path: &Path, name: &Path) -> Result<Self, Error> {
        #[cfg(target_os = "linux")]
        elf::check(path, name)?;
        #[cfg(unix)]
        // SAFETY: loading a library runs its initializers; an FMU binary is trusted code the
        // user asked to run, and RTLD_NOW makes unresolved symbols a load error.
        let library = unsafe {
            libloading::os::unix::Library::open(
                Some(path),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL,
            )
            .map(Into::into)
        };
        #[cfg(not(unix))]
        // SAFETY: as above; the platform loader resolves imports at load time.
        let library = unsafe { libloading::Library::new(path) };
        let library = library.map_err(|error| {
            let detail = std::error::Error::source(&error)
                .map(|source| format!(": {source}"))
                .unwrap_or_default();
            Error::Load {
                path: name.to_path_buf(),
                message: format!("{error}{detail}"),
            }
        })?;
        Ok(SharedLibrary {
            library,
            path: name.to_path_buf(),
        })
    }

    /// The library's name in messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Resolves a function every FMU of this interface must export.
    ///
    /// # Safety
    /// `T` must be the `unsafe extern "C" fn` type of the standard's declaration of `name`.
    pub unsafe fn required<T: Copy>(&self, name: &str) -> Result<T, Error> {
        // SAFETY: forwarded to the caller's promise that `T` matches the symbol's C type.
        unsafe { self.optional(name) }.ok_or_else(|| Error::MissingSymbol {
            library: self.path.clone(),
            symbol: name.to_string(),
        })
    }

    /// Resolves a function that only FMUs with a capability export.
    ///
    /// # Safety
    /// `T` must be the `unsafe extern "C" fn` type of the standard's declaration of `name`.
    pub unsafe fn optional<T: Copy>(&self, name: &str) -> Option<T> {
        // SAFETY: the caller promises that `T` is the symbol's function pointer type; the copy
        // stays valid because every binding struct keeps its `SharedLibrary` alive.
        unsafe { self.library.get::<T>(name).ok().map(|symbol| *symbol) }
    }
}

/// The platform folder of FMI 2.0 binaries (`binaries/<folder>/`).
pub const FMI2_PLATFORM: &str = if cfg!(all(target_os = "linux", target_pointer_width = "64")) {
    "linux64"
} else if cfg!(target_os = "linux") {
    "linux32"
} else if cfg!(target_os = "macos") {
    "darwin64"
} else if cfg!(target_pointer_width = "64") {
    "win64"
} else {
    "win32"
};

/// The platform tuple of FMI 3.0 binaries (`binaries/<tuple>/`).
pub const FMI3_PLATFORM: &str = if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
    "x86_64-linux"
} else if cfg!(all(target_arch = "aarch64", target_os = "linux")) {
    "aarch64-linux"
} else if cfg!(all(target_arch = "x86_64", target_os = "macos")) {
    "x86_64-darwin"
} else if cfg!(all(target_arch = "aarch64", target_os = "macos")) {
    "aarch64-darwin"
} else {
    "x86_64-windows"
};

/// The file extension of shared libraries on this platform.
pub const LIBRARY_EXTENSION: &str = std::env::consts::DLL_EXTENSION;
