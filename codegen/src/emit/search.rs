//! `src/search.rs` of a generated crate: the search index that servers in search mode
//! (`--tool-mode search`) query, built here once and compiled in as text.
//!
//! The index is BM25F-ready: per tool, its HTTP method and the number of distinct terms in each
//! of its name, title, tags, HTTP path, description and argument names; per term, the tools
//! holding it and in which of those fields. The tokenizer, the text format and the scoring are
//! `mcpgen-search`'s, shared with the server, so field weights can change without regenerating.

use mcpgen_search::{DocTerms, FORMAT_VERSION, SearchIndex, TOKENIZER_VERSION, ToolText};
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir;

/// The terms of one tool, by field.
fn doc_terms(tool: &ir::Tool) -> DocTerms {
    DocTerms::of(&ToolText {
        method: Some(tool.http.method.as_str()).filter(|m| !m.is_empty()),
        name: &tool.name,
        title: tool.title.as_deref(),
        tags: tool.tags.iter().map(String::as_str).collect(),
        path: Some(tool.http.path.as_str()),
        description: &tool.description,
        arguments: tool.http.args.iter().map(|a| a.arg.as_str()).collect(),
    })
}

/// The index of `server`'s tools in the search index's text format.
pub fn index_text(server: &ir::Server) -> String {
    let docs: Vec<(String, DocTerms)> = server
        .tools
        .iter()
        .map(|tool| (tool.name.clone(), doc_terms(tool)))
        .collect();
    SearchIndex::text(&docs)
}

/// The tokens of `src/search.rs`.
pub(crate) fn tokens(server: &ir::Server) -> TokenStream {
    let text = index_text(server);
    // Terms are alphanumeric and tool names `[A-Za-z0-9_.-]`, so a raw string (one line per
    // record, readable in review) always fits; anything else falls back to an escaped string.
    let literal = if text.contains('"') {
        quote!(#text)
    } else {
        format!("r\"{text}\"")
            .parse::<TokenStream>()
            .unwrap_or_else(|_| quote!(#text))
    };
    let doc = format!(
        " The search index of the {} tools (text format {FORMAT_VERSION}, tokenizer {TOKENIZER_VERSION}): \
         see `mcpgen::search`. Servers in search mode load it at start-up.",
        server.tools.len()
    );
    quote! {
        #[doc = #doc]
        pub static SEARCH_INDEX: &str = #literal;
    }
}
