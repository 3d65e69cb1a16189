//! Operations that look meant for operators rather than users: their path or a tag says
//! admin, internal or debug. `mcpgen init` warns when it selects them; the design leaves admin
//! endpoints out of a server unless someone chooses them.

use crate::spec::Operation;

/// The words that mark an operation as sensitive; a word of the path or tag that starts with
/// one of them counts (`admins`, `administration`, `debugging`).
pub const SENSITIVE_WORDS: &[&str] = &["admin", "internal", "debug"];

/// Why `op` looks sensitive: which part (`path` or `tag <name>`) holds which word; `None` when
/// neither its path nor any tag does.
pub fn sensitive_reason(op: &Operation) -> Option<String> {
    if let Some(word) = sensitive_word(&op.path) {
        return Some(format!("path says `{word}`"));
    }
    op.tags
        .iter()
        .find_map(|tag| sensitive_word(tag).map(|word| format!("tag `{tag}` says `{word}`")))
}

/// The first sensitive word in `text` (a path or a tag), split at anything but letters and
/// digits and at lower-to-upper case changes (`adminUsers`, `internal_api`, `/debug/vars`).
pub fn sensitive_word(text: &str) -> Option<&'static str> {
    words(text).find_map(|word| {
        let word = word.to_ascii_lowercase();
        SENSITIVE_WORDS
            .iter()
            .copied()
            .find(|sensitive| word.starts_with(sensitive))
    })
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut previous_lower = false;
    for (i, c) in text.char_indices() {
        if !c.is_ascii_alphanumeric() {
            if let Some(s) = start.take() {
                out.push(&text[s..i]);
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower {
            if let Some(s) = start {
                out.push(&text[s..i]);
            }
            start = Some(i);
        } else if start.is_none() {
            start = Some(i);
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_separators_and_case_changes() {
        let split: Vec<&str> = words("/api/v1/adminUsers/{id}/internal_api-Debug").collect();
        assert_eq!(
            split,
            [
                "api", "v1", "admin", "Users", "id", "internal", "api", "Debug"
            ]
        );
    }

    #[test]
    fn only_words_that_start_with_a_sensitive_word_count() {
        assert_eq!(sensitive_word("/api/administration"), Some("admin"));
        assert_eq!(sensitive_word("Debugging"), Some("debug"));
        assert_eq!(sensitive_word("/api/v1/internals/x"), Some("internal"));
        assert_eq!(sensitive_word("/api/badminton"), None);
        assert_eq!(sensitive_word("/api/nodebug"), None);
        assert_eq!(sensitive_word("/api/v1/chats"), None);
    }
}
