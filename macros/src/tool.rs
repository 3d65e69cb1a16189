//! `#[mcp_tool]`: a function's parameters become a hidden argument struct (its input schema),
//! its return type decides the output, and a companion function describes and calls it.
//! `#[schemars(...)]` attributes on the function apply to the argument struct, so to the
//! input schema's root.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, LitStr, Pat, ReturnType, Type};

use crate::options::{Access, Options, Ui};

/// The companion function returning the tool's `AppTool`, for a function named `ident`.
pub(crate) fn companion_ident(ident: &Ident) -> Ident {
    format_ident!("__mcp_tool_{}", ident.unraw(), span = ident.span())
}

/// The companion constant holding the tool's name, for a function named `ident`.
pub(crate) fn name_const_ident(ident: &Ident) -> Ident {
    format_ident!("__mcp_tool_name_{}", ident.unraw(), span = ident.span())
}

/// Where the function lives, which decides how it is called.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A free function, or one whose position is unknown (called by its name).
    Free,
    /// Inside an `impl` block (called through `Self::`).
    Impl,
}

/// How the context parameter is taken.
enum ContextKind {
    Owned,
    Borrowed,
}

enum Param {
    /// A tool argument: a field of the argument struct.
    Arg {
        ident: Ident,
        ty: Box<Type>,
        attrs: Vec<syn::Attribute>,
    },
    /// The call context, not part of the schema.
    Context(ContextKind),
    /// The whole arguments (`Args<T>`, or a parameter marked `#[args]`): its type's schema is
    /// the input schema, and the call's arguments decode into it.
    Whole(Box<Type>),
}

/// A parsed tool: the function (with the attributes it lent to the argument struct removed)
/// and what the expansion needs.
pub(crate) struct Tool {
    pub func: ItemFn,
    pub name: LitStr,
    options: Options,
    description: String,
    params: Vec<Param>,
    /// `#[schemars(...)]` attributes the function lends to the argument struct.
    schema_attrs: Vec<syn::Attribute>,
    receiver: bool,
    output: Type,
}

/// Doc comment lines joined: the description a tool, or a field, gets by default.
fn doc_text(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if let syn::Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let line = s.value();
            lines.push(
                line.strip_prefix(' ')
                    .unwrap_or(&line)
                    .trim_end()
                    .to_owned(),
            );
        }
    }
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// Whether `ty` is spelt `Args<T>` (any path ending so), the wrapper whose `T` is the whole
/// arguments.
fn is_args_type(ty: &Type) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().is_some_and(|s| {
            s.ident == "Args"
                && matches!(&s.arguments, syn::PathArguments::AngleBracketed(a) if a.args.len() == 1)
        }),
        Type::Paren(inner) => is_args_type(&inner.elem),
        Type::Group(inner) => is_args_type(&inner.elem),
        _ => false,
    }
}

fn is_context_type(ty: &Type) -> Option<ContextKind> {
    let (ty, kind) = match ty {
        Type::Reference(r) if r.mutability.is_none() => (&*r.elem, ContextKind::Borrowed),
        other => (other, ContextKind::Owned),
    };
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .filter(|s| s.ident == "ToolContext" && s.arguments.is_empty())
            .map(|_| kind),
        _ => None,
    }
}

/// Why a parameter type cannot be a tool argument, if it cannot.
fn unsupported(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Reference(_) => Some(
            "a tool argument is decoded from JSON into an owned value: take `String` instead of \
             `&str`, `Vec<T>` instead of `&[T]`, `T` instead of `&T` (only the context \
             parameter, `&ToolContext`, may be a reference)",
        ),
        Type::ImplTrait(_) => Some(
            "a tool argument needs a concrete type that implements `Deserialize` and \
             `JsonSchema`, not `impl Trait`",
        ),
        Type::TraitObject(_) | Type::FnPtr(_) | Type::Never(_) | Type::Infer(_) => Some(
            "a tool argument needs a concrete type that implements `Deserialize` and \
             `JsonSchema`",
        ),
        Type::Ptr(_) => Some("a tool argument cannot be a raw pointer"),
        Type::Paren(inner) => unsupported(&inner.elem),
        Type::Group(inner) => unsupported(&inner.elem),
        _ => None,
    }
}

/// Attributes a parameter lends to its field: docs, `serde` and `schemars`.
fn is_field_attr(attr: &syn::Attribute) -> bool {
    ["doc", "serde", "schemars"]
        .iter()
        .any(|name| attr.path().is_ident(name))
}

impl Tool {
    /// Parses `func` under `options`; every problem found is returned together.
    pub(crate) fn parse(mut func: ItemFn, options: Options) -> (ItemFn, syn::Result<Self>) {
        let mut errors: Vec<syn::Error> = Vec::new();
        let mut params = Vec::new();
        let mut receiver = false;
        let mut context_seen: Option<Span> = None;
        let mut whole_params: Vec<Span> = Vec::new();
        let (schema_attrs, kept): (Vec<_>, Vec<_>) = func
            .attrs
            .drain(..)
            .partition(|a| a.path().is_ident("schemars"));
        func.attrs = kept;

        if let Some(param) = func.sig.generics.params.first() {
            errors.push(syn::Error::new_spanned(
                &func.sig.generics,
                "a tool function cannot be generic: its argument and output types decide its \
                 schemas, so they must be concrete",
            ));
            let _ = param;
        }
        if let Some(variadic) = &func.sig.variadic {
            errors.push(syn::Error::new_spanned(
                variadic,
                "a tool cannot be variadic",
            ));
        }
        for input in &mut func.sig.inputs {
            match input {
                FnArg::Receiver(r) => {
                    let shared_ref = matches!(r.kind, syn::ReceiverKind::Reference(_, _, None));
                    if !shared_ref {
                        errors.push(syn::Error::new_spanned(
                            &*r,
                            "a tool method takes `&self`: the set shares its state between \
                             concurrent calls",
                        ));
                    }
                    receiver = true;
                }
                FnArg::Typed(pt) => {
                    let explicit_context = pt.attrs.iter().any(|a| a.path().is_ident("context"));
                    pt.attrs.retain(|a| !a.path().is_ident("context"));
                    let explicit_whole = pt.attrs.iter().any(|a| a.path().is_ident("args"));
                    pt.attrs.retain(|a| !a.path().is_ident("args"));
                    if !explicit_context && (explicit_whole || is_args_type(&pt.ty)) {
                        if let Some(why) = unsupported(&pt.ty) {
                            errors.push(syn::Error::new_spanned(&pt.ty, why));
                        }
                        if let Some(attr) = pt
                            .attrs
                            .iter()
                            .find(|a| a.path().is_ident("serde") || a.path().is_ident("schemars"))
                        {
                            errors.push(syn::Error::new_spanned(
                                attr,
                                "the whole arguments take their `serde` and `schemars` \
                                 attributes from their type: put this on the struct's \
                                 definition or its fields",
                            ));
                        }
                        pt.attrs.retain(|a| !is_field_attr(a));
                        whole_params.push(pt.span());
                        params.push(Param::Whole(pt.ty.clone()));
                        continue;
                    }
                    let context = if explicit_context {
                        Some(match &*pt.ty {
                            Type::Reference(_) => ContextKind::Borrowed,
                            _ => ContextKind::Owned,
                        })
                    } else {
                        is_context_type(&pt.ty)
                    };
                    if let Some(kind) = context {
                        if context_seen.is_some() {
                            errors.push(syn::Error::new_spanned(
                                &*pt,
                                "a tool takes at most one context parameter; this is the \
                                 second",
                            ));
                        }
                        context_seen = Some(pt.span());
                        pt.attrs.retain(|a| !is_field_attr(a));
                        params.push(Param::Context(kind));
                        continue;
                    }
                    let ident = match &*pt.pat {
                        Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                            pi.ident.clone()
                        }
                        other => {
                            errors.push(syn::Error::new_spanned(
                                other,
                                "a tool argument needs a plain name: it becomes the property \
                                 name in the input schema",
                            ));
                            continue;
                        }
                    };
                    if let Some(why) = unsupported(&pt.ty) {
                        errors.push(syn::Error::new_spanned(&pt.ty, why));
                    }
                    let (lent, kept): (Vec<_>, Vec<_>) =
                        pt.attrs.drain(..).partition(is_field_attr);
                    pt.attrs = kept;
                    params.push(Param::Arg {
                        ident,
                        ty: pt.ty.clone(),
                        attrs: lent,
                    });
                }
            }
        }
        if let Some((first, rest)) = whole_params.split_first() {
            for second in rest {
                errors.push(syn::Error::new(
                    *second,
                    "a tool takes its whole arguments (`Args<T>` or `#[args]`) once; this is \
                     the second",
                ));
            }
            for param in &params {
                if let Param::Arg { ident, .. } = param {
                    errors.push(syn::Error::new_spanned(
                        ident,
                        "a tool taking its whole arguments as one struct (`Args<T>` or \
                         `#[args]`) takes no other arguments besides its context: make this a \
                         field of the struct",
                    ));
                }
            }
            if options.deny_unknown_arguments == Some(true) {
                errors.push(syn::Error::new(
                    *first,
                    "`deny_unknown_arguments` shapes the macro's own argument struct; with \
                     `Args<T>` the arguments are `T`: put `#[serde(deny_unknown_fields)]` on \
                     `T` instead",
                ));
            }
            if let Some(attr) = schema_attrs.first() {
                errors.push(syn::Error::new_spanned(
                    attr,
                    "with `Args<T>` the input schema is `T`'s: put `#[schemars(...)]` on `T`",
                ));
            }
        }
        let output = match &func.sig.output {
            ReturnType::Default => syn::parse_quote!(()),
            ReturnType::Type(_, ty) => {
                if let Type::ImplTrait(_) = &**ty {
                    errors.push(syn::Error::new_spanned(
                        ty,
                        "a tool returns a concrete type (`T` or `Result<T, E>`), not \
                         `impl Trait`: its output schema comes from the type",
                    ));
                }
                (**ty).clone()
            }
        };
        let ident = &func.sig.ident;
        let name = options
            .name
            .clone()
            .unwrap_or_else(|| LitStr::new(&ident.unraw().to_string(), ident.span()));
        if options.name.is_none()
            && let Err(e) = crate::options::check_name(&name)
        {
            errors.push(e);
        }
        let description = match (&options.description, doc_text(&func.attrs)) {
            (Some(lit), _) => lit.value(),
            (None, Some(doc)) => doc,
            (None, None) => {
                errors.push(syn::Error::new_spanned(
                    ident,
                    "this tool has no description: the model reads it to decide when to call \
                     the tool; add a doc comment or `#[mcp_tool(description = \"...\")]`",
                ));
                String::new()
            }
        };
        if let Err(e) = options.resolved_access() {
            errors.push(e);
        }
        let stripped = func.clone();
        let result = match errors.into_iter().reduce(|mut all, e| {
            all.combine(e);
            all
        }) {
            Some(e) => Err(e),
            None => Ok(Tool {
                func,
                name,
                options,
                description,
                params,
                schema_attrs,
                receiver,
                output,
            }),
        };
        (stripped, result)
    }

    /// The function itself, its companion function and its name constant.
    pub(crate) fn expand(&self, place: Place) -> TokenStream {
        let func = &self.func;
        let companion = self.companion(place);
        quote! {
            #func
            #companion
        }
    }

    /// The companion items alone.
    pub(crate) fn companion(&self, place: Place) -> TokenStream {
        let vis = &self.func.vis;
        let ident = &self.func.sig.ident;
        let companion = companion_ident(ident);
        let name_const = name_const_ident(ident);
        let name = &self.name;
        let output = &self.output;
        let rt = quote!(::mcpgen);

        let fields = self.params.iter().filter_map(|p| match p {
            Param::Arg { ident, ty, attrs } => Some(quote! { #(#attrs)* #ident: #ty, }),
            Param::Context(_) | Param::Whole(_) => None,
        });
        let whole = self.params.iter().find_map(|p| match p {
            Param::Whole(ty) => Some(ty),
            _ => None,
        });
        let bindings: Vec<&Ident> = self
            .params
            .iter()
            .filter_map(|p| match p {
                Param::Arg { ident, .. } => Some(ident),
                Param::Context(_) | Param::Whole(_) => None,
            })
            .collect();
        let call_args = self.params.iter().map(|p| match p {
            Param::Arg { ident, .. } => quote!(#ident),
            Param::Whole(_) => quote!(__whole),
            Param::Context(ContextKind::Owned) => quote!(#rt::ToolContext::from_call(__ctx)),
            Param::Context(ContextKind::Borrowed) => {
                quote!(&#rt::ToolContext::from_call(__ctx))
            }
        });
        let callee = match (self.receiver, place) {
            (true, _) => quote!(Self::#ident(__state, #(#call_args),*)),
            (false, Place::Impl) => quote!(Self::#ident(#(#call_args),*)),
            (false, Place::Free) => quote!(#ident(#(#call_args),*)),
        };
        let await_ = self.func.sig.asyncness.map(|_| quote!(.await));
        let state_pat = if self.receiver {
            quote!(__state)
        } else {
            quote!(_)
        };
        let uses_ctx = self.params.iter().any(|p| matches!(p, Param::Context(_)));
        let ctx_pat = if uses_ctx { quote!(__ctx) } else { quote!(_) };
        let args_pat = if bindings.is_empty() && whole.is_none() {
            quote!(_)
        } else {
            quote!(__args)
        };
        let decode = if let Some(ty) = whole {
            quote! {
                let __whole: #ty = #rt::__private::decode_args::<#ty>(#name, &__args)?;
            }
        } else if bindings.is_empty() {
            quote!()
        } else {
            quote! {
                let __McpArgs { #(#bindings),* } =
                    #rt::__private::decode_args::<__McpArgs>(#name, &__args)?;
            }
        };
        let (generics, state_ty) = if self.receiver {
            (quote!(), quote!(Self))
        } else {
            (
                quote!(<__S: ::std::marker::Send + ::std::marker::Sync + 'static>),
                quote!(__S),
            )
        };

        let title = match &self.options.title {
            Some(t) => quote!(::std::option::Option::Some(#t)),
            None => quote!(::std::option::Option::None),
        };
        let description = &self.description;
        let schema_attrs = &self.schema_attrs;
        let deny_unknown = self
            .options
            .deny_unknown_arguments
            .unwrap_or(false)
            .then(|| quote!(#[serde(deny_unknown_fields)]));
        let access = self.options.resolved_access().unwrap_or(Access::Write);
        let (access_tokens, read_only) = match access {
            Access::Read => (quote!(#rt::Access::Read), true),
            Access::Write => (quote!(#rt::Access::Write), false),
        };
        let hint = |v: Option<bool>| match v {
            Some(b) => quote!(::std::option::Option::Some(#b)),
            None => quote!(::std::option::Option::None),
        };
        let destructive = hint(self.options.destructive);
        let idempotent = hint(self.options.idempotent);
        let open_world = hint(self.options.open_world);
        let ui = match self.options.ui.map(|(ui, _)| ui) {
            None | Some(Ui::Auto) => {
                quote!(::std::option::Option::Some(#rt::view::Requested::Auto))
            }
            Some(Ui::Table) => quote!(::std::option::Option::Some(#rt::view::Requested::Table)),
            Some(Ui::Card) => quote!(::std::option::Option::Some(#rt::view::Requested::Card)),
            Some(Ui::None) => quote!(::std::option::Option::None),
        };
        let scope = match &self.options.scope {
            Some(s) => quote!(::std::option::Option::Some(#s)),
            None => quote!(::std::option::Option::None),
        };
        let out_span = output.span();
        let shape = quote_spanned! {out_span=>
            (&&&&#rt::__private::OutputTag::<#output>::new()).mcp_output_shape()
        };
        let convert = quote_spanned! {out_span=>
            (&&&&#rt::__private::OutputTag::<#output>::new()).mcp_into_result(__def, __out)
        };
        let (args_struct, schema_ty) = match whole {
            Some(ty) => (quote!(), quote!(#ty)),
            None => (
                quote! {
                    #[derive(#rt::__private::serde::Deserialize, #rt::__private::schemars::JsonSchema)]
                    #[serde(crate = "::mcpgen::__private::serde")]
                    #[schemars(crate = "::mcpgen::__private::schemars")]
                    #deny_unknown
                    #(#schema_attrs)*
                    #[allow(non_camel_case_types, dead_code)]
                    struct __McpArgs { #(#fields)* }
                },
                quote!(__McpArgs),
            ),
        };
        let output_traits = quote! {
            #rt::__private::{
                RawOutput as _, ResultFallback as _, ResultOutput as _, ValueFallback as _,
                ValueOutput as _,
            }
        };
        let doc = format!(
            "The `{}` tool's definition and call (`#[mcp_tool]`).",
            name.value()
        );

        let task = match self.options.task {
            None => quote!(),
            Some(crate::options::Task::Optional) => {
                quote!(.with_task(#rt::tasks::TaskSupport::Optional))
            }
            Some(crate::options::Task::Required) => {
                quote!(.with_task(#rt::tasks::TaskSupport::Required))
            }
        };
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            #vis const #name_const: &str = #name;

            #[doc = #doc]
            #[doc(hidden)]
            #vis fn #companion #generics () -> #rt::AppTool<#state_ty> {
                #args_struct

                fn __mcp_def() -> &'static #rt::ToolDef {
                    static DEF: ::std::sync::OnceLock<#rt::ToolDef> = ::std::sync::OnceLock::new();
                    DEF.get_or_init(|| {
                        #[allow(unused_imports)]
                        use #output_traits;
                        #rt::__private::tool_def::<#schema_ty>(
                            #rt::__private::ToolMeta {
                                name: #name,
                                title: #title,
                                description: #description,
                                access: #access_tokens,
                                annotations: #rt::ToolAnnotations {
                                    read_only_hint: ::std::option::Option::Some(#read_only),
                                    destructive_hint: #destructive,
                                    idempotent_hint: #idempotent,
                                    open_world_hint: #open_world,
                                },
                                scope: #scope,
                                ui: #ui,
                            },
                            #shape,
                        )
                    })
                }

                #rt::AppTool::new(
                    __mcp_def,
                    |#state_pat, #args_pat, #ctx_pat| {
                        ::std::boxed::Box::pin(async move {
                            #[allow(unused_imports)]
                            use #output_traits;
                            #decode
                            let __out = #callee #await_;
                            let __def = __mcp_def();
                            ::std::result::Result::Ok(#convert)
                        })
                    },
                )
                #task
            }
        }
    }
}

/// What is emitted when the tool has errors: the function as written (minus the attributes
/// lent to the argument struct) and a companion that compiles, so the errors are the only
/// ones.
pub(crate) fn fallback(func: &ItemFn, error: syn::Error) -> TokenStream {
    let vis = &func.vis;
    let ident = &func.sig.ident;
    let companion = companion_ident(ident);
    let name_const = name_const_ident(ident);
    let name = ident.unraw().to_string();
    let (generics, state_ty) = if func
        .sig
        .inputs
        .iter()
        .any(|i| matches!(i, FnArg::Receiver(_)))
    {
        (quote!(), quote!(Self))
    } else {
        (quote!(<__S>), quote!(__S))
    };
    let error = error.into_compile_error();
    quote! {
        #error
        #func
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #vis const #name_const: &str = #name;
        #[doc(hidden)]
        #vis fn #companion #generics () -> ::mcpgen::AppTool<#state_ty> {
            ::std::unreachable!("the tool did not compile")
        }
    }
}
