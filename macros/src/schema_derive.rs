//! `#[derive(JsonSchema)]` as the facade exports it (`mcpgen::schemars::JsonSchema`,
//! `mcpgen::prelude::JsonSchema`): schemars' own derive names the crate as `schemars::…`, so
//! it needs a `schemars` in scope. This derive names `::mcpgen::schemars` itself.
//!
//! A derive cannot add attributes to the item it is given, so it derives schemars'
//! `JsonSchema` on a private copy of the item (its shape and its `doc`, `serde`, `schemars`,
//! `validate` and `garde` attributes, with `#[schemars(crate = "::mcpgen::schemars")]` added
//! and the schema's name pinned to the item's), and implements `JsonSchema` for the item by
//! forwarding to the copy. The schemas are the ones schemars' derive would write for the item;
//! its errors point at the item's own tokens.

use proc_macro2::{TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::{Attribute, Data, DeriveInput, Fields};

/// The attributes schemars' derive reads; every other one is left off the copy.
fn is_schema_attr(attr: &Attribute) -> bool {
    ["doc", "serde", "schemars", "validate", "garde"]
        .iter()
        .any(|name| attr.path().is_ident(name))
}

/// Whether a `#[serde(...)]` or `#[schemars(...)]` attribute among `attrs` has the key `key`
/// at its top level; with `bare`, only without a value (`default`, not `default = "f"`).
fn has_key(attrs: &[Attribute], key: &str, bare: bool) -> bool {
    attrs.iter().any(|attr| {
        let syn::Meta::List(list) = &attr.meta else {
            return false;
        };
        if !(list.path.is_ident("serde") || list.path.is_ident("schemars")) {
            return false;
        }
        let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
        tokens.iter().enumerate().any(|(i, token)| {
            let TokenTree::Ident(ident) = token else {
                return false;
            };
            let at_start = i == 0
                || matches!(tokens.get(i - 1), Some(TokenTree::Punct(p)) if p.as_char() == ',');
            let valued =
                matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '=');
            ident.unraw() == key && at_start && !(bare && valued)
        })
    })
}

fn keep_schema_attrs(fields: &mut Fields) {
    for field in fields.iter_mut() {
        field.attrs.retain(is_schema_attr);
    }
}

/// The expansion of `#[derive(JsonSchema)]` for `input`.
pub(crate) fn derive(input: DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let copy_ident = format_ident!("__McpgenSchemaOf{}", ident.unraw(), span = ident.span());
    let mut copy = input.clone();
    copy.ident = copy_ident.clone();
    copy.vis = syn::Visibility::Inherited;
    copy.attrs.retain(is_schema_attr);
    match &mut copy.data {
        Data::Struct(data) => keep_schema_attrs(&mut data.fields),
        Data::Enum(data) => {
            for variant in &mut data.variants {
                variant.attrs.retain(is_schema_attr);
                keep_schema_attrs(&mut variant.fields);
            }
        }
        Data::Union(data) => {
            for field in &mut data.fields.named {
                field.attrs.retain(is_schema_attr);
            }
        }
    }
    let crate_attr = (!has_key(&input.attrs, "crate", false))
        .then(|| quote!(#[schemars(crate = "::mcpgen::schemars")]));
    // The copy's schema carries the item's name (its `$defs` key, its title, its id).
    let rename_attr = (!has_key(&input.attrs, "rename", false)).then(|| {
        let name = ident.unraw().to_string();
        quote!(#[serde(rename = #name)])
    });

    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    // A bare container `default` makes schemars' derive call `Self::default()` on the copy:
    // the copy's default is the item's, field by field.
    let default_impl = match &input.data {
        Data::Struct(data) if has_key(&input.attrs, "default", true) => {
            let (pattern, build) = match &data.fields {
                Fields::Named(named) => {
                    let names: Vec<_> = named.named.iter().map(|f| &f.ident).collect();
                    (
                        quote!(#ident { #(#names),* }),
                        quote!(#copy_ident { #(#names),* }),
                    )
                }
                Fields::Unnamed(unnamed) => {
                    let names: Vec<_> = (0..unnamed.unnamed.len())
                        .map(|i| format_ident!("__field{}", i))
                        .collect();
                    (
                        quote!(#ident(#(#names),*)),
                        quote!(#copy_ident(#(#names),*)),
                    )
                }
                Fields::Unit => (quote!(#ident), quote!(#copy_ident)),
            };
            let mut generics = input.generics.clone();
            generics
                .make_where_clause()
                .predicates
                .push(syn::parse_quote!(#ident #ty_generics: ::core::default::Default));
            let (_, _, default_where) = generics.split_for_impl();
            quote! {
                impl #impl_generics ::core::default::Default for #copy_ident #ty_generics #default_where {
                    fn default() -> Self {
                        let #pattern = <#ident #ty_generics as ::core::default::Default>::default();
                        #build
                    }
                }
            }
        }
        _ => quote!(),
    };

    let mut generics = input.generics.clone();
    let generic = !generics.params.is_empty();
    if generic {
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#copy_ident #ty_generics: ::mcpgen::schemars::JsonSchema));
    }
    let (_, _, forward_where) = generics.split_for_impl();
    let s = quote!(::mcpgen::schemars);
    let copy_ty = quote!(<#copy_ident #ty_generics as #s::JsonSchema>);
    quote! {
        const _: () = {
            #[derive(::mcpgen::__private::schemars::JsonSchema)]
            #crate_attr
            #rename_attr
            #[allow(dead_code, non_camel_case_types, clippy::all, clippy::pedantic)]
            #copy

            #default_impl

            #[automatically_derived]
            #[allow(private_bounds)]
            impl #impl_generics #s::JsonSchema for #ident #ty_generics #forward_where {
                fn inline_schema() -> bool {
                    #copy_ty::inline_schema()
                }

                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    #copy_ty::schema_name()
                }

                fn schema_id() -> ::std::borrow::Cow<'static, str> {
                    #copy_ty::schema_id()
                }

                fn json_schema(generator: &mut #s::SchemaGenerator) -> #s::Schema {
                    #copy_ty::json_schema(generator)
                }
            }
        };
    }
}
