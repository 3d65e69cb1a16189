//! [`JsonText`]: a JSON value kept as compact text.
//!
//! The full schemas of a large API hold the whole closure of the schemas each tool refers to,
//! and a parsed `serde_json::Value` takes about ten times the memory of its compact text
//! (Microsoft Graph beta: 200 MB of text, 2 GB as values). The IR keeps them as text; they
//! are parsed only where a value is needed and pretty-printed straight from the text.

use serde_json::Value;

/// A JSON value as compact JSON text (`serde_json`'s `to_string`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonText(Box<str>);

impl JsonText {
    /// The compact text of `value`.
    pub fn new(value: &Value) -> Self {
        Self(value.to_string().into_boxed_str())
    }

    /// The compact text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value, parsed again (`Null` if the text were not JSON, which text made by
    /// [`JsonText::new`] always is).
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// The text as `serde_json::to_string_pretty` writes the value.
    pub fn pretty(&self) -> String {
        let mut out = String::with_capacity(self.0.len() * 2);
        pretty_into(&mut out, &self.0, 0);
        out
    }

    /// Appends the pretty text to `out` as if the value stood `depth` levels deep in a
    /// pretty-printed document (nested lines indented by `depth` more levels).
    pub fn pretty_into(&self, out: &mut String, depth: usize) {
        pretty_into(out, &self.0, depth);
    }
}

/// Re-indents compact JSON `text` the way `serde_json`'s pretty printer writes it: two spaces
/// per level, `": "` after keys, one member per line, `{}` and `[]` when empty. Strings,
/// numbers and literals are copied as they are, so nothing is parsed or re-encoded.
fn pretty_into(out: &mut String, text: &str, depth: usize) {
    let bytes = text.as_bytes();
    let mut depth = depth;
    let mut in_string = false;
    let mut escaped = false;
    // Start of the run of bytes not yet copied.
    let mut copied = 0;
    let mut i = 0;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                i += 1;
                continue;
            }
            b'{' | b'[' | b'}' | b']' | b',' | b':' => {}
            _ => {
                i += 1;
                continue;
            }
        }
        out.push_str(&text[copied..i]);
        match b {
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                if bytes.get(i + 1) == Some(&close) {
                    out.push(b as char);
                    out.push(close as char);
                    i += 2;
                    copied = i;
                    continue;
                }
                out.push(b as char);
                depth += 1;
                newline(out, depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(out, depth);
                out.push(b as char);
            }
            b',' => {
                out.push(',');
                newline(out, depth);
            }
            _ => out.push_str(": "),
        }
        i += 1;
        copied = i;
    }
    out.push_str(&text[copied..]);
}

impl std::fmt::Display for JsonText {
    /// The compact text, as `Value`'s `Display` writes it; `{:#}` writes the pretty text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() {
            f.write_str(&self.pretty())
        } else {
            f.write_str(&self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pretty_text_is_what_serde_json_writes() {
        for value in [
            json!({}),
            json!([]),
            json!(null),
            json!("a \"quoted\" {string}: [with, punctuation]\\"),
            json!({"a": {}, "b": [], "c": [1, 2.5, -3e-7, true, null], "d": {"e": {"f": "g"}}}),
            json!([{"x": [[], [{}], {"y": "\u{2028}\n\t"}]}, "z"]),
            json!({"type": "object", "properties": {"k:": {"enum": ["{", "}", ",", "]"]}}}),
        ] {
            let text = JsonText::new(&value);
            let expected = serde_json::to_string_pretty(&value).expect("pretty");
            assert_eq!(text.pretty(), expected);
            assert_eq!(text.value(), value);
        }
    }

    #[test]
    fn nested_pretty_text_matches_its_place_in_a_document() {
        let inner = json!({"a": [1, {"b": 2}]});
        let doc = json!({"tools": [{"name": "t", "schema": inner.clone()}]});
        let mut out =
            String::from("{\n  \"tools\": [\n    {\n      \"name\": \"t\",\n      \"schema\": ");
        JsonText::new(&inner).pretty_into(&mut out, 3);
        out.push_str("\n    }\n  ]\n}");
        assert_eq!(out, serde_json::to_string_pretty(&doc).expect("pretty"));
    }
}
