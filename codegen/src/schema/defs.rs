//! `$defs` bookkeeping: resolving `$ref`s in the document, naming their targets, reserving
//! and queueing them, and hoisting schema-local `$defs`.

use mcpgen_core::json_pointer;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::{NO_NAMES, SchemaConverter, child};
use crate::keywords;
use percent_encoding::percent_decode_str;

/// Prefix of `$defs` names made for references that are not `#/components/schemas/<name>`.
const REF_PREFIX: &str = "ref__";
/// Longest readable part of a `$defs` name (a hash suffix keeps longer names distinct).
const MAX_NAME_LEN: usize = 96;
/// How long a chain of `$ref`-only schemas may be before it counts as a cycle.
const MAX_REF_CHAIN: usize = 64;

impl<'a> SchemaConverter<'a> {
    /// Moves schema-local `$defs` (found at `ptr`) into the converter's `$defs`, under the
    /// names that references to them (`#<ptr>/<name>`) get.
    pub(super) fn hoist(&mut self, map: &Map<String, Value>, ptr: &str, depth: usize) {
        self.stop_sharing();
        let base = split_pointer(ptr).unwrap_or_default();
        for (name, schema) in map {
            let mut segments = base.clone();
            segments.push(name.clone());
            let def_name = def_name_from_segments(&segments);
            if self.defs.contains_key(&def_name) {
                continue;
            }
            self.defs.insert(def_name.clone(), Value::Bool(true));
            let converted = self.conv(schema, &child(ptr, name), depth + 1, &NO_NAMES);
            self.defs.insert(def_name, converted);
        }
    }

    /// Makes sure every schema named in a discriminator's `mapping` is in `$defs`.
    pub(super) fn discriminator_mapping(&mut self, value: &Value, ptr: &str) {
        let Some(Value::Object(mapping)) = value.get("mapping") else {
            return;
        };
        let mapping_ptr = child(ptr, "mapping");
        for (key, target) in mapping {
            let at = child(&mapping_ptr, key);
            let reference = match target {
                Value::String(s) if s.starts_with('#') => s.clone(),
                // A bare schema name.
                Value::String(s) if !s.contains('/') && !s.contains('#') => {
                    format!("#/components/schemas/{}", json_pointer::escape(s))
                }
                Value::String(s) => {
                    self.warn(
                        &at,
                        format!(
                            "discriminator mapping `{s}` is not a local reference or a schema name; ignored"
                        ),
                    );
                    continue;
                }
                other => {
                    self.dropped(&at, "discriminator mapping", "a string", other);
                    continue;
                }
            };
            // Converters that convert only what is asked for never ask for a schema that is
            // only named here (the keyword is dropped): the reference is only checked.
            let _ = self.ref_name(&Value::String(reference), &at, ptr, !self.lazy);
        }
    }

    /// Resolves a `$ref` value found at `at` (inside the schema at `ptr`), reserves its `$defs`
    /// name and queues its target; `None` (with a warning) when it cannot be used.
    pub(super) fn ref_to_def(&mut self, value: &Value, at: &str, ptr: &str) -> Option<String> {
        self.ref_name(value, at, ptr, true)
    }

    /// The `$defs` name a `$ref` value found at `at` (inside the schema at `ptr`) gets, with
    /// its target reserved and queued under it when `reserve` is set; `None` (with a warning)
    /// when it cannot be used.
    fn ref_name(&mut self, value: &Value, at: &str, ptr: &str, reserve: bool) -> Option<String> {
        let Value::String(reference) = value else {
            self.dropped(at, "$ref", "a string", value);
            return None;
        };
        let Some(segments) = parse_ref(reference) else {
            self.warn(
                at,
                format!(
                    "`$ref` `{reference}` is not a local JSON pointer (`#/...`); used `{{}}` (any value) instead"
                ),
            );
            return None;
        };
        let Some((segments, target)) = self.resolve_segments(segments, ptr) else {
            self.warn(
                at,
                format!(
                    "`$ref` `{reference}` does not resolve in the document; used `{{}}` (any value) instead"
                ),
            );
            return None;
        };
        if !is_schema_position(&segments) || !matches!(target, Value::Object(_) | Value::Bool(_)) {
            self.warn(
                at,
                format!(
                    "`$ref` `{reference}` points to something that is not a schema; used `{{}}` (any value) instead"
                ),
            );
            return None;
        }
        let name = def_name_from_segments(&segments);
        if self.defs.contains_key(&name) {
            if reserve {
                self.record(&name, target, &segments);
            }
            return Some(name);
        }
        if self.is_ref_cycle(target, &segments) {
            self.warn(
                at,
                format!(
                    "`$ref` `{reference}` starts a cycle of references that never reaches a schema; used `{{}}` (any value) instead"
                ),
            );
            return None;
        }
        if reserve {
            // Reserve the name before converting, so recursive schemas terminate.
            let pointer = self.record(&name, target, &segments);
            self.reserve(&name, target, &pointer);
        }
        Some(name)
    }

    /// Notes a reservation for [`super::SharedDefs`] while one is being recorded; the target's
    /// pointer.
    fn record(&mut self, name: &str, target: &'a Value, segments: &[String]) -> String {
        let pointer = json_pointer::join(segments);
        if let Some(recording) = &mut self.recording {
            recording.push((name.to_owned(), target, pointer.clone()));
        }
        pointer
    }

    /// Looks `segments` up in the document; a `#/$defs/...` or `#/definitions/...` reference
    /// that does not resolve from the document root is looked up in the schemas enclosing
    /// `ptr`, innermost first (a JSON Schema copied into the document with its local `$defs`).
    pub(super) fn resolve_segments(
        &self,
        segments: Vec<String>,
        ptr: &str,
    ) -> Option<(Vec<String>, &'a Value)> {
        if let Some(target) = self.lookup(&segments) {
            return Some((segments, target));
        }
        if !matches!(
            segments.first().map(String::as_str),
            Some("$defs" | "definitions")
        ) {
            return None;
        }
        let enclosing = split_pointer(ptr)?;
        for len in (0..=enclosing.len()).rev() {
            let mut candidate = enclosing[..len].to_vec();
            candidate.extend(segments.iter().cloned());
            if let Some(target) = self.lookup(&candidate) {
                return Some((candidate, target));
            }
        }
        None
    }

    /// Resolves a reference without warnings (for probes).
    pub(super) fn resolve_quiet(&self, reference: &str) -> Option<&'a Value> {
        self.lookup(&parse_ref(reference)?)
    }

    /// The value at `segments` in the document.
    pub(super) fn lookup(&self, segments: &[String]) -> Option<&'a Value> {
        let mut current = self.root;
        for segment in segments {
            current = match current {
                Value::Object(map) => map.get(segment)?,
                Value::Array(items) => items.get(array_index(segment)?)?,
                _ => return None,
            };
        }
        Some(current)
    }

    /// Whether following `$ref`s from `target` (at `segments`) comes back without ever
    /// reaching a schema that is more than a reference.
    pub(super) fn is_ref_cycle(&self, target: &'a Value, segments: &[String]) -> bool {
        let mut seen = vec![json_pointer::join(segments)];
        let mut current = target;
        for _ in 0..MAX_REF_CHAIN {
            let Some(Value::String(reference)) = current.get("$ref") else {
                return false;
            };
            let Some(next_segments) = parse_ref(reference) else {
                return false;
            };
            let Some(next) = self.lookup(&next_segments) else {
                return false;
            };
            let pointer = json_pointer::join(&next_segments);
            if seen.contains(&pointer) {
                return true;
            }
            seen.push(pointer);
            current = next;
        }
        true
    }
}

/// The `$defs` name for the schema a local reference (`#/...`) points to.
///
/// A pure function of the pointer, so every converter over a document names a schema the same
/// way: `#/components/schemas/Pet` → `Pet`. Component names are kept when they consist of
/// `[A-Za-z0-9_.-]`; otherwise the other characters become `_` and `-` plus 8 hex digits of the
/// pointer's SHA-256 are appended (`Page«User»` → `Page_User_-1a2b3c4d`), so distinct names stay
/// distinct. Any other pointer becomes `ref__` + its segments joined with `_` + the hash suffix
/// (`#/paths/~1a/get/responses/200/content/application~1json/schema` →
/// `ref__paths_a_get_responses_200_content_application_json_schema-…`); component names starting
/// with `ref__` also get the suffix, so the two kinds never collide.
pub fn def_name_for_pointer(reference: &str) -> String {
    match parse_ref(reference) {
        Some(segments) => def_name_from_segments(&segments),
        None => {
            let body = sanitize(reference);
            let body = body.trim_matches('_');
            let body = if body.is_empty() { "root" } else { body };
            format!("{REF_PREFIX}{}-{}", truncate(body), short_hash(reference))
        }
    }
}

fn def_name_from_segments(segments: &[String]) -> String {
    let canonical = format!("#{}", json_pointer::join(segments));
    if let [components, schemas, name] = segments
        && components == "components"
        && schemas == "schemas"
    {
        let clean = sanitize(name);
        if clean == *name
            && !clean.is_empty()
            && !clean.starts_with(REF_PREFIX)
            && clean.len() <= MAX_NAME_LEN
        {
            return clean;
        }
        let clean = if clean.is_empty() {
            "_"
        } else {
            truncate(&clean)
        };
        return format!("{clean}-{}", short_hash(&canonical));
    }
    let parts: Vec<String> = segments
        .iter()
        .map(|s| sanitize(s).trim_matches('_').to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    let body = if parts.is_empty() {
        "root".to_owned()
    } else {
        parts.join("_")
    };
    format!("{REF_PREFIX}{}-{}", truncate(&body), short_hash(&canonical))
}

/// `[A-Za-z0-9_.-]` kept, every other character → `_`.
fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// At most [`MAX_NAME_LEN`] bytes of an ASCII name.
fn truncate(s: &str) -> &str {
    s.get(..MAX_NAME_LEN).unwrap_or(s)
}

fn short_hash(s: &str) -> String {
    let digest = Sha256::digest(s.as_bytes());
    hex::encode(&digest[..4])
}

/// `#/$defs/<name>`.
pub(super) fn def_ref(name: &str) -> String {
    format!("#/$defs/{}", json_pointer::escape(name))
}

/// Whether a pointer (as segments) can address a schema: `components/schemas/<name>`, a
/// `schema` of a parameter/media type/header, or a subschema of one of these. Pointers into
/// places this does not know (vendor extensions, a leftover top-level `definitions`) count as
/// schemas; the target must still be an object or a boolean.
pub(super) fn is_schema_position(segments: &[String]) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum At {
        OpenApi,
        SchemaMap,
        SchemaList,
        Schema,
        Data,
        Unknown,
    }
    let mut at = At::OpenApi;
    for (i, segment) in segments.iter().enumerate() {
        let s = segment.as_str();
        at = match at {
            At::OpenApi if i == 0 => match s {
                "components" | "paths" | "webhooks" => At::OpenApi,
                "openapi" | "info" | "servers" | "security" | "tags" | "externalDocs"
                | "jsonSchemaDialect" => At::Data,
                _ => At::Unknown,
            },
            At::OpenApi if i == 1 && segments[0] == "components" => match s {
                "schemas" => At::SchemaMap,
                _ if s.starts_with("x-") => At::Unknown,
                _ => At::OpenApi,
            },
            At::OpenApi => match s {
                "schema" => At::Schema,
                "example" | "examples" => At::Data,
                _ if s.starts_with("x-") => At::Unknown,
                _ => At::OpenApi,
            },
            At::SchemaMap | At::SchemaList => At::Schema,
            At::Schema => match s {
                _ if keywords::SUBSCHEMA.contains(&s) => At::Schema,
                _ if keywords::SUBSCHEMA_MAP.contains(&s) => At::SchemaMap,
                _ if keywords::SUBSCHEMA_LIST.contains(&s) => At::SchemaList,
                // Tuple `items: [..]`.
                _ if array_index(s).is_some() => At::Schema,
                "enum" | "const" | "default" | "example" | "examples" | "required" | "type"
                | "discriminator" | "xml" | "externalDocs" | "dependentRequired" => At::Data,
                _ => At::Unknown,
            },
            At::Data => At::Data,
            At::Unknown => At::Unknown,
        };
    }
    matches!(at, At::Schema | At::Unknown)
}

/// The segments of a local reference (`#/a/b`, percent-decoded, `~` escapes undone).
pub(super) fn parse_ref(reference: &str) -> Option<Vec<String>> {
    let fragment = reference.strip_prefix('#')?;
    split_pointer(&percent_decode_str(fragment).decode_utf8_lossy())
}

/// The segments of a JSON pointer (`/a/b`, `~` escapes undone).
pub(super) fn split_pointer(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(rest.split('/').map(json_pointer::unescape).collect())
}

/// An array index as JSON pointer writes it (no sign, no leading zeros).
pub(super) fn array_index(segment: &str) -> Option<usize> {
    if segment.is_empty()
        || !segment.bytes().all(|b| b.is_ascii_digit())
        || (segment.len() > 1 && segment.starts_with('0'))
    {
        return None;
    }
    segment.parse().ok()
}
