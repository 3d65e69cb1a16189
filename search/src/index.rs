//! The search index: which fields of which tool hold each term, loaded from the text a generated
//! crate compiles in (or built at start-up for tool sets without one), and scored here with
//! BM25F.
//!
//! The text format, version [`FORMAT_VERSION`] (one record per line, items separated by one
//! space; tool names and terms never contain spaces):
//!
//! ```text
//! mcpgen-search-index <format version> <tokenizer version> <tools> <terms>
//! <tool name> <HTTP method or -> <length>,<length>,...   one line per tool, in tool-table order
//! <term> <tool>:<fields> ...                             one line per term, in byte order
//! ```
//!
//! A tool line gives the number of distinct terms of each field, in [`Field`] order. `<tool>`
//! counts from 0 in the tool lines; `<fields>` is the bit set of the fields holding the term
//! (bit `i` for the field whose [`Field::bit`] is `i`). A field holds a term or not: repeats
//! within one field do not count.
//!
//! A query (see `query.rs`) is scored per tool with BM25F: each field the term occurs in adds
//! its weight, divided by the field's length relative to that field's average (so a term in a
//! short tool name counts more than the same term in a long one); the sum saturates as in
//! BM25 and is multiplied by the term's rarity. Each query term counts once per tool, through
//! its best match: itself, a synonym, or a word derived from it. The sum is multiplied
//! by the share of the query's terms the tool matches, so a tool matching every word of a short
//! query beats one matching a frequent word strongly; by a bonus when the tool's HTTP method
//! fits the query's leading verb; and by a preference for short tool names, the general
//! operations ([`GENERALITY`]).

use std::collections::BTreeMap;

use std::fmt::Write as _;

use crate::query::{self, Methods, Query};
use crate::tokenize::{TOKENIZER_VERSION, tokenize};

/// Version of the text format above.
pub const FORMAT_VERSION: u32 = 2;

/// The first word of an index text.
pub const MAGIC: &str = "mcpgen-search-index";

/// The fields of a tool that the index reads, in the order of the index text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    /// The tool name.
    Name,
    /// The title (the operation's summary).
    Title,
    /// The OpenAPI tags.
    Tags,
    /// The HTTP path template.
    Path,
    /// The description.
    Description,
    /// The argument names.
    Arguments,
}

impl Field {
    /// Every field, in index order.
    pub const ALL: [Field; 6] = [
        Field::Name,
        Field::Title,
        Field::Tags,
        Field::Path,
        Field::Description,
        Field::Arguments,
    ];

    /// The field's bit in a posting's field set, and its place in a tool line's lengths.
    pub fn bit(self) -> usize {
        self as usize
    }

    /// How much the field counts, and how strongly its length normalises (BM25F `b`). Names
    /// and titles are short and say what a tool does; descriptions are long and mention much
    /// else; argument names say little about the task.
    fn params(self) -> (f64, f64) {
        match self {
            Field::Name => (3.0, 0.75),
            Field::Title => (3.0, 0.75),
            Field::Tags => (1.0, 0.5),
            Field::Path => (1.0, 0.5),
            Field::Description => (1.0, 0.75),
            Field::Arguments => (0.5, 0.5),
        }
    }
}

const FIELDS: usize = Field::ALL.len();

/// BM25 term-frequency saturation. Higher than the usual 1.2 because a term's frequency here
/// is the sum of field weights, up to about ten for a term in every field.
const K1: f64 = 3.0;

/// Strength of the preference for tools with short names, which are the general operations
/// (`create an issue` over `create an issue field for an organization`): a tool's score is
/// multiplied by `(1 + GENERALITY) / (1 + GENERALITY × name length / average name length)`.
const GENERALITY: f64 = 0.3;

/// Why an index text cannot be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for IndexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "search index, line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for IndexError {}

#[derive(Debug, Clone)]
struct Doc {
    name: String,
    methods: Methods,
    lengths: [f64; FIELDS],
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: usize,
    fields: u8,
    /// The term's BM25F frequency in the tool: over the fields holding it, each field's weight
    /// divided by its length relative to the average (set when the index is assembled).
    tf: f64,
}

/// A loaded search index over the tools of one tool set.
#[derive(Debug, Clone)]
pub struct SearchIndex {
    docs: Vec<Doc>,
    /// Sorted by term.
    terms: Vec<(String, Vec<Posting>)>,
    average_lengths: [f64; FIELDS],
}

/// One search result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<'a> {
    /// The tool name.
    pub name: &'a str,
    /// Its score (higher is better).
    pub score: f64,
}

/// The terms of one tool, by field, and its HTTP method.
#[derive(Debug, Clone, Default)]
pub struct DocTerms {
    method: Option<String>,
    terms: BTreeMap<String, u8>,
    lengths: [u32; FIELDS],
}

/// What the index reads of one tool, field by field: the engine fills it from its IR, the server
/// from a static tool table (which has no tags).
#[derive(Debug, Clone, Default)]
pub struct ToolText<'a> {
    /// The HTTP method, if the tool calls an operation.
    pub method: Option<&'a str>,
    /// The tool name.
    pub name: &'a str,
    /// The title.
    pub title: Option<&'a str>,
    /// The OpenAPI tags.
    pub tags: Vec<&'a str>,
    /// The HTTP path template.
    pub path: Option<&'a str>,
    /// The description.
    pub description: &'a str,
    /// The argument names.
    pub arguments: Vec<&'a str>,
}

impl DocTerms {
    /// No terms yet; `method` is the tool's upper-case HTTP method, if it has one.
    pub fn new(method: Option<&str>) -> Self {
        Self {
            method: method.map(str::to_ascii_uppercase),
            ..Self::default()
        }
    }

    /// The terms of one tool, from what the index reads of it.
    pub fn of(tool: &ToolText<'_>) -> Self {
        let mut terms = Self::new(tool.method);
        terms.add(Field::Name, tool.name);
        if let Some(title) = tool.title {
            terms.add(Field::Title, title);
        }
        for tag in &tool.tags {
            terms.add(Field::Tags, tag);
        }
        if let Some(path) = tool.path {
            terms.add(Field::Path, path);
        }
        terms.add(Field::Description, tool.description);
        for argument in &tool.arguments {
            terms.add(Field::Arguments, argument);
        }
        terms
    }

    /// Adds the terms of `text` to `field`.
    pub fn add(&mut self, field: Field, text: &str) {
        let bit = 1_u8 << field.bit();
        for term in tokenize(text) {
            let fields = self.terms.entry(term).or_default();
            if *fields & bit == 0 {
                *fields |= bit;
                if let Some(length) = self.lengths.get_mut(field.bit()) {
                    *length += 1;
                }
            }
        }
    }
}

impl SearchIndex {
    /// Builds an index over `docs` (tool name and its terms).
    pub fn build(docs: Vec<(String, DocTerms)>) -> Self {
        let mut postings: BTreeMap<String, Vec<Posting>> = BTreeMap::new();
        let mut list = Vec::with_capacity(docs.len());
        for (i, (name, terms)) in docs.into_iter().enumerate() {
            for (term, fields) in terms.terms {
                postings.entry(term).or_default().push(Posting {
                    doc: i,
                    fields,
                    tf: 0.0,
                });
            }
            list.push(Doc {
                name,
                methods: Methods::of(terms.method.as_deref().unwrap_or_default()),
                lengths: terms.lengths.map(f64::from),
            });
        }
        Self::assemble(list, postings.into_iter().collect())
    }

    /// The index text (format [`FORMAT_VERSION`]) of `docs` (tool name and its terms, in
    /// tool-table order): what a generated crate compiles in and [`parse`](Self::parse) reads.
    pub fn text(docs: &[(String, DocTerms)]) -> String {
        let mut postings: BTreeMap<&str, Vec<(usize, u8)>> = BTreeMap::new();
        let mut lines = String::new();
        for (i, (name, terms)) in docs.iter().enumerate() {
            let lengths: Vec<String> = terms.lengths.iter().map(u32::to_string).collect();
            let method = terms
                .method
                .as_deref()
                .filter(|m| !m.is_empty())
                .unwrap_or("-");
            let _ = writeln!(lines, "{name} {method} {}", lengths.join(","));
            for (term, fields) in &terms.terms {
                postings.entry(term).or_default().push((i, *fields));
            }
        }
        let mut text = format!(
            "{MAGIC} {FORMAT_VERSION} {TOKENIZER_VERSION} {} {}\n",
            docs.len(),
            postings.len()
        );
        text.push_str(&lines);
        for (term, list) in &postings {
            text.push_str(term);
            for (doc, fields) in list {
                let _ = write!(text, " {doc}:{fields}");
            }
            text.push('\n');
        }
        text
    }

    fn assemble(docs: Vec<Doc>, mut terms: Vec<(String, Vec<Posting>)>) -> Self {
        let mut average_lengths = [1.0; FIELDS];
        if !docs.is_empty() {
            for (i, average) in average_lengths.iter_mut().enumerate() {
                let total: f64 = docs.iter().filter_map(|d| d.lengths.get(i)).sum();
                *average = (total / docs.len() as f64).max(1.0);
            }
        }
        // Per tool and field, what a term there adds to the term's frequency.
        let field_tf: Vec<[f64; FIELDS]> = docs
            .iter()
            .map(|doc| {
                let mut tf = [0.0; FIELDS];
                for field in Field::ALL {
                    let i = field.bit();
                    let (weight, b) = field.params();
                    let length = doc.lengths.get(i).copied().unwrap_or_default();
                    let average = average_lengths.get(i).copied().unwrap_or(1.0);
                    if let Some(slot) = tf.get_mut(i) {
                        *slot = weight / (1.0 - b + b * length / average);
                    }
                }
                tf
            })
            .collect();
        for (_, postings) in &mut terms {
            for p in postings {
                let Some(fields) = field_tf.get(p.doc) else {
                    continue;
                };
                let mut bits = p.fields;
                while bits != 0 {
                    p.tf += fields
                        .get(bits.trailing_zeros() as usize)
                        .copied()
                        .unwrap_or_default();
                    bits &= bits - 1;
                }
            }
        }
        Self {
            docs,
            terms,
            average_lengths,
        }
    }

    /// Loads an index from its text form (see the module documentation).
    pub fn parse(text: &str) -> Result<Self, IndexError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let err = |line: usize, message: String| IndexError { line, message };
        let (_, header) = lines
            .next()
            .ok_or_else(|| err(1, "the index is empty".to_owned()))?;
        let fields: Vec<&str> = header.split(' ').collect();
        let number = |i: usize, what: &str| -> Result<usize, IndexError> {
            fields
                .get(i)
                .and_then(|f| f.parse::<usize>().ok())
                .ok_or_else(|| err(1, format!("the header lacks the {what}: `{header}`")))
        };
        if fields.first() != Some(&MAGIC) {
            return Err(err(1, format!("the header does not start with `{MAGIC}`")));
        }
        let format = number(1, "format version")?;
        let tokenizer = number(2, "tokenizer version")?;
        let tools = number(3, "number of tools")?;
        let term_count = number(4, "number of terms")?;
        if format != FORMAT_VERSION as usize {
            return Err(err(
                1,
                format!(
                    "format version {format}, this runtime reads {FORMAT_VERSION}: regenerate the crate with a matching mcpgen"
                ),
            ));
        }
        if tokenizer != TOKENIZER_VERSION as usize {
            return Err(err(
                1,
                format!(
                    "built with tokenizer version {tokenizer}, this runtime tokenizes queries with version {TOKENIZER_VERSION}: regenerate the crate with a matching mcpgen"
                ),
            ));
        }
        // Counts come from the text: reserve no more than its lines can hold, so a header
        // that claims billions of tools is an error about a missing line, not an abort.
        let lines_left = text.lines().count().saturating_sub(1);
        let mut docs = Vec::with_capacity(tools.min(lines_left));
        for _ in 0..tools {
            let (n, line) = lines
                .next()
                .ok_or_else(|| err(docs.len() + 2, "a tool line is missing".to_owned()))?;
            docs.push(parse_tool(line).ok_or_else(|| {
                err(
                    n,
                    format!(
                        "expected `<tool> <method> <{FIELDS} comma-separated lengths>`, found `{line}`"
                    ),
                )
            })?);
        }
        let mut terms: Vec<(String, Vec<Posting>)> = Vec::with_capacity(term_count.min(lines_left));
        for (n, line) in lines {
            let mut parts = line.split(' ');
            let term = parts.next().unwrap_or_default();
            if term.is_empty() {
                return Err(err(n, "empty term".to_owned()));
            }
            if terms.last().is_some_and(|(last, _)| last.as_str() >= term) {
                return Err(err(n, format!("term `{term}` is out of order or repeated")));
            }
            let mut postings = Vec::new();
            for part in parts {
                let posting = part
                    .split_once(':')
                    .and_then(|(d, f)| Some((d.parse::<usize>().ok()?, f.parse::<u8>().ok()?)))
                    .filter(|&(d, f)| d < docs.len() && f != 0 && f < 1 << FIELDS)
                    .ok_or_else(|| {
                        err(
                            n,
                            format!("`{part}` is not `<tool>:<fields>` for a listed tool"),
                        )
                    })?;
                postings.push(Posting {
                    doc: posting.0,
                    fields: posting.1,
                    tf: 0.0,
                });
            }
            terms.push((term.to_owned(), postings));
        }
        if terms.len() != term_count {
            return Err(err(
                1,
                format!(
                    "the header announces {term_count} terms, the index holds {}",
                    terms.len()
                ),
            ));
        }
        Ok(Self::assemble(docs, terms))
    }

    /// The tools indexed, in order.
    pub fn tools(&self) -> impl Iterator<Item = &str> {
        self.docs.iter().map(|d| d.name.as_str())
    }

    /// Whether `term` (already tokenized) is indexed for `tool`.
    pub fn holds(&self, tool: &str, term: &str) -> bool {
        let Some(doc) = self.docs.iter().position(|d| d.name == tool) else {
            return false;
        };
        self.postings(term)
            .is_some_and(|postings| postings.iter().any(|p| p.doc == doc))
    }

    fn postings(&self, term: &str) -> Option<&[Posting]> {
        self.terms
            .binary_search_by(|(t, _)| t.as_str().cmp(term))
            .ok()
            .and_then(|i| self.terms.get(i))
            .map(|(_, p)| p.as_slice())
    }

    /// The indexed terms derived from `term` (see [`query::derives`]).
    fn derived<'s>(&'s self, term: &'s str) -> impl Iterator<Item = &'s str> {
        let start = self.terms.partition_point(|(t, _)| t.as_str() <= term);
        self.terms
            .get(start..)
            .unwrap_or_default()
            .iter()
            .map(|(t, _)| t.as_str())
            .take_while(move |t| t.starts_with(term))
            .filter(move |t| query::derives(term, t))
    }

    /// BM25F of one term in each tool holding it, times `weight`, kept in `best` where higher
    /// than what it holds; `touched` gains the tools that had nothing yet.
    fn score_term(&self, term: &str, weight: f64, best: &mut [f64], touched: &mut Vec<usize>) {
        let Some(postings) = self.postings(term) else {
            return;
        };
        let n = self.docs.len() as f64;
        let df = postings.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for p in postings {
            let score = weight * idf * p.tf * (K1 + 1.0) / (p.tf + K1);
            if let Some(slot) = best.get_mut(p.doc)
                && score > *slot
            {
                if *slot == 0.0 {
                    touched.push(p.doc);
                }
                *slot = score;
            }
        }
    }

    /// The factor of [`GENERALITY`] for `doc`.
    fn generality(&self, doc: &Doc) -> f64 {
        let i = Field::Name.bit();
        let length = doc.lengths.get(i).copied().unwrap_or(1.0);
        let average = self.average_lengths.get(i).copied().unwrap_or(1.0);
        (1.0 + GENERALITY) / (1.0 + GENERALITY * length / average)
    }

    /// The best `limit` tools for `query` among those `keep` accepts, best first; ties in tool
    /// order. Tools that share no term with the query are not returned.
    pub fn search(&self, query: &str, keep: impl Fn(&str) -> bool, limit: usize) -> Vec<Hit<'_>> {
        let query = Query::parse(query);
        let mut scores = vec![0.0_f64; self.docs.len()];
        let mut matched = vec![0_u32; self.docs.len()];
        // The best match of the current query term per tool, and the tools it touched.
        let mut best = vec![0.0_f64; self.docs.len()];
        let mut touched = Vec::new();
        // Query terms that some tool holds in some form: the denominator of the coverage.
        let mut known = 0_u32;
        for stated in query.terms() {
            for (term, weight) in stated.alternatives() {
                self.score_term(term, weight, &mut best, &mut touched);
            }
            if stated.extends() {
                for term in self.derived(stated.term()) {
                    self.score_term(term, query::DERIVED_WEIGHT, &mut best, &mut touched);
                }
            }
            known += u32::from(!touched.is_empty());
            for doc in touched.drain(..) {
                if let (Some(b), Some(score), Some(count)) =
                    (best.get_mut(doc), scores.get_mut(doc), matched.get_mut(doc))
                {
                    *score += *b;
                    *count += 1;
                    *b = 0.0;
                }
            }
        }
        let known = f64::from(known.max(1));
        let mut ranked: Vec<(usize, f64)> = scores
            .iter()
            .zip(&matched)
            .zip(&self.docs)
            .enumerate()
            .filter(|(_, ((score, _), doc))| **score > 0.0 && keep(&doc.name))
            .map(|(i, ((&score, &count), doc))| {
                let score = score * f64::from(count) / known
                    * query.method_factor(doc.methods)
                    * self.generality(doc);
                (i, score)
            })
            .collect();
        // Best first, equal scores in tool order; only the first `limit` are sorted.
        let order = |a: &(usize, f64), b: &(usize, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if limit == 0 {
            return Vec::new();
        }
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, order);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by(order);
        ranked
            .into_iter()
            .filter_map(|(i, score)| {
                Some(Hit {
                    name: &self.docs.get(i)?.name,
                    score,
                })
            })
            .collect()
    }
}

/// One tool line: `<name> <method> <lengths>`.
fn parse_tool(line: &str) -> Option<Doc> {
    let mut items = line.split(' ');
    let name = items.next()?;
    let method = items.next()?;
    let lengths_text = items.next()?;
    if items.next().is_some() || name.is_empty() {
        return None;
    }
    let mut lengths = [0.0; FIELDS];
    let mut parts = lengths_text.split(',');
    for length in &mut lengths {
        *length = f64::from(parts.next()?.parse::<u32>().ok()?);
    }
    if parts.next().is_some() {
        return None;
    }
    Some(Doc {
        name: name.to_owned(),
        methods: Methods::of(method),
        lengths,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> SearchIndex {
        let mut star = DocTerms::new(Some("PUT"));
        star.add(Field::Name, "activity/star-repo-for-authenticated-user");
        star.add(
            Field::Description,
            "Star a repository for the authenticated user",
        );
        let mut list = DocTerms::new(Some("GET"));
        list.add(Field::Name, "repos/list-for-user");
        list.add(Field::Description, "List repositories for a user");
        SearchIndex::build(vec![("star".into(), star), ("list".into(), list)])
    }

    #[test]
    fn the_best_match_comes_first_and_filters_apply() {
        let index = index();
        let hits = index.search("star a repo", |_| true, 5);
        assert_eq!(hits.first().map(|h| h.name), Some("star"));
        let hits = index.search("star a repo", |name| name != "star", 5);
        assert_eq!(hits.iter().map(|h| h.name).collect::<Vec<_>>(), ["list"]);
        assert!(index.search("zebra", |_| true, 5).is_empty());
    }

    #[test]
    fn a_header_from_another_tokenizer_is_refused() {
        let text = format!("{MAGIC} {FORMAT_VERSION} 999 0 0\n");
        let e = SearchIndex::parse(&text).unwrap_err();
        assert!(e.message.contains("tokenizer version 999"), "{e}");
        let text =
            format!("{MAGIC} {FORMAT_VERSION} {TOKENIZER_VERSION} 1 1\nt GET 1,0,0,0,0,0\nb 5:1\n");
        let e = SearchIndex::parse(&text).unwrap_err();
        assert_eq!(e.line, 3);
        let text =
            format!("{MAGIC} {FORMAT_VERSION} {TOKENIZER_VERSION} 1 1\nt GET 1,0,0\nb 0:1\n");
        let e = SearchIndex::parse(&text).unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn text_parses_into_the_same_ranking() {
        let text = format!(
            "{MAGIC} {FORMAT_VERSION} {TOKENIZER_VERSION} 2 2\nstar PUT 5,0,0,0,4,0\n\
             list GET 4,0,0,0,3,0\nrepo 0:1 1:1\nstar 0:17\n"
        );
        let index = SearchIndex::parse(&text).unwrap_or_else(|e| panic!("{e}"));
        let hits = index.search("starring repos", |_| true, 1);
        assert_eq!(hits.first().map(|h| h.name), Some("star"));
        assert!(index.holds("list", "repo"));
        assert!(!index.holds("list", "star"));
    }

    #[test]
    fn a_short_name_beats_a_long_one_and_the_method_follows_the_verb() {
        let mut docs = Vec::new();
        for (name, method, title) in [
            (
                "update_pull_request_creation_cap",
                "PATCH",
                "Update the pull request creation cap",
            ),
            ("pulls_create", "POST", "Create a pull request"),
            ("pulls_list", "GET", "List pull requests"),
            ("pulls_delete", "DELETE", "Delete a pull request"),
        ] {
            let mut terms = DocTerms::new(Some(method));
            terms.add(Field::Name, name);
            terms.add(Field::Title, title);
            docs.push((name.to_owned(), terms));
        }
        let index = SearchIndex::build(docs);
        let first = |q: &str| index.search(q, |_| true, 1).first().map(|h| h.name);
        assert_eq!(first("open a pull request"), Some("pulls_create"));
        assert_eq!(first("show pull requests"), Some("pulls_list"));
        assert_eq!(first("remove a pull request"), Some("pulls_delete"));
    }

    #[test]
    fn a_header_claiming_huge_counts_is_an_error_not_an_abort() {
        // Found by the `search_query` fuzz target: the declared counts were reserved up front.
        let text = "mcpgen-search-index 2 1 99999999199999 2 1 99999999";
        let text = text.replacen(
            " 2 1 ",
            &format!(" {FORMAT_VERSION} {TOKENIZER_VERSION} "),
            1,
        );
        let Err(error) = SearchIndex::parse(&text) else {
            panic!("the index was accepted");
        };
        assert!(error.message.contains("missing"), "{}", error.message);
    }
}
