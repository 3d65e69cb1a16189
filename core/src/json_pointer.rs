//! JSON Pointer (RFC 6901) tokens: one token escaped (`~` → `~0`, `/` → `~1`) or unescaped,
//! and pointers built from tokens, so every error that names a place in a document spells the
//! place the same way.

/// Escapes one token: `~` → `~0`, then `/` → `~1` (`a/b~c` → `a~1b~0c`).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Unescapes one token: `~1` → `/`, then `~0` → `~` (`a~1b~0c` → `a/b~c`), the order RFC
/// 6901 prescribes so `~01` stays `~1`.
pub fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// The pointer to `token` inside the value at `pointer`: `pointer`, a `/`, and `token`
/// escaped (`child("/paths", "/a")` → `/paths/~1a`).
pub fn child(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", escape(token))
}

/// The pointer made of `tokens`, unescaped (`["paths", "/a"]` → `/paths/~1a`; none → the
/// whole document, ``).
pub fn join<S: AsRef<str>>(tokens: &[S]) -> String {
    tokens
        .iter()
        .map(|token| format!("/{}", escape(token.as_ref())))
        .collect()
}

/// The unescaped tokens of `pointer` (`/paths/~1a` → `["paths", "/a"]`); what precedes the
/// first `/` is not a token.
pub fn tokens(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(unescape).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_round_trips_tilde_and_slash() {
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(unescape("a~1b~0c"), "a/b~c");
        for token in ["", "plain", "~1", "/~0", "~/~/", "application/json"] {
            assert_eq!(unescape(&escape(token)), token, "{token}");
        }
    }

    #[test]
    fn unescaping_replaces_tilde_one_first() {
        assert_eq!(unescape("~01"), "~1");
        assert_eq!(escape("~1"), "~01");
    }

    #[test]
    fn pointers_are_built_from_and_split_into_tokens() {
        assert_eq!(child("/paths", "/a"), "/paths/~1a");
        assert_eq!(child("", "x"), "/x");
        assert_eq!(join(&["paths", "/a", "get"]), "/paths/~1a/get");
        assert_eq!(join::<&str>(&[]), "");
        assert_eq!(tokens("/paths/~1a/get"), ["paths", "/a", "get"]);
        assert_eq!(tokens(""), Vec::<String>::new());
        assert_eq!(tokens("/"), [""]);
        assert_eq!(tokens(&join(&["a~b", "c/d"])), ["a~b", "c/d"]);
    }
}
