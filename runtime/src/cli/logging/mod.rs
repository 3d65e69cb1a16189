//! Logging to stderr (`RUST_LOG`, `--log-format`), the audit records the log shows, and, with
//! the `otel` feature, trace export.

mod fields;

use mcpgen_audit::TracingSink;

#[cfg(not(feature = "otel"))]
use super::missing;
use super::{LOG_FORMAT, LogFormat, ServeArgs};
#[cfg(feature = "otel")]
use super::{SERVICE, otel};

/// What logging set up that must be closed at exit: the trace exporter, when traces are
/// exported.
#[cfg(feature = "otel")]
pub(super) type Tracing = Option<opentelemetry_sdk::trace::SdkTracerProvider>;
#[cfg(not(feature = "otel"))]
pub(super) type Tracing = ();

/// Sets up logging to stderr, and trace export when the `OTEL_*` variables ask for it (on a
/// build without `otel`, a warning that they are ignored).
pub(super) fn init_logging() -> Result<Tracing, String> {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    let fmt = match LOG_FORMAT.get().copied().unwrap_or_default() {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(true)
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .fmt_fields(fields::PlainFields)
            .with_writer(std::io::stderr)
            .boxed(),
    };
    let registry = tracing_subscriber::registry().with(filter).with(fmt);
    #[cfg(feature = "otel")]
    {
        if otel::wanted() {
            let provider = otel::provider(SERVICE.get().copied().unwrap_or("mcpgen"))?;
            let _ = registry.with(otel::layer(&provider)).try_init();
            mcpgen_contract::trace::set_exporting(true);
            return Ok(Some(provider));
        }
        let _ = registry.try_init();
        Ok(None)
    }
    #[cfg(not(feature = "otel"))]
    {
        let _ = registry.try_init();
        if let Some(warning) = missing::otel_warning() {
            tracing::warn!("{warning}");
        }
        Ok(())
    }
}

/// The audit sink of the server's log: every record at INFO level, or at DEBUG level when an
/// audit log or database keeps the records (one log write per call saved; `RUST_LOG=info,
/// mcpgen::audit=debug` shows them again).
pub(super) fn log_sink(args: &ServeArgs) -> TracingSink {
    #[cfg(any(feature = "postgres", feature = "sqlite"))]
    let database = args.audit_db.audit_db.is_some();
    #[cfg(not(any(feature = "postgres", feature = "sqlite")))]
    let database = false;
    if args.audit_log.is_some() || database {
        TracingSink::debug()
    } else {
        TracingSink::new()
    }
}
