//! Tool search for servers in search mode (`--tool-mode search`): a BM25F index over each
//! tool's name, title, description, HTTP path, OpenAPI tags and argument names, queried with a
//! small vocabulary of REST verbs and abbreviations (`query.rs`).
//!
//! Generated crates compile their index in (`src/search.rs`, `SEARCH_INDEX`, built by the
//! generator with the same tokenizer rules, see [`tokenize`]) and hand it over through
//! [`ToolSet::search_index`]; [`Indexed`] attaches one to any tool set. A tool set without one
//! is indexed at start-up from its static table ([`SearchIndex::from_tools`]).
//!
//! ```
//! use mcpgen_runtime::search::SearchIndex;
//! # use mcpgen_runtime::{ToolDef, Access, ToolAnnotations};
//! # static TOOLS: &[ToolDef] = &[ToolDef { name: "star_repo", title: None,
//! #     description: "Star a repository", input_schema: "{}", output_schema: None,
//! #     documented_output_schema: None, wrap_output: false, access: Access::Write,
//! #     annotations: ToolAnnotations { read_only_hint: None, destructive_hint: None,
//! #     idempotent_hint: None, open_world_hint: None }, confirm: false, required_scope: None, plugin: None,
//! #     http: None }];
//! let index = SearchIndex::from_tools(TOOLS);
//! let hits = index.search("star a repo", |_| true, 5);
//! assert_eq!(hits[0].name, "star_repo");
//! ```

mod index;
mod query;
mod tokenize;

use serde_json::{Map, Value};

pub use index::{DocTerms, FORMAT_VERSION, Field, Hit, IndexError, MAGIC, SearchIndex};
pub use tokenize::{STOPWORDS, TOKENIZER_VERSION, tokenize};

use crate::{BoxFuture, CallContext, ToolDef, ToolError, ToolResult, ToolSet};

/// A tool set with a compiled search index attached: what a generated server binary serves.
#[derive(Debug, Clone)]
pub struct Indexed<T> {
    tools: T,
    index: &'static str,
}

impl<T: ToolSet> Indexed<T> {
    /// `tools` with the index text `index` (a generated crate's `search::SEARCH_INDEX`).
    pub fn new(tools: T, index: &'static str) -> Self {
        Self { tools, index }
    }

    /// The tool set inside.
    pub fn inner(&self) -> &T {
        &self.tools
    }
}

impl<T: ToolSet> ToolSet for Indexed<T> {
    fn tools(&self) -> &'static [ToolDef] {
        self.tools.tools()
    }

    fn call<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        self.tools.call(name, args, ctx)
    }

    fn search_index(&self) -> Option<&'static str> {
        Some(self.index)
    }
}
