//! The tools of the custom-header scenarios (2026-07-28 Streamable HTTP): arguments marked
//! `x-mcp-header` in the input schema, which clients mirror into `Mcp-Param-*` headers and the
//! server checks against the body. A mirrored property has exactly one type (`string`,
//! `integer` or `boolean`, as clients require), so optional ones are declared with
//! `#[schemars(with = ...)]` and `#[serde(default)]` instead of a nullable type
//! (`skip_serializing_if` keeps a `"default": null` out of the schema).

use mcpgen::ToolResult;
use mcpgen::mcp_tool;

/// What both tools answer: the required arguments and how many optional ones arrived.
fn completed(region: &str, priority: i64, query: &str, optional: usize) -> ToolResult {
    ToolResult::text(format!(
        "Custom headers test completed (region {region}, priority {priority}, query {query}, \
         {optional} optional values)"
    ))
}

/// A tool with x-mcp-header annotations to test custom header mirroring and encoding
#[mcp_tool(read_only)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn test_custom_headers(
    /// Plain ASCII string value
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
    /// Integer numeric value
    #[schemars(extend("x-mcp-header" = "Priority"))]
    priority: i64,
    /// Boolean value
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool", extend("x-mcp-header" = "Verbose"))]
    verbose: Option<bool>,
    /// Boolean true value
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool", extend("x-mcp-header" = "Debug"))]
    debug: Option<bool>,
    /// Empty string value
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "EmptyVal"))]
    empty_val: Option<String>,
    /// Value for header named "Method" — tests that x-mcp-header "Method" produces
    /// Mcp-Param-Method (not Mcp-Method)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "Method"))]
    method_val: Option<String>,
    /// Floating point value — no x-mcp-header annotation, should not be mirrored
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "f64")]
    float_val: Option<f64>,
    /// Non-ASCII string value — requires Base64 encoding
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "NonAscii"))]
    non_ascii_val: Option<String>,
    /// String with leading/trailing whitespace — requires Base64 encoding
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "Whitespace"))]
    whitespace_val: Option<String>,
    /// String with leading space only — requires Base64 encoding
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "LeadingSpace"))]
    leading_space_val: Option<String>,
    /// String with trailing space only — requires Base64 encoding
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "TrailingSpace"))]
    trailing_space_val: Option<String>,
    /// String with internal spaces only — plain ASCII, no Base64
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "InternalSpace"))]
    internal_space_val: Option<String>,
    /// String with control characters — requires Base64 encoding
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "ControlChar"))]
    control_char_val: Option<String>,
    /// String with carriage return and line feed — requires Base64 encoding
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "CrLf"))]
    crlf_val: Option<String>,
    /// String with leading tab — requires Base64 encoding
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", extend("x-mcp-header" = "Tab"))]
    tab_val: Option<String>,
    /// No x-mcp-header annotation - should not be mirrored
    query: String,
) -> ToolResult {
    let texts = [
        empty_val,
        method_val,
        non_ascii_val,
        whitespace_val,
        leading_space_val,
        trailing_space_val,
        internal_space_val,
        control_char_val,
        crlf_val,
        tab_val,
    ];
    let optional = texts.iter().filter(|t| t.is_some()).count()
        + [verbose, debug].iter().filter(|b| b.is_some()).count()
        + usize::from(float_val.is_some());
    completed(&region, priority, &query, optional)
}

/// A tool for testing null/omitted x-mcp-header parameter handling
#[mcp_tool(read_only)]
pub(crate) fn test_custom_headers_null(
    /// Plain ASCII string value
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
    /// Integer numeric value
    #[schemars(extend("x-mcp-header" = "Priority"))]
    priority: i64,
    /// Boolean value — will be null to test omission
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool", extend("x-mcp-header" = "Verbose"))]
    verbose: Option<bool>,
    /// No x-mcp-header annotation
    query: String,
) -> ToolResult {
    completed(&region, priority, &query, usize::from(verbose.is_some()))
}
