//! Collecting tools into a set: `#[mcp_tools]` on an `impl` block, and `tool_set![...]`.
//! Either way the set is built explicitly where it is declared; nothing registers itself
//! before `main`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ImplItem, ItemFn, ItemImpl, Path, Token};

use crate::options::Options;
use crate::tool::{Place, Tool, companion_ident, fallback, name_const_ident};

/// `#[mcp_tools] impl T { ... }`: every method marked `#[mcp_tool]` becomes a tool, and
/// `T::into_tool_set(self)` serves them all over `self`.
pub(crate) fn mcp_tools(args: TokenStream, mut item: ItemImpl) -> TokenStream {
    let mut errors: Vec<syn::Error> = Vec::new();
    if !args.is_empty() {
        errors.push(syn::Error::new_spanned(
            &args,
            "`#[mcp_tools]` takes no options",
        ));
    }
    if let Some(trait_) = &item.trait_ {
        errors.push(syn::Error::new_spanned(
            &trait_.0,
            "`#[mcp_tools]` goes on an inherent `impl` block, not a trait implementation",
        ));
    }
    if !item.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(
            &item.generics,
            "`#[mcp_tools]` needs a concrete type: a tool set's state cannot be generic",
        ));
    }
    let mut companions = Vec::new();
    let mut names: Vec<(String, syn::LitStr)> = Vec::new();
    let mut members = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let Some(position) = method
            .attrs
            .iter()
            .position(|a| a.path().is_ident("mcp_tool"))
        else {
            continue;
        };
        let attr = method.attrs.remove(position);
        let func = ItemFn {
            attrs: std::mem::take(&mut method.attrs),
            vis: method.vis.clone(),
            modifiers: method.modifiers.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        let options = match Options::from_attribute(&attr) {
            Ok(options) => options,
            Err(e) => {
                errors.push(e);
                Options::default()
            }
        };
        let (stripped, parsed) = Tool::parse(func, options);
        method.attrs = stripped.attrs.clone();
        method.sig = stripped.sig.clone();
        match parsed {
            Ok(tool) => {
                let value = tool.name.value();
                if let Some((_, first)) = names.iter().find(|(n, _)| *n == value) {
                    let mut e = syn::Error::new_spanned(
                        &tool.name,
                        format!(
                            "two tools of this set are named `{value}`; tool names must be \
                             unique within a set (set `name = \"...\"` on one of them)"
                        ),
                    );
                    e.combine(syn::Error::new_spanned(first, "the first is here"));
                    errors.push(e);
                }
                names.push((value, tool.name.clone()));
                let ident = &stripped.sig.ident;
                let companion = companion_ident(ident);
                members.push(quote!(Self::#companion()));
                companions.push(tool.companion(Place::Impl));
            }
            Err(e) => {
                let fallback = fallback(&stripped, e);
                companions.push(fallback);
            }
        }
    }
    let self_ty = &item.self_ty;
    let error = errors
        .into_iter()
        .reduce(|mut all, e| {
            all.combine(e);
            all
        })
        .map(syn::Error::into_compile_error);
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    quote! {
        #error
        #item

        impl #impl_generics #self_ty #where_clause {
            #(#companions)*

            /// The `#[mcp_tool]` methods of this type, served over `self` (see
            /// `mcpgen::ServerBuilder::tool_set`).
            pub fn into_tool_set(self) -> ::mcpgen::AppToolSet<Self> {
                static TABLE: ::std::sync::OnceLock<
                    ::std::boxed::Box<[::mcpgen::ToolDef]>,
                > = ::std::sync::OnceLock::new();
                ::mcpgen::AppToolSet::new(
                    ::std::sync::Arc::new(self),
                    &TABLE,
                    &[#(#members),*],
                )
            }
        }
    }
}

/// The input of `tool_set!`: an optional `state = EXPR;`, then the tools' paths.
pub(crate) struct SetInput {
    state: Option<Expr>,
    tools: Punctuated<Path, Token![,]>,
}

impl Parse for SetInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let state = if input.peek(syn::Ident) && input.peek2(Token![=]) && !input.peek2(Token![==])
        {
            let key: syn::Ident = input.parse()?;
            if key != "state" {
                return Err(syn::Error::new_spanned(
                    key,
                    "write `tool_set![a, b]`, or `tool_set![state = EXPR; Type::method, a]` for \
                     methods taking `&self`",
                ));
            }
            input.parse::<Token![=]>()?;
            let expr: Expr = input.parse()?;
            input.parse::<Token![;]>()?;
            Some(expr)
        } else {
            None
        };
        let tools = Punctuated::parse_terminated(input)?;
        Ok(Self { state, tools })
    }
}

/// Rewrites `a::b::f` to `a::b::<item for f>`.
fn sibling(path: &Path, make: impl Fn(&syn::Ident) -> syn::Ident) -> syn::Result<Path> {
    let mut path = path.clone();
    let Some(last) = path.segments.last_mut() else {
        return Err(syn::Error::new_spanned(
            &path,
            "expected the path of an `#[mcp_tool]` function",
        ));
    };
    if !last.arguments.is_empty() {
        return Err(syn::Error::new_spanned(
            &last.arguments,
            "a tool function is not generic: drop the generic arguments",
        ));
    }
    last.ident = make(&last.ident);
    Ok(path)
}

/// `tool_set![a, b]`: an `AppToolSet` of the listed `#[mcp_tool]` functions, checked at
/// compile time for duplicate names.
pub(crate) fn tool_set(input: SetInput) -> TokenStream {
    if input.tools.is_empty() {
        return syn::Error::new(
            proc_macro2::Span::call_site(),
            "list at least one `#[mcp_tool]` function",
        )
        .into_compile_error();
    }
    let mut members = Vec::new();
    let mut name_consts = Vec::new();
    let mut checks = Vec::new();
    for path in &input.tools {
        let (companion, name_const) = match (
            sibling(path, companion_ident),
            sibling(path, name_const_ident),
        ) {
            (Ok(c), Ok(n)) => (c, n),
            (Err(e), _) | (_, Err(e)) => return e.into_compile_error(),
        };
        if !name_consts.is_empty() {
            let earlier = &name_consts;
            let message = format!(
                "tool set: `{}` has the same tool name as a tool listed before it; tool names \
                 must be unique within a set (set `name = \"...\"` on one of them)",
                quote!(#path).to_string().replace(' ', "")
            );
            checks.push(quote_spanned! {path.span()=>
                const _: () = if ::mcpgen::__private::name_taken(&[#(#earlier),*], #name_const) {
                    ::std::panic!(#message)
                };
            });
        }
        members.push(quote_spanned!(path.span()=> #companion()));
        name_consts.push(name_const);
    }
    let state = match &input.state {
        Some(expr) => quote!(#expr),
        None => quote!(()),
    };
    quote! {{
        #(#checks)*
        static TABLE: ::std::sync::OnceLock<::std::boxed::Box<[::mcpgen::ToolDef]>> =
            ::std::sync::OnceLock::new();
        ::mcpgen::AppToolSet::new(::std::sync::Arc::new(#state), &TABLE, &[#(#members),*])
    }}
}
