//! The fields of a text log line without colours, written as tracing-subscriber's default
//! field formatter writes them, straight into the line.
//!
//! The default formatter styles each field name and `=` (a no-op style when colours are off)
//! and writes each field through three nested `format_args!`; for the audit line, one per call,
//! that was most of what the line cost. Here a field is `name=` and its value as the default
//! writes it: a string in quotes, escaped as Rust's `Debug` escapes it (quoted as it is when
//! nothing needs escaping), other values by their `Debug`, the message by itself with its
//! terminal control characters escaped. With colours on, and for an error value (which the
//! default writes with its sources), the default formatter writes the fields.

use std::fmt::{self, Write as _};

use tracing::field::{Field, Visit};
use tracing_subscriber::field::{RecordFields, VisitOutput as _};
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::{DefaultFields, DefaultVisitor, Writer};

/// The field formatter of the text log.
#[derive(Debug, Default)]
pub(super) struct PlainFields;

impl<'writer> FormatFields<'writer> for PlainFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        if writer.has_ansi_escapes() {
            return DefaultFields::new().format_fields(writer, fields);
        }
        let sanitize = writer.sanitizes_ansi_escapes();
        let mut visitor = Visitor {
            writer,
            sanitize,
            empty: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct Visitor<'a> {
    writer: Writer<'a>,
    /// Whether the message's terminal control characters are escaped.
    sanitize: bool,
    /// Whether no field has been written yet (the next one needs no space before it).
    empty: bool,
    result: fmt::Result,
}

impl Visitor<'_> {
    /// Writes what comes before `field`'s value (a space unless it is the first field, and its
    /// name and `=` unless it is the message); `false` when nothing more is to be written:
    /// an earlier write failed, or the field is log metadata, which the line has already shown.
    fn start(&mut self, field: &Field) -> bool {
        let name = field.name();
        if self.result.is_err() || name.starts_with("log.") {
            return false;
        }
        if !std::mem::replace(&mut self.empty, false) {
            self.result = self.writer.write_char(' ');
        }
        if name != "message" {
            let name = name.strip_prefix("r#").unwrap_or(name);
            self.result = self
                .result
                .and_then(|()| self.writer.write_str(name))
                .and_then(|()| self.writer.write_char('='));
        }
        self.result.is_ok()
    }

    fn message(&mut self, value: fmt::Arguments<'_>) {
        self.result = if self.sanitize {
            write!(Sanitizing(&mut self.writer), "{value}")
        } else {
            self.writer.write_fmt(value)
        };
    }
}

impl Visit for Visitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if !self.start(field) {
            return;
        }
        if field.name() == "message" {
            self.message(format_args!("{value}"));
        } else if value
            .bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
        {
            // Nothing in it that `Debug` escapes.
            self.result = self
                .writer
                .write_char('"')
                .and_then(|()| self.writer.write_str(value))
                .and_then(|()| self.writer.write_char('"'));
        } else {
            self.result = write!(self.writer, "{value:?}");
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if self.start(field) {
            self.result = self.writer.write_str(if value { "true" } else { "false" });
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if self.start(field) {
            self.result = write!(self.writer, "{value}");
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if self.start(field) {
            self.result = write!(self.writer, "{value}");
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        if self.result.is_err() {
            return;
        }
        let mut default = DefaultVisitor::new(self.writer.by_ref(), self.empty);
        default.record_error(field, value);
        self.result = default.finish();
        self.empty &= field.name().starts_with("log.");
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if !self.start(field) {
            return;
        }
        if field.name() == "message" {
            self.message(format_args!("{value:?}"));
        } else {
            self.result = write!(self.writer, "{value:?}");
        }
    }
}

/// Escapes the terminal control characters the default formatter escapes in a message: ESC,
/// BEL, BS, FF and DEL as `\x..`, and the C1 controls (U+0080 to U+009F) as `\u{..}`.
struct Sanitizing<'w, 'a>(&'w mut Writer<'a>);

impl fmt::Write for Sanitizing<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // C1 controls are 0xC2 0x80..=0x9F in UTF-8; the others are single bytes.
        let clean = |b: &u8| !matches!(b, 0x1b | 0x07 | 0x08 | 0x0c | 0x7f | 0xc2);
        if s.as_bytes().iter().all(clean) {
            return self.0.write_str(s);
        }
        for ch in s.chars() {
            match ch {
                '\x1b' | '\x07' | '\x08' | '\x0c' | '\x7f' => {
                    write!(self.0, "\\x{:02x}", ch as u32)?
                }
                '\u{80}'..='\u{9f}' => write!(self.0, "\\u{{{:x}}}", ch as u32)?,
                _ => self.0.write_char(ch)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::fmt::MakeWriter;
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Captured {
        type Writer = Self;

        fn make_writer(&'a self) -> Self {
            self.clone()
        }
    }

    #[derive(Debug)]
    struct Failure {
        source: Option<io::Error>,
    }

    impl fmt::Display for Failure {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("it failed\x1b[31m")
        }
    }

    impl std::error::Error for Failure {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.source
                .as_ref()
                .map(|e| e as &(dyn std::error::Error + 'static))
        }
    }

    /// Events and spans with every kind of field value, and strings that need escaping.
    fn emit() {
        let span = tracing::info_span!("call", tool = "list", r#type = 3, note = "a\nb");
        let _entered = span.enter();
        tracing::info!(
            target: "mcpgen::audit",
            call_id = %"36aa45f1-a11e-44d2-b612-89ff4510aca8",
            parent_call_id = None::<&str>,
            inner_calls = 2u64,
            delta = -4i64,
            ratio = 0.5f64,
            ok = true,
            principal = "anonymous",
            quoted = "say \"hi\" \\ now",
            control = "tab\there\u{1b}[0m \u{85} é 😀 \u{300}",
            empty = "",
            list = ?vec!["a", "b"],
            "tool call"
        );
        tracing::warn!(message = "bell \x07 and \u{9b}31m", r#loop = "x");
        tracing::info!("formatted {} {:?}", "arg\x1b", "quoted");
        let plain = Failure { source: None };
        let nested = Failure {
            source: Some(io::Error::other("disk\x1b gone")),
        };
        tracing::error!(error = &plain as &(dyn std::error::Error + 'static), "one");
        tracing::error!(
            first = 1u64,
            error = &nested as &(dyn std::error::Error + 'static)
        );
        tracing::info!(only = "field");
        tracing::info!("");
        span.record("tool", "changed \"it\"");
        tracing::info!(after = 1u64, "recorded");
    }

    fn lines<N>(fields: N, ansi: bool) -> String
    where
        N: for<'w> FormatFields<'w> + Send + Sync + 'static,
    {
        let captured = Captured::default();
        let layer = tracing_subscriber::fmt::layer()
            .without_time()
            .with_ansi(ansi)
            .fmt_fields(fields)
            .with_writer(captured.clone());
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, emit);
        String::from_utf8(captured.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn the_lines_are_the_default_formatters() {
        let default = lines(DefaultFields::new(), false);
        assert_eq!(default.lines().count(), 8, "{default}");
        assert!(
            default.contains(r#"quoted="say \"hi\" \\ now""#),
            "{default}"
        );
        assert_eq!(lines(PlainFields, false), default);
    }

    #[test]
    fn with_colours_the_default_formatter_writes_the_fields() {
        let default = lines(DefaultFields::new(), true);
        assert!(default.contains('\x1b'), "{default}");
        assert_eq!(lines(PlainFields, true), default);
    }

    #[test]
    fn a_message_keeps_its_text_and_escapes_terminal_controls() {
        let written = lines(PlainFields, false);
        assert!(written.contains(r"bell \x07 and \u{9b}31m"), "{written}");
        assert!(
            written.contains(r#"formatted arg\x1b "quoted""#),
            "{written}"
        );
        assert!(!written.contains('\x1b'), "{written}");
    }
}
