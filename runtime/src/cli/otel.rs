//! OpenTelemetry trace export (feature `otel`): spans of HTTP requests and tool calls go to an
//! OTLP collector configured by the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT` or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL` = `http/protobuf` or
//! `http/json`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, `OTEL_BSP_*`). Export is on
//! when an endpoint is set, unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.

use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider,
};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::trace::TraceParent;

/// Whether the environment asks for trace export.
pub(super) fn wanted() -> bool {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim() == "true")
        || std::env::var("OTEL_TRACES_EXPORTER").is_ok_and(|v| v.trim() == "none");
    !disabled && (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
}

/// The tracer provider exporting over OTLP/HTTP (protobuf or JSON, as the environment says),
/// with a batch processor on a thread of its own.
pub(super) fn provider(service: &str) -> Result<SdkTracerProvider, String> {
    let protocol = std::env::var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL"))
        .unwrap_or_default();
    let protocol = match protocol.trim() {
        "" | "http/protobuf" => opentelemetry_otlp::Protocol::HttpBinary,
        "http/json" => opentelemetry_otlp::Protocol::HttpJson,
        other => {
            return Err(format!(
                "OTEL_EXPORTER_OTLP_PROTOCOL `{other}` is not supported; use `http/protobuf` or \
                 `http/json`"
            ));
        }
    };
    use opentelemetry_otlp::WithExportConfig;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(protocol)
        .build()
        .map_err(|e| format!("OpenTelemetry (OTEL_EXPORTER_OTLP_*): {e}"))?;
    let service = std::env::var("OTEL_SERVICE_NAME").unwrap_or_else(|_| service.to_owned());
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(service)
        .build();
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build())
}

/// The `tracing` layer that turns spans into OpenTelemetry spans of `provider`.
pub(super) fn layer<S>(
    provider: &SdkTracerProvider,
) -> tracing_opentelemetry::OpenTelemetryLayer<S, opentelemetry_sdk::trace::SdkTracer>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    tracing_opentelemetry::layer().with_tracer(provider.tracer("mcpgen"))
}

/// Makes `span` a child of `parent` (the position the request continued, or a new root) and
/// starts it; returns the span's own position, which what happens inside it continues (the
/// upstream request, a call inside an HTTP request), or `None` when the span is not exported
/// (filtered out by the log level).
pub(crate) fn start_child(span: &tracing::Span, parent: &TraceParent) -> Option<TraceParent> {
    continue_trace(span, parent);
    start(span)
}

/// Starts `span` (the child of the span it was created in, or the root of a new trace) and
/// returns its own position; `None` when it is not exported.
pub(crate) fn start(span: &tracing::Span) -> Option<TraceParent> {
    let context = span.context();
    let own = context.span().span_context().clone();
    if !own.is_valid() {
        return None;
    }
    TraceParent::from_ids(
        own.trace_id().to_bytes(),
        own.span_id().to_bytes(),
        own.is_sampled(),
    )
}

/// Makes `span` part of `trace` (its parent: the position the request continued, or a new
/// root), so the exported span has the trace id the audit record and the upstream see.
fn continue_trace(span: &tracing::Span, trace: &TraceParent) {
    let context = SpanContext::new(
        TraceId::from_bytes(trace.trace_id_bytes()),
        SpanId::from_bytes(trace.span_id_bytes()),
        if trace.sampled() {
            TraceFlags::SAMPLED
        } else {
            TraceFlags::default()
        },
        true,
        TraceState::default(),
    );
    let parent = opentelemetry::Context::new().with_remote_span_context(context);
    let _ = span.set_parent(parent);
}
