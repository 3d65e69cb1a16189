//! Tools written in application code with `#[mcp_tool]` (from `mcpgen-macros`): their
//! definitions, built once from Rust types, the context a tool may ask for, and the tool set
//! that serves a group of them.
//!
//! A generated crate holds a `static` tool table. An application tool's schemas come from
//! its Rust types (through [`schemars`](schemars1)) and are only known at run time, so
//! each tool builds its [`ToolDef`] once, on first use, and keeps it for the life of the
//! process; a set's table is likewise built once per place the set is declared.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use mcpgen_core::BoxFuture;
use mcpgen_core::result::ToolResult;
use mcpgen_core::tool::{Access, ToolAnnotations, ToolDef};
use mcpgen_identity::Principal;
use serde_json::{Map, Value};

use crate::input::{
    self, ClientCapability, ElicitAnswer, Elicitation, InputError, Root, Sampling, SamplingAnswer,
};
use crate::notify::{Cancellation, LogLevel, Notifier, NotifyError};
use crate::tasks::TaskSupport;
use crate::toolset::{CallContext, CallerCredential, ForwardedHeaders, ToolError, ToolSet};

#[doc(hidden)]
pub mod args;
#[doc(hidden)]
pub mod output;

/// What a tool may learn about the call it serves, and what it may tell the caller while it
/// works: take `ctx: ToolContext` (or `ctx: &ToolContext`) as one parameter of an
/// `#[mcp_tool]` function. It is not part of the tool's input schema.
///
/// ```
/// use mcpgen_contract::ToolContext;
/// use mcpgen_contract::notify::LogLevel;
///
/// async fn import(ctx: &ToolContext, files: &[String]) -> Result<usize, String> {
///     let total = files.len() as f64;
///     for (done, file) in files.iter().enumerate() {
///         if ctx.is_cancelled() {
///             return Err(format!("cancelled after {done} files"));
///         }
///         // `Ok(false)` when the caller asked for no progress: nothing to do about it.
///         ctx.progress(done as f64, Some(total), Some(file.as_str())).await.ok();
///     }
///     ctx.log(LogLevel::Info, format!("imported {} files", files.len())).await.ok();
///     Ok(files.len())
/// }
/// ```
#[derive(Debug, Clone)]
pub struct ToolContext {
    call: CallContext,
}

impl ToolContext {
    /// The context of the call `call` describes.
    pub fn from_call(call: &CallContext) -> Self {
        Self { call: call.clone() }
    }

    /// The JSON-RPC request id of the call, if known.
    pub fn request_id(&self) -> Option<&str> {
        self.call.request_id.as_deref()
    }

    /// The credential the caller authenticated with, if any.
    pub fn caller_credential(&self) -> Option<&CallerCredential> {
        self.call.caller_credential.as_ref()
    }

    /// Headers of the caller's HTTP request that the server forwards (`--forward-header`).
    pub fn forwarded_headers(&self) -> &ForwardedHeaders {
        &self.call.forwarded_headers
    }

    /// Who is calling, as the transport authenticated them (`None` only for calls made
    /// outside a server, e.g. in-process without a principal).
    pub fn principal(&self) -> Option<&Principal> {
        self.call.principal.as_deref()
    }

    /// Whether the caller cancelled the request (`notifications/cancelled`) or its
    /// connection closed.
    pub fn is_cancelled(&self) -> bool {
        self.call.cancellation.is_cancelled()
    }

    /// Resolves once the call is cancelled; pair it with the tool's work in
    /// `tokio::select!` to stop early.
    pub async fn cancelled(&self) {
        self.call.cancellation.cancelled().await;
    }

    /// The call's cancellation, to move into a task the tool spawns.
    pub fn cancellation(&self) -> &Cancellation {
        &self.call.cancellation
    }

    /// Reports progress to the caller (`notifications/progress` with the request's
    /// `progressToken`): `progress` so far, increasing with every report, out of `total` if
    /// known, with an optional `message`.
    ///
    /// `Ok(false)` when the caller's request carried no `progressToken`: MCP lets a server
    /// report progress only for requests that ask for it, so there is nothing to send.
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, NotifyError> {
        self.call.notifier.progress(progress, total, message).await
    }

    /// Sends a log message to the caller (`notifications/message`) at `level`, with the tool
    /// named as its logger. `data` is any JSON: a string, or an object with details.
    ///
    /// `Ok(false)` when the client asked only for more severe messages (`logging/setLevel`).
    pub async fn log(&self, level: LogLevel, data: impl Into<Value>) -> Result<bool, NotifyError> {
        self.call.notifier.log(level, data).await
    }

    /// The call's notifier, to move into a task the tool spawns.
    pub fn notifier(&self) -> &Notifier {
        &self.call.notifier
    }

    /// Asks the user to fill in `form` (`elicitation/create`); `key` names the question,
    /// unique within the call (see [`crate::input`]).
    ///
    /// In a session the client is asked and the answer awaited. In a stateless call
    /// (2026-07-28) the first run gets [`InputError::InputRequired`]: return it (`?`) and the
    /// client calls again with the answer, which this method then returns. Fails with
    /// [`InputError::MissingCapability`] when the client did not declare `elicitation`.
    pub async fn elicit(&self, key: &str, form: Elicitation) -> Result<ElicitAnswer, InputError> {
        input::elicit(&self.call.input, key, &form).await
    }

    /// Asks the client's model for a message (`sampling/createMessage`); asked and answered
    /// like [`elicit`](Self::elicit). Needs the client's `sampling` capability.
    pub async fn sample(&self, key: &str, request: Sampling) -> Result<SamplingAnswer, InputError> {
        input::sample(&self.call.input, key, &request).await
    }

    /// Asks the client for its roots (`roots/list`); asked and answered like
    /// [`elicit`](Self::elicit). Needs the client's `roots` capability.
    pub async fn list_roots(&self, key: &str) -> Result<Vec<Root>, InputError> {
        input::list_roots(&self.call.input, key).await
    }

    /// Whether the client declared `capability`, so a question needing it can be asked.
    pub fn client_supports(&self, capability: ClientCapability) -> bool {
        input::client_supports(&self.call.input, capability)
    }

    /// The whole call context, as tool sets receive it.
    pub fn call_context(&self) -> &CallContext {
        &self.call
    }
}

/// The future an application tool's call returns.
pub type CallFn<S> = for<'a> fn(
    &'a S,
    Map<String, Value>,
    &'a CallContext,
) -> BoxFuture<'a, Result<ToolResult, ToolError>>;

/// One `#[mcp_tool]`: how to describe it and how to call it with state `S` (the `impl` block's
/// type for methods taking `self`; any type for functions that take none).
///
/// Made by the macros; collect tools with `tool_set!` or `#[mcp_tools]`.
pub struct AppTool<S> {
    def: fn() -> &'static ToolDef,
    call: CallFn<S>,
    task: Option<TaskSupport>,
}

impl<S> Clone for AppTool<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for AppTool<S> {}

impl<S> std::fmt::Debug for AppTool<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppTool")
            .field("name", &self.def().name)
            .finish_non_exhaustive()
    }
}

impl<S> AppTool<S> {
    /// A tool from its definition (built once) and its call function. Used by the macros.
    #[doc(hidden)]
    pub const fn new(def: fn() -> &'static ToolDef, call: CallFn<S>) -> Self {
        Self {
            def,
            call,
            task: None,
        }
    }

    /// The same tool, run as an MCP task (`#[mcp_tool(task)]`). Used by the macros.
    #[doc(hidden)]
    pub const fn with_task(mut self, support: TaskSupport) -> Self {
        self.task = Some(support);
        self
    }

    /// The tool's definition, as `tools/list` shows it.
    pub fn def(&self) -> &'static ToolDef {
        (self.def)()
    }
}

/// A set of application tools sharing one state value, served like a generated tool set
/// (`ServerBuilder::tool_set`).
pub struct AppToolSet<S> {
    state: Arc<S>,
    defs: &'static [ToolDef],
    calls: Vec<CallFn<S>>,
    by_name: HashMap<&'static str, usize>,
    tasks: HashMap<&'static str, TaskSupport>,
}

impl<S> std::fmt::Debug for AppToolSet<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppToolSet")
            .field(
                "tools",
                &self.defs.iter().map(|d| d.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<S> AppToolSet<S> {
    /// A set of `tools` over `state`; `table` keeps the set's tool table, built on first use,
    /// for every later set declared at the same place. Used by the macros, which check at
    /// compile time that the names differ.
    #[doc(hidden)]
    pub fn new(
        state: Arc<S>,
        table: &'static OnceLock<Box<[ToolDef]>>,
        tools: &[AppTool<S>],
    ) -> Self {
        let defs: &'static [ToolDef] =
            table.get_or_init(|| tools.iter().map(|t| *t.def()).collect());
        let by_name = defs.iter().enumerate().map(|(i, d)| (d.name, i)).collect();
        let tasks = tools
            .iter()
            .filter_map(|t| Some((t.def().name, t.task?)))
            .collect();
        Self {
            state,
            defs,
            calls: tools.iter().map(|t| t.call).collect(),
            by_name,
            tasks,
        }
    }

    /// The state the tools are called with.
    pub fn state(&self) -> &Arc<S> {
        &self.state
    }
}

impl<S: Send + Sync + 'static> ToolSet for AppToolSet<S> {
    fn tools(&self) -> &'static [ToolDef] {
        self.defs
    }

    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        args: Map<String, Value>,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        match self.by_name.get(tool.name).and_then(|&i| self.calls.get(i)) {
            Some(call) => call(&self.state, args, ctx),
            None => Box::pin(std::future::ready(Err(ToolError::UnknownTool(
                tool.name.to_owned(),
            )))),
        }
    }

    fn tool(&self, name: &str) -> Option<&'static ToolDef> {
        let defs = self.defs;
        self.by_name.get(name).and_then(|&i| defs.get(i))
    }

    fn task_support(&self, name: &str) -> Option<TaskSupport> {
        self.tasks.get(name).copied()
    }
}

/// What `#[mcp_tool(...)]` says about a tool besides its types. Used by the macros.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct ToolMeta {
    /// Tool name.
    pub name: &'static str,
    /// Title, if given.
    pub title: Option<&'static str>,
    /// Description (the option, else the doc comment).
    pub description: &'static str,
    /// `read` or `write`.
    pub access: Access,
    /// Behaviour hints.
    pub annotations: ToolAnnotations,
    /// Extra scope needed to call the tool.
    pub scope: Option<&'static str>,
    /// The view asked for (`ui = "..."`; `None`: `ui = "none"`), given when the output type
    /// has something to show.
    pub ui: Option<mcpgen_core::view::Requested>,
}

/// What a tool's return type advertises: its `outputSchema`, if it has one, and whether the
/// value is wrapped as `{"result": ...}` because it is not an object.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct OutputShape {
    schema: Option<Value>,
    wrap: bool,
}

impl OutputShape {
    /// The shape of values of type `T`.
    pub fn of<T: schemars1::JsonSchema>() -> Self {
        let schema = Value::from(schemars1::SchemaGenerator::default().into_root_schema_for::<T>());
        match schema.get("type").and_then(Value::as_str) {
            // Nothing to structure: the tool returns `()` or similar.
            Some("null") => Self {
                schema: None,
                wrap: false,
            },
            Some("object") => Self {
                schema: Some(schema),
                wrap: false,
            },
            _ => Self {
                schema: Some(wrap_schema(schema)),
                wrap: true,
            },
        }
    }
}

/// `{"type":"object","properties":{"result": schema},"required":["result"]}`, keeping the
/// dialect and the shared definitions at the root where references expect them.
fn wrap_schema(mut inner: Value) -> Value {
    let mut root = Map::new();
    if let Value::Object(map) = &mut inner {
        if let Some(dialect) = map.remove("$schema") {
            root.insert("$schema".into(), dialect);
        }
        if let Some(defs) = map.remove("$defs") {
            root.insert("$defs".into(), defs);
        }
        map.remove("title");
    }
    root.insert("type".into(), "object".into());
    let mut properties = Map::new();
    properties.insert("result".into(), inner);
    root.insert("properties".into(), Value::Object(properties));
    root.insert("required".into(), Value::Array(vec!["result".into()]));
    Value::Object(root)
}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// Builds a tool's definition from its options, its argument struct `A` and its output shape.
/// Called once per tool per process (the macros keep the result in a `static`), so the
/// strings it leaks are bounded by the number of tools.
#[doc(hidden)]
pub fn tool_def<A: schemars1::JsonSchema>(meta: ToolMeta, output: OutputShape) -> ToolDef {
    let mut input = Value::from(schemars1::SchemaGenerator::default().into_root_schema_for::<A>());
    if let Value::Object(map) = &mut input {
        // The argument struct's name and description are not the tool's (the macro's own
        // struct has no meaning; an `Args<T>`'s type describes the type, not the tool). A
        // schema without a `type` (an enum of structs) is an object; one with another `type`
        // stays as it is, for the server to refuse when it is built.
        map.remove("title");
        map.remove("description");
        let kind = map.entry("type").or_insert_with(|| "object".into());
        if kind == "object" {
            map.entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
        }
    }
    let view = match (meta.ui, &output.schema) {
        (Some(requested), Some(schema)) => view_def(&meta, requested, &input, schema, output.wrap),
        _ => None,
    };
    ToolDef {
        name: meta.name,
        title: meta.title,
        description: meta.description,
        input_schema: leak(input.to_string()),
        output_schema: output.schema.map(|s| leak(s.to_string())),
        full_input_schema: None,
        full_output_schema: None,
        full_defs: None,
        documented_output_schema: None,
        wrap_output: output.wrap,
        access: meta.access,
        annotations: meta.annotations,
        confirm: false,
        required_scope: meta.scope,
        plugin: None,
        http: None,
        declaration: None,
        view,
    }
}

/// The view of a tool whose output schema is `schema` (its definitions at its root, as
/// schemars writes them), derived at start-up like a generated crate's at generation; leaked
/// once per tool, as the definition is.
fn view_def(
    meta: &ToolMeta,
    requested: mcpgen_core::view::Requested,
    input: &Value,
    schema: &Value,
    wrapped: bool,
) -> Option<&'static mcpgen_core::view::ViewDef> {
    let title = meta.title.unwrap_or(meta.name);
    let mut resolve = mcpgen_core::view::resolve_local(schema);
    let layout =
        mcpgen_core::view::derive(meta.name, title, schema, wrapped, requested, &mut resolve)?
            .with_paging(input, schema, wrapped, &mut resolve);
    let view = mcpgen_core::view::ViewDef::new(meta.name, leak(layout.to_json()));
    Some(Box::leak(Box::new(view)))
}

/// Compares two names in a constant, for the macros' duplicate-name check.
#[doc(hidden)]
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `name` equals one of `earlier`, for the macros' duplicate-name check.
#[doc(hidden)]
pub const fn name_taken(earlier: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < earlier.len() {
        if same_name(earlier[i], name) {
            return true;
        }
        i += 1;
    }
    false
}
