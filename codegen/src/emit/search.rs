//! `src/search.rs` of a generated crate: the search index that servers in search mode
//! (`--tool-mode search`) query, built here once and compiled in as text.
//!
//! The index is BM25F-ready: per tool, its HTTP method and the number of distinct terms in each
//! of its name, title, tags, HTTP path, description and argument names; per term, the tools
//! holding it and in which of those fields. The tokenizer, the text format and the scoring are
//! `mcpgen-search`'s, shared with the server, so field weights can change without regenerating.

use mcpgen_search::{DocTerms, FORMAT_VERSION, Field, SearchIndex, TOKENIZER_VERSION};
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir;

/// The terms of one tool, by field.
fn doc_terms(tool: &ir::Tool) -> DocTerms {
    let method = Some(tool.http.method.as_str()).filter(|m| !m.is_empty());
    let mut terms = DocTerms::new(method);
    terms.add(Field::Name, &tool.name);
    terms.add(Field::Title, tool.title.as_deref().unwrap_or_default());
    terms.add(Field::Tags, &tool.tags.join(" "));
    terms.add(Field::Path, &tool.http.path);
    terms.add(Field::Description, &tool.description);
    let args: Vec<&str> = tool.http.args.iter().map(|a| a.arg.as_str()).collect();
    terms.add(Field::Arguments, &args.join(" "));
    terms
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
