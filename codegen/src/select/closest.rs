//! The names closest to one that was not found, for "not found; closest: …" messages.

/// How many candidates [`closest`] returns.
const SHOWN: usize = 3;

/// The (at most three) `candidates` most like `wanted`, most alike first, ties by name.
///
/// A candidate scores the higher of two similarities: Jaro–Winkler between the `normalize`d
/// forms of both (so `sendMessage` meets `send_message` when `normalize` is snake case, or `Chats`
/// meets `chats` when it folds case), and normalized Levenshtein between both as written.
pub fn closest<'c>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'c str>,
    normalize: impl Fn(&str) -> String,
) -> Vec<&'c str> {
    let wanted_norm = normalize(wanted);
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|candidate| {
            let score = strsim::jaro_winkler(&wanted_norm, &normalize(candidate))
                .max(strsim::normalized_levenshtein(wanted, candidate));
            (score, candidate)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(SHOWN)
        .map(|(_, candidate)| candidate)
        .collect()
}
