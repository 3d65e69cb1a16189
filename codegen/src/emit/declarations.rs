//! The tools' TypeScript declarations, made once per crate: `tools.d.ts` for review, and in
//! `src/tools.rs` one `const` per named type plus each tool's [`mcpgen_core::Declaration`],
//! which a server in code mode returns from `describe_tools`.

use std::collections::{BTreeMap, BTreeSet};

use mcpgen_core::typescript::{Declarations, ToolDeclaration, ToolSchemas};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use crate::ir;

/// The declarations of a crate's tools.
pub(crate) struct Built {
    /// `tools.d.ts`.
    pub(crate) file: String,
    /// Each tool's declaration, in tool order.
    tools: Vec<ToolDeclaration>,
    /// Each named type: its `const`'s name in `typescript` and its declaration, in order.
    types: Vec<(String, Ident, String)>,
    /// Each named type's `const`, by type name.
    consts: BTreeMap<String, Ident>,
}

/// Converts every tool of `server` once; `header` starts `tools.d.ts`.
pub(crate) fn build(server: &ir::Server, header: &str) -> Built {
    let as_map = |defs: &std::collections::BTreeMap<String, Value>| -> Map<String, Value> {
        defs.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    let (shared_input, shared_output) = (
        as_map(&server.full_defs.input),
        as_map(&server.full_defs.output),
    );
    let schemas: Vec<ToolSchemas<'_>> = server
        .tools
        .iter()
        .map(|tool| {
            let summarised = tool.is_summarised();
            ToolSchemas {
                name: &tool.name,
                title: tool.title.as_deref(),
                description: &tool.description,
                input: tool
                    .full_input_schema
                    .as_ref()
                    .unwrap_or(&tool.input_schema),
                output: tool
                    .declared_output_schema
                    .as_ref()
                    .or(tool.full_output_schema.as_ref())
                    .or(tool.output_schema.as_ref()),
                wrap_output: tool.wrap_output,
                shared_input: summarised.then_some(&shared_input),
                shared_output: summarised.then_some(&shared_output),
            }
        })
        .collect();
    let mut declarations = Declarations::new();
    let tools = declarations.add(&schemas);
    let mut file = format!(
        "// {header}\n// TypeScript declarations of the tools, as a server in code mode gives \
         them to programs: `tools.<name>(args)`.\n\n"
    );
    file.push_str(&declarations.file(&tools));
    let mut taken = BTreeSet::new();
    let types: Vec<(String, Ident, String)> = declarations
        .types()
        .map(|(name, declaration)| {
            let ident = const_name(name, &mut taken);
            (name.to_owned(), ident, declaration.to_owned())
        })
        .collect();
    let consts = types
        .iter()
        .map(|(name, ident, _)| (name.clone(), ident.clone()))
        .collect();
    Built {
        file,
        tools,
        types,
        consts,
    }
}

impl Built {
    /// `pub mod typescript`: one `const` per named type, for the tools' declarations to
    /// name; nothing when no tool reaches a named type.
    pub(crate) fn types_item(&self) -> TokenStream {
        if self.types.is_empty() {
            return TokenStream::new();
        }
        let consts = self.types.iter().map(|(name, ident, declaration)| {
            let doc = format!(" The type `{name}`.");
            let text = super::tools::raw_str(declaration);
            quote! {
                #[doc = #doc]
                pub const #ident: &str = #text;
            }
        });
        quote! {
            /// The TypeScript declarations of the named types the tools' declarations reach,
            /// each held once (`tools.d.ts` shows them all).
            pub mod typescript {
                #(#consts)*
            }
        }
    }

    /// The declaration of the tool at `index`: its signature and the declarations of the
    /// named types it reaches, in the order the setter names them.
    pub(crate) fn values(&self, index: usize) -> Option<(&str, impl Iterator<Item = &str>)> {
        let tool = self.tools.get(index)?;
        let types = tool.types.iter().filter_map(|name| {
            let (_, _, declaration) = self.types.iter().find(|(n, _, _)| n == name)?;
            Some(declaration.as_str())
        });
        Some((tool.signature.as_str(), types))
    }

    /// The `.declaration(...)` setter of the tool at `index`.
    pub(crate) fn setter(&self, index: usize) -> TokenStream {
        let Some(tool) = self.tools.get(index) else {
            return TokenStream::new();
        };
        let signature = super::tools::raw_str(&tool.signature);
        let types = tool.types.iter().filter_map(|name| {
            let ident = self.consts.get(name)?;
            Some(quote!(typescript::#ident))
        });
        quote! {
            .declaration(&::mcpgen::Declaration {
                signature: #signature,
                types: &[#(#types),*],
            })
        }
    }
}

/// A type name as a `const` name: `TicketPage` → `TICKET_PAGE`, with `_2`, `_3`, ... when two
/// names give the same one.
fn const_name(name: &str, taken: &mut BTreeSet<String>) -> Ident {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && previous_lower {
            out.push('_');
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        });
    }
    let out = out.trim_matches('_').to_owned();
    let base = if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("T_{out}")
    } else {
        out
    };
    let mut candidate = base.clone();
    let mut n = 2;
    while !taken.insert(candidate.clone()) {
        candidate = format!("{base}_{n}");
        n += 1;
    }
    format_ident!("{candidate}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_names_are_screaming_snake_case_and_distinct() {
        let mut taken = BTreeSet::new();
        assert_eq!(const_name("TicketPage", &mut taken), "TICKET_PAGE");
        assert_eq!(const_name("Ticket_Page", &mut taken), "TICKET_PAGE_2");
        assert_eq!(const_name("_2fa", &mut taken), "T_2FA");
        assert_eq!(const_name("Promise_", &mut taken), "PROMISE");
        assert_eq!(const_name("user2Name", &mut taken), "USER2_NAME");
    }
}
