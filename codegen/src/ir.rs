//! The intermediate representation: plain data describing each tool to emit. No tokens here.

use std::collections::BTreeMap;

use serde_json::Value;

/// Everything needed to emit one crate.
#[derive(Debug, Clone)]
pub struct Server {
    /// Server name (crate is `<name>-mcp`), e.g. `synaplan`.
    pub name: String,
    /// Server version (from the allowlist, else the spec's `info.version`).
    pub version: String,
    /// Description (allowlist, else spec `info.description`/`title`).
    pub description: String,
    /// Spec title (`info.title`).
    pub title: String,
    /// Default upstream base URL (allowlist `server.upstream_url`, else the spec's first server).
    pub upstream_url: Option<String>,
    /// Security schemes the selected tools use, sorted by name.
    pub security_schemes: Vec<SecurityScheme>,
    /// The tools, in allowlist order.
    pub tools: Vec<Tool>,
    /// The definitions the tools' full schemas share.
    pub full_defs: FullDefs,
}

/// The definitions the full schemas of a server's tools reach, each converted once: a full
/// schema is its root (with `#/$defs/NAME` references) plus these. Inputs and outputs convert a
/// definition differently, so each has its own set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FullDefs {
    /// Definitions the full input schemas reach, by name.
    pub input: BTreeMap<String, Value>,
    /// Definitions the full output schemas reach, by name.
    pub output: BTreeMap<String, Value>,
}

impl FullDefs {
    /// Whether no full schema reaches a definition.
    pub fn is_empty(&self) -> bool {
        self.input.is_empty() && self.output.is_empty()
    }
}

impl Tool {
    /// Whether a listed schema is a summary: the full one is kept beside it.
    pub fn is_summarised(&self) -> bool {
        self.full_input_schema.is_some() || self.full_output_schema.is_some()
    }
}

impl Server {
    /// `tool`'s full input schema standing on its own: its root with the definitions it
    /// reaches attached as `$defs`.
    pub fn full_input_schema(&self, tool: &Tool) -> Option<Value> {
        let root = tool.full_input_schema.as_ref()?;
        Some(crate::budget::with_defs(root, &self.full_defs.input))
    }

    /// `tool`'s full output schema standing on its own, as [`Server::full_input_schema`].
    pub fn full_output_schema(&self, tool: &Tool) -> Option<Value> {
        let root = tool.full_output_schema.as_ref()?;
        Some(crate::budget::with_defs(root, &self.full_defs.output))
    }
}

/// A security scheme from the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecurityScheme {
    /// Name under `components.securitySchemes`.
    pub name: String,
    /// Kind.
    pub kind: SecurityKind,
}

/// Security scheme kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecurityKind {
    /// API key in a header (header name).
    ApiKeyHeader(String),
    /// API key in the query (parameter name).
    ApiKeyQuery(String),
    /// API key in a cookie (cookie name).
    ApiKeyCookie(String),
    /// HTTP bearer.
    Bearer,
    /// HTTP basic.
    Basic,
    /// OAuth2 or OpenID Connect.
    OAuth2,
    /// Mutual TLS, or unknown.
    Other,
}

/// One tool.
#[derive(Debug, Clone)]
pub struct Tool {
    /// Tool name (matches `^[A-Za-z0-9_.-]{1,64}$`).
    pub name: String,
    /// Rust type-name stem, PascalCase, unique in the crate (e.g. `SynaplanSendMessage`).
    pub type_stem: String,
    /// Rust method name, snake_case, unique in the crate, not a keyword.
    pub method_name: String,
    /// Title.
    pub title: Option<String>,
    /// Description.
    pub description: String,
    /// The full `inputSchema` (JSON Schema 2020-12, `type: object`, `$defs` inside).
    pub input_schema: Value,
    /// The advertised `outputSchema`, if the primary 2xx response is JSON with a schema: the
    /// documented one made tolerant of drift (see [`crate::tolerant`]). Typed outputs are
    /// generated from it, so typed client stubs decode drifted results too.
    pub output_schema: Option<Value>,
    /// The limits `input_schema` was fitted to; a profile that inlines references fits the
    /// inlined schema to them again (see [`crate::profile`]).
    pub input_limits: crate::budget::Limits,
    /// The limits `output_schema` was fitted to, when there is one.
    pub output_limits: Option<crate::budget::Limits>,
    /// The input schema without a budget, when `input_schema` (or the profile's form of it)
    /// had nested fields summarised: servers check arguments against it and `describe_tools`
    /// returns it. Its references name definitions of [`Server::full_defs`] (see
    /// [`Server::full_input_schema`]).
    pub full_input_schema: Option<Value>,
    /// The advertised output schema without a budget, when `output_schema` (or the profile's
    /// form of it) had nested fields summarised.
    pub full_output_schema: Option<Value>,
    /// The output schema as the document states it, when it differs from `output_schema`;
    /// servers running `--output-check strict` check results against it.
    pub documented_output_schema: Option<Value>,
    /// The output schema the tool's TypeScript declaration shows, when it differs from
    /// `output_schema`: the tolerant one with the documented fields, fitted to
    /// [`crate::budget::DECLARED_OUTPUT_BUDGET`] (`$defs` attached), so a program sees what a
    /// call returns even when the listing is `compact`.
    pub declared_output_schema: Option<Value>,
    /// Whether the output schema wraps the response as `{"result": ...}`.
    pub wrap_output: bool,
    /// Read or write: what authorization uses (`mcp:read` / `mcp:write`).
    pub access: Access,
    /// Annotation hints for clients, derived from `access` unless the allowlist overrides them;
    /// never used for authorization.
    pub annotations: Annotations,
    /// Whether the server asks the person to confirm each call before calling the upstream:
    /// the entry's `confirm:`, else the server block's `confirm_destructive` for a destructive
    /// write.
    pub confirm: bool,
    /// Required scope from the allowlist.
    pub required_scope: Option<String>,
    /// Plugin from the allowlist.
    pub plugin: Option<String>,
    /// Per-tool rate limit from the allowlist: (calls per second, burst).
    pub rate_limit: Option<(f64, f64)>,
    /// The operation's OpenAPI `tags`, in spec order (the search index reads them).
    pub tags: Vec<String>,
    /// The HTTP binding.
    pub http: HttpBinding,
    /// The tool's view (MCP Apps), derived from its documented output schema in full, unless
    /// the allowlist turned it off (`ui: none`) or the output has nothing to show.
    pub view: Option<mcpgen_core::view::Layout>,
}

/// Whether a tool only reads or may change something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Access {
    /// Only reads.
    Read,
    /// May change something.
    Write,
}

impl Access {
    /// `read` or `write`, as the allowlist and `mcpgen list` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }
}

/// Annotation hints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// readOnlyHint.
    pub read_only: Option<bool>,
    /// destructiveHint.
    pub destructive: Option<bool>,
    /// idempotentHint.
    pub idempotent: Option<bool>,
    /// openWorldHint.
    pub open_world: Option<bool>,
}

/// How the tool calls its operation.
#[derive(Debug, Clone)]
pub struct HttpBinding {
    /// Upper-case method.
    pub method: String,
    /// Path template.
    pub path: String,
    /// operationId, or the derived name when the operation has none.
    pub operation_id: String,
    /// Arguments, in `inputSchema` property order.
    pub args: Vec<ArgBinding>,
    /// Body media type and whether required.
    pub body: Option<BodyBinding>,
    /// Security scheme names accepted (flattened alternatives, sorted, deduplicated).
    pub security: Vec<String>,
    /// The operation's own base URL (its or its path item's `servers`, first entry, variables
    /// replaced by their defaults), when it differs from the document's; `None` otherwise.
    pub server_url: Option<String>,
    /// The operation runs long: its tool runs as an MCP task and a `202` with a `Location` is
    /// polled (a documented `202` with a `Location` header, or the entry's `task:`).
    pub task: bool,
    /// For an operation that runs long: the path templates of the spec's status endpoints
    /// that document `DELETE`, which cancels the operation.
    pub cancel: Vec<String>,
}

/// One argument's place on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgBinding {
    /// Argument name in the input schema.
    pub arg: String,
    /// Wire name.
    pub wire: String,
    /// Location.
    pub location: ArgLocation,
    /// Required.
    pub required: bool,
    /// OpenAPI style.
    pub style: Option<String>,
    /// OpenAPI explode.
    pub explode: Option<bool>,
    /// OpenAPI `allowReserved` (query parameters).
    pub allow_reserved: bool,
}

/// Where an argument goes: the tool table's own [`Location`](mcpgen_core::Location), which
/// emission writes as `::mcpgen::Location`.
pub use mcpgen_core::Location as ArgLocation;

/// The request body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyBinding {
    /// Media type.
    pub content_type: String,
    /// Required.
    pub required: bool,
    /// Per-property encodings (the media type's `encoding` object), for form and multipart
    /// bodies, sorted by property name.
    pub encoding: Vec<PropertyEncoding>,
}

/// How one property of a form or multipart body is encoded (an OpenAPI Encoding Object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertyEncoding {
    /// Property name on the wire.
    pub property: String,
    /// `contentType` (multipart parts).
    pub content_type: Option<String>,
    /// `style` (`form`, `spaceDelimited`, `pipeDelimited` or `deepObject`).
    pub style: Option<String>,
    /// `explode`.
    pub explode: Option<bool>,
    /// `allowReserved`.
    pub allow_reserved: bool,
}
