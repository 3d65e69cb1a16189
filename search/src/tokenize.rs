//! The tokenizer of the search index: the same rules turn a tool's text into index terms (at
//! generation, in `generator/src/emit/search.rs`, and here for tool sets without a compiled
//! index) and a query into query terms.
//!
//! The rules, version [`TOKENIZER_VERSION`]:
//! 1. Words are maximal runs of alphanumeric characters; a word is split again where a lower-case
//!    letter is followed by an upper-case one (`listRepos` → `list`, `Repos`) and before the last
//!    capital of a run of capitals followed by a lower-case letter (`HTTPServer` → `HTTP`,
//!    `Server`).
//! 2. Words are lower-cased; [`STOPWORDS`] are dropped.
//! 3. ASCII words longer than three letters are stemmed: a plural ending is removed (`ies` → `y`,
//!    `sses` → `ss`, `ches`/`shes`/`xes` → without `es`, a final `s` unless the word ends in `ss`,
//!    `us` or `is`); then `ing` (words longer than five letters) or `ed` (longer than five) is
//!    removed, and a doubled final consonant other than `l`, `s`, `z` is undoubled
//!    (`starred` → `star`); then a final `e` of a word longer than four letters is removed
//!    (`create`, `created`, `creating` → `creat`).
//!
//! Changing a rule changes which terms an index holds: bump [`TOKENIZER_VERSION`] here and in
//! the generator together; a server refuses an index built with another version.

/// Version of the rules above, written into every index and checked when one is loaded.
pub const TOKENIZER_VERSION: u32 = 1;

/// Words too common to tell tools apart.
pub const STOPWORDS: &[&str] = &[
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

/// Splits one alphanumeric run at case changes (rule 1).
fn split_case(run: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut words = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|&(_, n)| n.is_lowercase());
        let boundary = (prev.is_lowercase() && c.is_uppercase())
            || (prev.is_uppercase() && c.is_uppercase() && next_lower);
        if boundary {
            words.push(&run[start..at]);
            start = at;
        }
    }
    if start < run.len() {
        words.push(&run[start..]);
    }
    words
}

/// Stems one lower-case word (rule 3).
fn stem(word: &str) -> String {
    if !word.is_ascii() || word.len() <= 3 {
        return word.to_owned();
    }
    let mut w = word.to_owned();
    if w.len() > 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if ["sses", "ches", "shes", "xes"]
        .iter()
        .any(|e| w.ends_with(e))
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is")) {
        w.truncate(w.len() - 1);
    }
    let suffix = if w.len() > 5 && w.ends_with("ing") {
        3
    } else if w.len() > 5 && w.ends_with("ed") {
        2
    } else {
        0
    };
    if suffix > 0 {
        w.truncate(w.len() - suffix);
        let b = w.as_bytes();
        if let [.., x, y] = b
            && x == y
            && !b"aeiouylsz".contains(x)
        {
            w.truncate(w.len() - 1);
        }
    }
    if w.len() > 4 && w.ends_with('e') {
        w.truncate(w.len() - 1);
    }
    w
}

#[cfg(test)]
mod tests {
    use super::tokenize;

    #[test]
    fn words_split_at_punctuation_and_case_changes() {
        assert_eq!(
            tokenize("activity/star-repo-for-authenticated-user"),
            ["activity", "star", "repo", "authenticat", "user"]
        );
        assert_eq!(
            tokenize("listReposHTTPServer"),
            ["list", "repo", "http", "server"]
        );
        assert_eq!(tokenize("/repos/{owner}/{repo}"), ["repo", "owner", "repo"]);
    }

    #[test]
    fn inflections_share_a_stem() {
        for (a, b) in [
            ("repositories", "repository"),
            ("branches", "branch"),
            ("starred", "star"),
            ("created", "create"),
            ("creating", "creates"),
            ("statuses", "status"),
            ("caches", "cache"),
            ("pinned", "pin"),
        ] {
            assert_eq!(tokenize(a), tokenize(b), "{a} / {b}");
        }
    }

    #[test]
    fn stopwords_are_dropped() {
        assert_eq!(
            tokenize("Star a repository for the user"),
            ["star", "repository", "user"]
        );
    }
}
