//! What the mock knows about each operation, worked out once at start-up: the checks of its
//! parameters and body, and the response it answers with.

use mcpgen_codegen::schema::Direction;
use mcpgen_codegen::spec::{MediaType, Operation, ParamLocation, Spec, resolve_local};
use serde_json::Value;

use super::schemas::{Checked, convert};

/// How a parameter's text becomes a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// Plain text, read by the schema's type (`style` form or simple).
    Plain,
    /// JSON text (a parameter with `content`).
    Json,
    /// `name[key]=value` pairs (`style: deepObject`); only its presence is checked.
    DeepObject,
}

/// A parameter's check.
pub(crate) struct ParamCheck {
    pub(crate) name: String,
    pub(crate) location: ParamLocation,
    pub(crate) required: bool,
    pub(crate) encoding: Encoding,
    /// Whether a list is sent as repeated `name=` pairs (else comma-separated).
    pub(crate) explode: bool,
    pub(crate) schema: Checked,
}

/// The request body's check.
pub(crate) struct BodyCheck {
    pub(crate) required: bool,
    /// The media types it may come in, each with the schema of a JSON or form one.
    pub(crate) media: Vec<(String, Option<Checked>)>,
}

/// How a response body is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Json,
    Text,
    Binary,
}

/// The response an operation answers with.
pub(crate) struct Answer {
    pub(crate) status: u16,
    /// The media type and how it is written; `None` for an empty body.
    pub(crate) media: Option<(String, Kind)>,
    /// The media type's own example, when it fits the schema.
    pub(crate) example: Option<Value>,
    pub(crate) schema: Option<Checked>,
}

/// One operation, ready to answer.
pub(crate) struct Prepared {
    /// `GET /tickets/{id}`.
    pub(crate) label: String,
    pub(crate) params: Vec<ParamCheck>,
    pub(crate) body: Option<BodyCheck>,
    pub(crate) answer: Answer,
}

/// Whether `media` is JSON (`application/json`, `…+json`, `*/*`).
pub(crate) fn is_json(media: &str) -> bool {
    let essence = essence(media);
    essence == "application/json" || essence.ends_with("+json") || essence == "*/*"
}

/// Whether `media` is an HTML form (`application/x-www-form-urlencoded`).
pub(crate) fn is_form(media: &str) -> bool {
    essence(media) == "application/x-www-form-urlencoded"
}

/// `type/subtype` of a media type, lower case, without parameters.
pub(crate) fn essence(media: &str) -> String {
    media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Prepares `op` of `spec`; what cannot be used is reported in `warnings`.
pub(crate) fn prepare(spec: &Spec, op: &Operation, warnings: &mut Vec<String>) -> Prepared {
    let label = format!("{} {}", op.method.to_ascii_uppercase(), op.path);
    let params = op
        .parameters
        .iter()
        .filter(|p| p.location != ParamLocation::Cookie)
        .filter(|p| {
            // OpenAPI ignores header parameters named like these.
            p.location != ParamLocation::Header
                || !["accept", "content-type", "authorization"]
                    .contains(&p.name.to_ascii_lowercase().as_str())
        })
        .map(|p| {
            let encoding = if p.schema_pointer.contains("/content/") {
                Encoding::Json
            } else if p.style.as_deref() == Some("deepObject") {
                Encoding::DeepObject
            } else {
                Encoding::Plain
            };
            let form = p.location == ParamLocation::Query
                && p.style.as_deref().is_none_or(|s| s == "form");
            ParamCheck {
                name: p.name.clone(),
                location: p.location,
                required: p.required,
                encoding,
                explode: p.explode.unwrap_or(form),
                schema: convert(
                    &spec.root,
                    &spec.path,
                    Direction::Input,
                    &p.schema,
                    &p.schema_pointer,
                    warnings,
                ),
            }
        })
        .collect();
    let body = op.request_body.as_ref().map(|body| BodyCheck {
        required: body.required,
        media: body
            .content
            .iter()
            .map(|(media, entry)| {
                let checked = is_json(media) || is_form(media);
                let schema = entry.schema.as_ref().filter(|_| checked).map(|s| {
                    convert(
                        &spec.root,
                        &spec.path,
                        Direction::Input,
                        s,
                        &entry.schema_pointer,
                        warnings,
                    )
                });
                (media.clone(), schema)
            })
            .collect(),
    });
    let answer = answer(spec, op, &label, warnings);
    Prepared {
        label,
        params,
        body,
        answer,
    }
}

/// The first 2xx response the operation documents (in spec order; `2XX` answers 200), else its
/// `default` as a 200, else an empty 200.
fn answer(spec: &Spec, op: &Operation, label: &str, warnings: &mut Vec<String>) -> Answer {
    let success = op.responses.iter().find_map(|(code, response)| {
        let status = if code.eq_ignore_ascii_case("2XX") {
            200
        } else {
            code.parse::<u16>()
                .ok()
                .filter(|c| (200..300).contains(c))?
        };
        Some((status, response))
    });
    let chosen = success.or_else(|| op.responses.get("default").map(|r| (200, r)));
    let Some((status, response)) = chosen else {
        return Answer {
            status: 200,
            media: None,
            example: None,
            schema: None,
        };
    };
    let picked = response
        .content
        .iter()
        .find(|(media, _)| is_json(media))
        .or_else(|| response.content.iter().next());
    let Some((media, entry)) = picked.filter(|_| status != 204 && status != 205) else {
        return Answer {
            status,
            media: None,
            example: None,
            schema: None,
        };
    };
    let kind = if is_json(media) {
        Kind::Json
    } else if essence(media).starts_with("text/") || essence(media).ends_with("xml") {
        Kind::Text
    } else {
        Kind::Binary
    };
    let shown = if essence(media) == "*/*" {
        "application/json".to_owned()
    } else {
        media.clone()
    };
    let schema = entry.schema.as_ref().map(|s| {
        convert(
            &spec.root,
            &spec.path,
            Direction::Output,
            s,
            &entry.schema_pointer,
            warnings,
        )
    });
    let mut example = media_example(&spec.root, entry);
    if let (Some(value), Some(validator)) =
        (&example, schema.as_ref().and_then(|s| s.validator.as_ref()))
        && kind == Kind::Json
        && !validator.is_valid(value)
    {
        warnings.push(format!(
            "{label}: the example of the {status} response ({media}) does not fit its schema; \
             answers are made from the schema instead"
        ));
        example = None;
    }
    Answer {
        status,
        media: Some((shown, kind)),
        example,
        schema,
    }
}

/// The media type's `example`, else the value of its first `examples` entry.
fn media_example(root: &Value, entry: &MediaType) -> Option<Value> {
    let pointer = entry.schema_pointer.strip_suffix("/schema")?;
    let object = root.pointer(pointer)?;
    if let Some(example) = object.get("example") {
        return Some(example.clone());
    }
    let (_, first) = object.get("examples")?.as_object()?.iter().next()?;
    let first = match first.get("$ref").and_then(Value::as_str) {
        Some(reference) => resolve_local(root, reference)?,
        None => first,
    };
    first.get("value").cloned()
}
