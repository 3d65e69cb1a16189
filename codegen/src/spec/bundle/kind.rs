//! What a referenced object is, and the section its copy goes to.

use mcpgen_core::json_pointer;

/// What a referenced object is: decides the section its copy goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Schema,
    Parameter,
    Response,
    RequestBody,
    Header,
    Example,
    Link,
    Callback,
    SecurityScheme,
    PathItem,
    /// Not known from the position; judged from the target pointer.
    Other,
}

impl Kind {
    /// The kind of the entries of a section named `name` (`schemas`, `parameters`, …).
    pub(super) fn of_section(name: &str) -> Option<Kind> {
        Some(match name {
            "schemas" | "definitions" => Kind::Schema,
            "parameters" => Kind::Parameter,
            "responses" => Kind::Response,
            "requestBodies" => Kind::RequestBody,
            "headers" => Kind::Header,
            "examples" => Kind::Example,
            "links" => Kind::Link,
            "callbacks" => Kind::Callback,
            "securitySchemes" | "securityDefinitions" => Kind::SecurityScheme,
            "pathItems" | "paths" | "webhooks" => Kind::PathItem,
            _ => return None,
        })
    }

    /// Judges a target from its pointer (`/components/parameters/Limit` → parameter); a whole
    /// file or an unknown place is a schema.
    pub(super) fn of_pointer(pointer: &str) -> Kind {
        let segments = json_pointer::tokens(pointer);
        let n = segments.len();
        if n >= 2 {
            let parent = segments[n - 2].as_str();
            if parent == "paths" && n == 2 {
                return Kind::PathItem;
            }
            if parent != "paths"
                && let Some(kind) = Kind::of_section(parent)
            {
                return kind;
            }
        }
        match segments.last().map(String::as_str) {
            Some("requestBody") => Kind::RequestBody,
            _ => Kind::Schema,
        }
    }

    /// The section a bundled target of this kind goes to.
    pub(super) fn section(self, swagger2: bool) -> [&'static str; 2] {
        let bundled = "x-mcpgen-bundled";
        match (self, swagger2) {
            (Kind::Schema | Kind::Other, false) => ["components", "schemas"],
            (Kind::Schema | Kind::Other, true) => ["definitions", ""],
            (Kind::Parameter, false) => ["components", "parameters"],
            (Kind::Parameter, true) => ["parameters", ""],
            (Kind::Response, false) => ["components", "responses"],
            (Kind::Response, true) => ["responses", ""],
            (Kind::SecurityScheme, false) => ["components", "securitySchemes"],
            (Kind::SecurityScheme, true) => ["securityDefinitions", ""],
            (Kind::PathItem, _) => [bundled, "pathItems"],
            (Kind::RequestBody, false) => ["components", "requestBodies"],
            (Kind::RequestBody, true) => [bundled, "requestBodies"],
            (Kind::Header, false) => ["components", "headers"],
            (Kind::Header, true) => [bundled, "headers"],
            (Kind::Example, false) => ["components", "examples"],
            (Kind::Example, true) => [bundled, "examples"],
            (Kind::Link, false) => ["components", "links"],
            (Kind::Link, true) => [bundled, "links"],
            (Kind::Callback, false) => ["components", "callbacks"],
            (Kind::Callback, true) => [bundled, "callbacks"],
        }
    }
}

/// Segments of a section path, without the empty filler of [`Kind::section`].
pub(super) fn section_path(section: [&'static str; 2]) -> Vec<String> {
    section
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| (*s).to_owned())
        .collect()
}
