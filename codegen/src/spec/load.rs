//! Parsing JSON or YAML text into a `serde_json::Value`.
//!
//! - A `.json` file, or text whose first non-blank character is `{`, is read as JSON
//!   (`serde_json`, which limits nesting to 128 levels). Outside `.json` files, text starting
//!   with `{` that is not JSON may still be a YAML flow mapping and is read as YAML.
//! - Anything else is YAML 1.2 (`serde-saphyr`): only `true`/`false` are booleans (`on`, `yes`
//!   stay strings), `1_000` and `0123` stay strings (zip codes and ids keep their digits), and
//!   nesting is limited to 128 levels.
//! - Mapping keys that YAML reads as numbers or booleans (`200:`, `true:`) become strings as
//!   written; a `~`/`null` key becomes `"null"`.
//! - Duplicate keys are errors, in JSON as in YAML, with their line and column.
//! - An empty document, or one whose root is not a mapping, is an [`Error::Spec`].

use std::fmt;
use std::path::Path;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::options::NonFiniteFloatPolicy;

use crate::error::Error;

/// Deepest nesting of sequences and mappings accepted in YAML (the same as `serde_json`).
const MAX_DEPTH: usize = 128;

/// Stack for the YAML parsing thread: `serde-saphyr` uses tens of KiB of stack per nesting
/// level in debug builds, more than a test thread's 2 MiB allows at [`MAX_DEPTH`].
const YAML_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Nesting limit used when no parsing thread can be started and YAML is read on the caller's
/// stack.
const FALLBACK_DEPTH: usize = 24;

/// Parses `text` (JSON or YAML 1.2) read from `path`.
pub fn parse_document(path: &Path, text: &str) -> Result<Value, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let value = if extension == "json" {
        parse_json(path, text)?
    } else if text.trim_start().starts_with('{') {
        // JSON, or a YAML flow mapping (`{a: 1}`); a YAML file's errors are YAML errors.
        match parse_json(path, text) {
            Ok(value) => value,
            Err(json_error) => parse_yaml(path, text).map_err(|yaml_error| {
                if matches!(extension.as_str(), "yaml" | "yml") {
                    yaml_error
                } else {
                    json_error
                }
            })?,
        }
    } else {
        parse_yaml(path, text)?
    };
    check_root(path, value)
}

fn check_root(path: &Path, value: Value) -> Result<Value, Error> {
    let found = match &value {
        Value::Object(_) => return Ok(value),
        Value::Null => {
            return Err(Error::Spec {
                path: path.to_owned(),
                pointer: String::new(),
                message: "the document is empty; expected an OpenAPI or Swagger document (a mapping with `openapi` or `swagger`, `info` and `paths`)".into(),
            });
        }
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
    };
    Err(Error::Spec {
        path: path.to_owned(),
        pointer: String::new(),
        message: format!(
            "the document's root is {found}; expected a mapping with `openapi` or `swagger`, `info` and `paths`"
        ),
    })
}

fn parse_json(path: &Path, text: &str) -> Result<Value, Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Node.deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value))
        .map_err(|e| Error::Syntax {
            path: path.to_owned(),
            line: e.line(),
            column: e.column(),
            message: strip_location(&e.to_string(), e.line(), e.column(), "line {l} column {c}"),
        })
}

fn parse_yaml(path: &Path, text: &str) -> Result<Value, Error> {
    let result = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("mcpgen-yaml".into())
            .stack_size(YAML_STACK_BYTES)
            .spawn_scoped(scope, || yaml_value(text, MAX_DEPTH))
            .ok()
            .map(|handle| handle.join())
    });
    let result = match result {
        Some(Ok(result)) => result,
        // No thread could be started (or it died): read on this stack with a lower limit.
        Some(Err(_)) | None => yaml_value(text, FALLBACK_DEPTH),
    };
    result.map_err(|e| yaml_error(path, e))
}

fn yaml_value(text: &str, max_depth: usize) -> Result<Value, serde_saphyr::Error> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_depth: max_depth,
            max_nodes: usize::MAX,
            max_events: usize::MAX,
            max_total_scalar_bytes: usize::MAX,
        },
        strict_booleans: true,
        underscored_numbers_as_strings: true,
        leading_zero_numbers_as_strings: true,
        non_finite_float_policy: NonFiniteFloatPolicy::AsString,
        with_snippet: false,
    };
    serde_saphyr::from_str_with_options::<YamlRoot>(text, options).map(|root| root.0)
}

fn yaml_error(path: &Path, e: serde_saphyr::Error) -> Error {
    let (line, column) = e.location().map_or((0, 0), |l| {
        (
            usize::try_from(l.line()).unwrap_or(0),
            usize::try_from(l.column()).unwrap_or(0),
        )
    });
    let message = strip_location(&e.to_string(), line, column, "line {l}, column {c}");
    Error::Syntax {
        path: path.to_owned(),
        line,
        column,
        message: plain_yaml_message(message),
    }
}

/// Rewords `serde-saphyr` messages that speak about its API rather than the document.
fn plain_yaml_message(message: String) -> String {
    if let Some(key) = message.strip_prefix("duplicate mapping key: ") {
        let key = key.split(", set DuplicateKeyPolicy").next().unwrap_or(key);
        format!("duplicate mapping key `{key}`; keys must be unique")
    } else if message.starts_with("budget breached: Depth") {
        format!("the document nests more than {MAX_DEPTH} levels deep")
    } else if message.starts_with("multiple YAML documents detected") {
        "the file holds more than one YAML document (`---`); an API description is one document"
            .into()
    } else if message == "expected string scalar" {
        "mapping keys must be strings, numbers or booleans, not lists or mappings".into()
    } else {
        message
    }
}

/// Removes the parser's own ` at line L, column C` suffix: [`Error::Syntax`] shows the location.
fn strip_location(message: &str, line: usize, column: usize, shape: &str) -> String {
    let suffix = format!(
        " at {}",
        shape
            .replace("{l}", &line.to_string())
            .replace("{c}", &column.to_string())
    );
    message.strip_suffix(&suffix).unwrap_or(message).to_owned()
}

/// The YAML document's root, read with [`Node`].
struct YamlRoot(Value);

impl<'de> serde::Deserialize<'de> for YamlRoot {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Node.deserialize(deserializer).map(YamlRoot)
    }
}

/// Reads any value into a [`Value`], turning scalar keys into strings and rejecting duplicate
/// keys.
struct Node;

impl<'de> DeserializeSeed<'de> for Node {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON or YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        i64::try_from(v)
            .map(Value::from)
            .or_else(|_| u64::try_from(v).map(Value::from))
            .map_err(|_| E::custom(format!("integer {v} is too large")))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        u64::try_from(v)
            .map(Value::from)
            .map_err(|_| E::custom(format!("integer {v} is too large")))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or_else(|| Value::String(v.to_string()), Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::String(String::from_utf8_lossy(v).into_owned()))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element_seed(Node)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key_seed(Key)? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate mapping key `{key}`; keys must be unique"
                )));
            }
            let value = map.next_value_seed(Node)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Reads a mapping key as a string; YAML scalars keep their spelling (`200`, `true`).
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_option(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scalar mapping key (string, number or boolean)")
    }

    fn visit_none<E>(self) -> Result<String, E> {
        Ok("null".into())
    }

    fn visit_unit<E>(self) -> Result<String, E> {
        Ok("null".into())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_string(self)
    }

    fn visit_str<E>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E>(self, v: String) -> Result<String, E> {
        Ok(v)
    }

    fn visit_bool<E>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_i64<E>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E>(self, v: f64) -> Result<String, E> {
        Ok(v.to_string())
    }
}
