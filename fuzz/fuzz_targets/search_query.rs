//! The search index reader and query parser: the first byte chooses between a query against
//! a real compiled index (Synaplan's) and reading the bytes as an index, then querying it with
//! its own text. Hits are never more than asked for, scores are finite, best first.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcpgen_search::{SearchIndex, tokenize};

fn real_index() -> &'static SearchIndex {
    static INDEX: OnceLock<SearchIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        SearchIndex::parse(synaplan_mcp::SEARCH_INDEX).expect("the shipped index reads")
    })
}

fn check(index: &SearchIndex, query: &str, limit: usize) {
    let hits = index.search(query, |_| true, limit);
    assert!(hits.len() <= limit);
    for pair in hits.windows(2) {
        assert!(pair[0].score >= pair[1].score, "hits best first");
    }
    for hit in &hits {
        assert!(hit.score.is_finite(), "a finite score");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let _ = tokenize(text);
    let limit = usize::from(which % 64);
    if which & 0x80 == 0 {
        check(real_index(), text, limit);
    } else if let Ok(index) = SearchIndex::parse(text) {
        check(&index, text, limit);
        check(&index, "list chats", limit);
    }
});
