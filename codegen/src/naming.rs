//! Where names are decided: tool names, Rust type and method names, and argument names.
//!
//! Tool names always match `^[A-Za-z0-9_.-]{1,64}$` (the limit MCP clients enforce; an
//! allowlist may lower it with `max_name_len`). A name derived from an operationId (or from
//! method + path when there is none) is snake_case; past the length limit it is cut and ends
//! with `_` plus eight hex digits of the SHA-256 of the full name, so shortening is
//! deterministic and distinct names stay distinct. Where default names must be unique without
//! a reviewer choosing (`mcpgen init`), a repeated name gets `_2`, `_3`, … and stays within the
//! limit ([`unique_tool_name`]); in an allowlist a repeated name is an error instead.
//!
//! Argument names ([`ArgumentNames`]): a parameter's argument carries the parameter's own name.
//! When two parameters in different locations share a name, the one that comes first in the
//! order path, query, header, cookie keeps it and the others become `<name>_<location>`
//! (`id_query`). An object request body is flattened into top-level arguments when none of its
//! properties collides with a parameter argument; otherwise the whole body is one argument named
//! `body` (`body_2` if a parameter took `body`).

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use crate::spec::ParamLocation;

/// The longest tool name MCP clients accept.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// The tool-name limit for an allowlist's `max_name_len`: [`MAX_TOOL_NAME_LEN`] when unset,
/// never above it and at least 1.
pub fn max_tool_name_len(configured: Option<usize>) -> usize {
    configured
        .unwrap_or(MAX_TOOL_NAME_LEN)
        .clamp(1, MAX_TOOL_NAME_LEN)
}

/// Why `name` cannot be a tool name under a limit of `max_len` characters, with the fix; `None`
/// when it can.
pub fn tool_name_problem(name: &str, max_len: usize) -> Option<String> {
    (!is_valid_tool_name(name, max_len)).then(|| {
        format!(
            "tool name `{name}` is invalid: names must match ^[A-Za-z0-9_.-]{{1,{max_len}}}$ \
             ({} characters given); choose a shorter name with only letters, digits, `_`, `.` and `-`",
            name.chars().count()
        )
    })
}

/// An allowlist entry's tool name: its `name:` when given, else the operation's
/// [`default_tool_name`].
pub fn tool_name(
    explicit: Option<&str>,
    operation_id: Option<&str>,
    method: &str,
    path: &str,
    max_len: usize,
) -> String {
    match explicit {
        Some(name) => name.to_owned(),
        None => default_tool_name(operation_id, method, path, max_len),
    }
}

/// Makes the tool name `base` unique against `taken` and records it: `base` itself when free,
/// else `base_2`, `base_3`, … with `base` cut (see [`shorten`]) so that the result still fits
/// `max_len`.
pub fn unique_tool_name(base: &str, taken: &mut BTreeSet<String>, max_len: usize) -> String {
    let base = shorten(base, max_len);
    if taken.insert(base.clone()) {
        return base;
    }
    let mut n = 2usize;
    loop {
        let suffix = format!("_{n}");
        let candidate = if base.len() + suffix.len() <= max_len {
            format!("{base}{suffix}")
        } else {
            format!(
                "{}{suffix}",
                shorten(&base, max_len.saturating_sub(suffix.len()))
            )
        };
        if taken.insert(candidate.clone()) {
            return candidate;
        }
        n += 1;
    }
}

/// Whether `name` is a valid tool name for a limit of `max_len` characters.
pub fn is_valid_tool_name(name: &str, max_len: usize) -> bool {
    !name.is_empty()
        && name.len() <= max_len
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Splits an identifier into lower-case words at non-alphanumeric characters and at camelCase
/// boundaries (`getHTTPResponse2` → `get`, `http`, `response2`).
pub fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_ascii_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `snake_case` of `s`, ASCII only.
pub fn snake_case(s: &str) -> String {
    words(s).join("_")
}

/// `PascalCase` of `s`, ASCII only.
pub fn pascal_case(s: &str) -> String {
    words(s)
        .iter()
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// Eight hex digits of the SHA-256 of `s`.
pub fn short_hash(s: &str) -> String {
    let digest = Sha256::digest(s.as_bytes());
    hex::encode(&digest[..4])
}

/// Fits `name` into `max_len` characters: unchanged when it fits, else cut and suffixed with
/// `_` and a short hash of the whole name.
pub fn shorten(name: &str, max_len: usize) -> String {
    if name.len() <= max_len {
        return name.to_owned();
    }
    let hash = short_hash(name);
    let keep = max_len.saturating_sub(hash.len() + 1);
    let mut cut: String = name.chars().take(keep).collect();
    while cut.ends_with(['_', '.', '-']) {
        cut.pop();
    }
    format!("{cut}_{hash}")
}

/// The default tool name for an operation: its operationId in snake_case, or
/// `{method}_{path words}` (`{id}` → `by_id`) when it has none; shortened to `max_len`.
pub fn default_tool_name(
    operation_id: Option<&str>,
    method: &str,
    path: &str,
    max_len: usize,
) -> String {
    let base = match operation_id.map(snake_case).filter(|s| !s.is_empty()) {
        Some(name) => name,
        None => method_path_name(method, path),
    };
    shorten(&base, max_len)
}

/// `{method}_{path words}` with `{param}` segments as `by_param`.
pub fn method_path_name(method: &str, path: &str) -> String {
    let mut parts = vec![method.to_ascii_lowercase()];
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        if let Some(param) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            parts.push(format!("by_{}", snake_case(param)));
        } else {
            let w = snake_case(segment);
            if !w.is_empty() {
                parts.push(w);
            }
        }
    }
    parts.join("_")
}

const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield", "union",
];

/// A snake_case Rust identifier for `s` (method names): never empty, never a keyword, never
/// starting with a digit.
pub fn rust_method_name(s: &str) -> String {
    let mut name = snake_case(s);
    if name.is_empty() {
        name = "tool".to_owned();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, "t_");
    }
    if RUST_KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// A PascalCase Rust type-name stem for `s`: never empty, never starting with a digit.
pub fn rust_type_stem(s: &str) -> String {
    let mut name = pascal_case(s);
    if name.is_empty() {
        name = "Tool".to_owned();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'T');
    }
    name
}

/// Makes `candidate` unique against `taken` by appending `_2`, `_3`, … (or `2`, `3`, … when
/// `sep` is empty), and records it.
pub fn unique(candidate: String, taken: &mut BTreeSet<String>, sep: &str) -> String {
    if taken.insert(candidate.clone()) {
        return candidate;
    }
    let mut n = 2usize;
    loop {
        let next = format!("{candidate}{sep}{n}");
        if taken.insert(next.clone()) {
            return next;
        }
        n += 1;
    }
}

/// The Rust names decided for one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolNames {
    /// The tool name.
    pub name: String,
    /// PascalCase type-name stem, unique in the crate.
    pub type_stem: String,
    /// snake_case method name, unique in the crate, not a keyword.
    pub method_name: String,
}

/// The Rust names already given out in one crate.
#[derive(Debug, Default)]
pub struct CrateNames {
    type_stems: BTreeSet<String>,
    method_names: BTreeSet<String>,
}

impl CrateNames {
    /// Decides the Rust type stem and method name of the tool `name`, unique in the crate
    /// (`Stem2`, `method_2` on a clash).
    pub fn tool(&mut self, name: String) -> ToolNames {
        let type_stem = unique(rust_type_stem(&name), &mut self.type_stems, "");
        let method_name = unique(rust_method_name(&name), &mut self.method_names, "_");
        ToolNames {
            name,
            type_stem,
            method_name,
        }
    }
}

/// The argument names of one tool's parameters and body (see the module documentation).
#[derive(Debug, Default)]
pub struct ArgumentNames {
    taken: BTreeSet<String>,
}

impl ArgumentNames {
    /// Names the parameters, given as (name, location) in spec order, and returns their
    /// argument names in the same order.
    pub fn parameters(params: &[(&str, ParamLocation)]) -> (Self, Vec<String>) {
        let mut order: Vec<usize> = (0..params.len()).collect();
        order.sort_by_key(|&i| (params[i].1, i));
        let mut names = Self::default();
        let mut out = vec![String::new(); params.len()];
        for i in order {
            let (name, location) = params[i];
            out[i] = if names.taken.contains(name) {
                unique(
                    format!("{name}_{}", location.as_str()),
                    &mut names.taken,
                    "_",
                )
            } else {
                names.taken.insert(name.to_owned());
                name.to_owned()
            };
        }
        (names, out)
    }

    /// Whether a body property named `property` would collide with a parameter argument (then
    /// the body is not flattened).
    pub fn collides(&self, property: &str) -> bool {
        self.taken.contains(property)
    }

    /// The name of the argument holding the whole body: `body`, or `body_2`, … when taken.
    pub fn body(&mut self) -> String {
        unique("body".to_owned(), &mut self.taken, "_")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_camel_and_acronyms() {
        assert_eq!(snake_case("getHTTPResponse2"), "get_http_response2");
        assert_eq!(snake_case("listPets"), "list_pets");
        assert_eq!(
            snake_case("post_api_messages_send"),
            "post_api_messages_send"
        );
        assert_eq!(snake_case("repos/get-content"), "repos_get_content");
        assert_eq!(pascal_case("synaplan_send_message"), "SynaplanSendMessage");
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let long = "a".repeat(100);
        let short = shorten(&long, 64);
        assert_eq!(short.len(), 64);
        assert_eq!(short, shorten(&long, 64));
        assert_ne!(short, shorten(&"a".repeat(101), 64));
        assert!(is_valid_tool_name(&short, 64));
        assert_eq!(shorten("abc", 64), "abc");
    }

    #[test]
    fn names_from_method_and_path() {
        assert_eq!(
            default_tool_name(None, "get", "/api/v1/users/{userId}/posts", 64),
            "get_api_v1_users_by_user_id_posts"
        );
    }

    #[test]
    fn unique_default_names_stay_within_the_limit() {
        let mut taken = BTreeSet::new();
        assert_eq!(unique_tool_name("list", &mut taken, 64), "list");
        assert_eq!(unique_tool_name("list", &mut taken, 64), "list_2");
        let long = "b".repeat(64);
        let first = unique_tool_name(&long, &mut taken, 64);
        let second = unique_tool_name(&long, &mut taken, 64);
        assert_eq!(first, long);
        assert_ne!(first, second);
        assert!(second.ends_with("_2"), "{second}");
        assert!(is_valid_tool_name(&second, 64), "{second}");
        let cut = unique_tool_name(&"c".repeat(100), &mut taken, 60);
        assert!(is_valid_tool_name(&cut, 60), "{cut}");
    }

    #[test]
    fn colliding_parameters_keep_the_name_in_location_order() {
        let (mut names, args) = ArgumentNames::parameters(&[
            ("id", ParamLocation::Query),
            ("id", ParamLocation::Path),
            ("body", ParamLocation::Header),
        ]);
        assert_eq!(args, ["id_query", "id", "body"]);
        assert!(names.collides("id"));
        assert!(!names.collides("title"));
        assert_eq!(names.body(), "body_2");
    }

    #[test]
    fn rust_names_avoid_keywords_and_digits() {
        assert_eq!(rust_method_name("type"), "type_");
        assert_eq!(rust_method_name("123abc"), "t_123abc");
        assert_eq!(rust_type_stem("9lives"), "T9lives");
    }
}
