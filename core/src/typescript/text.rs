//! Spec text made safe for TypeScript: doc comments, string literals, property keys and type
//! names. Text from a schema reaches a declaration only through these functions, so no
//! description, enum value or property name can end a comment or a literal early.

use serde_json::Value;

/// The longest text one doc comment keeps, in characters; the rest is cut at a word.
const DOC_CHARS: usize = 1_000;

/// `text` as a `/** ... */` doc comment, each line starting with `indent`, or nothing when
/// `lines` is empty. `*/` cannot end it early; control characters become spaces.
pub(crate) fn doc_comment(lines: &[String], indent: &str) -> String {
    let lines: Vec<String> = lines
        .iter()
        .flat_map(|line| line.lines().map(clean_line).collect::<Vec<_>>())
        .collect();
    let lines = trim_blank(&lines);
    match lines {
        [] => String::new(),
        [one] => format!("{indent}/** {one} */\n"),
        many => {
            let mut out = format!("{indent}/**\n");
            for line in many {
                if line.is_empty() {
                    out.push_str(&format!("{indent} *\n"));
                } else {
                    out.push_str(&format!("{indent} * {line}\n"));
                }
            }
            out.push_str(&format!("{indent} */\n"));
            out
        }
    }
}

/// `lines` without blank lines at either end.
fn trim_blank(lines: &[String]) -> &[String] {
    let start = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(start, |e| e + 1);
    &lines[start..end]
}

/// One line of a doc comment: trimmed, control characters as spaces, and `*/` broken so it
/// cannot close the comment.
fn clean_line(line: &str) -> String {
    let line: String = line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    line.trim().replace("*/", "*\\/")
}

/// `text` cut to at most [`DOC_CHARS`] characters at a word boundary, with `…` when cut.
pub(crate) fn shorten(text: &str) -> String {
    if text.chars().count() <= DOC_CHARS {
        return text.to_owned();
    }
    let cut: String = text.chars().take(DOC_CHARS).collect();
    let cut = match cut.rfind(char::is_whitespace) {
        Some(at) if at > DOC_CHARS / 2 => &cut[..at],
        _ => &cut,
    };
    format!("{}…", cut.trim_end())
}

/// `text` as a TypeScript string literal (JSON's escaping, which TypeScript reads the same).
pub(crate) fn string_literal(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// A JSON scalar as a TypeScript literal type; `None` for arrays and objects, which have none.
pub(crate) fn literal(value: &Value) -> Option<String> {
    match value {
        Value::Null => Some("null".to_owned()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(number_literal(n)),
        Value::String(s) => Some(string_literal(s)),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// A number as a literal type: negative numbers are allowed in literal types; numbers that
/// JavaScript cannot write as literals (too large for a double) become `number`.
fn number_literal(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if f.is_finite() => n.to_string(),
        _ => "number".to_owned(),
    }
}

/// Whether `name` is an ECMAScript identifier of ASCII letters, digits, `_` and `$` that does
/// not start with a digit: such a property key needs no quotes.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// `name` as a property key or method name: as it is when it is an identifier, else quoted.
pub(crate) fn property_key(name: &str) -> String {
    if is_identifier(name) {
        name.to_owned()
    } else {
        string_literal(name)
    }
}

/// Words a type name may not be: TypeScript's reserved words and its built-in type names.
const RESERVED: &[&str] = &[
    "any",
    "as",
    "bigint",
    "boolean",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "declare",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "infer",
    "instanceof",
    "interface",
    "keyof",
    "let",
    "never",
    "new",
    "null",
    "number",
    "object",
    "package",
    "private",
    "protected",
    "public",
    "readonly",
    "return",
    "static",
    "string",
    "super",
    "switch",
    "symbol",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "unique",
    "unknown",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "Array",
    "Date",
    "Error",
    "Function",
    "Map",
    "Object",
    "Partial",
    "Promise",
    "Record",
    "Set",
    "String",
    "Number",
    "Boolean",
    "Symbol",
];

/// A definition's name as a TypeScript type name: characters outside `[A-Za-z0-9_]` become
/// `_`, a leading digit gets a `_` before it, and reserved or built-in names get a `_` after.
pub(crate) fn type_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if RESERVED.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_end_in_text_cannot_close_the_comment() {
        let doc = doc_comment(&["evil */ let x = 1; /*".to_owned()], "");
        assert_eq!(doc, "/** evil *\\/ let x = 1; /* */\n");
        assert_eq!(doc.matches("*/").count(), 1);
    }

    #[test]
    fn multi_line_text_becomes_starred_lines_and_control_characters_spaces() {
        let doc = doc_comment(
            &["first\n\nsecond\u{7}".to_owned(), "Format: uuid.".into()],
            "  ",
        );
        assert_eq!(
            doc,
            "  /**\n   * first\n   *\n   * second\n   * Format: uuid.\n   */\n"
        );
        assert_eq!(doc_comment(&["  ".to_owned()], ""), "");
    }

    #[test]
    fn keys_are_quoted_unless_identifiers() {
        assert_eq!(property_key("chatId"), "chatId");
        assert_eq!(property_key("$ref"), "$ref");
        assert_eq!(property_key("content-type"), "\"content-type\"");
        assert_eq!(property_key("1st"), "\"1st\"");
        assert_eq!(property_key(""), "\"\"");
        assert_eq!(property_key("a\"b"), "\"a\\\"b\"");
        assert_eq!(property_key("ünï"), "\"ünï\"");
    }

    #[test]
    fn type_names_are_identifiers_that_shadow_nothing() {
        assert_eq!(type_name("Ticket"), "Ticket");
        assert_eq!(type_name("ticket-page.v2"), "ticket_page_v2");
        assert_eq!(type_name("2fa"), "_2fa");
        assert_eq!(type_name(""), "_");
        assert_eq!(type_name("Promise"), "Promise_");
        assert_eq!(type_name("string"), "string_");
    }

    #[test]
    fn long_text_is_cut_at_a_word() {
        let text = "word ".repeat(400);
        let short = shorten(&text);
        assert!(short.ends_with("word…"));
        assert!(short.chars().count() <= DOC_CHARS + 1);
        assert_eq!(shorten("short"), "short");
    }

    #[test]
    fn literals_escape_quotes_and_line_breaks() {
        assert_eq!(string_literal("a\"\n\u{2028}"), "\"a\\\"\\n\u{2028}\"");
        assert_eq!(literal(&serde_json::json!(-1.5)).as_deref(), Some("-1.5"));
        assert_eq!(literal(&serde_json::json!([1])), None);
    }
}
