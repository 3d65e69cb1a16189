//! The options of `#[mcp_tool(...)]`: name, title, description, access, hints, scope and
//! whether unknown arguments are refused.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::{LitBool, LitStr};

/// `read` or `write`, with where it was said.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

/// Everything the attribute says, each value with the tokens it came from.
#[derive(Default)]
pub(crate) struct Options {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub read_only: Option<(bool, Span)>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub access: Option<(Access, Span)>,
    pub scope: Option<LitStr>,
    pub deny_unknown_arguments: Option<bool>,
    /// `ui = "auto" | "table" | "card" | "none"`: the tool's view.
    pub ui: Option<(Ui, Span)>,
    /// `task` (or `task = "optional"`), `task = "required"`: the tool runs as an MCP task.
    pub task: Option<Task>,
}

/// How a tool runs as a task.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Task {
    Optional,
    Required,
}

/// Which view a tool with an output type gets.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ui {
    Auto,
    Table,
    Card,
    None,
}

const KNOWN: &str = "`name`, `title`, `description`, `read_only`, `destructive`, `idempotent`, \
                     `open_world`, `access`, `scope`, `deny_unknown_arguments`, `ui` and `task`";

/// A hint given as a bare flag (`read_only`) or with a value (`read_only = false`).
fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(true);
    }
    let value = meta.value()?;
    if value.peek(LitBool) {
        return Ok(value.parse::<LitBool>()?.value);
    }
    let name = meta
        .path
        .get_ident()
        .map_or_else(String::new, ToString::to_string);
    Err(value.error(format!(
        "`{name}` is a flag: write `{name}`, `{name} = true` or `{name} = false`"
    )))
}

fn once<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("this option is given twice"));
    }
    *slot = Some(value);
    Ok(())
}

impl Options {
    /// Parses the attribute's arguments (the tokens inside `#[mcp_tool(...)]`).
    pub(crate) fn parse(args: TokenStream) -> syn::Result<Self> {
        let mut options = Options::default();
        let parser = syn::meta::parser(|meta| options.parse_one(&meta));
        syn::parse::Parser::parse2(parser, args)?;
        Ok(options)
    }

    /// Parses the arguments of an `#[mcp_tool(...)]` attribute found inside `#[mcp_tools]`.
    pub(crate) fn from_attribute(attr: &syn::Attribute) -> syn::Result<Self> {
        match &attr.meta {
            syn::Meta::Path(_) => Ok(Options::default()),
            syn::Meta::List(list) => Self::parse(list.tokens.clone()),
            syn::Meta::NameValue(nv) => Err(syn::Error::new_spanned(
                nv,
                "write `#[mcp_tool]` or `#[mcp_tool(name = \"...\", ...)]`",
            )),
        }
    }

    fn parse_one(&mut self, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
            return Err(meta.error(format!("unknown option; the options are {KNOWN}")));
        };
        match key.as_str() {
            "name" => {
                let lit: LitStr = meta.value()?.parse()?;
                check_name(&lit)?;
                once(&mut self.name, lit, meta)
            }
            "title" => once(&mut self.title, meta.value()?.parse()?, meta),
            "description" => {
                let lit: LitStr = meta.value()?.parse()?;
                if lit.value().trim().is_empty() {
                    return Err(syn::Error::new_spanned(lit, "the description is empty"));
                }
                once(&mut self.description, lit, meta)
            }
            "read_only" => {
                let span = meta
                    .path
                    .get_ident()
                    .map_or_else(Span::call_site, |i| i.span());
                once(&mut self.read_only, (flag(meta)?, span), meta)
            }
            "destructive" => once(&mut self.destructive, flag(meta)?, meta),
            "idempotent" => once(&mut self.idempotent, flag(meta)?, meta),
            "open_world" => once(&mut self.open_world, flag(meta)?, meta),
            "deny_unknown_arguments" => once(&mut self.deny_unknown_arguments, flag(meta)?, meta),
            "access" => {
                let value = meta.value()?;
                let (text, span) = if value.peek(LitStr) {
                    let lit: LitStr = value.parse()?;
                    (lit.value(), lit.span())
                } else {
                    let ident: syn::Ident = value.parse()?;
                    (ident.to_string(), ident.span())
                };
                let access = match text.as_str() {
                    "read" => Access::Read,
                    "write" => Access::Write,
                    _ => {
                        return Err(syn::Error::new(
                            span,
                            "access is `read` (mcp:read grants the tool) or `write` (mcp:write)",
                        ));
                    }
                };
                once(&mut self.access, (access, span), meta)
            }
            "ui" => {
                let lit: LitStr = meta.value()?.parse()?;
                let ui = match lit.value().as_str() {
                    "auto" => Ui::Auto,
                    "table" => Ui::Table,
                    "card" => Ui::Card,
                    "none" => Ui::None,
                    _ => {
                        return Err(syn::Error::new_spanned(
                            lit,
                            "ui is \"auto\" (a table or a card, from the output type), \"table\", \"card\" or \"none\"",
                        ));
                    }
                };
                once(&mut self.ui, (ui, lit.span()), meta)
            }
            "task" => {
                let task = if meta.input.peek(syn::Token![=]) {
                    let lit: LitStr = meta.value()?.parse()?;
                    match lit.value().as_str() {
                        "optional" => Task::Optional,
                        "required" => Task::Required,
                        _ => {
                            return Err(syn::Error::new_spanned(
                                lit,
                                "task is `task` or `task = \"optional\"` (a task for clients \
                                 that declared the tasks extension, a plain call for the others), \
                                 or `task = \"required\"` (only as a task)",
                            ));
                        }
                    }
                } else {
                    Task::Optional
                };
                once(&mut self.task, task, meta)
            }
            "scope" => {
                let lit: LitStr = meta.value()?.parse()?;
                if lit.value().trim().is_empty() || lit.value().contains(char::is_whitespace) {
                    return Err(syn::Error::new_spanned(
                        lit,
                        "a scope is one non-empty word without spaces, e.g. \"rooms:write\"",
                    ));
                }
                once(&mut self.scope, lit, meta)
            }
            _ => Err(meta.error(format!("unknown option `{key}`; the options are {KNOWN}"))),
        }
    }

    /// The access the tool is authorised by: the `access` option, else `read` for a
    /// `read_only` tool, else `write`. Contradictions are errors.
    pub(crate) fn resolved_access(&self) -> syn::Result<Access> {
        let read_only = self.read_only.map(|(v, _)| v);
        match (self.access, self.read_only) {
            (Some((Access::Write, span)), Some((true, _))) => Err(syn::Error::new(
                span,
                "a `read_only` tool has `access = read`; drop one of the two",
            )),
            (Some((Access::Read, _)), Some((false, span))) => Err(syn::Error::new(
                span,
                "a tool with `access = read` is read-only; drop `read_only = false`",
            )),
            (Some((access, _)), _) => Ok(access),
            (None, _) if read_only == Some(true) => Ok(Access::Read),
            (None, _) => Ok(Access::Write),
        }
    }
}

/// Tool names must match `^[A-Za-z0-9_.-]{1,64}$`, which clients enforce.
pub(crate) fn check_name(lit: &LitStr) -> syn::Result<()> {
    let name = lit.value();
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if valid {
        Ok(())
    } else {
        Err(syn::Error::new_spanned(
            lit,
            "a tool name is 1 to 64 characters from A-Z, a-z, 0-9, `_`, `.` and `-`",
        ))
    }
}
