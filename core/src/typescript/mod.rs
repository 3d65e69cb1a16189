//! TypeScript declarations of tools, from their JSON Schemas (2020-12), for a model that writes
//! programs against the tools.
//!
//! A tool becomes a method signature whose argument is its input schema and whose result is
//! its output schema (the body of `{"result": X}` when the output is wrapped), with the
//! descriptions as doc comments:
//!
//! ```text
//! /** List a project's tickets */
//! list_tickets(args: {
//!   key: string;
//!   state?: "open" | "closed" | "all";
//! }): Promise<TicketPage>;
//! ```
//!
//! Definitions (`#/$defs/NAME`) become named types (`interface` or `type`), declared once
//! however many tools reach them; they break the cycles of recursive schemas. Generation
//! does this once per crate ([`Declarations`]) and keeps each tool's result in its
//! [`ToolDef::declaration`]; [`declaration_for`] reads it back, or converts a tool without one
//! (`#[mcp_tool]` tools) on the spot.
//!
//! Schema text reaches a declaration only as doc comment text (where `*/` cannot end the
//! comment) or as string literals and quoted keys, so no schema can change a declaration's
//! structure; inline types nest at most 32 deep.

mod names;
mod render;
mod text;

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::tool::{Declaration, ToolDef};
use names::{Memo, Registry, Scope};
use render::Render;
use text::{doc_comment, property_key, shorten};

/// What the converter reads of one tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolSchemas<'a> {
    /// The tool's name: the method's name.
    pub name: &'a str,
    /// The tool's title, if any.
    pub title: Option<&'a str>,
    /// The tool's description.
    pub description: &'a str,
    /// The full input schema (its own `$defs` inside).
    pub input: &'a Value,
    /// The full output schema, if the tool has one.
    pub output: Option<&'a Value>,
    /// Whether the output schema wraps the result as `{"result": X}`.
    pub wrap_output: bool,
    /// The definitions the input schemas of the crate's tools share, if any.
    pub shared_input: Option<&'a Map<String, Value>>,
    /// The definitions the output schemas of the crate's tools share, if any.
    pub shared_output: Option<&'a Map<String, Value>>,
}

/// One tool's declaration: its signature, and the named types it reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDeclaration {
    /// The method signature with its doc comment, e.g.
    /// `list_tickets(args: { key: string }): Promise<TicketPage>;`.
    pub signature: String,
    /// The names of the types the signature reaches, directly or through other types, in the
    /// order first reached; [`Declarations::declaration`] gives each one's text.
    pub types: Vec<String>,
}

/// The declarations of a set of tools, with the named types they share declared once.
#[derive(Debug, Default)]
pub struct Declarations {
    registry: Registry,
}

impl Declarations {
    /// No tools yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Converts `tools` and returns their declarations, in order. Output definitions are
    /// named before input ones, so that a name two of them want goes to the result type
    /// (`Ticket`) and the argument type gets the suffix (`TicketInput`).
    pub fn add(&mut self, tools: &[ToolSchemas<'_>]) -> Vec<ToolDeclaration> {
        let mut memo = Memo::default();
        let outputs: Vec<_> = tools
            .iter()
            .map(|tool| {
                let output = tool.output?;
                let scope = Scope {
                    own: own_defs(output),
                    shared: tool.shared_output,
                    suffix: "Output",
                };
                let reached = scope.reached(output, &mut memo);
                Some((self.registry.name(scope, &reached, &mut memo), reached))
            })
            .collect();
        tools
            .iter()
            .zip(outputs)
            .map(|(tool, output)| {
                let scope = Scope {
                    own: own_defs(tool.input),
                    shared: tool.shared_input,
                    suffix: "Input",
                };
                let reached = scope.reached(tool.input, &mut memo);
                let input_names = self.registry.name(scope, &reached, &mut memo);
                let mut types: Vec<String> =
                    reached.iter().map(|r| input_names[r].clone()).collect();
                let output_names = output.map(|(names, reached)| {
                    let mut listed: HashSet<String> = types.iter().cloned().collect();
                    for r in &reached {
                        if listed.insert(names[r].clone()) {
                            types.push(names[r].clone());
                        }
                    }
                    names
                });
                let args = Render { refs: &input_names }.type_of(tool.input, "");
                let result = match &output_names {
                    Some(names) => Render { refs: names }.result_of(tool.output, tool.wrap_output),
                    None => "unknown".to_owned(),
                };
                let mut doc = Vec::new();
                if let Some(title) = tool.title.filter(|t| !tool.description.starts_with(*t)) {
                    doc.push(shorten(title));
                }
                doc.push(shorten(tool.description));
                let signature = format!(
                    "{}{}(args: {args}): Promise<{result}>;",
                    doc_comment(&doc, ""),
                    property_key(tool.name)
                );
                ToolDeclaration { signature, types }
            })
            .collect()
    }

    /// The declaration (`interface` or `type`, with its doc comment) of the type `name`.
    pub fn declaration(&self, name: &str) -> Option<&str> {
        self.registry.declaration(name)
    }

    /// Every named type's name and declaration, in the order declared.
    pub fn types(&self) -> impl Iterator<Item = (&str, &str)> {
        self.registry.all()
    }

    /// A TypeScript declaration file: every named type, then `tools` holding every signature
    /// of `tools`.
    pub fn file(&self, tools: &[ToolDeclaration]) -> String {
        let mut out = String::new();
        for (_, declaration) in self.types() {
            out.push_str(declaration);
            out.push_str("\n\n");
        }
        out.push_str("declare const tools: {\n");
        for (i, tool) in tools.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            for line in tool.signature.lines() {
                out.push_str("  ");
                out.push_str(line);
                out.push('\n');
            }
        }
        out.push_str("};\n");
        out
    }

    /// One tool's declaration standing on its own: the types it reaches, then its signature.
    pub fn standalone(&self, tool: &ToolDeclaration) -> String {
        let types = tool.types.iter().filter_map(|t| self.declaration(t));
        join(types, &tool.signature)
    }
}

/// `def`'s TypeScript declaration standing on its own: the named types its signature reaches,
/// then the signature. It is the one generation kept in [`ToolDef::declaration`], or is
/// converted now from the tool's full schemas (`#[mcp_tool]` tools, hand-written tables).
/// Schemas that are not JSON give a signature with `unknown` where they were.
pub fn declaration_for(def: &ToolDef) -> String {
    let (types, signature) = parts(def);
    join(types.iter().map(String::as_str), &signature)
}

/// The declarations of several tools standing together, as `describe_tools` answers for
/// several names: the named types they reach, each once, then the signatures, in order.
/// Types of different tools that share a name and differ (tools converted on the spot, each
/// on its own) are both kept.
pub fn declarations_for(defs: &[&ToolDef]) -> String {
    let mut types: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    let mut signatures = Vec::new();
    for def in defs {
        let (reached, signature) = parts(def);
        for declaration in reached {
            if seen.insert(declaration.clone()) {
                types.push(declaration);
            }
        }
        signatures.push(signature);
    }
    join(types.iter().map(String::as_str), &signatures.join("\n\n"))
}

/// `def`'s named type declarations and signature: generation's, or converted now.
fn parts(def: &ToolDef) -> (Vec<String>, String) {
    if let Some(declaration) = def.declaration {
        let types = declaration.types.iter().map(|t| (*t).to_owned()).collect();
        return (types, declaration.signature.to_owned());
    }
    let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap_or(Value::Bool(true));
    let parse_defs = |text: &str| match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    };
    let input = parse(def.full_input_schema.unwrap_or(def.input_schema));
    let output = def.full_output_schema.or(def.output_schema).map(parse);
    let shared_input = def.full_defs.and_then(|d| parse_defs(d.input));
    let shared_output = def.full_defs.and_then(|d| parse_defs(d.output));
    let tool = ToolSchemas {
        name: def.name,
        title: def.title,
        description: def.description,
        input: &input,
        output: output.as_ref(),
        wrap_output: def.wrap_output,
        shared_input: shared_input.as_ref(),
        shared_output: shared_output.as_ref(),
    };
    let mut declarations = Declarations::new();
    let Some(tool) = declarations.add(&[tool]).pop() else {
        return (Vec::new(), String::new());
    };
    let types = tool
        .types
        .iter()
        .filter_map(|t| declarations.declaration(t).map(str::to_owned))
        .collect();
    (types, tool.signature)
}

/// `types`, then `signature`, a blank line between each.
pub(crate) fn join<'a>(types: impl Iterator<Item = &'a str>, signature: &str) -> String {
    let mut out = String::new();
    for declaration in types {
        out.push_str(declaration);
        out.push_str("\n\n");
    }
    out.push_str(signature);
    out
}

/// A schema's own `$defs`.
fn own_defs(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("$defs").and_then(Value::as_object)
}

impl Declaration {
    /// The declaration standing on its own: the named types, then the signature.
    pub fn text(&self) -> String {
        join(self.types.iter().copied(), self.signature)
    }
}
