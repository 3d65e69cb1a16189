//! Building generated crates on their own, outside the workspace.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("repo root")
}

/// The target folder standalone builds share: `standalone/` in `CARGO_TARGET_DIR` when set,
/// else in the repository's `target/`.
pub fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root().join("target"), PathBuf::from)
        .join("standalone")
}

/// Builds the crate in `dir` with the workspace's lock file (so no new versions are resolved)
/// and the target folder all standalone builds share (the runtime is compiled once); returns
/// that target folder.
pub fn cargo_build(dir: &Path) -> PathBuf {
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy lock");
    let target = target();
    let o = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        o.status.success(),
        "cargo build in {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    target
}
