//! The terminal answers for `mcpgen call` and `mcpgen tools`: a server's question
//! (elicitation) is shown on stderr and answered line by line on stdin. The end of input
//! cancels the question, so with no terminal nothing is ever accepted.

use std::io::{BufRead, Write};

use mcpgen_client::answer::{ElicitAnswer, ElicitMode, ElicitRequest, Elicitor};
use mcpgen_runtime::BoxFuture;
use serde_json::{Map, Value};

/// Asks on the terminal, one question at a time.
#[derive(Default)]
pub(crate) struct Terminal {
    one_at_a_time: tokio::sync::Mutex<()>,
}

impl Elicitor for Terminal {
    fn elicit<'a>(&'a self, request: &'a ElicitRequest) -> BoxFuture<'a, ElicitAnswer> {
        Box::pin(async move {
            let _turn = self.one_at_a_time.lock().await;
            let request = request.clone();
            tokio::task::spawn_blocking(move || {
                let stdin = std::io::stdin();
                let mut input = stdin.lock();
                ask(&request, &mut input, &mut std::io::stderr())
            })
            .await
            .unwrap_or(ElicitAnswer::Cancel)
        })
    }
}

/// One line of input, trimmed; `None` at the end of input.
fn line(input: &mut impl BufRead) -> Option<String> {
    let mut buf = String::new();
    match input.read_line(&mut buf) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(buf.trim().to_owned()),
    }
}

/// Asks `request` on `out`, reading answers from `input`.
pub(crate) fn ask(
    request: &ElicitRequest,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> ElicitAnswer {
    let _ = writeln!(
        out,
        "\nServer `{}` asks:\n{}\n",
        request.server, request.message
    );
    if let ElicitMode::Url { url } = &request.mode {
        let _ = writeln!(out, "Open {url}");
    }
    let mut answer = Map::new();
    for (name, field) in request.fields() {
        let required = request.is_required(name);
        match ask_field(name, field, required, input, out) {
            Field::Value(v) => {
                answer.insert(name.to_owned(), v);
            }
            Field::Skipped => {}
            Field::EndOfInput => {
                let _ = writeln!(out, "(no answer: cancelled)");
                return ElicitAnswer::Cancel;
            }
        }
    }
    ElicitAnswer::Accept(answer)
}

enum Field {
    Value(Value),
    Skipped,
    EndOfInput,
}

fn ask_field(
    name: &str,
    field: &Value,
    required: bool,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Field {
    let label = field.get("title").and_then(Value::as_str).unwrap_or(name);
    let kind = field
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    let choices = choices(field);
    if let Some(description) = field.get("description").and_then(Value::as_str) {
        let _ = writeln!(out, "{label}: {description}");
    }
    for (i, (value, title)) in choices.iter().enumerate() {
        let _ = writeln!(out, "  {}) {title}", i + 1);
        let _ = value;
    }
    let hint = match (kind, choices.is_empty()) {
        ("boolean", _) => " [y/n]",
        (_, false) => " [number or value]",
        ("integer", _) => " [whole number]",
        ("number", _) => " [number]",
        _ => "",
    };
    let optional = if required { "" } else { " (empty to skip)" };
    loop {
        let _ = write!(out, "{label}{hint}{optional}: ");
        let _ = out.flush();
        let Some(text) = line(input) else {
            return Field::EndOfInput;
        };
        if text.is_empty() {
            if let Some(default) = field.get("default") {
                return Field::Value(default.clone());
            }
            if !required {
                return Field::Skipped;
            }
            let _ = writeln!(out, "an answer is required");
            continue;
        }
        match parse(kind, &choices, &text) {
            Ok(v) => return Field::Value(v),
            Err(why) => {
                let _ = writeln!(out, "{why}; try again");
            }
        }
    }
}

/// The enum choices of a field: `enum` (titled by `enumNames` when present), or
/// `oneOf`/`anyOf` of `const` with `title`.
fn choices(field: &Value) -> Vec<(Value, String)> {
    if let Some(values) = field.get("enum").and_then(Value::as_array) {
        let names = field.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let title = names
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| v.as_str().map_or_else(|| v.to_string(), str::to_owned));
                (v.clone(), title)
            })
            .collect();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = field.get(key).and_then(Value::as_array) {
            return options
                .iter()
                .filter_map(|o| {
                    let value = o.get("const")?.clone();
                    let title = o
                        .get("title")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .unwrap_or_else(|| value.to_string());
                    Some((value, title))
                })
                .collect();
        }
    }
    Vec::new()
}

fn parse(kind: &str, choices: &[(Value, String)], text: &str) -> Result<Value, String> {
    if !choices.is_empty() {
        if let Ok(n) = text.parse::<usize>()
            && let Some((v, _)) = n.checked_sub(1).and_then(|i| choices.get(i))
        {
            return Ok(v.clone());
        }
        return choices
            .iter()
            .find(|(v, title)| v.as_str() == Some(text) || title == text)
            .map(|(v, _)| v.clone())
            .ok_or_else(|| "not one of the choices".to_owned());
    }
    match kind {
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Value::Bool(true)),
            "n" | "no" | "false" => Ok(Value::Bool(false)),
            _ => Err("answer y or n".to_owned()),
        },
        "integer" => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| "not a whole number".to_owned()),
        "number" => text
            .parse::<f64>()
            .ok()
            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
            .ok_or_else(|| "not a number".to_owned()),
        _ => Ok(Value::String(text.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn form(schema: Value) -> ElicitRequest {
        ElicitRequest {
            server: "library".into(),
            message: "Confirm?".into(),
            mode: ElicitMode::Form { schema },
        }
    }

    fn answer(schema: Value, typed: &str) -> (ElicitAnswer, String) {
        let mut out = Vec::new();
        let got = ask(&form(schema), &mut typed.as_bytes(), &mut out);
        (got, String::from_utf8_lossy(&out).into_owned())
    }

    #[test]
    fn yes_no_and_end_of_input() {
        let schema = json!({"type": "object", "properties": {"confirm": {"type": "boolean", "title": "Make this call"}}, "required": ["confirm"]});
        let (yes, shown) = answer(schema.clone(), "y\n");
        assert_eq!(
            yes,
            ElicitAnswer::Accept(json!({"confirm": true}).as_object().cloned().unwrap())
        );
        assert!(
            shown.contains("Server `library` asks:\nConfirm?"),
            "{shown}"
        );
        assert!(shown.contains("Make this call [y/n]: "), "{shown}");
        let (no, _) = answer(schema.clone(), "maybe\nno\n");
        assert_eq!(
            no,
            ElicitAnswer::Accept(json!({"confirm": false}).as_object().cloned().unwrap())
        );
        let (none, _) = answer(schema, "");
        assert_eq!(none, ElicitAnswer::Cancel);
    }

    #[test]
    fn numbers_enums_and_optional_fields() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer"},
            "colour": {"type": "string", "enum": ["red", "green"]},
            "note": {"type": "string"}
        }, "required": ["n", "colour"]});
        let (got, _) = answer(schema, "x\n42\n2\n\n");
        assert_eq!(
            got,
            ElicitAnswer::Accept(
                json!({"n": 42, "colour": "green"})
                    .as_object()
                    .cloned()
                    .unwrap()
            )
        );
    }
}
