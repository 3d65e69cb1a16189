//! Parsing `$ref` values: file part, pointer, URI schemes; tidying paths.

use std::path::{Component, Path, PathBuf};

use percent_encoding::percent_decode_str;

/// A reference split into its file part (empty: the same file) and its decoded JSON pointer.
pub(super) struct RefParts {
    pub(super) file: String,
    pub(super) pointer: String,
}

pub(super) fn parse_reference(reference: &str) -> Result<RefParts, String> {
    if reference.starts_with("http://")
        || reference.starts_with("https://")
        || reference.starts_with("//")
    {
        return Err("remote references are not fetched; download the file next to the spec and reference it by relative path".into());
    }
    if let Some(scheme) = uri_scheme(reference) {
        return Err(format!(
            "`{scheme}:` references are not supported; reference the file by relative path"
        ));
    }
    let (file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    let pointer = percent_decode_str(fragment)
        .decode_utf8_lossy()
        .into_owned();
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!(
            "the fragment `#{fragment}` is not a JSON pointer; write `#/path/to/target`"
        ));
    }
    Ok(RefParts {
        file: percent_decode_str(file).decode_utf8_lossy().into_owned(),
        pointer,
    })
}

/// The URI scheme of `reference` (`urn`, `file`, …), if it has one; single letters are
/// Windows drive letters, not schemes.
pub(super) fn uri_scheme(reference: &str) -> Option<&str> {
    let (scheme, _) = reference.split_once(':')?;
    let valid = scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

/// Turns a decoded JSON pointer into a local reference (`%` escaped so decoding restores it).
pub(super) fn local_reference(pointer: &str) -> String {
    format!("#{}", pointer.replace('%', "%25"))
}

/// `a/./b/../c` → `a/c`, without touching the file system (for messages only).
pub(super) fn tidy(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
