//! Which operations use a `$ref` that cannot be followed, when that `$ref` stands outside
//! `paths` (in a component, or in a file a component comes from): every operation that reaches
//! it through local references is unusable, and the others are not affected.

use std::collections::{HashMap, HashSet, VecDeque};

use mcpgen_core::json_pointer;
use serde_json::Value;

use super::kind::Kind;
use super::reference::parse_reference;
use super::walk::walk_object;
use super::{Dangling, Unusable};
use crate::error::Warning;

/// The operations of `doc` (bundled) that reach one of `dangling`, each with the error of the
/// first one it reaches, and warnings for those no operation reaches.
pub(super) fn unusable_operations(
    doc: &mut Value,
    dangling: Vec<Dangling>,
) -> (Vec<Unusable>, Vec<Warning>) {
    // Every local reference: target segments → where the references to it stand.
    let mut refs_to: HashMap<Vec<String>, Vec<Vec<String>>> = HashMap::new();
    let mut path = Vec::new();
    walk_object(doc, Kind::Other, &mut path, &mut |reference, _, at| {
        if let Ok(parts) = parse_reference(reference)
            && parts.file.is_empty()
        {
            refs_to
                .entry(json_pointer::tokens(&parts.pointer))
                .or_default()
                .push(at.to_vec());
        }
    });

    // A place is unusable when it is a dangling reference, or a reference to something that
    // holds an unusable place; each remembers the dangling reference it leads to.
    let mut origin: HashMap<Vec<String>, usize> = HashMap::new();
    let mut queue = VecDeque::new();
    for (i, d) in dangling.iter().enumerate() {
        if origin.insert(d.at.clone(), i).is_none() {
            queue.push_back(d.at.clone());
        }
    }
    while let Some(at) = queue.pop_front() {
        let from = origin.get(&at).copied().unwrap_or_default();
        for len in 0..=at.len() {
            for place in refs_to.get(&at[..len]).into_iter().flatten() {
                if !origin.contains_key(place) {
                    origin.insert(place.clone(), from);
                    queue.push_back(place.clone());
                }
            }
        }
    }

    let mut places: Vec<(&Vec<String>, usize)> = origin.iter().map(|(p, &i)| (p, i)).collect();
    places.sort();
    let mut unusable = Vec::new();
    let mut seen = HashSet::new();
    let mut reached = HashSet::new();
    for (at, i) in places {
        let Some((path, method)) = super::copy::operation_of(at) else {
            continue;
        };
        reached.insert(i);
        if seen.insert((path.clone(), method.clone(), i)) {
            unusable.push(Unusable {
                path,
                method,
                error: dangling[i].error.clone(),
            });
        }
    }
    let warnings = dangling
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !reached.contains(i))
        .map(|(_, d)| Warning {
            location: d.error.to_string(),
            message: "no operation uses it, so nothing is left out".into(),
        })
        .collect();
    (unusable, warnings)
}
