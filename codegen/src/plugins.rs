//! Plugin manifests: `plugins/<plugin>/manifest.json` files whose `mcp_tools` section adds tools
//! that only principals with the plugin can see and call.
//!
//! ```json
//! {
//!   "name": "chat-organizer",
//!   "mcp_tools": [
//!     { "operation_id": "put_api_chats_update", "name": "synaplan_rename_chat" }
//!   ]
//! }
//! ```
//!
//! `name` is the plugin's name (`^[A-Za-z0-9_.-]{1,64}$`); `mcp_tools` holds entries of the
//! allowlist's format ([`crate::allowlist::Entry`]), each of which belongs to the plugin. A
//! manifest without `mcp_tools` adds nothing; every other key is plugin data this engine
//! ignores. Entries are checked against the spec with the allowlist's by [`crate::select`].

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;

use crate::allowlist::{self, Entry, RawEntry, ServerBlock};
use crate::error::Error;
use crate::naming;

/// The file name of a plugin's manifest inside its folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// A parsed plugin manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The file it was read from.
    pub path: PathBuf,
    /// The plugin's name: every tool of the manifest carries it as its plugin.
    pub name: String,
    /// The `mcp_tools` entries, in file order, each with [`Entry::plugin`] set to `name`.
    pub tools: Vec<Entry>,
}

#[derive(Deserialize)]
struct RawManifest {
    name: Spanned<String>,
    #[serde(default)]
    mcp_tools: Option<Vec<RawEntry>>,
}

/// Where the entries start, read leniently to place a decoding error in its entry.
#[derive(Deserialize)]
struct Outline {
    #[serde(default)]
    mcp_tools: Option<Vec<Spanned<IgnoredAny>>>,
}

impl Manifest {
    /// Reads and parses `path`; entries take their defaults from the allowlist's `server`.
    pub fn load(path: &Path, server: &ServerBlock) -> Result<Manifest, Vec<Error>> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            vec![Error::Io {
                path: path.to_owned(),
                message: e.to_string(),
            }]
        })?;
        Self::parse(path, &text, server)
    }

    /// Parses manifest `text`; `path` is used in messages. Every problem is returned.
    pub fn parse(path: &Path, text: &str, server: &ServerBlock) -> Result<Manifest, Vec<Error>> {
        // The text must be JSON; the YAML reader then decodes it with positions. Outside strings
        // (where JSON forbids raw tabs) a tab is whitespace, which YAML rejects in indentation.
        serde_json::from_str::<IgnoredAny>(text).map_err(|e| {
            vec![Error::Syntax {
                path: path.to_owned(),
                line: e.line(),
                column: e.column(),
                message: format!("{e}; a plugin manifest must be JSON"),
            }]
        })?;
        let text = text.replace('\t', " ");
        let raw: RawManifest =
            serde_saphyr::from_str(&text).map_err(|e| vec![decode_error(path, &text, &e)])?;

        let mut errors = Vec::new();
        let name = raw.name.value;
        if !naming::is_valid_tool_name(&name, 64) {
            errors.push(Error::Allowlist {
                path: path.to_owned(),
                location: format!(
                    "`name` at line {}, column {}",
                    raw.name.referenced.line(),
                    raw.name.referenced.column()
                ),
                message: format!(
                    "plugin name `{name}` is invalid: it must match ^[A-Za-z0-9_.-]{{1,64}}$ \
                     (the name keys files list under `plugins:`)"
                ),
            });
        }
        let mut tools = Vec::new();
        for (i, raw_entry) in raw.mcp_tools.unwrap_or_default().into_iter().enumerate() {
            let mut entry = match allowlist::entry(path, i + 1, raw_entry, server) {
                Ok(entry) => entry,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            match &entry.plugin {
                Some(other) if *other != name => errors.push(Error::Allowlist {
                    path: path.to_owned(),
                    location: entry.location(),
                    message: format!(
                        "`plugin: {other}` differs from the manifest's plugin `{name}`; remove \
                         `plugin:` (every tool of a manifest belongs to its plugin) or move the \
                         entry into the manifest of `{other}`"
                    ),
                }),
                _ => {
                    entry.plugin = Some(name.clone());
                    tools.push(entry);
                }
            }
        }
        if errors.is_empty() {
            Ok(Manifest {
                path: path.to_owned(),
                name,
                tools,
            })
        } else {
            Err(errors)
        }
    }
}

/// Reads every `dir/*/manifest.json`, in sorted path order; sub-folders without one are
/// skipped. Two manifests naming the same plugin are an error naming both files.
pub fn load_dir(dir: &Path, server: &ServerBlock) -> Result<Vec<Manifest>, Vec<Error>> {
    let listing = std::fs::read_dir(dir).map_err(|e| {
        vec![Error::Io {
            path: dir.to_owned(),
            message: format!("{e} (the plugins folder holds one `<plugin>/{MANIFEST_FILE}` each)"),
        }]
    })?;
    let mut paths: Vec<PathBuf> = listing
        .flatten()
        .map(|e| e.path().join(MANIFEST_FILE))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();

    let mut errors = Vec::new();
    let mut manifests: Vec<Manifest> = Vec::with_capacity(paths.len());
    for path in &paths {
        match Manifest::load(path, server) {
            Ok(manifest) => {
                if let Some(first) = manifests.iter().find(|m| m.name == manifest.name) {
                    errors.push(Error::Allowlist {
                        path: path.clone(),
                        location: "`name`".into(),
                        message: format!(
                            "plugin `{}` is already declared by {}; give each plugin one manifest",
                            manifest.name,
                            first.path.display()
                        ),
                    });
                } else {
                    manifests.push(manifest);
                }
            }
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(manifests)
    } else {
        Err(errors)
    }
}

/// A decoding error of well-formed JSON (a missing `name`, an unknown entry field, a value of
/// the wrong type), placed in its entry and field where the text allows.
fn decode_error(path: &Path, text: &str, e: &serde_saphyr::Error) -> Error {
    let shown = e.to_string();
    let first = shown.lines().next().unwrap_or_default().trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // The position is reported separately, in the location.
    let message = match first.split_once(": ") {
        Some((head, rest)) if head.starts_with("line ") => rest,
        _ => first,
    };
    let Some(at) = e.location() else {
        return Error::Allowlist {
            path: path.to_owned(),
            location: "manifest".into(),
            message: format!("{message} (expected an object with `name` and optional `mcp_tools`)"),
        };
    };
    let (line, column) = (at.line(), at.column());
    let mut location = String::new();
    let starts: Vec<(u64, u64)> = serde_saphyr::from_str::<Outline>(text)
        .ok()
        .and_then(|o| o.mcp_tools)
        .unwrap_or_default()
        .iter()
        .map(|s| (s.referenced.line(), s.referenced.column()))
        .collect();
    if let Some(index) = starts.iter().rposition(|start| *start <= (line, column)) {
        location.push_str(&format!("entry {}, ", index + 1));
    }
    if let Some(field) = key_before(text, line, column) {
        location.push_str(&format!("field `{field}`, "));
    }
    location.push_str(&format!("line {line}, column {column}"));
    Error::Allowlist {
        path: path.to_owned(),
        location,
        message: if message.contains("expected one of") {
            message.to_owned()
        } else {
            format!(
                "{message} (expected `name` and `mcp_tools`, a list of entries with operation_id \
                 and optional name/title/description/access/annotations/scope/enabled/plugin/\
                 content_type/output_schema/schema_budget)"
            )
        },
    }
}

/// The JSON key the position `line`, `column` (1-based) belongs to, for messages: the key
/// written there (`"key":`), else the last key before it on that line.
fn key_before(text: &str, line: u64, column: u64) -> Option<String> {
    let row = text
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let at = row
        .char_indices()
        .nth(usize::try_from(column).ok()?.saturating_sub(1))
        .map_or(row.len(), |(i, _)| i);
    let key_at = |start: usize| -> Option<&str> {
        let rest = row.get(start..)?.strip_prefix('"')?;
        let close = rest.find('"')?;
        rest[close + 1..]
            .trim_start()
            .starts_with(':')
            .then(|| &rest[..close])
    };
    if let Some(key) = key_at(at) {
        return Some(key.to_owned());
    }
    let before = &row[..at];
    let colon = before.rfind(':')?;
    let key = before[..colon].trim_end().strip_suffix('"')?;
    let open = key.rfind('"')?;
    let key = &key[open + 1..];
    (!key.is_empty()).then(|| key.to_owned())
}
