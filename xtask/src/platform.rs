//! The `binaries/<platform>/` folder names FMI 2.0 and FMI 3.0 give the machine we build on.

use anyhow::{bail, Result};

/// Platform folder names of the build machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Platform {
    /// FMI 2.0 name (`linux64`, `win64`, `darwin64`).
    pub fmi2: &'static str,
    /// FMI 3.0 platform tuple (`x86_64-linux`, `aarch64-darwin`, ...).
    pub fmi3: &'static str,
}

/// The platform folders for an operating system and architecture as Rust names them.
pub fn of(os: &str, arch: &str) -> Result<Platform> {
    let (fmi2, fmi3) = match (os, arch) {
        ("linux", "x86_64") => ("linux64", "x86_64-linux"),
        ("windows", "x86_64") => ("win64", "x86_64-windows"),
        ("macos", "x86_64") => ("darwin64", "x86_64-darwin"),
        ("macos", "aarch64") => ("darwin64", "aarch64-darwin"),
        _ => bail!("FMUs can be packaged on x86_64 Linux/Windows/macOS and aarch64 macOS, not on {arch} {os}"),
    };
    Ok(Platform { fmi2, fmi3 })
}

/// The platform folders of the machine this task runs on (models are built for it too).
pub fn host() -> Result<Platform> {
    of(std::env::consts::OS, std::env::consts::ARCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_each_standard() {
        assert_eq!(
            of("linux", "x86_64").unwrap(),
            Platform {
                fmi2: "linux64",
                fmi3: "x86_64-linux"
            }
        );
        assert_eq!(of("macos", "aarch64").unwrap().fmi3, "aarch64-darwin");
        assert!(of("linux", "riscv64")
            .unwrap_err()
            .to_string()
            .contains("riscv64 linux"));
    }
}
