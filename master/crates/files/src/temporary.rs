//! Tandem's temporary folders: `tandem-<kind>-<host>-<pid>-<random>` in the temporary directory,
//! each removed when its owner drops it. A process killed before it can (SIGKILL, the
//! out-of-memory killer, a power cut) leaves its folders behind, megabytes of unpacked FMUs
//! each time; the command line at its start, and the first folder any process creates, remove
//! those whose process has ended. Only folders of this user, with exactly that name, of this
//! host, are removed, and symbolic links are never followed. `<host>` stands for the machine
//! and its PID namespace: a temporary directory shared with other machines or containers holds
//! folders whose PIDs mean nothing here, and those are left alone. Removal needs `/proc`
//! (Linux); elsewhere folders are only named this way.

use std::sync::{Once, OnceLock};

use tempfile::TempDir;

use crate::{Error, Result};

/// What a temporary folder holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An unpacked FMU.
    Fmu,
    /// An unpacked SSP package.
    Ssp,
    /// The result files of a sweep's runs.
    Sweep,
}

impl Kind {
    #[cfg(any(target_os = "linux", test))]
    const ALL: [Kind; 3] = [Kind::Fmu, Kind::Ssp, Kind::Sweep];

    /// Its part of the folder's name.
    fn name(self) -> &'static str {
        match self {
            Kind::Fmu => "fmu",
            Kind::Ssp => "ssp",
            Kind::Sweep => "sweep",
        }
    }
}

/// Random characters at the end of a folder's name.
const RANDOM: usize = 6;

/// A new temporary folder for `kind`, removed when dropped (the first of the process removes
/// the abandoned folders first).
pub fn folder(kind: Kind) -> Result<TempDir> {
    remove_abandoned();
    tempfile::Builder::new()
        .prefix(&prefix(kind, std::process::id()))
        .rand_bytes(RANDOM)
        .tempdir()
        .map_err(|e| Error::io(std::env::temp_dir(), e))
}

/// How the names of the folders of `kind` that process `pid` of this host creates begin; the
/// random characters follow.
pub fn prefix(kind: Kind, pid: u32) -> String {
    format!("tandem-{}-{}-{pid}-", kind.name(), host())
}

/// Removes the folders that ended processes of this user and host left in the temporary
/// directory (once per process; later calls do nothing). Best effort: what cannot be read or
/// removed stays.
pub fn remove_abandoned() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        linux::remove_abandoned_in(&std::env::temp_dir());
    });
}

/// Eight hexadecimal digits for this host name and PID namespace.
fn host() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let namespace = std::fs::read_link("/proc/self/ns/pid").unwrap_or_default();
        let identity = format!("{}\0{}", name.trim(), namespace.display());
        // FNV-1a: stable across Rust versions, unlike the standard library's hasher.
        let hash = identity
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
            });
        format!("{:08x}", (hash ^ (hash >> 32)) as u32)
    })
}

/// The PID in `name` if it names a folder that Tandem on this host creates.
#[cfg(any(target_os = "linux", test))]
fn pid_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("tandem-")?;
    let (kind, rest) = rest.split_once('-')?;
    Kind::ALL.iter().find(|k| k.name() == kind)?;
    let (pid, random) = rest
        .strip_prefix(host())?
        .strip_prefix('-')?
        .split_once('-')?;
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    let random = random.len() == RANDOM && random.bytes().all(|b| b.is_ascii_alphanumeric());
    if digits && random {
        pid.parse().ok()
    } else {
        None
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    use super::pid_of;

    /// Removes the abandoned folders in `dir`.
    pub fn remove_abandoned_in(dir: &Path) {
        // Without /proc every process would look ended.
        if std::fs::symlink_metadata("/proc/self").is_err() {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        // SAFETY: geteuid has no preconditions and cannot fail.
        let user = unsafe { libc::geteuid() };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(pid_of) else {
                continue;
            };
            if !ended(pid) {
                continue;
            }
            let path = entry.path();
            // Not followed: a symbolic link of that name is no folder of Tandem's.
            let Ok(metadata) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if metadata.is_dir() && metadata.uid() == user {
                // Another process starting now may be removing it too.
                let _ = std::fs::remove_dir_all(&path);
            }
        }
    }

    /// Whether process `pid` has ended: it has no entry in /proc (an entry that cannot be
    /// read is a running process's).
    fn ended(pid: u32) -> bool {
        pid != std::process::id()
            && matches!(
                std::fs::symlink_metadata(format!("/proc/{pid}")),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_names_of_this_host_give_a_pid() {
        let random = "aZ09xY";
        assert_eq!(
            pid_of(&format!("{}{random}", prefix(Kind::Fmu, 42))),
            Some(42)
        );
        assert_eq!(
            pid_of(&format!("{}{random}", prefix(Kind::Ssp, 7))),
            Some(7)
        );
        assert_eq!(
            pid_of(&format!("{}{random}", prefix(Kind::Sweep, 7))),
            Some(7)
        );
        let other_host = if host() == "00000000" {
            "11111111"
        } else {
            "00000000"
        };
        let rejected = [
            // The unpacking of earlier versions: no host, no PID.
            format!("tandem-fmu-{random}"),
            format!("tandem-fmu-42-{random}"),
            format!("tandem-fmu-{other_host}-42-{random}"),
            format!("tandem-zip-{}-42-{random}", host()),
            format!("{}{random}x", prefix(Kind::Fmu, 42)),
            format!("{}a-b.c/", prefix(Kind::Fmu, 42)),
            format!("tandem-fmu-{}--{random}", host()),
            format!("tandem-fmu-{}-4x2-{random}", host()),
            format!("x{}{random}", prefix(Kind::Fmu, 42)),
        ];
        for name in rejected {
            assert_eq!(pid_of(&name), None, "{name}");
        }
    }

    #[test]
    fn a_folder_is_named_after_its_process() {
        let folder = folder(Kind::Fmu).unwrap();
        let name = folder.path().file_name().unwrap().to_str().unwrap();
        assert_eq!(pid_of(name), Some(std::process::id()), "{name}");
    }
}
