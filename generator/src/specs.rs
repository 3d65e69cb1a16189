//! Where specs are: the repository root holding `specs/`, the server name a spec's folder
//! gives, and loading a spec file.

use std::path::{Path, PathBuf};

use mcpgen_codegen::Errors;
use mcpgen_codegen::spec::Spec;

/// The repository root: `explicit` (`--root`), else the nearest folder upwards from the
/// current one that has `specs/`, else this repository's.
pub(crate) fn find_root(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(r) = explicit {
        return Ok(r.to_owned());
    }
    let cwd = std::env::current_dir().map_err(|e| format!("error: current folder: {e}"))?;
    for dir in cwd.ancestors() {
        if dir.join("specs").is_dir() {
            return Ok(dir.to_owned());
        }
    }
    let built_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if built_in.join("specs").is_dir() {
        return Ok(built_in);
    }
    Err("error: no specs/ folder here or above; pass --root, or use --spec/--tools/--out".into())
}

/// The server name the folder holding `path` gives: lowercase, characters other than
/// letters, digits and `-` as `_`; `None` unless it starts with a letter.
pub(crate) fn folder_name(path: &Path) -> Option<String> {
    let dir = path.parent()?.canonicalize().ok()?;
    let name = dir.file_name()?.to_string_lossy().to_ascii_lowercase();
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    name.starts_with(|c: char| c.is_ascii_lowercase())
        .then_some(name)
}

/// Loads a spec file; the error lists every problem found.
pub(crate) fn load_spec(path: &Path) -> Result<Spec, String> {
    Spec::load(path).map_err(|e| Errors(e).to_string())
}
