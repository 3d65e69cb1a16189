//! Server URLs: the document's default upstream URL and each operation's own server.
//!
//! OpenAPI 3 lets a path item or an operation declare `servers` that replace the document's
//! for that path or operation. The nearest non-empty list applies (operation, then path item,
//! then document), and its first entry is the default: its `url` with each `{variable}`
//! replaced by that variable's `default`. Swagger 2.0 has only the document's server (from
//! `host`, `basePath` and `schemes`).

use mcpgen_core::json_pointer;
use serde_json::Value;

use crate::error::Warning;
use crate::spec::{Operation, Spec, SpecVersion};

/// A `servers` list that cannot be used: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// JSON pointer of the offending value.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

/// The default URL of the `servers` list of the object at `owner` (a JSON pointer; `""` is
/// the document): the first entry's `url` with its variables replaced by their defaults.
/// `Ok(None)` when the object has no `servers` or an empty list.
pub(crate) fn default_url(root: &Value, owner: &str) -> Result<Option<String>, Problem> {
    let list_pointer = format!("{owner}/servers");
    let Some(servers) = root.pointer(&list_pointer) else {
        return Ok(None);
    };
    let problem = |pointer: String, message: String| Problem { pointer, message };
    let Some(servers) = servers.as_array() else {
        return Err(problem(
            list_pointer,
            "`servers` must be a list of server objects".to_owned(),
        ));
    };
    let Some(first) = servers.first() else {
        return Ok(None);
    };
    let entry = format!("{list_pointer}/0");
    let url_pointer = format!("{entry}/url");
    let Some(url) = first.get("url").and_then(Value::as_str) else {
        return Err(problem(
            url_pointer,
            "the server has no `url` string".to_owned(),
        ));
    };
    let variables = match first.get("variables") {
        None => None,
        Some(Value::Object(variables)) => Some(variables),
        Some(_) => {
            return Err(problem(
                format!("{entry}/variables"),
                "`variables` must be a mapping from variable name to server variable".to_owned(),
            ));
        }
    };
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            return Err(problem(
                url_pointer,
                format!("server URL `{url}` has a `{{` without a closing `}}`"),
            ));
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 1..close];
        let Some(variable) = variables.and_then(|v| v.get(name)) else {
            return Err(problem(
                url_pointer,
                format!(
                    "server URL `{url}` uses the variable `{name}`, which its `variables` do not \
                     declare; declare it with a `default`"
                ),
            ));
        };
        let variable_pointer = format!("{entry}/variables/{}", json_pointer::escape(name));
        match variable.get("default") {
            Some(Value::String(default)) => out.push_str(default),
            Some(Value::Number(default)) => out.push_str(&default.to_string()),
            Some(_) => {
                return Err(problem(
                    format!("{variable_pointer}/default"),
                    format!("the default of server variable `{name}` must be a string"),
                ));
            }
            None => {
                return Err(problem(
                    variable_pointer,
                    format!("server variable `{name}` (used in `{url}`) has no `default`; add one"),
                ));
            }
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(Some(out))
}

/// Whether a server URL is absolute (`http://` or `https://`).
pub(crate) fn is_absolute(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("https://")
}

/// `op`'s own server URL: the default of its `servers`, else of its path item's, when that
/// differs from `document_url` (the document's default server URL). `None` when neither
/// declares servers, they resolve to the document's URL, or the spec is Swagger 2.0.
///
/// A list that cannot be used gives a warning naming its JSON pointer, and the operation keeps
/// the document's server. A relative URL is kept with a warning (the runtime refuses it).
pub(crate) fn operation_url(
    spec: &Spec,
    op: &Operation,
    document_url: Option<&str>,
    warnings: &mut Vec<Warning>,
) -> Option<String> {
    if spec.version == SpecVersion::Swagger2 {
        return None;
    }
    let warn = |pointer: &str, message: String| Warning {
        location: format!("{}: {pointer}", spec.path.display()),
        message,
    };
    // The operation's pointer ends in its method, which has no `/`; the rest is its path item.
    let path_item = op.pointer.rsplit_once('/').map_or("", |(item, _)| item);
    for owner in [op.pointer.as_str(), path_item] {
        let url = match default_url(&spec.root, owner) {
            Ok(Some(url)) => url,
            Ok(None) => continue,
            Err(problem) => {
                warnings.push(warn(
                    &problem.pointer,
                    format!(
                        "{}; {} {} is sent to the document's server instead",
                        problem.message,
                        op.method.to_ascii_uppercase(),
                        op.path
                    ),
                ));
                return None;
            }
        };
        if !is_absolute(&url) {
            warnings.push(warn(
                &format!("{owner}/servers/0/url"),
                format!(
                    "server URL `{url}` of {} {} is relative; the runtime calls an operation's \
                     own server only at an absolute http(s) URL, so this tool's calls fail: make \
                     the URL absolute in the spec",
                    op.method.to_ascii_uppercase(),
                    op.path
                ),
            ));
        }
        let same = document_url
            .is_some_and(|document| document.trim_end_matches('/') == url.trim_end_matches('/'));
        return (!same).then_some(url);
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn variables_are_replaced_by_their_defaults() {
        let root = json!({"servers": [{
            "url": "{scheme}://{host}:{port}/{scheme}",
            "variables": {
                "scheme": {"default": "https", "enum": ["https", "http"]},
                "host": {"default": "api.example.test"},
                "port": {"default": 8443},
            },
        }]});
        assert_eq!(
            default_url(&root, ""),
            Ok(Some("https://api.example.test:8443/https".to_owned()))
        );
    }

    #[test]
    fn absent_or_empty_lists_have_no_url() {
        assert_eq!(default_url(&json!({}), ""), Ok(None));
        assert_eq!(default_url(&json!({"servers": []}), ""), Ok(None));
    }

    #[test]
    fn unusable_lists_say_where_and_why() {
        let cases = [
            (
                json!({"servers": {"url": "x"}}),
                "/servers",
                "must be a list",
            ),
            (json!({"servers": [{}]}), "/servers/0/url", "no `url`"),
            (
                json!({"servers": [{"url": "https://{a}", "variables": []}]}),
                "/servers/0/variables",
                "must be a mapping",
            ),
            (
                json!({"servers": [{"url": "https://{a"}]}),
                "/servers/0/url",
                "without a closing",
            ),
            (
                json!({"servers": [{"url": "https://{a}.test"}]}),
                "/servers/0/url",
                "do not declare",
            ),
            (
                json!({"servers": [{"url": "https://{a/b}.test", "variables": {"a/b": {}}}]}),
                "/servers/0/variables/a~1b",
                "no `default`",
            ),
            (
                json!({"servers": [{"url": "https://{a}.test", "variables": {"a": {"default": []}}}]}),
                "/servers/0/variables/a/default",
                "must be a string",
            ),
        ];
        for (root, pointer, message) in cases {
            let problem = default_url(&root, "").expect_err("an unusable list");
            assert_eq!(problem.pointer, pointer, "{problem:?}");
            assert!(problem.message.contains(message), "{problem:?}");
        }
    }
}
