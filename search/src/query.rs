//! What a query asks for: its terms, what else each term may match, and which HTTP methods
//! fit the verb it starts with.
//!
//! Only queries are expanded, so the vocabulary below can change without regenerating any
//! index. It is general English and REST usage, never the words of one API:
//! - a task usually starts with its verb (`open a new issue`, `remove a label`). When the first
//!   word is one of [`VERBS`], it also matches the verbs APIs name that action with (`open` →
//!   `create`, `add`), and tools whose HTTP method performs that action rank higher. A first
//!   word that is no known verb (`comment on an issue`, `fork a repository`) usually names an
//!   action that changes something, so tools that write rank slightly higher.
//! - a few abbreviations match their long form and back ([`ABBREVIATIONS`]).
//! - a query word of four letters or more also matches the indexed words derived from it by an
//!   English suffix ([`DERIVATIONS`]: `react` → `reaction`, `review` → `reviewer`), at
//!   [`DERIVED_WEIGHT`].

use std::sync::LazyLock;

use crate::tokenize::tokenize;

/// Weight of a match through a word derived from the query term.
pub(crate) const DERIVED_WEIGHT: f64 = 0.5;
/// Weight of a match through a synonym of the query term.
const SYNONYM_WEIGHT: f64 = 0.5;
/// Score bonus of a tool whose HTTP method fits the query's leading verb.
const METHOD_BONUS: f64 = 0.3;
/// Score bonus of a writing tool when the query starts with a word that is no known verb.
const WRITE_BONUS: f64 = 0.1;
/// Shortest query term matched against words derived from it.
const DERIVED_MIN_LEN: usize = 4;

/// Suffixes that derive a noun from a verb or an adjective from a noun (`react` → `reaction`,
/// `follow` → `follower`, `deploy` → `deployment`), after stemming: a query term matches an
/// indexed word that is the term and one of these.
const DERIVATIONS: &[&str] = &[
    "al", "ance", "ation", "ee", "ence", "ency", "er", "ion", "ity", "ment", "or", "ure",
];

/// Whether `word` is `term` and one of [`DERIVATIONS`].
pub(crate) fn derives(term: &str, word: &str) -> bool {
    word.strip_prefix(term)
        .is_some_and(|suffix| DERIVATIONS.contains(&suffix))
}

/// A set of HTTP methods.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Methods(u8);

impl Methods {
    const NONE: Self = Self(0);
    const GET: Self = Self(1);
    const POST: Self = Self(2);
    const PUT: Self = Self(4);
    const PATCH: Self = Self(8);
    const DELETE: Self = Self(16);

    const fn or(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The method named `method` (any case); an unknown one is none.
    pub(crate) fn of(method: &str) -> Self {
        match method.to_ascii_uppercase().as_str() {
            "GET" => Self::GET,
            "POST" => Self::POST,
            "PUT" => Self::PUT,
            "PATCH" => Self::PATCH,
            "DELETE" => Self::DELETE,
            _ => Self::NONE,
        }
    }

    fn meets(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }
}

/// One class of verbs: the words a user says, the words APIs name the action with, and the
/// HTTP methods that perform it.
struct Verb {
    words: &'static [&'static str],
    means: &'static [&'static str],
    methods: Methods,
}

/// The verbs a task may start with.
const VERBS: &[Verb] = &[
    Verb {
        words: &[
            "create", "add", "new", "open", "make", "post", "publish", "submit", "insert",
            "register", "write", "store", "save", "put",
        ],
        means: &["create", "add"],
        methods: Methods::POST.or(Methods::PUT),
    },
    Verb {
        words: &[
            "get", "show", "fetch", "retrieve", "view", "read", "display", "see",
        ],
        means: &["get"],
        methods: Methods::GET,
    },
    Verb {
        words: &["list", "enumerate", "browse"],
        means: &["list"],
        methods: Methods::GET,
    },
    // Not a verb, but a question about people: `who starred this`, `who am I`.
    Verb {
        words: &["who", "whom"],
        means: &["user", "people"],
        methods: Methods::GET,
    },
    Verb {
        words: &["search", "find", "look", "lookup", "query"],
        means: &["search", "list", "get"],
        methods: Methods::GET,
    },
    Verb {
        words: &[
            "update", "edit", "modify", "change", "set", "rename", "replace", "alter", "close",
            "reopen",
        ],
        means: &["update", "set"],
        methods: Methods::PATCH.or(Methods::PUT),
    },
    Verb {
        words: &["delete", "remove", "drop", "destroy", "erase", "discard"],
        means: &["delete", "remove"],
        methods: Methods::DELETE,
    },
];

/// Methods that change something: what a task starting with no known verb most likely wants.
const WRITES: Methods = Methods::POST.or(Methods::PUT).or(Methods::PATCH);

/// Words that mean a verb wherever they stand (`a new issue`: create one).
const SYNONYMS: &[(&str, &str)] = &[("new", "create")];

/// Abbreviations common in API documentation, and their long forms.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("admin", "administrator"),
    ("app", "application"),
    ("auth", "authentication"),
    ("config", "configuration"),
    ("db", "database"),
    ("dir", "directory"),
    ("doc", "document"),
    ("env", "environment"),
    ("id", "identifier"),
    ("info", "information"),
    ("msg", "message"),
    ("org", "organization"),
    ("pkg", "package"),
    ("repo", "repository"),
];

/// [`VERBS`] with every word and meaning tokenized as index terms are.
struct Vocabulary {
    verbs: Vec<(Vec<String>, Vec<String>, Methods)>,
    abbreviations: Vec<(String, String)>,
    synonyms: Vec<(String, String)>,
}

fn term(word: &str) -> String {
    tokenize(word).concat()
}

static VOCABULARY: LazyLock<Vocabulary> = LazyLock::new(|| Vocabulary {
    verbs: VERBS
        .iter()
        .map(|v| {
            (
                v.words.iter().map(|w| term(w)).collect(),
                v.means.iter().map(|w| term(w)).collect(),
                v.methods,
            )
        })
        .collect(),
    abbreviations: ABBREVIATIONS
        .iter()
        .map(|(short, long)| (term(short), term(long)))
        .collect(),
    synonyms: SYNONYMS
        .iter()
        .map(|(word, means)| (term(word), term(means)))
        .collect(),
});

/// Adds `term` at `weight` to `alternatives` unless it is there.
fn add(alternatives: &mut Vec<(String, f64)>, term: &str, weight: f64) {
    if !alternatives.iter().any(|(t, _)| t == term) {
        alternatives.push((term.to_owned(), weight));
    }
}

/// One distinct term of a query and what it may match.
#[derive(Debug, Clone)]
pub(crate) struct Stated {
    /// The term itself first, at weight 1, then its synonyms.
    alternatives: Vec<(String, f64)>,
}

impl Stated {
    /// The term as the query states it.
    pub(crate) fn term(&self) -> &str {
        self.alternatives
            .first()
            .map(|(t, _)| t.as_str())
            .unwrap_or_default()
    }

    /// The term and its synonyms, with their weights.
    pub(crate) fn alternatives(&self) -> impl Iterator<Item = (&str, f64)> {
        self.alternatives.iter().map(|(t, w)| (t.as_str(), *w))
    }

    /// Whether words derived from the term match it too.
    pub(crate) fn extends(&self) -> bool {
        self.term().chars().count() >= DERIVED_MIN_LEN
    }
}

/// A parsed query.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    terms: Vec<Stated>,
    /// The methods the leading verb asks for, and the bonus of a tool using one.
    methods: Methods,
    bonus: f64,
}

impl Query {
    /// Tokenizes `text` and expands its terms.
    pub(crate) fn parse(text: &str) -> Self {
        let vocabulary = &*VOCABULARY;
        let mut terms: Vec<Stated> = Vec::new();
        let mut methods = Methods::NONE;
        let mut bonus = 0.0;
        for (position, word) in tokenize(text).into_iter().enumerate() {
            if terms.iter().any(|s| s.term() == word) {
                continue;
            }
            let mut alternatives = vec![(word.clone(), 1.0)];
            for (short, long) in &vocabulary.abbreviations {
                if *short == word {
                    add(&mut alternatives, long, SYNONYM_WEIGHT);
                } else if *long == word {
                    add(&mut alternatives, short, SYNONYM_WEIGHT);
                }
            }
            for (synonym, means) in &vocabulary.synonyms {
                if *synonym == word {
                    add(&mut alternatives, means, SYNONYM_WEIGHT);
                }
            }
            if position == 0 {
                match vocabulary.verbs.iter().find(|(w, _, _)| w.contains(&word)) {
                    Some((_, means, verb_methods)) => {
                        for m in means {
                            add(&mut alternatives, m, SYNONYM_WEIGHT);
                        }
                        methods = *verb_methods;
                        bonus = METHOD_BONUS;
                    }
                    None => {
                        methods = WRITES;
                        bonus = WRITE_BONUS;
                    }
                }
            }
            terms.push(Stated { alternatives });
        }
        Self {
            terms,
            methods,
            bonus,
        }
    }

    /// The distinct terms, in query order.
    pub(crate) fn terms(&self) -> &[Stated] {
        &self.terms
    }

    /// What a tool using `methods` has its score multiplied by.
    pub(crate) fn method_factor(&self, methods: Methods) -> f64 {
        if self.methods.meets(methods) {
            1.0 + self.bonus
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alternatives(query: &Query, i: usize) -> Vec<&str> {
        query.terms()[i].alternatives().map(|(t, _)| t).collect()
    }

    #[test]
    fn a_leading_verb_matches_its_class_and_picks_methods() {
        let query = Query::parse("Open a new repo");
        assert_eq!(alternatives(&query, 0), ["open", "creat", "add"]);
        assert_eq!(alternatives(&query, 1), ["new", "creat"]);
        assert_eq!(alternatives(&query, 2), ["repo", "repository"]);
        assert!(query.method_factor(Methods::POST) > 1.0);
        assert_eq!(query.method_factor(Methods::GET), 1.0);
        // Only the first word is taken for a verb.
        let query = Query::parse("list open issues");
        assert_eq!(alternatives(&query, 1), ["open"]);
        assert!(query.method_factor(Methods::GET) > 1.0);
    }

    #[test]
    fn every_vocabulary_word_is_one_term() {
        for verb in VERBS {
            for word in verb.words.iter().chain(verb.means) {
                assert_eq!(tokenize(word).len(), 1, "{word}");
            }
        }
        for (short, long) in ABBREVIATIONS.iter().chain(SYNONYMS) {
            assert_eq!(tokenize(short).len(), 1, "{short}");
            assert_eq!(tokenize(long).len(), 1, "{long}");
        }
    }
}
