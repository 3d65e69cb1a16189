//! Doc comments of the types typify writes. A type whose schema has no description gets the
//! placeholder "`TypeName`", which says nothing a reader does not see already: the root types
//! get a sentence naming their tool instead, and the other placeholders are dropped.

use super::Root;

/// Replaces the placeholder docs in `items` (the `module` module: `input` or `output`).
pub(super) fn replace_placeholders(items: &mut [syn::Item], roots: &[Root], module: &str) {
    for item in items {
        let (ident, attrs) = match item {
            syn::Item::Struct(i) => (i.ident.to_string(), &mut i.attrs),
            syn::Item::Enum(i) => (i.ident.to_string(), &mut i.attrs),
            syn::Item::Type(i) => (i.ident.to_string(), &mut i.attrs),
            _ => continue,
        };
        let placeholder = format!("`{ident}`");
        let Some(at) = attrs
            .iter()
            .position(|a| doc_text(a).is_some_and(|text| text.trim() == placeholder))
        else {
            continue;
        };
        match roots.iter().find(|r| r.type_name == ident) {
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
