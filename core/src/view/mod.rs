//! Views (MCP Apps, `io.modelcontextprotocol/ui`): a table or a card that a host renders beside
//! a tool's result, derived from the tool's output schema.
//!
//! - [`layout`]: which view a schema gets ([`Layout`]: columns, fields, where the rows are);
//! - [`paging`]: how a table asks for its next page, from the response and input schemas;
//! - [`html`]: the one self-contained HTML document of a view: the shared renderer script and
//!   style, and the view's layout as JSON data.
//!
//! Generated crates derive layouts at generation (from the documented, unbudgeted output
//! schema); the runtime derives them at start-up for `#[mcp_tool]` tools. Either way a
//! [`ViewDef`] holds the layout, and the document is assembled from it, so the renderer is in
//! a binary once however many views it serves.

pub mod html;
pub mod layout;
pub mod paging;

pub use html::document;
pub use layout::{Field, Kind, Layout, Requested, ViewKind, derive, resolve_local};
pub use paging::{Paging, PagingMode};

/// The extension's identifier, in the client's and the server's `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The media type of a view's `resources/read` contents.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// One tool's view: its name (the last segment of its `ui://<server>/<view>` URI) and its
/// layout as JSON text (a [`Layout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewDef {
    /// The view's name, matching `^[A-Za-z0-9_.-]{1,64}$` (the tool's name).
    pub name: &'static str,
    /// The layout, as JSON text.
    pub layout: &'static str,
}

impl ViewDef {
    /// The view `name` with the layout `layout` (JSON text).
    pub const fn new(name: &'static str, layout: &'static str) -> Self {
        Self { name, layout }
    }
}

/// `ui://<server>/<view>`: the URI a tool's `_meta.ui.resourceUri` names and `resources/read`
/// answers.
pub fn resource_uri(server: &str, view: &str) -> String {
    format!("ui://{server}/{view}")
}

#[cfg(test)]
mod tests;
