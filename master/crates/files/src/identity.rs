//! Which file a path is, whatever the path (links, `..`, hard links), and the files this
//! process has read and is writing.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A file as the file system knows it: device and inode where there are such, else the
/// canonical path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity(Key);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    #[cfg(unix)]
    Inode { device: u64, inode: u64 },
    #[cfg_attr(unix, allow(dead_code))]
    Path(PathBuf),
}

impl Identity {
    /// The identity of the file at `path` described by `metadata`.
    pub fn of(path: &Path, metadata: &Metadata) -> Identity {
        #[cfg(unix)]
        {
            let _ = path;
            use std::os::unix::fs::MetadataExt;
            Identity(Key::Inode {
                device: metadata.dev(),
                inode: metadata.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = metadata;
            Identity(Key::Path(
                std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
            ))
        }
    }

    /// The identity of the existing file at `path` (links followed), `None` if there is none.
    pub fn at(path: &Path) -> Option<Identity> {
        std::fs::metadata(path)
            .ok()
            .map(|metadata| Identity::of(path, &metadata))
    }
}

/// A file this process reads or writes, with the path it was named by.
struct Known {
    identity: Identity,
    path: PathBuf,
}

/// The inputs read so far (a command reads a handful of files), and the results being
/// written now.
static INPUTS: Mutex<Vec<Known>> = Mutex::new(Vec::new());
static OUTPUTS: Mutex<Vec<Known>> = Mutex::new(Vec::new());

/// Remembers `path` as an input.
pub fn remember_input(path: &Path, metadata: &Metadata) {
    let identity = Identity::of(path, metadata);
    let mut inputs = lock(&INPUTS);
    if !inputs.iter().any(|known| known.identity == identity) {
        inputs.push(Known {
            identity,
            path: path.to_path_buf(),
        });
    }
}

/// The path of the input that is the file `identity`, if any. An input whose path names
/// another file now (deleted, or replaced) is forgotten: its inode may be reused by the very
/// file asked about.
pub fn input_named(identity: &Identity) -> Option<PathBuf> {
    let mut inputs = lock(&INPUTS);
    inputs.retain(|known| Identity::at(&known.path).as_ref() == Some(&known.identity));
    inputs
        .iter()
        .find(|known| &known.identity == identity)
        .map(|known| known.path.clone())
}

/// Marks `path` as a result being written, until [`forget_output`].
pub fn remember_output(path: &Path, identity: Identity) {
    lock(&OUTPUTS).push(Known {
        identity,
        path: path.to_path_buf(),
    });
}

/// Marks the result `identity` as written.
pub fn forget_output(identity: &Identity) {
    let mut outputs = lock(&OUTPUTS);
    if let Some(index) = outputs.iter().position(|known| &known.identity == identity) {
        outputs.remove(index);
    }
}

/// The path of the result being written that is the file `identity`, if any.
pub fn output_named(identity: &Identity) -> Option<PathBuf> {
    lock(&OUTPUTS)
        .iter()
        .find(|known| &known.identity == identity)
        .map(|known| known.path.clone())
}

fn lock(list: &Mutex<Vec<Known>>) -> std::sync::MutexGuard<'_, Vec<Known>> {
    list.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
