//! `src/search.rs` of a generated crate: the search index that servers in search mode
//! (`--tool-mode search`) query, built here once and compiled in as text.
//!
//! The index is BM25F-ready: per tool, its HTTP method and the number of distinct terms in each
//! of its name, title, tags, HTTP path, description and argument names; per term, the tools
//! holding it and in which of those fields. Its text format is the runtime's
//! (`mcpgen_runtime::search`), which weighs the fields and scores queries against it, so field
//! weights can change without regenerating.
//!
//! The tokenizer below follows the rules documented in `runtime/src/search/tokenize.rs`, where
//! queries are tokenized: both sides carry [`TOKENIZER_VERSION`], the index records it and the
//! runtime refuses an index of another version, and the generator's tests run both tokenizers
//! over the same texts and require equal output.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir;

/// Version of the text format (the runtime's `FORMAT_VERSION`).
pub const FORMAT_VERSION: u32 = 2;

/// Version of the tokenizer rules (the runtime's `TOKENIZER_VERSION`).
pub const TOKENIZER_VERSION: u32 = 1;

/// The fields of a tool, in the order of the runtime's `Field`: a term's field set has bit `i`
/// for `FIELDS[i]`, and a tool line lists the fields' lengths in this order.
const FIELDS: [&str; 6] = ["name", "title", "tags", "path", "description", "arguments"];

/// Words too common to tell tools apart (the runtime's `STOPWORDS`).
const STOPWORDS: &[&str] = &[
    "a", "all", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "please",
    "that", "the", "this", "to", "via", "we", "what", "which", "with", "you", "your",
];

/// The index terms of `text`, in order, repeats kept.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        for word in split_case(run) {
            let lower = word.to_lowercase();
            if lower.is_empty() || STOPWORDS.contains(&lower.as_str()) {
                continue;
            }
            terms.push(stem(&lower));
        }
    }
    terms
}

/// Splits an alphanumeric run where a lower-case letter meets an upper-case one, and before the
/// last capital of a run of capitals followed by a lower-case letter.
fn split_case(run: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut words = Vec::new();
    let mut start = 0;
    for (i, pair) in chars.windows(2).enumerate() {
        let [(_, prev), (at, c)] = *pair else {
            continue;
        };
        let next_lower = chars.get(i + 2).is_some_and(|&(_, n)| n.is_lowercase());
        if (prev.is_lowercase() && c.is_uppercase())
            || (prev.is_uppercase() && c.is_uppercase() && next_lower)
        {
            words.push(&run[start..at]);
            start = at;
        }
    }
    if start < run.len() {
        words.push(&run[start..]);
    }
    words
}

/// Removes a plural ending, then `ing`/`ed` (undoubling a final consonant), then a final `e`.
fn stem(word: &str) -> String {
    if !word.is_ascii() || word.len() <= 3 {
        return word.to_owned();
    }
    let mut w = word.to_owned();
    let cut = |w: &mut String, n: usize| w.truncate(w.len() - n);
    if w.len() > 4 && w.ends_with("ies") {
        cut(&mut w, 3);
        w.push('y');
    } else if w.ends_with("sses")
        || w.ends_with("ches")
        || w.ends_with("shes")
        || w.ends_with("xes")
    {
        cut(&mut w, 2);
    } else if w.ends_with('s') && !["ss", "us", "is"].iter().any(|e| w.ends_with(e)) {
        cut(&mut w, 1);
    }
    let suffix = [("ing", 3), ("ed", 2)]
        .into_iter()
        .find(|(s, _)| w.len() > 5 && w.ends_with(s))
        .map_or(0, |(_, n)| n);
    if suffix > 0 {
        cut(&mut w, suffix);
        let bytes = w.as_bytes();
        if let [.., x, y] = bytes
            && x == y
            && !b"aeiouylsz".contains(x)
        {
            cut(&mut w, 1);
        }
    }
    if w.len() > 4 && w.ends_with('e') {
        cut(&mut w, 1);
    }
    w
}

/// The terms of one tool with the set of fields holding each, and the number of distinct terms
/// of each field.
fn tool_terms(tool: &ir::Tool) -> (BTreeMap<String, u8>, [u32; FIELDS.len()]) {
    let tags = tool.tags.join(" ");
    let args: Vec<&str> = tool.http.args.iter().map(|a| a.arg.as_str()).collect();
    let args = args.join(" ");
    let texts: [&str; FIELDS.len()] = [
        &tool.name,
        tool.title.as_deref().unwrap_or_default(),
        &tags,
        &tool.http.path,
        &tool.description,
        &args,
    ];
    let mut terms: BTreeMap<String, u8> = BTreeMap::new();
    let mut lengths = [0; FIELDS.len()];
    for (bit, (text, length)) in texts.iter().zip(&mut lengths).enumerate() {
        for term in tokenize(text) {
            let fields = terms.entry(term).or_default();
            if *fields & (1 << bit) == 0 {
                *fields |= 1 << bit;
                *length += 1;
            }
        }
    }
    (terms, lengths)
}

/// The index of `server`'s tools in the runtime's text format.
pub fn index_text(server: &ir::Server) -> String {
    let mut postings: BTreeMap<String, Vec<(usize, u8)>> = BTreeMap::new();
    let mut docs = String::new();
    for (i, tool) in server.tools.iter().enumerate() {
        let (terms, lengths) = tool_terms(tool);
        let lengths: Vec<String> = lengths.iter().map(u32::to_string).collect();
        let method = match tool.http.method.as_str() {
            "" => "-",
            method => method,
        };
        let _ = writeln!(docs, "{} {method} {}", tool.name, lengths.join(","));
        for (term, fields) in terms {
            postings.entry(term).or_default().push((i, fields));
        }
    }
    let mut text = format!(
        "mcpgen-search-index {FORMAT_VERSION} {TOKENIZER_VERSION} {} {}\n",
        server.tools.len(),
        postings.len()
    );
    text.push_str(&docs);
    for (term, list) in &postings {
        text.push_str(term);
        for (doc, fields) in list {
            let _ = write!(text, " {doc}:{fields}");
        }
        text.push('\n');
    }
    text
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
         see `mcpgen_runtime::search`. Servers in search mode load it at start-up.",
        server.tools.len()
    );
    quote! {
        #[doc = #doc]
        pub static SEARCH_INDEX: &str = #literal;
    }
}
