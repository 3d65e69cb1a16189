//! [`Args`]: a tool whose arguments are one struct's fields.

use std::borrow::Cow;

/// The whole of a tool's arguments as one value of type `T`: an `#[mcp_tool]` parameter of type
/// `Args<T>` makes `T`'s schema the tool's `inputSchema` and decodes the call's `arguments`
/// into `T` directly, so the struct's fields are the tool's arguments (rmcp's
/// `Parameters<T>` works the same way).
///
/// ```ignore
/// #[derive(serde::Deserialize, JsonSchema)]
/// struct AddArgs {
///     /// The first term.
///     a: i64,
///     /// The second term.
///     b: i64,
/// }
///
/// /// Adds two numbers: called with `{"a": 1, "b": 2}`.
/// #[mcp_tool]
/// fn add(Args(args): Args<AddArgs>) -> i64 {
///     args.a + args.b
/// }
/// ```
///
/// `T` is a struct (or a map, or an enum of structs): a tool's arguments are a JSON object, and
/// a server refuses to build with a tool whose input schema has another `type`. Besides it the
/// tool may take only its context. Container attributes of `T` (`#[serde(deny_unknown_fields)]`,
/// `#[serde(rename_all = "...")]`, `#[schemars(...)]`) shape the tool's arguments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Args<T>(pub T);

impl<T> Args<T> {
    /// The arguments.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Args<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Args<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Args)
    }
}

impl<T: schemars1::JsonSchema> schemars1::JsonSchema for Args<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut schemars1::SchemaGenerator) -> schemars1::Schema {
        T::json_schema(generator)
    }
}
