//! The workspace's style is part of its tests, so that the README's test command and CI check
//! the same things: the tree is formatted as `cargo fmt` leaves it, and clippy, with the
//! workspace's lints (documented public items, a `SAFETY:` line on every unsafe block),
//! finds nothing.

use std::process::Command;

use tandem_tests::python::workspace_root;

/// Runs `cargo <args>` in the workspace and fails with its output when it does not succeed.
fn cargo(args: &[&str], fix: &str) {
    let output = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(workspace_root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo {}: {e}", args.join(" ")));
    assert!(
        output.status.success(),
        "`cargo {}` failed ({}); {fix}\n{}{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_tree_is_formatted() {
    cargo(
        &["fmt", "--all", "--check"],
        "run `cargo fmt --all` (rustfmt comes with rustup's default profile: `rustup component add rustfmt`)",
    );
}

#[test]
fn clippy_finds_nothing() {
    cargo(
        &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"],
        "mend what it lists (clippy comes with rustup's default profile: `rustup component add clippy`)",
    );
}
