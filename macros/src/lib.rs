//! Procedural macros for mcpgen: tools written in application code, and the spec-including
//! macro. Thin: they parse their input and expand to the runtime's types (tools) or call the
//! engine (specs). Expansions name only `::mcpgen` paths: use them through the `mcpgen`
//! crate, which re-exports them.
//!
//! - [`macro@mcp_tool`] turns a function into a tool: its parameters are the input schema
//!   (doc comments become property descriptions), its return type the output.
//! - [`macro@mcp_tools`] on an `impl` block collects its `#[mcp_tool]` methods into a set.
//! - [`tool_set!`] collects `#[mcp_tool]` functions into a set.
//! - [`generate!`] includes the crate `mcpgen generate` would write for an OpenAPI document
//!   and its allowlist.
//! - [`derive@JsonSchema`] is schemars' derive naming the crate as `::mcpgen::schemars`, so it
//!   needs no `schemars` dependency or import.
#![deny(missing_docs)]

mod options;
mod schema_derive;
mod set;
mod spec;
mod tool;

use proc_macro::TokenStream;

/// Makes a function an MCP tool.
///
/// ```ignore
/// /// Lists the rooms whose name contains `filter`.
/// #[mcp_tool(read_only)]
/// async fn list_rooms(
///     /// Part of the room name to look for.
///     filter: Option<String>,
///     ctx: ToolContext,
/// ) -> Result<Vec<Room>, RoomError> { ... }
/// ```
///
/// Parameters become the properties of the input schema (`type: object`): each type must
/// implement `serde::Deserialize` and `schemars::JsonSchema` (schemars 1.x, re-exported as
/// `mcpgen::schemars`); doc comments become descriptions, `Option<T>` is optional, and
/// `#[serde(...)]`/`#[schemars(...)]` attributes on a parameter apply to its property. One
/// parameter of type `ToolContext` or `&ToolContext` (or marked `#[context]`) receives the
/// call's context instead.
///
/// One parameter of type `Args<T>` (`mcpgen::Args`, destructured as `Args(args): Args<T>`), or
/// marked `#[args]`, is the whole arguments instead: `T`'s schema is the input schema and the
/// call's arguments decode into `T`, so `T`'s fields are the tool's arguments. Such a tool takes
/// no other arguments besides its context.
///
/// The return type `R` decides the output: for `Result<T, E>` (any spelling, aliases
/// included) with `T: Serialize + JsonSchema` and `E: Display`, `Ok` is structured content and
/// `Err` an `isError` result; any other `Serialize + JsonSchema` type is always a success.
/// Non-object values are wrapped as `{"result": ...}`; `()` gives no output schema.
///
/// Options: `name = "..."` (default: the function's name), `title = "..."`,
/// `description = "..."` (default: the doc comment; one of the two is required),
/// `read_only`, `destructive`, `idempotent`, `open_world` (hints; each also `= false`),
/// `access = read | write` (default: `read` for `read_only` tools, else `write`),
/// `scope = "..."` (a scope callers need besides `mcp:read`/`mcp:write`), and
/// `deny_unknown_arguments` (the input schema gets `additionalProperties: false`, so a call
/// naming an argument the tool does not take is refused instead of the argument being
/// ignored), and `task` or `task = "required"` (the tool runs as an MCP task: a client that
/// declared the tasks extension gets a task at once and follows it with `tasks/get` while the
/// function runs in the background; other clients wait for the result, or, with `"required"`,
/// are refused).
///
/// `#[schemars(...)]` attributes on the function apply to the input schema's root, e.g. to add
/// keywords the parameters cannot express:
///
/// ```ignore
/// /// Sends a message by phone or by email.
/// #[mcp_tool(deny_unknown_arguments)]
/// #[schemars(extend("anyOf" = [{"required": ["phone"]}, {"required": ["email"]}]))]
/// fn notify(phone: Option<String>, email: Option<String>) -> Result<String, String> { ... }
/// ```
///
/// A method taking `&self` is called with the set's state; use [`macro@mcp_tools`] on its
/// `impl` block (required for associated functions without `self`).
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item2 = proc_macro2::TokenStream::from(item);
    let func: syn::ItemFn = match syn::parse2(item2.clone()) {
        Ok(func) => func,
        Err(e) => {
            let error =
                syn::Error::new(e.span(), "`#[mcp_tool]` goes on a function").into_compile_error();
            return quote::quote!(#error #item2).into();
        }
    };
    let options = match options::Options::parse(args.into()) {
        Ok(options) => options,
        Err(e) => {
            let (stripped, _) = tool::Tool::parse(func, options::Options::default());
            return tool::fallback(&stripped, e).into();
        }
    };
    let (stripped, parsed) = tool::Tool::parse(func, options);
    match parsed {
        Ok(tool) => {
            let has_receiver = tool
                .func
                .sig
                .inputs
                .iter()
                .any(|i| matches!(i, syn::FnArg::Receiver(_)));
            let place = if has_receiver {
                tool::Place::Impl
            } else {
                tool::Place::Free
            };
            tool.expand(place).into()
        }
        Err(e) => tool::fallback(&stripped, e).into(),
    }
}

/// Collects the `#[mcp_tool]` methods of an inherent `impl` block into a tool set:
/// `value.into_tool_set()` serves them over `value`. Tool names must differ.
#[proc_macro_attribute]
pub fn mcp_tools(args: TokenStream, item: TokenStream) -> TokenStream {
    match syn::parse::<syn::ItemImpl>(item.clone()) {
        Ok(item) => set::mcp_tools(args.into(), item).into(),
        Err(e) => {
            let error = syn::Error::new(e.span(), "`#[mcp_tools]` goes on an `impl` block")
                .into_compile_error();
            let item = proc_macro2::TokenStream::from(item);
            quote::quote!(#error #item).into()
        }
    }
}

/// A tool set of `#[mcp_tool]` functions: `tool_set![a, b]`, or
/// `tool_set![state = rooms; Rooms::list, a]` when methods taking `&self` are listed. The same
/// function may be in several sets; names within one set must differ (checked at compile
/// time).
#[proc_macro]
pub fn tool_set(input: TokenStream) -> TokenStream {
    match syn::parse::<set::SetInput>(input) {
        Ok(input) => set::tool_set(input).into(),
        Err(e) => e.into_compile_error().into(),
    }
}

/// Includes the modules `mcpgen generate` writes for an OpenAPI document and its allowlist:
/// `generate!(spec = "specs/x/openapi.yaml", tools = "specs/x/mcp_tools.yaml")` expands to
/// `pub mod tools`, `pub mod types` and `pub mod client`. Paths are relative to the including
/// crate's `Cargo.toml`; `${NAME}` in a path is the environment variable `NAME` at compile
/// time (e.g. `"${OUT_DIR}/openapi.json"` for a spec a build script fetched). The crate is
/// rebuilt when either file changes.
#[proc_macro]
pub fn generate(input: TokenStream) -> TokenStream {
    spec::generate(input.into()).into()
}

/// Derives `JsonSchema` (schemars 1.x) for a struct or an enum, as `mcpgen::schemars` and
/// `mcpgen::prelude` export it: the same schema, attributes (`#[schemars(...)]`,
/// `#[serde(...)]`, `#[validate(...)]`, `#[garde(...)]`) and errors as schemars' own derive,
/// which this expands to, but naming the crate as `::mcpgen::schemars` itself, so a crate that
/// depends on `mcpgen` alone can write `use mcpgen::schemars::JsonSchema;` and derive it.
#[proc_macro_derive(JsonSchema, attributes(schemars, serde, validate, garde))]
pub fn json_schema(input: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => schema_derive::derive(input).into(),
        Err(e) => e.into_compile_error().into(),
    }
}
