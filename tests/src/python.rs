//! A Python virtual environment with the packages of `tests/python/requirements.txt`,
//! created on first use under the workspace's `target/` folder so that a fresh machine
//! needs nothing but Python 3.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lives in the workspace")
        .to_path_buf()
}

/// The virtual environment's folder, created and filled on first call (once per process;
/// a stamp file makes later processes skip `pip install` while the requirements are unchanged).
pub fn venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let root = workspace_root();
        let dir = root.join("target").join("python-venv");
        let requirements = root.join("tests").join("python").join("requirements.txt");
        let wanted =
            std::fs::read_to_string(&requirements).expect("read tests/python/requirements.txt");
        let stamp = dir.join("requirements.stamp");
        if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
            return dir;
        }
        // Concurrent test binaries may race to create the environment: serialize with a lock dir.
        let lock = root.join("target").join("python-venv.lock");
        std::fs::create_dir_all(root.join("target")).expect("create target/");
        while std::fs::create_dir(&lock).is_err() {
            std::thread::sleep(std::time::Duration::from_millis(200));
            if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
                return dir;
            }
        }
        let result = (|| {
            if !dir.join("bin").join("python").exists() {
                run(Command::new("python3").args(["-m", "venv"]).arg(&dir))?;
            }
            run(Command::new(dir.join("bin").join("python"))
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "-r",
                ])
                .arg(&requirements))?;
            std::fs::write(&stamp, &wanted).map_err(|e| e.to_string())
        })();
        let _ = std::fs::remove_dir(&lock);
        if let Err(e) = result {
            panic!(
                "could not prepare the Python test environment in {}: {e}",
                dir.display()
            );
        }
        dir
    })
}

/// The environment's Python interpreter.
pub fn python() -> PathBuf {
    venv().join("bin").join("python")
}

/// A program installed into the environment (e.g. `fmpy`).
pub fn tool(name: &str) -> PathBuf {
    venv().join("bin").join(name)
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
