//! `${VAR}` references in `env` and `headers` values, replaced by environment variables.

use std::collections::BTreeMap;

/// Where variables are looked up (the process environment, or a test's table).
pub(super) type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// `values` with every reference expanded; a value that cannot be expanded is reported as
/// `field.key` and left out.
pub(super) fn expand_map(
    values: &BTreeMap<String, String>,
    field: &str,
    env: Lookup<'_>,
    problem: &mut impl FnMut(&str, String),
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (key, value) in values {
        match expand(value, env) {
            Ok(v) => {
                out.insert(key.clone(), v);
            }
            Err(message) => problem(&format!("{field}.{key}"), message),
        }
    }
    out
}

/// Replaces every `${NAME}` in `value` by the variable's value. `$` not followed by `{` is
/// kept as it is.
fn expand(value: &str, env: Lookup<'_>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "`${{` without a closing `}}` in `{value}`; write `${{NAME}}`"
            ));
        };
        let name = &after[..end];
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "`${{{name}}}` is not a variable reference; names are letters, digits and `_`"
            ));
        }
        match env(name) {
            Some(v) => out.push_str(&v),
            None => {
                return Err(format!(
                    "environment variable `{name}` is not set (referenced as `${{{name}}}`)"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "s3cret".to_owned())
    }

    /// `values` expanded as `env` entries, and the problems as `(field, message)`.
    fn expanded(values: &[(&str, &str)]) -> (BTreeMap<String, String>, Vec<(String, String)>) {
        let values = values
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let mut problems = Vec::new();
        let out = expand_map(&values, "env", &env, &mut |field: &str, message| {
            problems.push((field.to_owned(), message))
        });
        (out, problems)
    }

    fn has(problems: &[(String, String)], field: &str, needle: &str) -> bool {
        problems
            .iter()
            .any(|(f, message)| f == field && message.contains(needle))
    }

    #[test]
    fn references_are_replaced_and_other_dollars_kept() {
        let (out, p) = expanded(&[("T", "Bearer ${TOKEN}!"), ("D", "$PLAIN ok")]);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(
            out,
            BTreeMap::from([
                ("D".to_owned(), "$PLAIN ok".to_owned()),
                ("T".to_owned(), "Bearer s3cret!".to_owned()),
            ])
        );
    }

    #[test]
    fn malformed_references_are_errors() {
        let (out, p) = expanded(&[
            ("A", "${OPEN"),
            ("B", "${}"),
            ("C", "${1X}"),
            ("D", "$PLAIN ok"),
            ("E", "a${NOPE}b"),
        ]);
        assert!(has(&p, "env.A", "without a closing"), "{p:?}");
        assert!(has(&p, "env.B", "not a variable reference"), "{p:?}");
        assert!(has(&p, "env.C", "not a variable reference"), "{p:?}");
        assert!(has(&p, "env.E", "`NOPE` is not set"), "{p:?}");
        assert!(!p.iter().any(|(f, _)| f == "env.D"), "{p:?}");
        assert_eq!(out.keys().collect::<Vec<_>>(), ["D"]);
    }
}
