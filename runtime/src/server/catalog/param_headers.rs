//! Custom request headers from tool arguments (`Mcp-Param-*`, 2026-07-28 Streamable HTTP).
//!
//! A tool's input schema may mark a property with `"x-mcp-header": "Region"`; a client then
//! mirrors that argument of every `tools/call` into the header `Mcp-Param-Region`, so that
//! intermediaries can route on it without reading the body. Strings travel as they are when
//! they are plain visible ASCII without leading or trailing whitespace, otherwise as
//! `=?base64?<Base64 of the UTF-8 bytes>?=`; numbers in decimal; booleans as `true`/`false`;
//! a `null` or absent argument has no header.
//!
//! The server must not trust a header the body contradicts: [`ParamHeaders::check`] compares
//! each declared header with its argument and refuses (HTTP 400, JSON-RPC error -32020,
//! HeaderMismatch) a request whose header is missing, extra, badly encoded or different.
//!
//! The annotations are checked when the server is built ([`ParamHeaders::build`]): each must
//! be a non-empty HTTP token, unique within its tool regardless of case, on a property of
//! type `string`, `integer` or `boolean` reached from the root through `properties` only.
//! Clients drop a tool whose annotations break these rules, so a server refuses to serve one.

use std::collections::HashMap;

use axum::http::{HeaderMap, HeaderName};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use mcpgen_core::json_pointer;
use mcpgen_core::tool::ToolDef;
use mcpgen_identity::Principal;
use serde_json::{Map, Value};

use super::table::Catalog;

/// The keyword that marks a property as mirrored into a header.
const KEYWORD: &str = "x-mcp-header";

/// What every custom header's name starts with.
const PREFIX: &str = "Mcp-Param-";

/// The wrapper of a Base64-encoded value: `=?base64?...?=`.
const BASE64_START: &str = "=?base64?";
const BASE64_END: &str = "?=";

/// Longest stretch of a value quoted in an error message.
const MAX_QUOTED: usize = 60;

/// One argument mirrored into a header.
#[derive(Debug)]
struct Mirrored {
    /// Property names from the root of the arguments to the argument.
    path: Vec<String>,
    /// The header, as the lookup key (lower case).
    header: HeaderName,
    /// The header as the tool declares it (`Mcp-Param-Region`), for messages.
    shown: String,
}

/// The mirrored arguments of one tool.
#[derive(Debug)]
struct ToolHeaders {
    def: &'static ToolDef,
    mirrored: Vec<Mirrored>,
}

/// Every tool of a catalog that declares custom headers, by name.
#[derive(Debug, Default)]
pub(crate) struct ParamHeaders {
    by_tool: HashMap<&'static str, ToolHeaders>,
}

/// Why a request's custom headers were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch(pub(crate) String);

impl ParamHeaders {
    /// Collects the `x-mcp-header` annotations of every tool in `catalog`. The error lists,
    /// per tool, each annotation that breaks the rules and why.
    pub(crate) fn build(catalog: &Catalog) -> Result<Self, Vec<(String, String)>> {
        let mut by_tool = HashMap::new();
        let mut problems = Vec::new();
        for entry in catalog.entries() {
            let schema = &*entry.listed.input_schema;
            let mut found = Vec::new();
            let mut wrong = Vec::new();
            annotations(schema, &mut Vec::new(), &mut found);
            misplaced(schema, "", true, &mut wrong);
            let mut seen: HashMap<String, String> = HashMap::new();
            let mut mirrored = Vec::new();
            for (path, schema, value) in found {
                let property = path.join(".");
                match declared_header(schema, value) {
                    Err(why) => wrong.push(format!("property `{property}`: {why}")),
                    Ok(name) => {
                        let shown = format!("{PREFIX}{name}");
                        if let Some(first) =
                            seen.insert(name.to_ascii_lowercase(), property.clone())
                        {
                            wrong.push(format!(
                                "property `{property}`: `{KEYWORD}: {name}` repeats the header of \
                                 property `{first}` (header names ignore case); give each its \
                                 own name"
                            ));
                            continue;
                        }
                        match HeaderName::from_bytes(shown.as_bytes()) {
                            Ok(header) => mirrored.push(Mirrored {
                                path,
                                header,
                                shown,
                            }),
                            Err(_) => wrong.push(format!(
                                "property `{property}`: `{shown}` is not a valid header name"
                            )),
                        }
                    }
                }
            }
            if !wrong.is_empty() {
                problems.extend(
                    wrong
                        .into_iter()
                        .map(|why| (entry.def.name.to_owned(), why)),
                );
            } else if !mirrored.is_empty() {
                by_tool.insert(
                    entry.def.name,
                    ToolHeaders {
                        def: entry.def,
                        mirrored,
                    },
                );
            }
        }
        if problems.is_empty() {
            Ok(Self { by_tool })
        } else {
            Err(problems)
        }
    }

    /// Whether no tool declares a custom header (then no request needs reading).
    pub(crate) fn is_empty(&self) -> bool {
        self.by_tool.is_empty()
    }

    /// Checks the `Mcp-Param-*` headers of a JSON-RPC `message` against its body. Only a
    /// `tools/call` of a tool that declares custom headers and that `principal` may call is
    /// checked; anything else passes (unknown tools are refused later, without saying more).
    pub(crate) fn check(
        &self,
        headers: &HeaderMap,
        message: &Value,
        principal: Option<&Principal>,
    ) -> Result<(), Mismatch> {
        if message.get("method").and_then(Value::as_str) != Some("tools/call") {
            return Ok(());
        }
        let params = message.get("params");
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Ok(());
        };
        let Some(tool) = self.by_tool.get(name) else {
            return Ok(());
        };
        if !principal.is_some_and(|p| p.may_call(tool.def)) {
            return Ok(());
        }
        let arguments = params.and_then(|p| p.get("arguments"));
        for mirrored in &tool.mirrored {
            let argument = arguments
                .and_then(|a| value_at(a, &mirrored.path))
                .filter(|v| !v.is_null());
            check_one(headers, mirrored, argument)
                .map_err(|why| Mismatch(format!("tools/call `{name}`: {why}")))?;
        }
        Ok(())
    }
}

/// The header name an annotation declares, or why it cannot be one.
fn declared_header<'a>(property: &Value, value: &'a Value) -> Result<&'a str, String> {
    let Value::String(name) = value else {
        return Err(format!(
            "`{KEYWORD}` must be a string (the header name after `{PREFIX}`), found {}",
            mcpgen_core::json_kind(value)
        ));
    };
    if name.is_empty() {
        return Err(format!(
            "`{KEYWORD}` is empty; name the header, e.g. `Region`"
        ));
    }
    if let Some(bad) = name.chars().find(|c| !is_token_char(*c)) {
        return Err(format!(
            "`{KEYWORD}: {name}` is not an HTTP token: {bad:?} is not allowed (letters, digits \
             and !#$%&'*+-.^_`|~ are)"
        ));
    }
    match property.get("type") {
        Some(Value::String(kind)) if matches!(kind.as_str(), "string" | "integer" | "boolean") => {
            Ok(name)
        }
        other => Err(format!(
            "`{KEYWORD}: {name}` needs a property of one type, `string`, `integer` or \
             `boolean`; its `type` is {}",
            other.map_or_else(|| "missing".to_owned(), Value::to_string)
        )),
    }
}

/// RFC 9110 `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Every annotation on a property reached from `schema` through `properties` alone: its
/// path, the property's schema and the annotation's value.
fn annotations<'a>(
    schema: &'a Map<String, Value>,
    path: &mut Vec<String>,
    found: &mut Vec<(Vec<String>, &'a Value, &'a Value)>,
) {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    for (name, property) in properties {
        let Value::Object(inner) = property else {
            continue;
        };
        path.push(name.clone());
        if let Some(value) = inner.get(KEYWORD) {
            found.push((path.clone(), property, value));
        }
        annotations(inner, path, found);
        path.pop();
    }
}

/// Annotations anywhere else (the root, `$defs`, `items`, `anyOf`, ...), which clients cannot
/// mirror: each is added to `wrong` with its JSON pointer.
fn misplaced(schema: &Map<String, Value>, pointer: &str, on_chain: bool, wrong: &mut Vec<String>) {
    if pointer.is_empty() && schema.contains_key(KEYWORD) {
        wrong.push(format!(
            "`{KEYWORD}` at the schema's root; it belongs on a property"
        ));
    }
    for (key, value) in schema {
        let here = json_pointer::child(pointer, key);
        match key.as_str() {
            KEYWORD if !on_chain && !pointer.is_empty() => wrong.push(format!(
                "`{KEYWORD}` at `{pointer}`; it is only honoured on a property reached from \
                 the root through `properties`"
            )),
            // Instance data, not schemas.
            "default" | "const" | "enum" | "examples" => {}
            "properties" => {
                if let Value::Object(map) = value {
                    for (name, property) in map {
                        if let Value::Object(property) = property {
                            let at = json_pointer::child(&here, name);
                            misplaced(property, &at, on_chain, wrong);
                        }
                    }
                }
            }
            _ => subschemas(value, &here, wrong),
        }
    }
}

/// Walks every schema inside `value` (off the `properties` chain).
fn subschemas(value: &Value, pointer: &str, wrong: &mut Vec<String>) {
    match value {
        Value::Object(map) => misplaced(map, pointer, false, wrong),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                subschemas(item, &format!("{pointer}/{i}"), wrong);
            }
        }
        _ => {}
    }
}

/// The value at `path` in `arguments`, if every step is there.
fn value_at<'a>(arguments: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(arguments, |value, key| value.get(key))
}

/// Checks one mirrored argument (`None`: absent or `null`) against its header.
fn check_one(
    headers: &HeaderMap,
    mirrored: &Mirrored,
    argument: Option<&Value>,
) -> Result<(), String> {
    let shown = &mirrored.shown;
    let property = mirrored.path.join(".");
    let mut values = headers.get_all(&mirrored.header).iter();
    let raw = values.next();
    if values.next().is_some() {
        return Err(format!("`{shown}` is sent more than once; send it once"));
    }
    let (raw, argument) = match (raw, argument) {
        (None, None) => return Ok(()),
        (Some(_), None) => {
            return Err(format!(
                "`{shown}` is sent but argument `{property}` is absent or null; omit the header"
            ));
        }
        (None, Some(_)) => {
            return Err(format!(
                "`{shown}` is missing; argument `{property}` is given, so the header must \
                 carry it too"
            ));
        }
        (Some(raw), Some(argument)) => (raw, argument),
    };
    let raw = raw.to_str().map_err(|_| {
        format!(
            "`{shown}` holds bytes that are not visible ASCII; encode the value as =?base64?...?="
        )
    })?;
    let value = decode(raw.trim_matches([' ', '\t'])).map_err(|why| format!("`{shown}`: {why}"))?;
    if matches(&value, argument) {
        Ok(())
    } else {
        Err(format!(
            "`{shown}` says {} but argument `{property}` is {}",
            quote(&value),
            quote(&argument.to_string())
        ))
    }
}

/// The value a header carries: Base64-decoded when wrapped as `=?base64?...?=`, else as it is.
fn decode(raw: &str) -> Result<String, String> {
    let Some(encoded) = raw
        .strip_prefix(BASE64_START)
        .and_then(|rest| rest.strip_suffix(BASE64_END))
    else {
        return Ok(raw.to_owned());
    };
    let bytes = STANDARD
        .decode(encoded)
        .map_err(|e| format!("{} is not valid padded Base64 ({e})", quote(encoded)))?;
    String::from_utf8(bytes)
        .map_err(|_| format!("{} does not decode to UTF-8 text", quote(encoded)))
}

/// Whether the header's `value` stands for the argument `argument`.
fn matches(value: &str, argument: &Value) -> bool {
    match argument {
        Value::String(text) => value == text,
        Value::Bool(flag) => value == if *flag { "true" } else { "false" },
        Value::Number(number) => {
            if let (Some(a), Ok(b)) = (number.as_i64(), value.parse::<i64>()) {
                a == b
            } else if let (Some(a), Ok(b)) = (number.as_u64(), value.parse::<u64>()) {
                a == b
            } else {
                match (number.as_f64(), value.parse::<f64>()) {
                    (Some(a), Ok(b)) => a.is_finite() && a == b,
                    _ => false,
                }
            }
        }
        // Objects and arrays cannot be mirrored: no header value stands for them.
        _ => false,
    }
}

/// `text` in backquotes, cut short when long.
fn quote(text: &str) -> String {
    if text.chars().count() > MAX_QUOTED {
        let cut: String = text.chars().take(MAX_QUOTED).collect();
        format!("`{cut}…`")
    } else {
        format!("`{text}`")
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use serde_json::json;

    use super::*;

    fn mirrored(path: &[&str], name: &str) -> Mirrored {
        let shown = format!("{PREFIX}{name}");
        Mirrored {
            path: path.iter().map(|s| (*s).to_owned()).collect(),
            header: HeaderName::from_bytes(shown.as_bytes()).expect("a header name"),
            shown,
        }
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
                HeaderValue::from_str(value).expect("a header value"),
            );
        }
        map
    }

    fn check(pairs: &[(&str, &str)], argument: Option<Value>) -> Result<(), String> {
        check_one(
            &headers(pairs),
            &mirrored(&["region"], "Region"),
            argument.as_ref(),
        )
    }

    #[test]
    fn plain_and_base64_values_match_their_arguments() {
        assert_eq!(
            check(&[("Mcp-Param-Region", "us-west1")], Some(json!("us-west1"))),
            Ok(())
        );
        assert_eq!(
            check(
                &[("mcp-param-region", "=?base64?SGVsbG8=?=")],
                Some(json!("Hello"))
            ),
            Ok(())
        );
        assert_eq!(
            check(
                &[("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?=")],
                Some(json!("Hello, 世界"))
            ),
            Ok(())
        );
        // Without the whole wrapper the value is literal.
        assert_eq!(
            check(&[("Mcp-Param-Region", "SGVsbG8=")], Some(json!("SGVsbG8="))),
            Ok(())
        );
        assert_eq!(
            check(
                &[("Mcp-Param-Region", "=?base64?SGVsbG8=")],
                Some(json!("=?base64?SGVsbG8="))
            ),
            Ok(())
        );
        assert_eq!(
            check(&[("Mcp-Param-Region", "42")], Some(json!(42))),
            Ok(())
        );
        assert_eq!(
            check(&[("Mcp-Param-Region", "2.5")], Some(json!(2.5))),
            Ok(())
        );
        assert_eq!(
            check(&[("Mcp-Param-Region", "false")], Some(json!(false))),
            Ok(())
        );
        assert_eq!(check(&[], None), Ok(()));
    }

    #[test]
    fn bad_base64_a_missing_header_and_a_different_value_are_refused() {
        for bad in ["=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?="] {
            let err = check(&[("Mcp-Param-Region", bad)], Some(json!("Hello"))).unwrap_err();
            assert!(err.contains("Base64"), "{err}");
        }
        let err = check(&[], Some(json!("test-value"))).unwrap_err();
        assert!(err.contains("missing") && err.contains("region"), "{err}");
        let err = check(&[("Mcp-Param-Region", "eu")], Some(json!("us"))).unwrap_err();
        assert!(err.contains("`eu`") && err.contains("region"), "{err}");
        let err = check(&[("Mcp-Param-Region", "x")], None).unwrap_err();
        assert!(err.contains("absent"), "{err}");
        let err = check(
            &[("Mcp-Param-Region", "a"), ("Mcp-Param-Region", "a")],
            Some(json!("a")),
        )
        .unwrap_err();
        assert!(err.contains("more than once"), "{err}");
        assert!(check(&[("Mcp-Param-Region", "TRUE")], Some(json!(true))).is_err());
        assert!(check(&[("Mcp-Param-Region", "1")], Some(json!(2))).is_err());
    }

    fn schema_problems(schema: Value) -> Vec<String> {
        let Value::Object(schema) = schema else {
            panic!("an object");
        };
        let mut found = Vec::new();
        let mut wrong = Vec::new();
        annotations(&schema, &mut Vec::new(), &mut found);
        misplaced(&schema, "", true, &mut wrong);
        for (path, property, value) in found {
            if let Err(why) = declared_header(property, value) {
                wrong.push(format!("{}: {why}", path.join(".")));
            }
        }
        wrong
    }

    #[test]
    fn annotations_are_checked() {
        assert!(
            schema_problems(json!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "nested": {"type": "object", "properties": {
                        "flag": {"type": "boolean", "x-mcp-header": "Flag"}
                    }}
                }
            }))
            .is_empty()
        );
        for (property, why) in [
            (json!({"type": "string", "x-mcp-header": ""}), "empty"),
            (
                json!({"type": "string", "x-mcp-header": "Has Space"}),
                "token",
            ),
            (json!({"type": "number", "x-mcp-header": "N"}), "one type"),
            (
                json!({"type": ["string", "null"], "x-mcp-header": "N"}),
                "one type",
            ),
            (json!({"type": "object", "x-mcp-header": "O"}), "one type"),
            (
                json!({"type": "string", "x-mcp-header": 7}),
                "must be a string",
            ),
        ] {
            let problems =
                schema_problems(json!({"type": "object", "properties": {"p": property}}));
            assert!(
                problems.iter().any(|p| p.contains(why)),
                "{why}: {problems:?}"
            );
        }
        let problems = schema_problems(json!({
            "type": "object",
            "properties": {"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "I"}}}
        }));
        assert!(
            problems
                .iter()
                .any(|p| p.contains("/properties/list/items")),
            "{problems:?}"
        );
        let problems = schema_problems(json!({"type": "object", "x-mcp-header": "Root"}));
        assert!(problems.iter().any(|p| p.contains("root")), "{problems:?}");
    }
}
