//! The templates of a generated crate's non-Rust files (`Cargo.toml`, `README.md`,
//! `server.json`, `Dockerfile`, `compose.yaml`, and the Kubernetes manifests
//! `deploy/kubernetes/server.yaml` and `kustomization.yaml`): built-in minijinja templates
//! compiled into the engine, each replaceable by a file of the same name in a templates folder
//! ([`crate::Settings::with_templates`]).
//!
//! Templates run with strict undefined values (a misspelt variable is an error, not an empty
//! string), no HTML escaping, `trim_blocks`, `lstrip_blocks` and the trailing newline kept.
//! The variables they see are documented in `generator/templates/README.md`.

use std::collections::BTreeMap;
use std::path::Path;

use minijinja::syntax::SyntaxConfig;
use minijinja::{AutoEscape, Environment, ErrorKind, UndefinedBehavior};
use serde::Serialize;

use crate::error::Error;

/// The built-in templates: file name → source.
const BUILT_IN: &[(&str, &str)] = &[
    (
        "Cargo.toml.jinja",
        include_str!("../../templates/Cargo.toml.jinja"),
    ),
    (
        "README.md.jinja",
        include_str!("../../templates/README.md.jinja"),
    ),
    (
        "server.json.jinja",
        include_str!("../../templates/server.json.jinja"),
    ),
    (
        "Dockerfile.jinja",
        include_str!("../../templates/Dockerfile.jinja"),
    ),
    (
        "compose.yaml.jinja",
        include_str!("../../templates/compose.yaml.jinja"),
    ),
    (
        "kubernetes.yaml.jinja",
        include_str!("../../templates/kubernetes.yaml.jinja"),
    ),
    (
        "kustomization.yaml.jinja",
        include_str!("../../templates/kustomization.yaml.jinja"),
    ),
];

/// The variables every template sees, named in the error for an undefined value.
const VARIABLES: &str = "generator_version, spec_label, tools_label, crate_name, lib_name, \
    cargo_version, server, tools, runtime, standalone, tools_list, upstream_credential_env, \
    registry, crate_dir";

/// The templates of one run, each with where it came from (for error messages).
pub(crate) struct Templates {
    env: Environment<'static>,
    /// Template name → `built-in template X` or the overriding file's path.
    origins: BTreeMap<String, String>,
}

impl Templates {
    /// The built-in templates, with those that `overrides` holds (by file name) replaced.
    pub(crate) fn load(overrides: Option<&Path>) -> Result<Self, Error> {
        let mut env = Environment::new();
        let syntax = SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(true)
            .build()
            .map_err(|e| Error::Other(format!("internal error: template syntax: {e}")))?;
        env.set_syntax(syntax);
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_auto_escape_callback(|_| AutoEscape::None);
        env.add_filter("toml_string", |s: String| toml_string(&s));
        env.add_filter("md_inline", |s: String| md_inline(&s));
        env.add_filter("md_cell", |s: String| md_cell(&s));
        env.add_filter("md_code", |s: String| md_code(&s));
        env.add_filter("one_line", |s: String| super::one_line(&s));
        env.add_filter("json_string", |s: String| json_string(&s));
        env.add_filter("k8s_name", |s: String| k8s_name(&s));

        let mut sources: BTreeMap<String, (String, String)> = BUILT_IN
            .iter()
            .map(|(name, source)| {
                (
                    (*name).to_owned(),
                    (format!("built-in template {name}"), (*source).to_owned()),
                )
            })
            .collect();
        if let Some(dir) = overrides {
            for (name, path, source) in read_overrides(dir)? {
                sources.insert(name, (path, source));
            }
        }
        let mut origins = BTreeMap::new();
        for (name, (origin, source)) in sources {
            env.add_template_owned(name.clone(), source)
                .map_err(|e| template_error(&origin, &e))?;
            origins.insert(name, origin);
        }
        Ok(Self { env, origins })
    }

    /// Renders the template `name` (e.g. `README.md.jinja`) with `context`.
    pub(crate) fn render(&self, name: &str, context: &impl Serialize) -> Result<String, Error> {
        let origin = self
            .origins
            .get(name)
            .map_or_else(|| name.to_owned(), Clone::clone);
        self.env
            .get_template(name)
            .and_then(|t| t.render(minijinja::Value::from(minijinja::value::Serde(context))))
            .map_err(|e| template_error(&origin, &e))
    }
}

/// The `*.jinja` files of `dir` as (template name, path, source). A `.jinja` file whose name is
/// not a built-in template's is an error: it would otherwise be ignored without a word.
fn read_overrides(dir: &Path) -> Result<Vec<(String, String, String)>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::Io {
        path: dir.to_owned(),
        message: format!("cannot read the templates folder: {e}"),
    })?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::Io {
            path: dir.to_owned(),
            message: format!("cannot read the templates folder: {e}"),
        })?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".jinja") {
            continue;
        }
        if !BUILT_IN.iter().any(|(known, _)| *known == name) {
            let known: Vec<&str> = BUILT_IN.iter().map(|(n, _)| *n).collect();
            return Err(Error::Io {
                path,
                message: format!(
                    "not a template mcpgen renders; a templates folder overrides these by file name: {}",
                    known.join(", ")
                ),
            });
        }
        let source = std::fs::read_to_string(&path).map_err(|e| Error::Io {
            path: path.clone(),
            message: format!("cannot read the template: {e}"),
        })?;
        out.push((name, path.display().to_string(), source));
    }
    out.sort();
    Ok(out)
}

/// A minijinja error as one of ours: the template file, the line, what is wrong.
fn template_error(origin: &str, e: &minijinja::Error) -> Error {
    let line = e.line().map(|l| format!(", line {l}")).unwrap_or_default();
    let detail = e.detail().map(|d| format!(": {d}")).unwrap_or_default();
    let hint = match e.kind() {
        ErrorKind::UndefinedError => format!("; the templates' variables are: {VARIABLES}"),
        _ => String::new(),
    };
    Error::Other(format!("{origin}{line}: {}{detail}{hint}", e.kind()))
}

/// A TOML basic string: quotes, backslashes and every control character (DEL included) escaped.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON string literal, quotes included.
fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// Markdown table cell text: inline text with `|` escaped.
fn md_cell(s: &str) -> String {
    md_inline(s).replace('|', "\\|")
}

/// Markdown inline text: no raw HTML.
fn md_inline(s: &str) -> String {
    s.replace('<', "&lt;").replace('>', "&gt;")
}

/// Text inside a Markdown code span: no backtick that would end it.
fn md_code(s: &str) -> String {
    s.replace('`', "'")
}

/// A Kubernetes object name (an RFC 1123 label): lowercase letters, digits and `-`, starting
/// and ending with a letter or digit, at most 63 characters; anything else becomes `-`.
fn k8s_name(s: &str) -> String {
    let name: String = s
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9') => c,
            _ => '-',
        })
        .take(63)
        .collect();
    let name = name.trim_matches('-');
    if name.is_empty() {
        "mcp".to_owned()
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::k8s_name;

    #[test]
    fn kubernetes_names_are_rfc_1123_labels() {
        assert_eq!(k8s_name("graph_cycles-mcp"), "graph-cycles-mcp");
        assert_eq!(k8s_name("_Big.API_"), "big-api");
        assert_eq!(k8s_name("___"), "mcp");
        assert_eq!(k8s_name(&"a".repeat(80)).len(), 63);
    }
}
