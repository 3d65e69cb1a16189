//! Doc comments of the types typify writes. A type whose schema has no description gets the
//! placeholder "`TypeName`", which says nothing a reader does not see already: the root types
//! get a sentence naming their tool instead, and the other placeholders are dropped.

use std::collections::HashMap;

use super::Root;

/// Replaces the placeholder doc of `item` (an item of the `module` module: `input` or
/// `output`); `roots` are the root types by type name.
pub(super) fn replace_placeholders(
    item: &mut syn::Item,
    roots: &HashMap<&str, &Root>,
    module: &str,
) {
    let (ident, attrs) = match item {
        syn::Item::Struct(i) => (i.ident.to_string(), &mut i.attrs),
        syn::Item::Enum(i) => (i.ident.to_string(), &mut i.attrs),
        syn::Item::Type(i) => (i.ident.to_string(), &mut i.attrs),
        _ => return,
    };
    let placeholder = format!("`{ident}`");
    let Some(at) = attrs
        .iter()
        .position(|a| doc_text(a).is_some_and(|text| text.trim() == placeholder))
    else {
        return;
    };
    match roots.get(ident.as_str()) {
        Some(root) => {
            let text = match module {
                "input" => format!(" The arguments of the `{}` tool.", root.tool),
                _ => format!(" What the `{}` tool returns.", root.tool),
            };
            attrs[at] = syn::parse_quote!(#[doc = #text]);
        }
        None => {
            attrs.remove(at);
        }
    }
}

/// The text of a `#[doc = "..."]` attribute.
fn doc_text(attr: &syn::Attribute) -> Option<String> {
    let syn::Meta::NameValue(nv) = &attr.meta else {
        return None;
    };
    if !nv.path.is_ident("doc") {
        return None;
    }
    match &nv.value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    }
}
