//! Whether a request fits its operation: path, query and header parameters (present when
//! required, of their schema's type), and the body (a documented media type; a JSON body valid
//! against the request body's schema). A refusal names the JSON pointer of what does not fit:
//! `/path/id`, `/query/limit`, `/header/X-Request-Id`, `/body/quantity`.

use axum::http::HeaderMap;
use mcpgen_codegen::spec::{ParamLocation, escape_pointer_segment};
use serde_json::{Number, Value};

use super::prepare::{BodyCheck, Encoding, ParamCheck, essence, is_form};
use super::schemas::{Checked, first_problem, items_of, property_of, types_of};

/// Why a request is refused.
#[derive(Debug)]
pub(crate) struct Refusal {
    /// 400, or 415 for a media type the operation does not take.
    pub(crate) status: u16,
    /// JSON pointer of what does not fit.
    pub(crate) pointer: String,
    pub(crate) message: String,
}

fn bad(pointer: String, message: String) -> Refusal {
    Refusal {
        status: 400,
        pointer,
        message,
    }
}

/// Checks the parameters; `path` holds the path parameters as matched (decoded).
pub(crate) fn parameters(
    checks: &[ParamCheck],
    path: &[(String, String)],
    query: &[(String, String)],
    headers: &HeaderMap,
) -> Result<(), Refusal> {
    for check in checks {
        let where_ = check.location.as_str();
        let pointer = format!("/{where_}/{}", escape_pointer_segment(&check.name));
        let values: Vec<String> = match check.location {
            ParamLocation::Path => path
                .iter()
                .filter(|(n, _)| *n == check.name)
                .map(|(_, v)| v.clone())
                .collect(),
            ParamLocation::Query if check.encoding == Encoding::DeepObject => {
                let prefix = format!("{}[", check.name);
                query
                    .iter()
                    .filter(|(k, _)| k.starts_with(&prefix))
                    .map(|(_, v)| v.clone())
                    .collect()
            }
            ParamLocation::Query => query
                .iter()
                .filter(|(k, _)| *k == check.name)
                .map(|(_, v)| v.clone())
                .collect(),
            ParamLocation::Header => {
                let mut out = Vec::new();
                for value in headers.get_all(check.name.as_str()) {
                    let text = value.to_str().map_err(|_| {
                        bad(
                            pointer.clone(),
                            "the header is not visible ASCII text".into(),
                        )
                    })?;
                    out.push(text.to_owned());
                }
                out
            }
            ParamLocation::Cookie => continue,
        };
        if values.is_empty() {
            if check.required {
                return Err(bad(
                    pointer,
                    format!("the {where_} parameter `{}` is required", check.name),
                ));
            }
            continue;
        }
        let value = match check.encoding {
            Encoding::DeepObject => continue,
            Encoding::Json => serde_json::from_str(&values[0]).map_err(|e| {
                bad(
                    pointer.clone(),
                    format!("the {where_} parameter `{}` is not JSON: {e}", check.name),
                )
            })?,
            Encoding::Plain => match plain(&values, check) {
                Some(value) => value,
                None => continue,
            },
        };
        if let Some(validator) = &check.schema.validator
            && let Some((at, problem)) = first_problem(validator, &value)
        {
            return Err(bad(
                format!("{pointer}{at}"),
                format!("the {where_} parameter `{}`: {problem}", check.name),
            ));
        }
    }
    Ok(())
}

/// The JSON value of a plain parameter's text, read by its schema's type; `None` for an object
/// (whose form is not checked).
fn plain(values: &[String], check: &ParamCheck) -> Option<Value> {
    let root = &check.schema.schema;
    let types = types_of(root, root);
    if types.contains(&"array") {
        let item_types = types_of(items_of(root, root), root);
        let parts: Vec<&str> = if check.explode && check.location == ParamLocation::Query {
            values.iter().map(String::as_str).collect()
        } else {
            values.iter().flat_map(|v| v.split(',')).collect()
        };
        return Some(Value::Array(
            parts.into_iter().map(|p| scalar(p, &item_types)).collect(),
        ));
    }
    if !types.is_empty() && types.iter().all(|t| *t == "object") {
        return None;
    }
    Some(scalar(&values[0], &types))
}

/// `text` as a number or boolean where the types allow one and it reads as one, else a string.
fn scalar(text: &str, types: &[&str]) -> Value {
    if types.contains(&"integer")
        && let Ok(n) = text.parse::<i64>()
    {
        return Value::Number(n.into());
    }
    if types.contains(&"number")
        && let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64)
    {
        return Value::Number(n);
    }
    if types.contains(&"boolean") && (text == "true" || text == "false") {
        return Value::Bool(text == "true");
    }
    if types.contains(&"null") && text == "null" && !types.contains(&"string") {
        return Value::Null;
    }
    Value::String(text.to_owned())
}

/// Checks the body, sent with `content_type` (JSON when the request does not say).
pub(crate) fn body(
    check: &BodyCheck,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<(), Refusal> {
    let offered: Vec<&str> = check.media.iter().map(|(m, _)| m.as_str()).collect();
    if body.is_empty() {
        if check.required {
            return Err(bad(
                "/body".into(),
                format!("the request body is required ({})", offered.join(", ")),
            ));
        }
        return Ok(());
    }
    let sent = content_type.map_or_else(|| "application/json".to_owned(), essence);
    let matched = check.media.iter().find(|(media, _)| {
        let media = essence(media);
        media == sent
            || media == "*/*"
            || media
                .strip_suffix("/*")
                .is_some_and(|kind| sent.starts_with(&format!("{kind}/")))
    });
    let Some((media, schema)) = matched else {
        return Err(Refusal {
            status: 415,
            pointer: "/header/content-type".into(),
            message: format!(
                "the body's media type `{sent}` is not one the operation takes: {}",
                offered.join(", ")
            ),
        });
    };
    let Some(schema) = schema else {
        return Ok(());
    };
    let value: Value = if is_form(media) {
        form(body, schema)
    } else {
        serde_json::from_slice(body)
            .map_err(|e| bad("/body".into(), format!("the body is not JSON: {e}")))?
    };
    if let Some(validator) = &schema.validator
        && let Some((at, problem)) = first_problem(validator, &value)
    {
        return Err(bad(format!("/body{at}"), format!("the body: {problem}")));
    }
    Ok(())
}

/// A form body as a JSON object: each field read by its property's type, repeated fields of an
/// array property as its items.
fn form(body: &[u8], schema: &Checked) -> Value {
    let root = &schema.schema;
    let mut object = serde_json::Map::new();
    for (name, text) in url::form_urlencoded::parse(body) {
        let property = property_of(root, root, &name);
        let types = property.map(|p| types_of(p, root)).unwrap_or_default();
        if types.contains(&"array") {
            let items = property.map_or(&Value::Null, |p| items_of(p, root));
            let item = scalar(&text, &types_of(items, root));
            match object
                .entry(name.into_owned())
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                Value::Array(list) => list.push(item),
                other => *other = Value::Array(vec![item]),
            }
        } else {
            object
                .entry(name.into_owned())
                .or_insert_with(|| scalar(&text, &types));
        }
    }
    Value::Object(object)
}
