//! The body of an answer: the media type's example, else a value made from the response schema
//! with the request's seed (the schema's own examples first, then without them if that value
//! does not fit the schema as a whole).

use serde_json::Value;

use super::prepare::{Answer, Kind};
use super::sample::Sampler;
use super::seed::Rng;

/// The body for `answer`, made with `seed`; a second element says why it may not fit the
/// schema (the schema cannot be met by the values made here).
pub(crate) fn body(answer: &Answer, seed: u64) -> (Vec<u8>, Option<String>) {
    let Some((_, kind)) = &answer.media else {
        return (Vec::new(), None);
    };
    let (value, problem) = match (&answer.example, &answer.schema) {
        (Some(example), _) => (example.clone(), None),
        (None, Some(checked)) => {
            let mut sampler = Sampler::new(&checked.schema);
            let value = sampler.value(&checked.schema, &mut Rng::new(seed));
            match &checked.validator {
                Some(validator) if !validator.is_valid(&value) => {
                    sampler.examples = false;
                    let value = sampler.value(&checked.schema, &mut Rng::new(seed));
                    let problem = (!validator.is_valid(&value))
                        .then(|| "the value made does not fit the response schema".to_owned());
                    (value, problem)
                }
                _ => (value, None),
            }
        }
        (None, None) => (Value::Null, None),
    };
    let bytes = match (kind, &value) {
        (Kind::Json, _) => serde_json::to_vec(&value).unwrap_or_default(),
        (Kind::Text | Kind::Binary, Value::String(text)) => text.clone().into_bytes(),
        (Kind::Text | Kind::Binary, Value::Null) => b"example".to_vec(),
        (Kind::Text | Kind::Binary, other) => other.to_string().into_bytes(),
    };
    (bytes, problem)
}
