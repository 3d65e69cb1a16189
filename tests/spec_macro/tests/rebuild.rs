//! A crate that includes a spec with `generate!` follows the spec: it is built in a scratch
//! folder from copies of `specs/synaplan`, its tool table printed, the spec edited, and after a
//! plain `cargo build` (no clean) the printed tools show the edit.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// Runs the scratch crate's binary: it prints every tool's input schema as one JSON line.
fn tool_schemas(bins: &Path) -> String {
    let out = Command::new(bins.join("spec-macro-rebuild"))
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn editing_the_spec_and_rebuilding_changes_the_tools() {
    let root = root();
    let scratch = tempfile::tempdir().expect("tempdir");
    let dir = scratch.path();
    std::fs::create_dir_all(dir.join("src")).expect("src");
    for file in ["openapi.yaml", "mcp_tools.yaml"] {
        std::fs::copy(root.join("specs/synaplan").join(file), dir.join(file)).expect("copy");
    }
    let path = |p: &str| root.join(p).display().to_string().replace('\\', "/");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"spec-macro-rebuild\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[workspace]\n\n[dependencies]\n\
             mcpgen = {{ path = \"{}\", features = [\"server\"] }}\n\
             serde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n",
            path("mcpgen"),
        ),
    )
    .expect("Cargo.toml");
    std::fs::write(
        dir.join("src/main.rs"),
        "#![allow(missing_docs)]\n\
         mod api {\n    mcpgen::generate!(spec = \"openapi.yaml\", tools = \"mcp_tools.yaml\");\n}\n\
         fn main() {\n    for tool in api::tools::TOOLS {\n        \
         println!(\"{} {}\", tool.name, tool.input_schema);\n    }\n}\n",
    )
    .expect("main.rs");
    // Shared with the other standalone builds, so the runtime is compiled once.
    let bins = mcpgen_tests::standalone_build(dir);
    let before = tool_schemas(&bins);
    assert!(
        before.contains("Two-letter language code to filter by"),
        "{before}"
    );

    let spec = dir.join("openapi.yaml");
    let text = std::fs::read_to_string(&spec).expect("spec");
    let edited = text.replace(
        "Two-letter language code to filter by",
        "ISO 639-1 code of the prompts' language",
    );
    assert_ne!(text, edited, "the spec holds the text the test edits");
    std::fs::write(&spec, edited).expect("edit the spec");

    mcpgen_tests::standalone_build(dir);
    let after = tool_schemas(&bins);
    assert!(
        after.contains("ISO 639-1 code of the prompts' language"),
        "{after}"
    );
    assert!(
        !after.contains("Two-letter language code to filter by"),
        "{after}"
    );
}
