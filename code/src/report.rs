//! How a program failed, and the text its `execute` result gives: an uncaught error with
//! where it was thrown, a syntax error with its line and column, or a limit by name.

use mcpgen_audit::AuditStatus;
use rquickjs::{Ctx, Exception, Value};

use crate::limits::{CodeLimits, Limit};

/// The name programs are compiled under (by `engine`), which error positions name.
pub(crate) const FILE_NAME: &str = "program.js";

/// What the program's code is wrapped in: the body of an async function taking `tools` and
/// `console`. The code starts on the header's line, so its line numbers are the program's own.
pub(crate) const HEADER: &str = "(async function (tools, console) {";

/// Longest error text taken from a program's exception, in characters.
const MAX_THROWN_CHARS: usize = 2000;

/// The words for a thrown `null`.
const NULL_THROWN: &str = "uncaught null";

/// What a program threw, in words.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Thrown {
    /// `Name: message (line L, column C)` for an `Error`, the JSON (or text) of anything else.
    pub(crate) message: String,
    /// The limit the engine's own error reports (running out of memory or stack), if any.
    pub(crate) limit: Option<Limit>,
}

/// Why a program has no result.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Failure {
    /// A limit was reached, or the program was stopped from outside.
    Limit(Limit),
    /// The code does not parse.
    Syntax(Thrown),
    /// The program threw (or its promise was rejected) and did not catch it.
    Thrown(Thrown),
    /// The program's return value cannot be written as JSON.
    NotJson(String),
    /// The program awaits something that nothing can settle any more.
    NeverSettles,
    /// The engine failed (it could not start, or a worker could not be started).
    Engine(String),
    /// The program's worker process died while running it (a signal, an abort, a fault):
    /// how it ended, in words.
    WorkerDied(String),
}

impl Failure {
    /// The limit behind this failure, if it is one.
    fn limit(&self) -> Option<Limit> {
        match self {
            Self::Limit(limit) => Some(*limit),
            Self::Syntax(thrown) | Self::Thrown(thrown) => thrown.limit,
            Self::NotJson(_) | Self::NeverSettles | Self::Engine(_) | Self::WorkerDied(_) => None,
        }
    }

    /// The error text of the `execute` result, and the audit status of the `execute`.
    pub(crate) fn report(&self, limits: &CodeLimits) -> (String, AuditStatus) {
        if let Some(limit) = self.limit() {
            let status = match limit {
                Limit::Time => AuditStatus::Timeout,
                Limit::Concurrency | Limit::PerPrincipal => AuditStatus::Unavailable,
                _ => AuditStatus::ToolError,
            };
            return (limit.message(limits), status);
        }
        let text = match self {
            Self::Syntax(thrown) => format!(
                "the program does not parse: {}. The code must be plain JavaScript (TypeScript \
                 type annotations are not accepted): the body of an async function, with \
                 `tools` and `console` in scope",
                thrown.message
            ),
            // What the engine throws when it cannot even make its out-of-memory error.
            Self::Thrown(thrown) if thrown.message == NULL_THROWN => format!(
                "the program failed with `null` thrown, which is what the engine throws when \
                 the program runs out of memory: it may allocate {} bytes (--code-memory)",
                limits.memory
            ),
            Self::Thrown(thrown) => format!("the program failed: {}", thrown.message),
            Self::NotJson(message) => format!(
                "the program's return value cannot be written as JSON ({message}); return plain \
                 data: objects, arrays, strings, numbers, booleans, null"
            ),
            Self::NeverSettles => "the program awaits a promise that nothing can settle any \
                                   more (no tool call is pending and there are no timers); \
                                   await only tool calls and promises built on them"
                .to_owned(),
            Self::Engine(message) => format!("the program could not be run: {message}"),
            Self::WorkerDied(how) => format!(
                "the program's worker process died while running it ({how}); only this program \
                 was affected. The engine may have run out of memory outside its own limit of \
                 {} bytes (--code-memory) or hit a fault; retry with a smaller program",
                limits.memory
            ),
            Self::Limit(_) => String::new(),
        };
        (text, AuditStatus::ToolError)
    }
}

/// `value`, which a program threw, in words.
pub(crate) fn describe_thrown<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> Thrown {
    if let Some(error) = value
        .as_object()
        .and_then(|o| Exception::from_object(o.clone()))
    {
        let name: String = error
            .as_object()
            .get::<_, Option<String>>("name")
            .ok()
            .flatten()
            .unwrap_or_else(|| "Error".to_owned());
        let message = error.message().unwrap_or_default();
        let limit = engine_limit(&message);
        let position = error
            .stack()
            .as_deref()
            .and_then(position)
            .or_else(|| own_position(&error));
        let mut text = if message.is_empty() {
            name
        } else {
            format!("{name}: {message}")
        };
        if let Some((line, column)) = position {
            text.push_str(&format!(" (line {line}, column {column})"));
        }
        return Thrown {
            message: cut(text),
            limit,
        };
    }
    let text = match ctx.json_stringify(value.clone()) {
        Ok(Some(json)) => json.to_string().unwrap_or_default(),
        _ => String::new(),
    };
    let text = if text.is_empty() {
        value
            .as_string()
            .and_then(|s| s.to_string().ok())
            .unwrap_or_else(|| format!("a value of type {}", value.type_name()))
    } else {
        text
    };
    Thrown {
        message: cut(format!("uncaught {text}")),
        limit: None,
    }
}

/// The limit an error of the engine's own reports: memory or stack.
fn engine_limit(message: &str) -> Option<Limit> {
    if message == "out of memory" {
        Some(Limit::Memory)
    } else if message.contains("stack overflow") || message.contains("call stack size exceeded") {
        Some(Limit::Stack)
    } else {
        None
    }
}

/// The first position in the program that a stack trace names, as the program's own line and
/// column.
fn position(stack: &str) -> Option<(u32, u32)> {
    let marker = format!("{FILE_NAME}:");
    let at = stack.find(&marker)? + marker.len();
    let mut parts = stack[at..].split(|c: char| !c.is_ascii_digit());
    let line: u32 = parts.next()?.parse().ok()?;
    let column: u32 = parts.next()?.parse().ok()?;
    Some(program_position(line, column))
}

/// The position a syntax error carries in its own properties (`lineNumber`, `columnNumber`),
/// when its stack names none.
fn own_position(error: &Exception<'_>) -> Option<(u32, u32)> {
    let object = error.as_object();
    let line = object.get::<_, Option<u32>>("lineNumber").ok().flatten()?;
    let column = object
        .get::<_, Option<u32>>("columnNumber")
        .ok()
        .flatten()?;
    Some(program_position(line, column))
}

/// A position in the wrapped source as one in the program: the code starts on line 1 right
/// after the wrapper's header.
fn program_position(line: u32, column: u32) -> (u32, u32) {
    if line == 1 {
        let header = u32::try_from(HEADER.len()).unwrap_or(0);
        (1, column.saturating_sub(header).max(1))
    } else {
        (line, column)
    }
}

/// `text` cut to [`MAX_THROWN_CHARS`].
fn cut(text: String) -> String {
    match text.char_indices().nth(MAX_THROWN_CHARS) {
        None => text,
        Some((at, _)) => {
            let mut cut = text[..at].to_owned();
            cut.push('…');
            cut
        }
    }
}

/// `json` with each lone surrogate escape (`\uD800`–`\uDFFF` not in a pair), which the
/// engine writes for a string cut through a pair and no JSON parser of ours accepts, as
/// `\uFFFD`: JavaScript allows such strings, and the answer carries them.
pub(crate) fn well_formed(json: &str) -> std::borrow::Cow<'_, str> {
    let unit = |at: usize| -> Option<u16> {
        let hex = json.get(at..at + 4)?;
        u16::from_str_radix(hex, 16).ok()
    };
    let bytes = json.as_bytes();
    let maybe = bytes
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && w[2] | 0x20 == b'd');
    if !maybe {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len());
    let mut at = 0;
    let mut copied = 0;
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            at += 1;
            continue;
        }
        if bytes.get(at + 1) != Some(&b'u') {
            at += 2;
            continue;
        }
        let Some(first) = unit(at + 2) else {
            at += 2;
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&first)
            && bytes.get(at + 6) == Some(&b'\\')
            && bytes.get(at + 7) == Some(&b'u')
            && unit(at + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            at += 12;
        } else if (0xD800..0xE000).contains(&first) {
            out.push_str(&json[copied..at]);
            out.push_str("\\ufffd");
            at += 6;
            copied = at;
        } else {
            at += 6;
        }
    }
    out.push_str(&json[copied..]);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_on_the_first_line_leave_out_the_header() {
        let column = u32::try_from(HEADER.len()).unwrap_or(0) + 5;
        let stack = format!("    at <anonymous> ({FILE_NAME}:1:{column})\n");
        assert_eq!(position(&stack), Some((1, 5)));
        assert_eq!(
            position(&format!("    at f ({FILE_NAME}:7:12)\n")),
            Some((7, 12))
        );
        assert_eq!(position("    at <eval> (other.js:1:1)"), None);
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        assert_eq!(
            well_formed(r#"["a\ud83d","\ude00x"]"#),
            r#"["a\ufffd","\ufffdx"]"#
        );
        assert_eq!(well_formed(r#""\ud83d\ude00""#), r#""\ud83d\ude00""#);
        assert_eq!(well_formed(r#""\\ud83d""#), r#""\\ud83d""#);
    }

    #[test]
    fn the_engine_s_own_errors_name_their_limit() {
        assert_eq!(engine_limit("out of memory"), Some(Limit::Memory));
        assert_eq!(engine_limit("stack overflow"), Some(Limit::Stack));
        assert_eq!(
            engine_limit("Maximum call stack size exceeded"),
            Some(Limit::Stack)
        );
        assert_eq!(engine_limit("x is not defined"), None);
    }
}
