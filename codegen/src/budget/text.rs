//! Descriptions within limits: a tool's first paragraph, a schema node's first sentence, as
//! plain text cut at a word boundary.

use serde_json::Value;

use super::PROPERTY_DESCRIPTION_CHARS;
use crate::keywords;

/// Trims every `description` in a schema to its first sentence of plain text, at most
/// [`PROPERTY_DESCRIPTION_CHARS`] characters; with `drop`, removes the annotations a model
/// does not need to read the shape (`description`, `title`, `examples`) instead. Walks
/// subschemas only, so a property named `description` stays.
pub fn trim_schema_descriptions(schema: &mut Value, drop: bool) {
    let Value::Object(map) = schema else {
        return;
    };
    if drop {
        for key in ["description", "title", "examples"] {
            map.shift_remove(key);
        }
    } else if let Some(Value::String(d)) = map.get_mut("description") {
        *d = cap(&first_sentence(&plain_text(d)), PROPERTY_DESCRIPTION_CHARS);
    }
    for (key, value) in map.iter_mut() {
        let k = key.as_str();
        if keywords::SUBSCHEMA.contains(&k) {
            trim_schema_descriptions(value, drop);
        } else if keywords::SUBSCHEMA_LIST.contains(&k)
            && let Value::Array(items) = value
        {
            items
                .iter_mut()
                .for_each(|i| trim_schema_descriptions(i, drop));
        } else if keywords::SUBSCHEMA_MAP.contains(&k)
            && let Value::Object(entries) = value
        {
            entries
                .values_mut()
                .for_each(|v| trim_schema_descriptions(v, drop));
        }
    }
}

/// A tool description within `max` characters: the first paragraph of `text`, Markdown and
/// HTML markup removed, white space collapsed, cut at a word boundary with `…`.
pub fn tool_description(text: &str, max: usize) -> String {
    cap(&plain_text(first_paragraph(text)), max)
}

/// The first paragraph: text up to the first blank line.
fn first_paragraph(text: &str) -> &str {
    let text = text.trim();
    let mut end = text.len();
    for (i, _) in text.match_indices('\n') {
        let rest = &text[i + 1..];
        let line_end = rest.find('\n').unwrap_or(rest.len());
        if rest[..line_end].trim().is_empty() {
            end = i;
            break;
        }
    }
    &text[..end]
}

/// The first sentence: up to the first `.`, `!` or `?` followed by white space.
pub fn first_sentence(text: &str) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (n, (i, c)) in chars.iter().enumerate() {
        if matches!(c, '.' | '!' | '?')
            && chars
                .get(n + 1)
                .is_some_and(|(_, next)| next.is_whitespace())
        {
            return text[..i + c.len_utf8()].to_owned();
        }
    }
    text.to_owned()
}

/// Text with Markdown and HTML markup removed and white space collapsed: tags dropped, links
/// and images reduced to their text, emphasis and code marks, headings' `#`, quote `>` and
/// admonition markers (`[!NOTE]`) removed.
pub fn plain_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '<' => {
                // An HTML tag or comment: skip to its end (a lone `<` stays).
                if let Some(end) = chars[i + 1..].iter().position(|&c| c == '>') {
                    let inner: String = chars[i + 1..i + 1 + end].iter().collect();
                    let tag_like = inner
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!');
                    if tag_like {
                        out.push(' ');
                        i += end + 2;
                        continue;
                    }
                }
                out.push(c);
            }
            '!' if chars.get(i + 1) == Some(&'[') => {}
            '[' => {
                // `[text](url)` → text; `[!NOTE]` → nothing.
                if let Some(close) = chars[i + 1..].iter().position(|&c| c == ']') {
                    let label: String = chars[i + 1..i + 1 + close].iter().collect();
                    let after = i + 1 + close + 1;
                    if label.starts_with('!') {
                        i = after;
                        continue;
                    }
                    if chars.get(after) == Some(&'(')
                        && let Some(end) = chars[after..].iter().position(|&c| c == ')')
                    {
                        out.push_str(&label);
                        i = after + end + 1;
                        continue;
                    }
                }
                out.push(c);
            }
            '*' | '`' => {}
            '_' if chars.get(i + 1) == Some(&'_') => {
                i += 2;
                continue;
            }
            '#' | '>' if out.trim_end().is_empty() || out.ends_with('\n') => {}
            _ => out.push(c),
        }
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` within `max` characters, cut at a word boundary and ended with `…` when cut.
pub fn cap(text: &str, max: usize) -> String {
    if max == 0 || text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > cut.len() / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_drops_markup() {
        assert_eq!(
            plain_text("See **[the docs](https://x.y/z)** and `code` <br/>\n> [!NOTE] ok"),
            "See the docs and code ok"
        );
        assert_eq!(plain_text("a < b"), "a < b");
    }

    #[test]
    fn first_sentence_and_cap() {
        assert_eq!(first_sentence("One. Two."), "One.");
        assert_eq!(first_sentence("v1.2 is out. Yes"), "v1.2 is out.");
        assert_eq!(cap("alpha beta gamma", 12), "alpha beta…");
        assert_eq!(cap("short", 12), "short");
    }

    #[test]
    fn tool_description_takes_the_first_paragraph() {
        assert_eq!(
            tool_description("Lists **all** repos.\n\nMore text.", 200),
            "Lists all repos."
        );
        assert_eq!(tool_description("one two three four", 10), "one two…");
    }
}
