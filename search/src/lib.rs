//! Tool search for mcpgen's search mode: a BM25F index over each tool's name, title, OpenAPI
//! tags, HTTP path, description and argument names, queried with a small vocabulary of REST
//! verbs and abbreviations.
//!
//! The generator writes the index text once ([`SearchIndex::text`]) and compiles it into each
//! generated crate; the server loads it at start-up ([`SearchIndex::parse`]) and scores queries
//! against it. Both sides tokenize with [`tokenize`], whose rules carry [`TOKENIZER_VERSION`]:
//! an index written under other rules is refused.
//!
//! ```
//! use mcpgen_search::{DocTerms, Field, SearchIndex};
//!
//! let mut star = DocTerms::new(Some("PUT"));
//! star.add(Field::Name, "star_repo");
//! star.add(Field::Description, "Star a repository");
//! let text = SearchIndex::text(&[("star_repo".to_owned(), star)]);
//! let index = SearchIndex::parse(&text).expect("the index just written");
//! let hits = index.search("star a repo", |_| true, 5);
//! assert_eq!(hits[0].name, "star_repo");
//! ```
#![deny(missing_docs)]

mod index;
mod query;
mod tokenize;

pub use index::{DocTerms, FORMAT_VERSION, Field, Hit, IndexError, MAGIC, SearchIndex, ToolText};
pub use tokenize::{STOPWORDS, TOKENIZER_VERSION, tokenize};
