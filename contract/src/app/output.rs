//! How a tool's return value becomes its result, chosen by the return type's trait bounds
//! (`#[mcp_tool]` expands to calls on an [`OutputTag`]), and the errors a return type that
//! fits none of the shapes gets: they name the user's type and what it lacks.

use std::fmt::Display;
use std::marker::PhantomData;

use mcpgen_core::result::ToolResult;
use mcpgen_core::tool::ToolDef;
use serde_json::Value;

use super::OutputShape;

/// The result of a successful call returning `value`: its JSON as text (a string as it is),
/// and as structured content when the tool has an output schema.
fn success<T: serde::Serialize>(value: &T, def: &ToolDef) -> ToolResult {
    let json = match serde_json::to_value(value) {
        Ok(json) => json,
        Err(e) => {
            return ToolResult::error(format!("the tool's result could not be serialised: {e}"));
        }
    };
    let text = match &json {
        Value::String(s) => s.clone(),
        Value::Null => "ok".to_owned(),
        other => other.to_string(),
    };
    if def.output_schema.is_none() {
        return ToolResult::text(text);
    }
    let mut result = ToolResult::json(json, def.wrap_output);
    result.content = vec![mcpgen_core::result::Content::Text(text)];
    result
}

/// Selects, by the trait bounds of a tool's return type `R`, how its value becomes a result:
/// `Result<T, E>` with `T: Serialize + JsonSchema` and `E: Display` through [`ResultOutput`],
/// any other `Serialize + JsonSchema` type through [`ValueOutput`]; a [`ToolResult`] (or
/// `Result<ToolResult, E>`) is passed through as the tool built it ([`RawOutput`]).
///
/// The macros call the methods on `&&&&OutputTag::<R>::new()`, and method resolution tries
/// the impls from the most references to the fewest: `RawOutput` and `ResultOutput` (on
/// `&&&OutputTag`), then `ValueOutput` (`&&OutputTag`), then the two fallbacks, which match
/// any `Result` ([`ResultFallback`], `&OutputTag`) and any type ([`ValueFallback`],
/// `OutputTag`) and state the missing traits as bounds of their own: a return type that fits
/// no shape gets an error about its own types ([`ToolOutput`], [`ToolErrorText`]) rather
/// than about this tag. Aliases of `Result` work because the choice is made on the type, not
/// on how it is spelt.
#[doc(hidden)]
pub struct OutputTag<R>(PhantomData<fn() -> R>);

impl<R> OutputTag<R> {
    /// The tag for `R`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<R> Default for OutputTag<R> {
    fn default() -> Self {
        Self::new()
    }
}

/// What a tool's successful value needs: `Serialize` (its JSON is the result) and
/// `JsonSchema` (its schema is the tool's `outputSchema`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output: it needs `Serialize` and `JsonSchema`",
    label = "`{Self}` is returned by this tool",
    note = "derive them on `{Self}`: `#[derive(serde::Serialize, JsonSchema)]`, with `JsonSchema` from `mcpgen::prelude::*` (or `use mcpgen::schemars::JsonSchema;`)",
    note = "a tool that builds its own content returns `mcpgen::ToolResult` instead"
)]
pub trait ToolOutput: serde::Serialize + schemars1::JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: serde::Serialize + schemars1::JsonSchema> ToolOutput for T {}

/// What a tool's error type needs: `Display`, whose text the caller reads.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error: it needs `Display`",
    label = "the caller of this tool reads the error's text",
    note = "implement `std::fmt::Display` for `{Self}` (e.g. with `thiserror`), or return `Result<T, String>`"
)]
pub trait ToolErrorText: Display {}

#[diagnostic::do_not_recommend]
impl<E: Display> ToolErrorText for E {}

/// Tools returning `Result<T, E>`: `Ok` is structured output, `Err` an `isError` result.
#[doc(hidden)]
pub trait ResultOutput {
    /// The tool's return type.
    type Returned;
    /// The output shape of the `Ok` type.
    fn mcp_output_shape(&self) -> OutputShape;
    /// The result of one call of the tool `def` describes.
    fn mcp_into_result(&self, def: &ToolDef, returned: Self::Returned) -> ToolResult;
}

impl<T, E> ResultOutput for &&&OutputTag<Result<T, E>>
where
    T: serde::Serialize + schemars1::JsonSchema,
    E: Display,
{
    type Returned = Result<T, E>;

    fn mcp_output_shape(&self) -> OutputShape {
        OutputShape::of::<T>()
    }

    fn mcp_into_result(&self, def: &ToolDef, returned: Result<T, E>) -> ToolResult {
        match returned {
            Ok(value) => success(&value, def),
            Err(e) => ToolResult::error(e.to_string()),
        }
    }
}

/// Tools returning a plain value: always a success.
#[doc(hidden)]
pub trait ValueOutput {
    /// The tool's return type.
    type Returned;
    /// The output shape of the type.
    fn mcp_output_shape(&self) -> OutputShape;
    /// The result of one call of the tool `def` describes.
    fn mcp_into_result(&self, def: &ToolDef, returned: Self::Returned) -> ToolResult;
}

impl<T> ValueOutput for &&OutputTag<T>
where
    T: serde::Serialize + schemars1::JsonSchema,
{
    type Returned = T;

    fn mcp_output_shape(&self) -> OutputShape {
        OutputShape::of::<T>()
    }

    fn mcp_into_result(&self, def: &ToolDef, returned: T) -> ToolResult {
        success(&returned, def)
    }
}

/// Tools returning a [`ToolResult`] they built themselves (images, audio, embedded resources,
/// several blocks, an error with its own wording), or `Result<ToolResult, E>`: the result is
/// sent as it is (`Err` becomes an `isError` result with the error's text), and the tool
/// advertises no `outputSchema`. `ToolResult` is not `Serialize`, so these never compete with
/// [`ResultOutput`]'s and [`ValueOutput`]'s impls for serialisable values.
#[doc(hidden)]
pub trait RawOutput {
    /// The tool's return type.
    type Returned;
    /// No output schema.
    fn mcp_output_shape(&self) -> OutputShape {
        OutputShape {
            schema: None,
            wrap: false,
        }
    }
    /// The result of one call of the tool `def` describes.
    fn mcp_into_result(&self, def: &ToolDef, returned: Self::Returned) -> ToolResult;
}

impl RawOutput for &&&OutputTag<ToolResult> {
    type Returned = ToolResult;

    fn mcp_into_result(&self, _def: &ToolDef, returned: ToolResult) -> ToolResult {
        returned
    }
}

impl<E: Display> RawOutput for &&&OutputTag<Result<ToolResult, E>> {
    type Returned = Result<ToolResult, E>;

    fn mcp_into_result(&self, _def: &ToolDef, returned: Result<ToolResult, E>) -> ToolResult {
        returned.unwrap_or_else(|e| ToolResult::error(e.to_string()))
    }
}

/// A `Result<T, E>` that [`ResultOutput`] and [`ValueOutput`] refused: its method's bounds
/// name what `T` or `E` lacks. A program whose tool reaches this impl does not compile
/// (`mcp_output_shape`'s bounds fail where the tool is declared), so `mcp_into_result`,
/// which carries no bounds so that each mistake is reported once, never runs.
#[doc(hidden)]
pub trait ResultFallback {
    /// The `Ok` type.
    type Value;
    /// The `Err` type.
    type Error;
    /// The output shape of the `Ok` type.
    fn mcp_output_shape(&self) -> OutputShape
    where
        Self::Value: ToolOutput,
        Self::Error: ToolErrorText;
    /// Not called: see the trait's documentation.
    fn mcp_into_result(
        &self,
        def: &ToolDef,
        returned: Result<Self::Value, Self::Error>,
    ) -> ToolResult;
}

impl<T, E> ResultFallback for &OutputTag<Result<T, E>> {
    type Value = T;
    type Error = E;

    fn mcp_output_shape(&self) -> OutputShape
    where
        T: ToolOutput,
        E: ToolErrorText,
    {
        OutputShape::of::<T>()
    }

    fn mcp_into_result(&self, _def: &ToolDef, returned: Result<T, E>) -> ToolResult {
        drop(returned);
        ToolResult::error("the tool's return type has no output shape")
    }
}

/// Any other type that [`ValueOutput`] refused: its method's bound says what it lacks. Like
/// [`ResultFallback`], it only ever appears in programs that do not compile.
#[doc(hidden)]
pub trait ValueFallback {
    /// The tool's return type.
    type Returned;
    /// The output shape of the type.
    fn mcp_output_shape(&self) -> OutputShape
    where
        Self::Returned: ToolOutput;
    /// Not called: see the trait's documentation.
    fn mcp_into_result(&self, def: &ToolDef, returned: Self::Returned) -> ToolResult;
}

impl<R> ValueFallback for OutputTag<R> {
    type Returned = R;

    fn mcp_output_shape(&self) -> OutputShape
    where
        R: ToolOutput,
    {
        OutputShape::of::<R>()
    }

    fn mcp_into_result(&self, _def: &ToolDef, returned: R) -> ToolResult {
        drop(returned);
        ToolResult::error("the tool's return type has no output shape")
    }
}
