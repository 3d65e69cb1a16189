//! The static tool table: what a tool is called, what it accepts, and how it reaches its API.

use crate::json_pointer;

/// One tool as listed by `tools/list`, plus how it is dispatched.
///
/// Generated crates hold a `static TOOLS: &[ToolDef]`; schemas are JSON text so the table can be
/// `static` and is parsed once at start-up.
#[derive(Debug, Clone, Copy)]
pub struct ToolDef {
    /// Tool name, matching `^[A-Za-z0-9_.-]{1,64}$`.
    pub name: &'static str,
    /// Human-readable title.
    pub title: Option<&'static str>,
    /// Description shown to the model.
    pub description: &'static str,
    /// The `inputSchema` as JSON text (JSON Schema 2020-12, `type: object`).
    pub input_schema: &'static str,
    /// The `outputSchema` as JSON text, if the tool has one.
    pub output_schema: Option<&'static str>,
    /// The input schema in full, when `input_schema` (what `tools/list` shows) had nested
    /// fields summarised to fit a size budget. Arguments are checked against it, and
    /// `describe_tools` returns it.
    pub full_input_schema: Option<&'static str>,
    /// The output schema in full, when `output_schema` had nested fields summarised.
    pub full_output_schema: Option<&'static str>,
    /// The definitions the full schemas share with the other tools of their crate: a
    /// `#/$defs/NAME` reference in a full schema that is not among its own `$defs` names one
    /// of them.
    pub full_defs: Option<&'static FullDefs>,
    /// The output schema as the API's document states it, when `output_schema` (what clients
    /// are shown) was relaxed to tolerate the drift real APIs show (fields left out, added, or
    /// `null`). A server with `--output-check strict` checks results against this one.
    pub documented_output_schema: Option<&'static str>,
    /// Whether structured output is wrapped as `{"result": ...}` (non-object responses).
    pub wrap_output: bool,
    /// Whether the tool only reads or may change something: decides whether `mcp:read` or
    /// `mcp:write` grants it. The annotations never do.
    pub access: Access,
    /// Behaviour hints for clients; never consulted for authorization (see [`ToolDef::access`]).
    pub annotations: ToolAnnotations,
    /// Whether each call needs the person's confirmation first: before the tool runs, the
    /// server asks the client (elicitation, or an input-required result) showing the tool, its
    /// operation and the arguments; only an explicit accept lets the call through.
    pub confirm: bool,
    /// Scope a principal needs to see and call this tool, beyond the read/write scopes.
    pub required_scope: Option<&'static str>,
    /// Plugin this tool belongs to; only principals holding the plugin see it.
    pub plugin: Option<&'static str>,
    /// How the tool calls its REST API, for OpenAPI-derived tools.
    pub http: Option<HttpBinding>,
    /// The tool's TypeScript declaration, made at generation from its full schemas; `None`
    /// for tools whose declaration is made when asked for (`#[mcp_tool]` tools).
    /// [`crate::typescript::declaration_for`] gives it either way.
    pub declaration: Option<&'static Declaration>,
    /// The tool's view (MCP Apps): a table or card its results are shown in, for clients
    /// that declared the `io.modelcontextprotocol/ui` extension.
    pub view: Option<&'static crate::view::ViewDef>,
}

/// A tool's TypeScript declaration, as generation keeps it: the method signature and the
/// named types it reaches. A type many tools reach is one `const` of the generated crate that
/// each tool's `types` names, so it is held once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declaration {
    /// The method signature with its doc comment, e.g.
    /// `list_tickets(args: { key: string }): Promise<TicketPage>;`.
    pub signature: &'static str,
    /// The declarations (`interface` or `type`) of the named types the signature reaches.
    pub types: &'static [&'static str],
}

/// The definitions the full schemas of a crate's tools share, each converted once: a full
/// schema is its root (with `#/$defs/NAME` references) plus the definitions it reaches. Input
/// and output definitions differ (read-only properties are not arguments; outputs tolerate
/// drift), so each has its own set.
#[derive(Debug, Clone, Copy)]
pub struct FullDefs {
    /// The input schemas' definitions: a JSON object from name to schema.
    pub input: &'static str,
    /// The output schemas' definitions: a JSON object from name to schema.
    pub output: &'static str,
}

/// Pushes onto `out` the definition name of every `#/$defs/NAME` reference in `node` (a full
/// schema's root or one of its definitions): what a full schema needs of [`FullDefs`].
pub fn def_refs(node: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(r)) => {
                        if let Some(rest) = r.strip_prefix("#/$defs/") {
                            let name = rest.split('/').next().unwrap_or(rest);
                            out.push(json_pointer::unescape(name));
                        }
                    }
                    _ => def_refs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| def_refs(v, out)),
        _ => {}
    }
}

/// What a tool does to its environment, as far as authorization is concerned.
///
/// For OpenAPI tools it is decided once at generation: from the HTTP method (GET, HEAD, OPTIONS
/// and TRACE read, every other method writes) unless the allowlist entry sets `access:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Only reads: `mcp:read` grants it.
    Read,
    /// May change something: `mcp:write` grants it.
    Write,
}

/// MCP tool annotations (behaviour hints for clients; authorization uses [`Access`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// The tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive_hint: Option<bool>,
    /// Calling the tool repeatedly with the same arguments has no additional effect.
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    pub open_world_hint: Option<bool>,
}

/// How an OpenAPI operation is called.
#[derive(Debug, Clone, Copy)]
pub struct HttpBinding {
    /// Upper-case HTTP method.
    pub method: &'static str,
    /// Path template relative to the base URL, e.g. `/api/v1/chats/{id}`.
    pub path: &'static str,
    /// The operation's operationId (or the derived name when it has none).
    pub operation_id: &'static str,
    /// Where each tool argument goes on the wire.
    pub args: &'static [ArgBinding],
    /// The request body, if the operation has one.
    pub body: Option<BodyBinding>,
    /// Names of the security schemes the operation accepts (any one suffices).
    pub security: &'static [&'static str],
    /// The operation's own base URL, when the spec declares `servers` for the operation or its
    /// path item that differ from the document's (e.g. a separate upload host). Requests go
    /// there instead of the configured base URL, with the configured credentials. `None`: the
    /// configured base URL.
    pub server_url: Option<&'static str>,
    /// The operation runs long: the tool runs as an MCP task (optional for clients), and a
    /// `202 Accepted` answer with a `Location` is polled at that URL until the operation ends.
    /// Set at generation for an operation documenting `202` with a `Location` header, or by
    /// the allowlist entry's `task:`.
    pub task: bool,
    /// For an operation that runs long: the path templates of the spec's status endpoints
    /// (a `GET` documenting `202` or `303`) that also document `DELETE`. When the task is
    /// cancelled while polling a status URL whose path ends like one of them, that URL is sent
    /// a `DELETE`, which cancels the operation at the API.
    pub cancel: &'static [&'static str],
}

/// Maps one tool argument to its place in the HTTP request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgBinding {
    /// Name of the argument in the tool's `inputSchema`.
    pub arg: &'static str,
    /// Name on the wire: the parameter name, or the body property name.
    pub wire: &'static str,
    /// Where the value goes.
    pub location: Location,
    /// Whether the argument is required.
    pub required: bool,
    /// OpenAPI `style`, if the spec set one.
    pub style: Option<&'static str>,
    /// OpenAPI `explode`, if the spec set one.
    pub explode: Option<bool>,
    /// OpenAPI `allowReserved` (query parameters only): RFC 3986 reserved characters in the
    /// value are sent as they are instead of percent-encoded.
    pub allow_reserved: bool,
}

/// Where an argument is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A `{name}` segment of the path template.
    Path,
    /// A query-string parameter.
    Query,
    /// A request header.
    Header,
    /// A cookie.
    Cookie,
    /// One top-level property of an object body (the body was flattened into the arguments).
    BodyField,
    /// The whole request body.
    Body,
}

/// The request body of an operation.
#[derive(Debug, Clone, Copy)]
pub struct BodyBinding {
    /// Media type sent as `Content-Type`.
    pub content_type: &'static str,
    /// Whether the body is required.
    pub required: bool,
    /// Per-property encodings from the OpenAPI `encoding` object (form and multipart bodies
    /// only), keyed by property wire name; properties not listed use the defaults.
    pub encoding: &'static [PropertyEncoding],
}

/// How one property of a form or multipart body is encoded (an OpenAPI Encoding Object).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PropertyEncoding {
    /// The property's name on the wire.
    pub property: &'static str,
    /// `contentType`: the media type (or comma-separated media types, wildcards allowed) of a
    /// multipart part.
    pub content_type: Option<&'static str>,
    /// `style`, if the spec set one (`form`, `spaceDelimited`, `pipeDelimited`, `deepObject`).
    pub style: Option<&'static str>,
    /// `explode`, if the spec set one.
    pub explode: Option<bool>,
    /// `allowReserved`: reserved characters in the value are not percent-encoded.
    pub allow_reserved: bool,
}

/// A security scheme from the spec, used to attach upstream credentials.
#[derive(Debug, Clone, Copy)]
pub struct SecurityScheme {
    /// Name of the scheme under `components.securitySchemes`.
    pub name: &'static str,
    /// What kind of credential it takes.
    pub kind: SecuritySchemeKind,
}

/// The kinds of security scheme the runtime can attach credentials for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecuritySchemeKind {
    /// `apiKey` in a header.
    ApiKeyHeader(&'static str),
    /// `apiKey` in the query string.
    ApiKeyQuery(&'static str),
    /// `apiKey` in a cookie.
    ApiKeyCookie(&'static str),
    /// HTTP `bearer`.
    Bearer,
    /// HTTP `basic`.
    Basic,
    /// `oauth2` or `openIdConnect`: an access token in `Authorization: Bearer`, which upstream
    /// token exchange fills in for OAuth callers.
    OAuth2,
    /// Anything else (mutual TLS, unknown types): no credential attached automatically.
    Other,
}

impl ToolDef {
    /// A tool named `name` with `description` and the input schema `input_schema` (JSON text):
    /// no title and no output schema, `write` access, no hints, no confirmation, scope,
    /// plugin or HTTP binding. The `const` setters below change one field each, so a table
    /// states only what differs.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        input_schema: &'static str,
    ) -> Self {
        Self {
            name,
            title: None,
            description,
            input_schema,
            output_schema: None,
            full_input_schema: None,
            full_output_schema: None,
            full_defs: None,
            documented_output_schema: None,
            wrap_output: false,
            access: Access::Write,
            annotations: ToolAnnotations::NONE,
            confirm: false,
            required_scope: None,
            plugin: None,
            http: None,
            declaration: None,
            view: None,
        }
    }

    /// Sets the title.
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// Sets the advertised output schema (JSON text).
    pub const fn output_schema(mut self, schema: &'static str) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the input schema in full (JSON text), when `input_schema` is a summary.
    pub const fn full_input_schema(mut self, schema: &'static str) -> Self {
        self.full_input_schema = Some(schema);
        self
    }

    /// Sets the output schema in full (JSON text), when `output_schema` is a summary.
    pub const fn full_output_schema(mut self, schema: &'static str) -> Self {
        self.full_output_schema = Some(schema);
        self
    }

    /// Sets the definitions the full schemas share with the crate's other tools.
    pub const fn full_defs(mut self, defs: &'static FullDefs) -> Self {
        self.full_defs = Some(defs);
        self
    }

    /// Whether a listed schema is a summary: the full one is kept beside it.
    pub const fn is_summarised(&self) -> bool {
        self.full_input_schema.is_some() || self.full_output_schema.is_some()
    }

    /// Sets the output schema as the API's document states it (JSON text).
    pub const fn documented_output_schema(mut self, schema: &'static str) -> Self {
        self.documented_output_schema = Some(schema);
        self
    }

    /// Structured output is wrapped as `{"result": ...}`.
    pub const fn wrap_output(mut self) -> Self {
        self.wrap_output = true;
        self
    }

    /// The tool only reads: `mcp:read` grants it.
    pub const fn read(mut self) -> Self {
        self.access = Access::Read;
        self
    }

    /// Sets the behaviour hints.
    pub const fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Each call asks the person first.
    pub const fn confirm(mut self) -> Self {
        self.confirm = true;
        self
    }

    /// Sets the scope a principal needs besides the read/write scopes.
    pub const fn required_scope(mut self, scope: &'static str) -> Self {
        self.required_scope = Some(scope);
        self
    }

    /// Sets the plugin the tool belongs to.
    pub const fn plugin(mut self, plugin: &'static str) -> Self {
        self.plugin = Some(plugin);
        self
    }

    /// Sets how the tool calls its REST API.
    pub const fn http(mut self, http: HttpBinding) -> Self {
        self.http = Some(http);
        self
    }

    /// Sets the TypeScript declaration.
    pub const fn declaration(mut self, declaration: &'static Declaration) -> Self {
        self.declaration = Some(declaration);
        self
    }

    /// Sets the tool's view.
    pub const fn view(mut self, view: &'static crate::view::ViewDef) -> Self {
        self.view = Some(view);
        self
    }
}

/// What a listed tool's description says when its schemas are summaries (their summarised
/// nodes say "nested fields omitted"), so a model knows the rest can be asked for. Short: it
/// is repeated in every summarised tool's `tools/list` entry.
pub const SUMMARISED_NOTE: &str = "Full schema: describe_tools.";

/// Name of the meta-tool that searches the tools (in search mode and in code mode).
pub const SEARCH_TOOL: &str = "search_tools";

/// `describe_tools` as a server's `all` mode lists it, next to the tools, when some tool's
/// listed schemas are summaries. Generation writes the same entry into `tools.json`, so the
/// two agree.
pub const DESCRIBE_TOOLS: ToolDef = ToolDef::new(
    "describe_tools",
    "Full input and output schemas of summarised tools; names that are not tools come back \
     under `unknown`.",
    r#"{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":20,"description":"Tool names"}},"required":["names"],"additionalProperties":false}"#,
)
.read()
.annotations(ToolAnnotations {
    read_only_hint: Some(true),
    destructive_hint: Some(false),
    idempotent_hint: Some(true),
    open_world_hint: Some(false),
});

/// `description` as `tools/list` shows a tool whose schemas are summaries: followed by
/// [`SUMMARISED_NOTE`].
pub fn with_summarised_note(description: &str) -> String {
    let description = description.trim_end();
    if description.is_empty() {
        SUMMARISED_NOTE.to_owned()
    } else if description.ends_with(['.', '!', '?', ':']) {
        format!("{description} {SUMMARISED_NOTE}")
    } else {
        format!("{description}. {SUMMARISED_NOTE}")
    }
}

impl ToolAnnotations {
    /// No hints.
    pub const NONE: Self = Self {
        read_only_hint: None,
        destructive_hint: None,
        idempotent_hint: None,
        open_world_hint: None,
    };

    /// Sets the read-only hint.
    pub const fn read_only(mut self, hint: bool) -> Self {
        self.read_only_hint = Some(hint);
        self
    }

    /// Sets the destructive hint.
    pub const fn destructive(mut self, hint: bool) -> Self {
        self.destructive_hint = Some(hint);
        self
    }

    /// Sets the idempotent hint.
    pub const fn idempotent(mut self, hint: bool) -> Self {
        self.idempotent_hint = Some(hint);
        self
    }

    /// Sets the open-world hint.
    pub const fn open_world(mut self, hint: bool) -> Self {
        self.open_world_hint = Some(hint);
        self
    }
}

impl HttpBinding {
    /// `method` (upper case) on `path`, the operation `operation_id`: no arguments, no body,
    /// no security schemes, the configured base URL.
    pub const fn new(method: &'static str, path: &'static str, operation_id: &'static str) -> Self {
        Self {
            method,
            path,
            operation_id,
            args: &[],
            body: None,
            security: &[],
            server_url: None,
            task: false,
            cancel: &[],
        }
    }

    /// Sets where each argument goes.
    pub const fn args(mut self, args: &'static [ArgBinding]) -> Self {
        self.args = args;
        self
    }

    /// Sets the request body.
    pub const fn body(mut self, body: BodyBinding) -> Self {
        self.body = Some(body);
        self
    }

    /// Sets the security schemes the operation accepts.
    pub const fn security(mut self, schemes: &'static [&'static str]) -> Self {
        self.security = schemes;
        self
    }

    /// Sets the operation's own base URL.
    pub const fn server_url(mut self, url: &'static str) -> Self {
        self.server_url = Some(url);
        self
    }

    /// Marks the operation as one that runs long (see [`HttpBinding::task`]).
    pub const fn task(mut self) -> Self {
        self.task = true;
        self
    }

    /// Sets the status endpoints whose `DELETE` cancels the operation (see
    /// [`HttpBinding::cancel`]).
    pub const fn cancel_by_delete(mut self, paths: &'static [&'static str]) -> Self {
        self.cancel = paths;
        self
    }
}

impl ArgBinding {
    /// The argument `arg`, sent at `location` under the same name, optional, with the
    /// location's default serialisation.
    pub const fn new(arg: &'static str, location: Location) -> Self {
        Self {
            arg,
            wire: arg,
            location,
            required: false,
            style: None,
            explode: None,
            allow_reserved: false,
        }
    }

    /// Sets the name on the wire, when it differs from the argument's.
    pub const fn wire(mut self, wire: &'static str) -> Self {
        self.wire = wire;
        self
    }

    /// The argument is required.
    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Sets the OpenAPI `style`.
    pub const fn style(mut self, style: &'static str) -> Self {
        self.style = Some(style);
        self
    }

    /// Sets the OpenAPI `explode`.
    pub const fn explode(mut self, explode: bool) -> Self {
        self.explode = Some(explode);
        self
    }

    /// Reserved characters are sent unencoded (`allowReserved`).
    pub const fn allow_reserved(mut self) -> Self {
        self.allow_reserved = true;
        self
    }
}

impl BodyBinding {
    /// A body of media type `content_type`, optional, with default encodings.
    pub const fn new(content_type: &'static str) -> Self {
        Self {
            content_type,
            required: false,
            encoding: &[],
        }
    }

    /// The body is required.
    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Sets the per-property encodings.
    pub const fn encoding(mut self, encoding: &'static [PropertyEncoding]) -> Self {
        self.encoding = encoding;
        self
    }
}

impl PropertyEncoding {
    /// The property `property` with default encoding.
    pub const fn new(property: &'static str) -> Self {
        Self {
            property,
            content_type: None,
            style: None,
            explode: None,
            allow_reserved: false,
        }
    }

    /// Sets the multipart part's media type(s).
    pub const fn content_type(mut self, content_type: &'static str) -> Self {
        self.content_type = Some(content_type);
        self
    }

    /// Sets the `style`.
    pub const fn style(mut self, style: &'static str) -> Self {
        self.style = Some(style);
        self
    }

    /// Sets `explode`.
    pub const fn explode(mut self, explode: bool) -> Self {
        self.explode = Some(explode);
        self
    }

    /// Reserved characters are sent unencoded (`allowReserved`).
    pub const fn allow_reserved(mut self) -> Self {
        self.allow_reserved = true;
        self
    }
}
