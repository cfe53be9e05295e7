//! Invoking cargo: workspace metadata and release builds with their artifact paths, both read
//! from cargo's JSON output rather than guessed from folder conventions.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

/// The parts of `cargo metadata` the tasks use.
#[derive(Debug, Deserialize)]
pub struct Metadata {
    /// Every workspace member.
    pub packages: Vec<Package>,
    /// The workspace's root folder.
    pub workspace_root: PathBuf,
    /// Where cargo builds (honours `CARGO_TARGET_DIR`).
    pub target_directory: PathBuf,
}

/// A workspace member.
#[derive(Debug, Deserialize)]
pub struct Package {
    /// Package name.
    pub name: String,
    /// Cargo's package id, which build messages refer to.
    pub id: String,
    /// Path of the package's Cargo.toml.
    pub manifest_path: PathBuf,
    /// Library, binary, test... targets.
    pub targets: Vec<Target>,
}

impl Package {
    /// The package's folder.
    pub fn dir(&self) -> &Path {
        self.manifest_path
            .parent()
            .expect("a manifest path has a parent folder")
    }

    /// The first target of kind `kind` (`"cdylib"`, `"bin"`, ...).
    pub fn target(&self, kind: &str) -> Option<&Target> {
        self.targets
            .iter()
            .find(|t| t.kind.iter().any(|k| k == kind))
    }
}

/// A compilation target of a package.
#[derive(Debug, Deserialize)]
pub struct Target {
    /// Target name (for a library: the crate name, e.g. `hydraulic_crane`).
    pub name: String,
    /// Target kinds (`lib`, `cdylib`, `rlib`, `bin`, ...).
    pub kind: Vec<String>,
}

/// Files a release build produced for one package.
#[derive(Debug, Default)]
pub struct Outputs {
    /// The shared library (`.so`, `.dll`, `.dylib`) of a cdylib target.
    pub library: Option<PathBuf>,
    /// The executable of each binary, bench or example target, by target name.
    pub executables: HashMap<String, PathBuf>,
}

/// The cargo program that runs this task (`$CARGO` when started by cargo).
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Runs `cargo metadata` for the workspace members.
pub fn metadata() -> Result<Metadata> {
    let output = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run `cargo metadata`")?;
    if !output.status.success() {
        bail!("`cargo metadata` failed ({})", output.status);
    }
    serde_json::from_slice(&output.stdout).context("cannot read the output of `cargo metadata`")
}

/// One line of `cargo build --message-format=json`; only artifacts matter here.
#[derive(Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    package_id: String,
    target: Option<Target>,
    #[serde(default)]
    filenames: Vec<PathBuf>,
    executable: Option<PathBuf>,
}

/// Builds `packages` in release mode with one cargo invocation (compiler diagnostics go to the
/// terminal) and returns what was built, keyed by package id.
pub fn build_release(packages: &[&Package]) -> Result<HashMap<String, Outputs>> {
    build(&["build", "--release"], packages)
}

/// Builds the `targets` (e.g. `["--bin", "tandem"]`) of `packages` in release mode and returns
/// what was built, keyed by package id.
pub fn build_release_targets(
    packages: &[&Package],
    targets: &[&str],
) -> Result<HashMap<String, Outputs>> {
    let mut args = vec!["build", "--release"];
    args.extend_from_slice(targets);
    build(&args, packages)
}

/// Builds the `tandem` binary of the workspace in release mode and returns its path.
pub fn build_tandem(metadata: &Metadata) -> Result<PathBuf> {
    build_release_binary(metadata, "tandem", "tandem")
}

/// Builds the binary `bin` of the workspace package `package` in release mode and returns its
/// path.
pub fn build_release_binary(metadata: &Metadata, package: &str, bin: &str) -> Result<PathBuf> {
    let found = metadata
        .packages
        .iter()
        .find(|p| p.name == package)
        .with_context(|| format!("no package `{package}` in the workspace"))?;
    let outputs = build_release_targets(&[found], &["--bin", bin])?;
    outputs
        .get(&found.id)
        .and_then(|o| o.executables.get(bin))
        .cloned()
        .with_context(|| format!("the build produced no `{bin}` binary"))
}

/// Builds the bench target `bench` of `packages` (bench profile, which is optimized) without
/// running it, and returns what was built, keyed by package id: the bench programs and the
/// shared libraries they depend on.
pub fn build_benches(packages: &[&Package], bench: &str) -> Result<HashMap<String, Outputs>> {
    build(&["bench", "--no-run", "--bench", bench], packages)
}

/// Runs `cargo <args> --package ...` and collects the artifacts from its JSON messages.
fn build(args: &[&str], packages: &[&Package]) -> Result<HashMap<String, Outputs>> {
    let mut command = cargo();
    command.args(args);
    command.arg("--message-format=json-render-diagnostics");
    for package in packages {
        command.args(["--package", &package.name]);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run `cargo {}`", args.join(" ")))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut outputs: HashMap<String, Outputs> = HashMap::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.context("cannot read the output of `cargo build`")?;
        let Ok(message) = serde_json::from_str::<Message>(&line) else {
            continue;
        };
        let Some(target) = message
            .target
            .filter(|_| message.reason == "compiler-artifact")
        else {
            continue;
        };
        let entry = outputs.entry(message.package_id).or_default();
        if target.kind.iter().any(|k| k == "cdylib") {
            let suffix = std::env::consts::DLL_SUFFIX;
            entry.library = message
                .filenames
                .into_iter()
                .find(|f| f.to_string_lossy().ends_with(suffix));
        } else if let (true, Some(executable)) = (
            target
                .kind
                .iter()
                .any(|k| k == "bin" || k == "bench" || k == "example"),
            message.executable,
        ) {
            entry.executables.insert(target.name, executable);
        }
    }
    let status = child.wait().context("`cargo build` did not finish")?;
    if !status.success() {
        bail!(
            "`cargo {}` failed ({status}); see the messages above",
            args.join(" ")
        );
    }
    Ok(outputs)
}
