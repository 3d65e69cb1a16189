//! Finding the definitions typify refuses, by bisection.

use std::collections::{BTreeMap, BTreeSet};

use super::space::new_space;

/// The definitions that make `add_ref_types` fail: found by bisection, replacing suspects with
/// `true` (any value) until the rest is accepted.
pub(super) fn find_bad_defs(defs: &BTreeMap<String, schemars::schema::Schema>) -> Vec<String> {
    if new_space(defs).is_ok() {
        return Vec::new();
    }
    let names: Vec<String> = defs.keys().cloned().collect();
    let mut bad = Vec::new();
    let mut replaced: BTreeSet<String> = BTreeSet::new();
    bisect(defs, &names, &mut replaced, &mut bad);
    bad
}

pub(super) fn passes(
    defs: &BTreeMap<String, schemars::schema::Schema>,
    replaced: &BTreeSet<String>,
) -> bool {
    let trial: BTreeMap<String, schemars::schema::Schema> = defs
        .iter()
        .map(|(k, v)| {
            let v = if replaced.contains(k) {
                schemars::schema::Schema::Bool(true)
            } else {
                v.clone()
            };
            (k.clone(), v)
        })
        .collect();
    new_space(&trial).is_ok()
}

/// Finds bad definitions among `suspects`, given that replacing all of `suspects` (plus
/// `replaced`) passes. Found ones are added to `bad` and stay in `replaced`.
pub(super) fn bisect(
    defs: &BTreeMap<String, schemars::schema::Schema>,
    suspects: &[String],
    replaced: &mut BTreeSet<String>,
    bad: &mut Vec<String>,
) {
    let with = |replaced: &BTreeSet<String>, extra: &[String]| {
        let mut r = replaced.clone();
        r.extend(extra.iter().cloned());
        r
    };
    if passes(defs, replaced) {
        return;
    }
    if suspects.len() <= 1 {
        bad.extend(suspects.iter().cloned());
        replaced.extend(suspects.iter().cloned());
        return;
    }
    let (left, right) = suspects.split_at(suspects.len() / 2);
    // Keep `right` real, replace `left`: if that passes, every culprit is in `left`.
    if passes(defs, &with(replaced, left)) {
        bisect(defs, left, replaced, bad);
        return;
    }
    // Some culprit is in `right`: find those with `left` replaced, then look in `left`.
    let mut tmp = with(replaced, left);
    let before = bad.len();
    bisect(defs, right, &mut tmp, bad);
    replaced.extend(bad[before..].iter().cloned());
    bisect(defs, left, replaced, bad);
}
