//! Argument and output validation: JSON Schema (draft 2020-12) validators per tool.
//!
//! At start-up each schema is only checked against its meta-schema, so a broken schema is
//! still a build error; the validator itself is compiled on the tool's first call (compiling
//! the validators of a 1,000-tool server was a quarter of its cold start).

use std::collections::HashMap;
use std::sync::OnceLock;

use jsonschema::{ValidationError, Validator, error::ValidationErrorKind};
use mcpgen_core::tool::ToolDef;
use serde_json::{Map, Value};

use super::full_schema::{Which, full_schema};
use super::parse::draft_of;

/// At most this many problems are reported for one call.
const MAX_REPORTED: usize = 5;
/// Longest single problem description (the validator quotes the offending value).
const MAX_PROBLEM_CHARS: usize = 300;

/// The compiled input-schema validator of one tool.
pub(crate) struct ArgsValidator {
    validator: Validator,
}

impl std::fmt::Debug for ArgsValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ArgsValidator")
    }
}

impl ArgsValidator {
    /// Compiles `schema` as JSON Schema 2020-12, or as draft-07 when its `$schema` says so (the
    /// generator's `draft-07` profile). The error says what is wrong with the schema.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        jsonschema::options()
            .with_draft(draft_of(schema))
            .build(schema)
            .map(|validator| Self { validator })
            .map_err(|e| e.to_string())
    }

    /// Checks `args`. The error names each offending field (as a JSON pointer into the
    /// arguments) and what is wrong with it.
    pub(crate) fn check(&self, args: &Value) -> Result<(), String> {
        self.check_as(
            args,
            "arguments",
            "the arguments do not match the input schema",
        )
    }

    /// Checks `value`, naming the root `root` in messages and saying `mismatch` when the
    /// validator gives no details.
    pub(crate) fn check_as(&self, args: &Value, root: &str, mismatch: &str) -> Result<(), String> {
        if self.validator.is_valid(args) {
            return Ok(());
        }
        let mut problems: Vec<String> = Vec::new();
        let mut more = 0usize;
        for error in self.validator.iter_errors(args) {
            if problems.len() < MAX_REPORTED {
                problems.push(describe(&error, root));
            } else {
                more += 1;
            }
        }
        if problems.is_empty() {
            // `is_valid` and `iter_errors` disagree only if the validator is inconsistent;
            // refuse rather than let unvalidated arguments through.
            problems.push(mismatch.to_owned());
        }
        let mut message = problems.join("; ");
        if more > 0 {
            message.push_str(&format!(" (and {more} more)"));
        }
        Err(message)
    }
}

/// Where a [`LazyValidator`]'s schema comes from.
enum Source {
    /// JSON text.
    Text(&'static str),
    /// A tool's full input schema.
    Full(Box<ToolDef>),
}

/// A validator compiled from its schema text on first use.
pub(crate) struct LazyValidator {
    schema: Source,
    compiled: OnceLock<Result<ArgsValidator, String>>,
}

impl std::fmt::Debug for LazyValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyValidator")
            .field("compiled", &self.compiled.get().is_some())
            .finish()
    }
}

impl LazyValidator {
    /// A validator for the JSON object `schema`, which the caller has parsed and checked
    /// with [`check_schema`](super::parse::check_schema).
    pub(crate) fn new(schema: &'static str) -> Self {
        Self {
            schema: Source::Text(schema),
            compiled: OnceLock::new(),
        }
    }

    /// A validator for `def`'s full input schema, put together with the shared definitions it
    /// reaches on first use.
    pub(crate) fn full(def: ToolDef) -> Self {
        Self {
            schema: Source::Full(Box::new(def)),
            compiled: OnceLock::new(),
        }
    }

    /// The compiled validator, compiled now on first use; the error says why the schema
    /// does not compile.
    fn get(&self) -> Result<&ArgsValidator, String> {
        self.compiled
            .get_or_init(|| {
                let schema: Value = match &self.schema {
                    Source::Text(text) => serde_json::from_str(text)
                        .map_err(|e| format!("the schema is not valid JSON: {e}"))?,
                    Source::Full(def) => match full_schema(def.as_ref(), Which::Input) {
                        Some(full) => Value::Object(full?),
                        None => serde_json::from_str(def.input_schema)
                            .map_err(|e| format!("the schema is not valid JSON: {e}"))?,
                    },
                };
                ArgsValidator::compile(&schema)
            })
            .as_ref()
            .map_err(|message| format!("the schema does not compile: {message}"))
    }
}

/// One problem, as "`/path/to/field`: what is wrong".
fn describe(error: &ValidationError<'_>, root: &str) -> String {
    let path = error.instance_path().as_str();
    let text = match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            return format!("`{path}/{name}`: required field is missing");
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let names: Vec<String> = unexpected.iter().map(|n| format!("`{path}/{n}`")).collect();
            return format!("{}: unexpected field(s)", names.join(", "));
        }
        _ => truncate(error.to_string()),
    };
    if path.is_empty() {
        format!("{root}: {text}")
    } else {
        format!("`{path}`: {text}")
    }
}

fn truncate(mut text: String) -> String {
    if text.chars().count() > MAX_PROBLEM_CHARS {
        text = text.chars().take(MAX_PROBLEM_CHARS).collect();
        text.push('…');
    }
    text
}

/// The validators of every tool a server serves, by tool name.
#[derive(Debug, Default)]
pub(crate) struct Validators {
    by_tool: HashMap<&'static str, LazyValidator>,
    outputs: HashMap<&'static str, LazyValidator>,
}

impl Validators {
    /// Adds the output validator of `tool`.
    pub(crate) fn insert_output(&mut self, tool: &'static str, validator: LazyValidator) {
        self.outputs.insert(tool, validator);
    }

    /// Checks `output` (structured content) against the output schema of `tool`; a tool
    /// without an output validator passes. The error names each failing location as a JSON
    /// pointer into the structured content.
    pub(crate) fn validate_output(&self, tool: &str, output: &Value) -> Result<(), String> {
        match self.outputs.get(tool) {
            Some(validator) => validator.get()?.check_as(
                output,
                "output",
                "the output does not match the output schema",
            ),
            None => Ok(()),
        }
    }

    /// Adds the validator of `tool`.
    pub(crate) fn insert(&mut self, tool: &'static str, validator: LazyValidator) {
        self.by_tool.insert(tool, validator);
    }

    /// Validates `args` (the arguments object) against the input schema of `tool`. A tool
    /// without a validator is refused, so nothing reaches a tool set unvalidated.
    pub(crate) fn validate(&self, tool: &str, args: &Value) -> Result<(), String> {
        let Some(validator) = self.by_tool.get(tool) else {
            return Err(format!("no input schema is known for tool `{tool}`"));
        };
        validator.get()?.check(args)
    }

    /// [`validate`](Self::validate) for an arguments map, which is handed back unchanged: the
    /// validator reads JSON values, so the map is lent to it as one, without a copy.
    pub(crate) fn validate_map(
        &self,
        tool: &str,
        args: Map<String, Value>,
    ) -> (Map<String, Value>, Result<(), String>) {
        let value = Value::Object(args);
        let verdict = self.validate(tool, &value);
        let args = match value {
            Value::Object(args) => args,
            // Built as an object just above.
            _ => Map::new(),
        };
        (args, verdict)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::server::catalog::schema::parse::check_schema;

    fn validators() -> Validators {
        let schema = r#"{
            "type": "object",
            "properties": {
                "message": {"type": "string", "minLength": 1},
                "chatId": {"type": "integer", "minimum": 1},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["message"],
            "additionalProperties": false
        }"#;
        let mut v = Validators::default();
        v.insert("send", LazyValidator::new(schema));
        v
    }

    fn args(value: Value) -> Value {
        value
    }

    #[test]
    fn valid_arguments_pass() {
        let v = validators();
        assert_eq!(
            v.validate("send", &args(json!({"message": "hi", "chatId": 3}))),
            Ok(())
        );
    }

    #[test]
    fn a_missing_required_field_is_named() {
        let err = validators().validate("send", &args(json!({}))).unwrap_err();
        assert!(err.contains("`/message`"), "{err}");
        assert!(err.contains("required"), "{err}");
    }

    #[test]
    fn a_wrong_type_names_the_field_and_the_problem() {
        let err = validators()
            .validate("send", &args(json!({"message": "hi", "chatId": "seven"})))
            .unwrap_err();
        assert!(err.contains("`/chatId`"), "{err}");
        assert!(err.contains("integer"), "{err}");
    }

    #[test]
    fn nested_fields_are_named_by_pointer() {
        let err = validators()
            .validate("send", &args(json!({"message": "hi", "tags": ["a", 2]})))
            .unwrap_err();
        assert!(err.contains("`/tags/1`"), "{err}");
    }

    #[test]
    fn unexpected_fields_are_named() {
        let err = validators()
            .validate("send", &args(json!({"message": "hi", "colour": "red"})))
            .unwrap_err();
        assert!(err.contains("`/colour`"), "{err}");
    }

    #[test]
    fn an_unknown_tool_is_refused() {
        assert!(validators().validate("nope", &json!({})).is_err());
    }

    #[test]
    fn a_broken_schema_does_not_compile() {
        assert!(ArgsValidator::compile(&json!({"type": 12})).is_err());
    }

    #[test]
    fn the_meta_schema_check_finds_what_compiling_finds() {
        assert!(check_schema(&json!({"type": 12})).is_err());
        assert!(check_schema(&json!({"type": "object", "minProperties": -1})).is_err());
        assert_eq!(check_schema(&json!({"type": "object"})), Ok(()));
        let draft7 = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "array",
            "items": [{"type": "string"}],
        });
        assert_eq!(check_schema(&draft7), Ok(()));
    }

    #[test]
    fn a_lazy_validator_compiles_on_first_use_and_keeps_the_result() {
        let v = LazyValidator::new(r#"{"type": "object", "required": ["a"]}"#);
        assert!(
            v.compiled.get().is_none(),
            "nothing compiled before the first call"
        );
        assert!(v.get().expect("compiles").check(&json!({})).is_err());
        assert!(v.compiled.get().is_some());
        assert_eq!(v.get().expect("kept").check(&json!({"a": 1})), Ok(()));
    }

    #[test]
    fn a_schema_that_fails_to_compile_later_refuses_the_call() {
        // Passes the meta-schema, but its reference leads nowhere.
        let mut v = Validators::default();
        v.insert(
            "broken",
            LazyValidator::new(
                r##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}"##,
            ),
        );
        let err = v.validate("broken", &json!({"a": 1})).unwrap_err();
        assert!(err.contains("does not compile"), "{err}");
    }

    #[test]
    fn a_draft_07_schema_compiles_as_draft_07() {
        let tuple =
            json!({"type": "array", "items": [{"type": "string"}], "additionalItems": false});
        assert!(
            ArgsValidator::compile(&tuple).is_err(),
            "2020-12 has no array `items`"
        );
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"pair": tuple},
        });
        let v = ArgsValidator::compile(&schema).expect("draft-07 compiles");
        assert_eq!(v.check(&json!({"pair": ["a"]})), Ok(()));
        let err = v.check(&json!({"pair": ["a", "b"]})).unwrap_err();
        assert!(err.contains("`/pair`"), "{err}");
    }
}
