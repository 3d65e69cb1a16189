//! Tool search for servers in search mode (`--tool-mode search`): the index and scoring of
//! `mcpgen-search`, over a BM25F index of each tool's name, title, description, HTTP path,
//! OpenAPI tags and argument names.
//!
//! Generated crates compile their index in (`src/search.rs`, `SEARCH_INDEX`, written by the
//! generator with the same tokenizer, see [`tokenize`]) and hand it over through
//! [`ToolSet::search_index`](crate::ToolSet::search_index) (see
//! [`OpenApiTools::with_search_index`](crate::OpenApiTools::with_search_index)). A tool set without one
//! is indexed at start-up from its static table ([`index_tools`]).
//!
//! ```
//! use mcpgen_runtime::search::SearchIndex;
//! # use mcpgen_runtime::{ToolDef, Access, ToolAnnotations};
//! # static TOOLS: &[ToolDef] = &[ToolDef { name: "star_repo", title: None,
//! #     description: "Star a repository", input_schema: "{}", output_schema: None,
//! #     full_input_schema: None, full_output_schema: None, full_defs: None,
//! #     documented_output_schema: None, wrap_output: false, access: Access::Write,
//! #     annotations: ToolAnnotations { read_only_hint: None, destructive_hint: None,
//! #     idempotent_hint: None, open_world_hint: None }, confirm: false, required_scope: None, plugin: None,
//! #     http: None, declaration: None, view: None }];
//! let index = mcpgen_runtime::search::index_tools(TOOLS);
//! let hits = index.search("star a repo", |_| true, 5);
//! assert_eq!(hits[0].name, "star_repo");
//! ```

pub use mcpgen_core::tool::SEARCH_TOOL;

pub use mcpgen_search::{
    DocTerms, FORMAT_VERSION, Field, Hit, IndexError, MAGIC, STOPWORDS, SearchIndex,
    TOKENIZER_VERSION, ToolText, tokenize,
};

use mcpgen_core::tool::ToolDef;

/// The terms of `tool` from its static definition: name, title, description, HTTP method, path
/// and argument names (a static table has no OpenAPI tags).
pub fn doc_terms(tool: &ToolDef) -> DocTerms {
    DocTerms::of(&ToolText {
        method: tool.http.as_ref().map(|h| h.method),
        name: tool.name,
        title: tool.title,
        tags: Vec::new(),
        path: tool.http.as_ref().map(|h| h.path),
        description: tool.description,
        arguments: tool
            .http
            .iter()
            .flat_map(|h| h.args.iter().map(|a| a.arg))
            .collect(),
    })
}

/// An index over a static tool table, from what [`doc_terms`] sees.
pub fn index_tools(tools: &[ToolDef]) -> SearchIndex {
    SearchIndex::build(
        tools
            .iter()
            .map(|t| (t.name.to_owned(), doc_terms(t)))
            .collect(),
    )
}
