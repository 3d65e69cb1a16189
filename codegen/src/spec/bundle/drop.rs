//! Discriminator mapping entries whose ref cannot be followed: a mapping only helps a reader
//! choose among a schema's `oneOf`/`anyOf` alternatives, which apply without it, so such an
//! entry is removed with a warning naming it instead of making its operations unusable.

use serde_json::Value;

use super::Dangling;
use crate::error::Warning;

/// Whether `at` (segments of a reference's place) is the value of a discriminator mapping
/// entry: `.../discriminator/mapping/<value>`.
pub(super) fn is_mapping_entry(at: &[String]) -> bool {
    matches!(
        at,
        [.., discriminator, mapping, _] if discriminator == "discriminator" && mapping == "mapping"
    )
}

/// Removes each of `dropped` (mapping entries, by their place in `doc`) and returns one warning
/// for each, naming the entry, its ref and why it cannot be followed.
pub(super) fn remove_mapping_entries(doc: &mut Value, dropped: Vec<Dangling>) -> Vec<Warning> {
    dropped
        .into_iter()
        .map(|d| {
            if let [parents @ .., key] = &d.at[..] {
                let mapping = parents
                    .iter()
                    .try_fold(&mut *doc, |node, segment| match node {
                        Value::Object(map) => map.get_mut(segment),
                        Value::Array(items) => segment
                            .parse::<usize>()
                            .ok()
                            .and_then(|i| items.get_mut(i)),
                        _ => None,
                    });
                if let Some(Value::Object(mapping)) = mapping {
                    mapping.shift_remove(key);
                }
            }
            let value = d.at.last().map(String::as_str).unwrap_or_default();
            Warning {
                location: d.error.to_string(),
                message: format!(
                    "the discriminator mapping entry `{value}` is dropped; the schema's `oneOf`/`anyOf` alternatives still apply"
                ),
            }
        })
        .collect()
}
