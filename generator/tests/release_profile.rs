//! A crate generated with `--out` is built on its own, so its `Cargo.toml` carries the release
//! profile that serves it; a crate generated into this workspace takes the workspace's.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `[profile.release]` table of the manifest at `path`, as cargo reads it.
fn release_profile(manifest: &str) -> Option<toml_table::Table> {
    toml_table::parse(manifest).get("profile.release").cloned()
}

/// Just enough TOML for a manifest's plain `key = value` tables.
mod toml_table {
    use std::collections::BTreeMap;

    pub type Table = BTreeMap<String, String>;

    pub fn parse(text: &str) -> BTreeMap<String, Table> {
        let mut tables: BTreeMap<String, Table> = BTreeMap::new();
        let mut current = String::new();
        for line in text.lines().map(str::trim) {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                current = name.to_owned();
                tables.entry(current.clone()).or_default();
            } else if let Some((key, value)) = line.split_once('=') {
                tables
                    .entry(current.clone())
                    .or_default()
                    .insert(key.trim().to_owned(), value.trim().to_owned());
            }
        }
        tables
    }
}

#[test]
fn a_crate_generated_on_its_own_carries_the_release_profile() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("my-api-mcp");
    let generated = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["generate", "--spec", "specs/synaplan/openapi.yaml"])
        .args(["--tools", "specs/synaplan/mcp_tools.yaml", "--out"])
        .arg(&out)
        .arg("--mcpgen-path")
        .arg(root().join("mcpgen"))
        .current_dir(root())
        .output()
        .expect("mcpgen runs");
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).expect("Cargo.toml");
    let profile = release_profile(&manifest).expect("a [profile.release] table");
    assert_eq!(profile.get("lto").map(String::as_str), Some("\"fat\""));
    assert_eq!(profile.get("codegen-units").map(String::as_str), Some("1"));
    assert_eq!(profile.get("opt-level").map(String::as_str), Some("\"s\""));
    assert_eq!(
        profile.get("strip").map(String::as_str),
        Some("\"symbols\"")
    );
    // A panicking tool is answered with an error result (`catch_unwind`): never `abort`.
    assert_eq!(profile.get("panic"), None, "{manifest}");

    // Cargo reads the manifest as it is (the profile applies: the crate is its own workspace).
    let metadata = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--offline",
            "--no-deps",
            "--format-version",
            "1",
        ])
        .arg("--manifest-path")
        .arg(out.join("Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        metadata.status.success(),
        "{}",
        String::from_utf8_lossy(&metadata.stderr)
    );
}

#[test]
fn a_workspace_member_takes_the_workspaces_profile() {
    let manifest =
        std::fs::read_to_string(root().join("generated/synaplan/Cargo.toml")).expect("Cargo.toml");
    assert_eq!(release_profile(&manifest), None, "{manifest}");
    let workspace = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    assert!(release_profile(&workspace).is_some());
}
