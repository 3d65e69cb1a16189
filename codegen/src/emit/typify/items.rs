//! typify's output one item at a time: split into items, checked for names defined twice,
//! placeholder docs replaced and formatted, without parsing the whole module at once (for a
//! large API the module's syntax tree alone took gigabytes).
//!
//! Names defined twice make the caller try again, so they are looked for first, in the
//! tokens (an attempt that fails is never parsed); the parsed items are checked again.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

use super::Root;
use super::docs::replace_placeholders;
use super::names::item_duplicates;
use crate::emit::render::item_in_module;

/// What [`format_module`] reports instead of text when an attempt cannot be used.
const UNPARSABLE: &str = "<unparsable>";

/// The items of `tokens` (typify's output for `module`) formatted as the body of the module,
/// or the names defined more than once (in the order they are found), which the caller makes
/// unique and tries again. Output that does not parse is reported as one name,
/// `<unparsable>`.
pub(super) fn format_module(
    tokens: TokenStream,
    roots: &[Root],
    module: &str,
) -> Result<String, Vec<String>> {
    let mut by_type: HashMap<&str, &Root> = HashMap::new();
    for root in roots {
        by_type.entry(root.type_name.as_str()).or_insert(root);
    }
    let chunks: Vec<Vec<TokenTree>> = split_items(tokens).collect();
    let dups = scanned_duplicates(&chunks);
    if !dups.is_empty() {
        return Err(dups);
    }
    let mut text = String::new();
    let mut seen = BTreeSet::new();
    let mut dups = Vec::new();
    // Tokens of an item split too early, waiting for the rest of it.
    let mut unparsed = TokenStream::new();
    for chunk in chunks {
        unparsed.extend(chunk);
        let Ok(file) = syn::parse2::<syn::File>(unparsed.clone()) else {
            continue;
        };
        unparsed = TokenStream::new();
        for mut item in file.items {
            item_duplicates(&item, &mut seen, &mut dups);
            if !dups.is_empty() {
                // The attempt fails: only the names are still needed.
                continue;
            }
            replace_placeholders(&mut item, &by_type, module);
            match item_in_module(item) {
                Ok(formatted) => text.push_str(&formatted),
                Err(_) => return Err(vec![UNPARSABLE.to_owned()]),
            }
        }
    }
    if !unparsed.is_empty() {
        return Err(vec![UNPARSABLE.to_owned()]);
    }
    if dups.is_empty() { Ok(text) } else { Err(dups) }
}

/// Splits a stream of items before each token that starts an item and follows the end of one
/// (a `;` or a `{ ... }` block at the top level). A split in the wrong place only means the
/// caller parses two pieces together.
fn split_items(tokens: TokenStream) -> impl Iterator<Item = Vec<TokenTree>> {
    let mut trees = tokens.into_iter().peekable();
    std::iter::from_fn(move || {
        let mut chunk = Vec::new();
        while let Some(tree) = trees.next() {
            let ends = match &tree {
                TokenTree::Punct(p) => p.as_char() == ';',
                TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
                _ => false,
            };
            chunk.push(tree);
            if ends && trees.peek().is_some_and(starts_item) {
                break;
            }
        }
        (!chunk.is_empty()).then_some(chunk)
    })
}

/// The names the items of `chunks` define more than once, in the order the check of the
/// parsed items ([`item_duplicates`]) finds them, read from the tokens.
fn scanned_duplicates(chunks: &[Vec<TokenTree>]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut dups = Vec::new();
    scan_module(chunks, &mut seen, &mut dups);
    dups
}

fn scan_module(chunks: &[Vec<TokenTree>], seen: &mut BTreeSet<String>, dups: &mut Vec<String>) {
    for chunk in chunks {
        let Some((name, body)) = item_name(chunk) else {
            continue;
        };
        if let Some(body) = body {
            let inner: Vec<Vec<TokenTree>> = split_items(body.stream()).collect();
            scan_module(&inner, &mut BTreeSet::new(), dups);
        }
        if !seen.insert(name.clone()) {
            dups.push(name);
        }
    }
}

/// The name an item defines, for the kinds [`item_duplicates`] counts (struct, enum, type
/// alias, function, constant, module), with a module's body.
fn item_name(trees: &[TokenTree]) -> Option<(String, Option<&Group>)> {
    let ident = |i: usize| match trees.get(i) {
        Some(TokenTree::Ident(ident)) => Some(ident.to_string()),
        _ => None,
    };
    let mut i = 0;
    loop {
        match trees.get(i)? {
            // An attribute.
            TokenTree::Punct(p) if p.as_char() == '#' => i += 2,
            TokenTree::Ident(word) => match word.to_string().as_str() {
                "pub" => {
                    i += 1;
                    if let Some(TokenTree::Group(g)) = trees.get(i)
                        && g.delimiter() == Delimiter::Parenthesis
                    {
                        i += 1;
                    }
                }
                "unsafe" | "async" | "default" => i += 1,
                "extern" => {
                    i += 1;
                    if let Some(TokenTree::Literal(_)) = trees.get(i) {
                        i += 1;
                    }
                }
                "const"
                    if matches!(
                        ident(i + 1).as_deref(),
                        Some("fn" | "unsafe" | "async" | "extern")
                    ) =>
                {
                    i += 1;
                }
                "struct" | "enum" | "type" | "fn" | "const" => return Some((ident(i + 1)?, None)),
                "mod" => {
                    let body = match trees.get(i + 2) {
                        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => Some(g),
                        _ => None,
                    };
                    return Some((ident(i + 1)?, body));
                }
                _ => return None,
            },
            _ => return None,
        }
    }
}

/// Whether `tree` can only be the first token of an item (an attribute or an item keyword).
fn starts_item(tree: &TokenTree) -> bool {
    match tree {
        TokenTree::Punct(p) => p.as_char() == '#',
        TokenTree::Ident(i) => matches!(
            i.to_string().as_str(),
            "pub" | "impl" | "struct" | "enum" | "type" | "fn" | "mod" | "use" | "trait"
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn items_are_split_where_they_end() {
        let tokens = quote! {
            #[derive(Debug)]
            pub struct A { x: u8 }
            impl A { fn f() {} }
            pub struct B(u8);
            pub const C: A = A { x: 1 };
            pub mod m { pub fn g() {} }
        };
        let pieces: Vec<String> = split_items(tokens)
            .map(|t| t.into_iter().collect::<TokenStream>().to_string())
            .collect();
        assert_eq!(pieces.len(), 5, "{pieces:#?}");
        assert!(pieces[3].ends_with("A { x : 1 } ;"), "{pieces:#?}");
    }

    #[test]
    fn names_defined_twice_are_reported_in_order() {
        let tokens = quote! {
            pub struct A;
            pub mod defaults {
                pub(crate) fn d<T, const V: u64>() -> T where T: From<u64> { T::from(V) }
                pub(crate) fn e<T, const V: u64>() -> T where T: From<u64> { T::from(V) }
                pub fn d() {}
            }
            #[derive(Debug)]
            pub struct A;
            impl A { fn new() -> Self { Self } }
            impl B { fn new() -> Self { Self } }
            pub struct B;
            pub type C = u8;
            pub const C: u8 = 1;
        };
        let expected = vec!["d".to_owned(), "A".to_owned(), "C".to_owned()];
        let chunks: Vec<Vec<TokenTree>> = split_items(tokens.clone()).collect();
        assert_eq!(scanned_duplicates(&chunks), expected);
        let file: syn::File = syn::parse2(tokens.clone()).expect("parses");
        let mut parsed = Vec::new();
        super::super::names::duplicates_in(&file.items, &mut parsed);
        assert_eq!(parsed, expected);
        assert_eq!(format_module(tokens, &[], "input"), Err(expected));
        assert_eq!(
            format_module(quote!(pub struct A { x: }), &[], "input"),
            Err(vec![UNPARSABLE.to_owned()])
        );
    }
}
