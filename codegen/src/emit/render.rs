//! Formatting emitted code: tokens become a Rust file formatted by prettyplease, with the
//! header, a blank line between top-level items and direction-changing characters escaped.
//!
//! Small files are parsed and formatted whole ([`render`]). The big ones (the tool table and
//! the typed arguments of a large API run to hundreds of megabytes) are parsed and formatted
//! one item at a time ([`ItemWriter`], [`item_in_module`]), which gives the same text without
//! holding the whole file as tokens and as a syntax tree at once.

use proc_macro2::TokenStream;
use quote::ToTokens;

use crate::error::Error;

/// The start of every emitted Rust file: the header comment and the module doc line.
pub(super) fn file_start(header: &str, module_doc: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!("// {header}\n"));
    if !module_doc.is_empty() {
        out.push_str(&format!("//! {module_doc}\n"));
    }
    out.push('\n');
    out
}

/// Formats `tokens` as a Rust file that starts with the header and a module doc line.
///
/// Direction-changing characters and carriage returns are rare in specs, so the tokens are
/// formatted as they are first; only when the text shows one of them (raw, or as a `\u{...}`
/// or `\r` escape) are the tokens rewritten by [`escape_bidi`] and formatted again. Rewriting
/// every literal of a large crate up front costs more than parsing and formatting it.
pub(super) fn render(header: &str, module_doc: &str, tokens: TokenStream) -> Result<String, Error> {
    render_file(header, module_doc, parse_file(tokens)?)
}

pub(super) fn parse_file(tokens: TokenStream) -> Result<syn::File, Error> {
    syn::parse2::<syn::File>(tokens)
        .map_err(|e| Error::Other(format!("internal error: emitted code does not parse: {e}")))
}

/// [`render`] for code already parsed.
pub(super) fn render_file(
    header: &str,
    module_doc: &str,
    file: syn::File,
) -> Result<String, Error> {
    let mut body = unparse_spaced(&file);
    if may_need_escapes(&body) {
        let escaped = parse_file(escape_bidi(quote::ToTokens::into_token_stream(file)))?;
        body = unparse_spaced(&escaped);
    }
    let mut out = file_start(header, module_doc);
    out.push_str(&body);
    Ok(out)
}

/// `file` formatted by prettyplease, with a blank line between top-level items (but not between
/// consecutive `use` or `mod` declarations), as a person would write it.
fn unparse_spaced(file: &syn::File) -> String {
    let mut out = prettyplease::unparse(&syn::File {
        shebang: file.shebang.clone(),
        frontmatter: file.frontmatter.clone(),
        attrs: file.attrs.clone(),
        items: Vec::new(),
    });
    let mut previous: Option<&syn::Item> = None;
    for item in &file.items {
        let grouped = matches!(
            (previous, item),
            (Some(syn::Item::Use(_)), syn::Item::Use(_))
                | (Some(syn::Item::Mod(_)), syn::Item::Mod(_))
        );
        if previous.is_some() && !grouped {
            out.push('\n');
        }
        // One item at a time: cloning the item, not the whole file around it.
        out.push_str(&prettyplease::unparse(&syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: vec![item.clone()],
        }));
        previous = Some(item);
    }
    out
}

/// Whether formatted code may hold a literal that [`escape_bidi`] would rewrite: one whose
/// value has a direction-changing character or (in a doc attribute) a carriage return. Such a
/// value shows in the text raw (doc comments, raw strings) or escaped.
fn may_need_escapes(text: &str) -> bool {
    text.contains("\\u{") || text.contains("\\r") || text.chars().any(|c| c == '\r' || is_bidi(c))
}

/// Characters that change the visible direction of text (the "Trojan Source" set). rustc
/// rejects them raw in literals and comments, so spec text carrying them is written escaped.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Rewrites every string literal that holds a direction-changing character with that character
/// as a `\u{...}` escape, so the literal's value is unchanged. In doc attributes, which are
/// printed as `///` comments, the character is replaced by the visible text `\u{...}`.
fn escape_bidi(tokens: TokenStream) -> TokenStream {
    escape_bidi_in(tokens, false)
}

fn escape_bidi_in(tokens: TokenStream, in_doc: bool) -> TokenStream {
    use proc_macro2::{Delimiter, Group, Literal, TokenTree};
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let is_doc = g.delimiter() == Delimiter::Bracket
                    && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc");
                let mut out = Group::new(g.delimiter(), escape_bidi_in(g.stream(), is_doc));
                out.set_span(g.span());
                TokenTree::Group(out)
            }
            TokenTree::Literal(lit) => {
                let Ok(value) = syn::parse_str::<syn::LitStr>(&lit.to_string()).map(|l| l.value())
                else {
                    return TokenTree::Literal(lit);
                };
                // rustc rejects a bare CR in doc comments; in docs it becomes a line break.
                let value = if in_doc && value.contains('\r') {
                    value.replace("\r\n", "\n").replace('\r', "\n")
                } else if !value.chars().any(is_bidi) {
                    return TokenTree::Literal(lit);
                } else {
                    value
                };
                let mut escaped = String::from("\"");
                for c in value.chars() {
                    if is_bidi(c) && in_doc {
                        escaped.push_str(&format!("\\\\u{{{:x}}}", c as u32));
                    } else if is_bidi(c) {
                        escaped.push_str(&format!("\\u{{{:x}}}", c as u32));
                    } else {
                        escaped.extend(c.escape_debug());
                    }
                }
                escaped.push('"');
                escaped
                    .parse::<Literal>()
                    .map(TokenTree::Literal)
                    .unwrap_or(TokenTree::Literal(lit))
            }
            other => other,
        })
        .collect()
}

/// Writes a file one top-level item at a time, as [`render`] writes a file of them.
pub(super) struct ItemWriter {
    out: String,
    previous: Option<Kind>,
}

/// What decides the blank line between two top-level items.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Use,
    Mod,
    Other,
}

impl ItemWriter {
    /// A file that starts with the header and a module doc line.
    pub(super) fn new(header: &str, module_doc: &str) -> Self {
        let mut out = file_start(header, module_doc);
        out.push_str(&prettyplease::unparse(&syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: Vec::new(),
        }));
        Self {
            out,
            previous: None,
        }
    }

    /// Parses and formats the next item.
    pub(super) fn item(&mut self, tokens: TokenStream) -> Result<(), Error> {
        let item = parse_item(tokens)?;
        let kind = match item {
            syn::Item::Use(_) => Kind::Use,
            syn::Item::Mod(_) => Kind::Mod,
            _ => Kind::Other,
        };
        let grouped = matches!(
            (self.previous, kind),
            (Some(Kind::Use), Kind::Use) | (Some(Kind::Mod), Kind::Mod)
        );
        if self.previous.is_some() && !grouped {
            self.out.push('\n');
        }
        self.out.push_str(&format_escaped(item, unparse_item)?);
        self.previous = Some(kind);
        Ok(())
    }

    /// The file.
    pub(super) fn finish(self) -> String {
        self.out
    }
}

/// `item` formatted as it is inside a module at the top of a file (indented one level), as
/// [`render`] formats the items of such a module.
pub(super) fn item_in_module(item: syn::Item) -> Result<String, Error> {
    format_escaped(item, unparse_in_module)
}

fn parse_item(tokens: TokenStream) -> Result<syn::Item, Error> {
    syn::parse2::<syn::Item>(tokens)
        .map_err(|e| Error::Other(format!("internal error: emitted code does not parse: {e}")))
}

/// Formats `item` with `unparse`; when the text may hold a character that must be escaped,
/// formats it again from its tokens rewritten by [`escape_bidi`], as [`render_file`] does.
fn format_escaped(
    item: syn::Item,
    unparse: fn(syn::Item) -> Result<(String, syn::Item), Error>,
) -> Result<String, Error> {
    let (text, item) = unparse(item)?;
    if !may_need_escapes(&text) {
        return Ok(text);
    }
    let escaped = parse_item(escape_bidi(item.into_token_stream()))?;
    Ok(unparse(escaped)?.0)
}

/// `item` as prettyplease formats a file holding only it; the item is handed back.
fn unparse_item(item: syn::Item) -> Result<(String, syn::Item), Error> {
    let mut file = syn::File {
        shebang: None,
        frontmatter: None,
        attrs: Vec::new(),
        items: vec![item],
    };
    let text = prettyplease::unparse(&file);
    let item = file.items.pop().ok_or_else(lost)?;
    Ok((text, item))
}

/// `item` as prettyplease formats it inside `mod m { ... }`, without the module's lines.
fn unparse_in_module(item: syn::Item) -> Result<(String, syn::Item), Error> {
    let mut module: syn::ItemMod = syn::parse_quote!(
        mod m {}
    );
    if let Some((_, content)) = &mut module.content {
        content.push(item);
    }
    let (text, module) = unparse_item(syn::Item::Mod(module))?;
    let item = match module {
        syn::Item::Mod(syn::ItemMod {
            content: Some((_, mut content)),
            ..
        }) => content.pop().ok_or_else(lost)?,
        _ => return Err(lost()),
    };
    let body = text
        .strip_prefix("mod m {\n")
        .and_then(|t| t.strip_suffix("}\n"))
        .ok_or_else(|| Error::Other(format!("internal error: unexpected module text `{text}`")))?;
    Ok((body.to_owned(), item))
}

/// The empty module `shell` (`pub mod name {}` with its attributes) holding `body`, the text
/// of its items as [`item_in_module`] formats them, as [`render`] formats such a module at the
/// top of a file.
pub(super) fn module_with(shell: TokenStream, body: &str) -> Result<String, Error> {
    let mut module = parse_item(shell)?;
    if body.is_empty() {
        return Ok(unparse_item(module)?.0);
    }
    if let syn::Item::Mod(syn::ItemMod {
        content: Some((_, content)),
        ..
    }) = &mut module
    {
        content.push(syn::parse_quote!(
            struct __McpgenItems;
        ));
    }
    let text = unparse_item(module)?.0;
    let placeholder = "    struct __McpgenItems;\n";
    match text.split_once(placeholder) {
        Some((before, after)) => Ok(format!("{before}{body}{after}")),
        None => Err(Error::Other(format!(
            "internal error: unexpected module text `{text}`"
        ))),
    }
}

fn lost() -> Error {
    Error::Other("internal error: an item was lost while formatting".into())
}
