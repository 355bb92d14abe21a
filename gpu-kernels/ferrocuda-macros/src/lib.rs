//! The `#[kernel]` attribute and `#[derive(KernelArgs)]` of `ferrocuda-device`, the project's
//! counterparts of `cuda_std::kernel`. Both expand to absolute paths (`::ferrocuda_device::..`),
//! so they work in any crate that depends on `ferrocuda-device`, with no other import.
//!
//! ```ignore
//! #[kernel]
//! pub fn increment(args: IncrementArgs) { /* body */ }
//!
//! #[kernel(f32, f64)]
//! pub fn triad<T: Real>(args: TriadArgs<T>) { /* body */ }
//!
//! #[kernel(f32, max_threads = 128, min_blocks_per_sm = 10)]
//! pub fn scan<T: Real>(args: ScanArgs<T>) { /* body */ }
//! ```
//!
//! expands to
//! - the body as an ordinary function of the same name, on every target;
//! - on `nvptx64` only, one `extern "gpu-kernel"` entry point per instantiation, named `increment`
//!   (monomorphic) or `triad_f32`, `triad_f64` (generic), taking the `*Args` struct by value;
//! - on every target, a unit struct `Increment` / `Triad` implementing
//!   `ferrocuda_device::launch::Kernel<Args>` once per instantiation, whose `NAME` is the PTX symbol
//!   and, on the host, whose `RUN` is the body the CPU simulator runs for each thread;
//! - with launch bounds (`max_threads`, `min_blocks_per_sm`, `max_registers`, CUDA C's
//!   `__launch_bounds__`), the handle's `LAUNCH_BOUNDS`, which the host checks each launch against,
//!   and on `nvptx64` a global per entry point that the PTX builder turns into the entry's
//!   `.maxntid`, `.minnctapersm` and `.maxnreg` directives.
//!
//! An argument struct that holds views borrows their buffers, and the kernel names that borrow:
//! `fn saxpy(args: SaxpyArgs<'_>)` (or with a named lifetime, `fn saxpy<'a>(args: SaxpyArgs<'a>)`);
//! the launch handle then implements `Kernel<SaxpyArgs<'a>>` for every `'a`.
//!
//! The host launcher takes the unit struct and an `Args` value with the bound `K: Kernel<A>`, so a
//! launch whose arguments do not match its kernel fails to compile.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Data, DeriveInput, Fields, FnArg, Ident, ItemFn, Pat, Token, Type, parse_macro_input, parse_quote};

/// Turns a function of one `*Args` parameter into a GPU kernel; see the crate docs.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let items = match Punctuated::<AttrItem, Token![,]>::parse_terminated.parse(attr) {
        Ok(items) => items,
        Err(err) => return err.to_compile_error().into(),
    };
    let function = parse_macro_input!(item as ItemFn);
    split_attr(items)
        .and_then(|(instantiations, bounds)| expand(function, instantiations, bounds))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// One item of `#[kernel(..)]`: an instantiation (`f32`) or a launch bound (`max_threads = 128`).
enum AttrItem {
    Instantiation(Type),
    Bound(Ident, syn::LitInt),
    /// `requires = "sm_90a"`: the architecture whose instructions the kernel uses.
    Requires(syn::LitStr),
}

impl syn::parse::Parse for AttrItem {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        if input.peek(Ident) && input.peek2(Token![=]) {
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            if name == "requires" {
                let arch: syn::LitStr = input.parse()?;
                if arch.value() != "sm_90a" {
                    return Err(syn::Error::new_spanned(
                        arch,
                        "`requires` names an architecture feature set: \"sm_90a\"",
                    ));
                }
                return Ok(AttrItem::Requires(arch));
            }
            Ok(AttrItem::Bound(name, input.parse()?))
        } else {
            Ok(AttrItem::Instantiation(input.parse()?))
        }
    }
}

/// The launch bounds of `#[kernel(max_threads = .., min_blocks_per_sm = .., max_registers = ..)]`
/// (0: not declared).
#[derive(Default)]
struct Bounds {
    max_threads: u32,
    min_blocks_per_sm: u32,
    max_registers: u32,
    /// `requires = ".."`, or empty.
    requires: String,
}

/// The instantiations and the launch bounds of the attribute, each bound checked.
fn split_attr(items: Punctuated<AttrItem, Token![,]>) -> syn::Result<(Vec<Type>, Bounds)> {
    let (mut types, mut bounds) = (Vec::new(), Bounds::default());
    for item in items {
        match item {
            AttrItem::Instantiation(ty) => types.push(ty),
            AttrItem::Requires(arch) => bounds.requires = arch.value(),
            AttrItem::Bound(name, value) => {
                let (slot, range) = match name.to_string().as_str() {
                    "max_threads" => (&mut bounds.max_threads, 1..=1024),
                    "min_blocks_per_sm" => (&mut bounds.min_blocks_per_sm, 1..=32),
                    "max_registers" => (&mut bounds.max_registers, 16..=255),
                    _ => {
                        return Err(syn::Error::new_spanned(
                            name,
                            "a launch bound is `max_threads`, `min_blocks_per_sm` or `max_registers`",
                        ));
                    }
                };
                let n: u32 = value.base10_parse()?;
                if !range.contains(&n) {
                    return Err(syn::Error::new_spanned(
                        value,
                        format!("`{name}` is {} to {}", range.start(), range.end()),
                    ));
                }
                *slot = n;
            }
        }
    }
    if bounds.min_blocks_per_sm != 0 && bounds.max_threads == 0 {
        return Err(syn::Error::new(
            Span::call_site(),
            "`min_blocks_per_sm` needs `max_threads` too (PTX's `.minnctapersm` needs `.maxntid`)",
        ));
    }
    Ok((types, bounds))
}

fn expand(function: ItemFn, instantiations: Vec<Type>, bounds: Bounds) -> syn::Result<TokenStream2> {
    let sig = &function.sig;
    let name = &sig.ident;
    let vis = &function.vis;
    let args_type = single_argument_type(&function)?;
    let marker = Ident::new(&camel_case(&name.to_string()), name.span());
    let generics: Vec<&Ident> = sig.generics.type_params().map(|p| &p.ident).collect();
    // The lifetimes the arguments borrow for: the function's own, and one for each `'_`, which
    // the entry point keeps elided and the `Kernel` impls name `'__args`.
    let lifetimes: Vec<&syn::Lifetime> = sig.generics.lifetimes().map(|l| &l.lifetime).collect();
    let elided = contains_elided_lifetime(&quote!(#args_type));
    let impl_lifetimes: Vec<TokenStream2> = lifetimes
        .iter()
        .map(|l| quote!(#l))
        .chain(elided.then(|| quote!('__args)))
        .collect();
    let doc = function.attrs.iter().filter(|a| a.path().is_ident("doc"));

    // (PTX symbol, concrete args type, turbofish for the body call) per instantiation.
    let entries: Vec<(Ident, Type, TokenStream2)> = match (generics.as_slice(), instantiations.is_empty()) {
        ([], true) => vec![(name.clone(), args_type.clone(), quote!())],
        ([param], false) => instantiations
            .iter()
            .map(|ty| {
                let suffix = quote!(#ty).to_string().replace(' ', "").to_lowercase();
                let symbol = format_ident!("{}_{}", name, suffix);
                let concrete = substitute(args_type, param, ty);
                (symbol, concrete, quote!(::<#ty>))
            })
            .collect(),
        ([], false) => {
            return Err(syn::Error::new(
                Span::call_site(),
                "#[kernel(..)] lists instantiations only for a function with one type parameter",
            ));
        }
        _ => {
            return Err(syn::Error::new_spanned(
                &sig.generics,
                "a generic kernel takes exactly one type parameter and lists its instantiations: #[kernel(f32, f64)]",
            ));
        }
    };

    let declared = bounds.max_threads != 0 || bounds.max_registers != 0;
    let Bounds {
        max_threads,
        min_blocks_per_sm,
        max_registers,
        requires,
    } = bounds;
    let requires = if requires.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(#requires))
    };
    let entry_points = entries.iter().map(|(symbol, concrete, turbofish)| {
        // The bounds travel to the PTX builder in a global it turns into the entry's directives.
        let bounds_symbol = format_ident!("__ferrocuda_launch_bounds_{}", symbol);
        let bounds_global = declared.then(|| {
            quote! {
                #[unsafe(no_mangle)]
                #[used]
                pub static #bounds_symbol: [u32; 3] = [#max_threads, #min_blocks_per_sm, #max_registers];
            }
        });
        quote! {
            #bounds_global
            #[unsafe(no_mangle)]
            // The by-value struct parameter is lowered to one `.param .align A .b8 [size]` block
            // with the `repr(C)` layout; `tests/ferrocuda-tests/ptx.rs` checks each entry's size against the host.
            #[allow(improper_gpu_kernel_arg)]
            pub unsafe extern "gpu-kernel" fn #symbol<#(#lifetimes),*>(args: #concrete) {
                super::#name #turbofish(args)
            }
        }
    });
    // The simulator's entry points: the body for one thread, its arguments behind a pointer. Plain
    // functions of the kernel crate (generic over lifetimes at most), so that the body and the
    // device library's generic code in it are compiled there, at the kernel crate's optimisation
    // level, not in each crate that launches (a debug build's, at opt-level 0). Items beside the
    // kernel, not in a module, so that a kernel declared in a function body (a doctest) has them.
    let sim_entries = entries.iter().map(|(symbol, concrete, turbofish)| {
        let sim_symbol = format_ident!("__sim_entry_{}", symbol);
        quote! {
            /// # Safety
            /// `args` points to a live argument struct of the kernel.
            #[cfg(not(target_arch = "nvptx64"))]
            #[doc(hidden)]
            unsafe fn #sim_symbol<#(#lifetimes),*>(args: *const ()) {
                // SAFETY: the caller's contract; the struct is `Copy`.
                #name #turbofish(unsafe { *args.cast::<#concrete>() })
            }
        }
    });
    // The entry points live in their own module: the body keeps the kernel's name in Rust.
    let entry_module = format_ident!("__entry_{}", name);
    let impls = entries.iter().map(|(symbol, concrete, _)| {
        let sim_symbol = format_ident!("__sim_entry_{}", symbol);
        let symbol = symbol.to_string();
        let concrete = name_elided_lifetimes(quote!(#concrete));
        quote! {
            impl<#(#impl_lifetimes),*> ::ferrocuda_device::launch::Kernel<#concrete> for #marker {
                const NAME: &'static str = #symbol;
                const CRATE: &'static str = ::core::env!("CARGO_CRATE_NAME");
                #[cfg(not(target_arch = "nvptx64"))]
                const RUN: unsafe fn(*const ()) = #sim_symbol;
                const LAUNCH_BOUNDS: ::ferrocuda_device::launch::LaunchBounds = ::ferrocuda_device::launch::LaunchBounds {
                    max_threads: #max_threads,
                    min_blocks_per_sm: #min_blocks_per_sm,
                    max_registers: #max_registers,
                };
                const REQUIRES: ::core::option::Option<&'static str> = #requires;
            }
        }
    });
    let marker_doc =
        format!("Launch handle of the kernel [`{name}`]: pass it with its arguments to the host launcher.");
    Ok(quote! {
        #[inline(always)]
        #function

        #[cfg(target_arch = "nvptx64")]
        #[doc(hidden)]
        pub mod #entry_module {
            use super::*;
            #(#entry_points)*
        }

        #(#sim_entries)*

        #(#doc)*
        #[doc = ""]
        #[doc = #marker_doc]
        #[derive(Clone, Copy, Debug)]
        #vis struct #marker;

        #(#impls)*
    })
}

/// Implements `ferrocuda_device::launch::KernelArgs` for a `#[repr(C)]` struct of named fields.
///
/// `#[kernel_args(same_len(a, b, c))]` (repeatable) declares views of equal length: the host
/// checks them before every launch and refuses the launch, naming the two fields, when they differ.
#[proc_macro_derive(KernelArgs, attributes(kernel_args))]
pub fn derive_kernel_args(item: TokenStream) -> TokenStream {
    let input = parse_macro_input!(item as DeriveInput);
    derive_args(input).unwrap_or_else(syn::Error::into_compile_error).into()
}

fn derive_args(input: DeriveInput) -> syn::Result<TokenStream2> {
    let name = &input.ident;
    let is_repr_c = input.attrs.iter().any(|a| {
        a.path().is_ident("repr")
            && a.parse_args_with(Punctuated::<Ident, Token![,]>::parse_terminated)
                .is_ok_and(|reprs| reprs.iter().any(|r| r == "C"))
    });
    if !is_repr_c {
        return Err(syn::Error::new_spanned(
            name,
            format!(
                "kernel argument struct `{name}` needs `#[repr(C)]`: the PTX entry point reads its fields in C layout"
            ),
        ));
    }
    let field_types: Vec<Type> = match &input.data {
        Data::Struct(data) => data.fields.iter().map(|f| f.ty.clone()).collect(),
        _ => Vec::new(),
    };
    let fields = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => named.named.iter().filter_map(|f| f.ident.clone()).collect::<Vec<_>>(),
            _ => Vec::new(),
        },
        _ => {
            return Err(syn::Error::new_spanned(
                name,
                "kernel arguments are one `#[repr(C)]` struct",
            ));
        }
    };
    let mut groups: Vec<Vec<Ident>> = Vec::new();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("kernel_args")) {
        attr.parse_nested_meta(|meta| {
            if !meta.path.is_ident("same_len") {
                return Err(meta.error("expected `same_len(field, field, ..)`"));
            }
            let content;
            syn::parenthesized!(content in meta.input);
            let group: Vec<Ident> = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?
                .into_iter()
                .collect();
            if let Some(unknown) = group.iter().find(|f| !fields.contains(f)) {
                return Err(syn::Error::new_spanned(
                    unknown,
                    format!("`{name}` has no field `{unknown}`"),
                ));
            }
            groups.push(group);
            Ok(())
        })?;
    }
    let checks = groups.iter().map(|group| {
        let names = group.iter().map(|f| f.to_string());
        quote! {
            ::ferrocuda_device::launch::LengthMismatch::check(&[#( (#names, self.#group.len()) ),*])?;
        }
    });
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    // `derive(Copy)` on a generic struct is `Copy` only for `Copy` parameters: so is this impl.
    let predicates = where_clause.map(|w| &w.predicates);
    let field_names = fields.iter().map(|f| f.to_string());
    // Each field lists its views if its type holds any (see `launch::__private`).
    let list_views = quote! {
        #[allow(unused_imports)]
        use ::ferrocuda_device::launch::__private::{Field, ListViews as _, NoViews as _};
        #( (&Field(&self.#fields)).list_views(#field_names, visit); )*
    };
    Ok(quote! {
        // SAFETY: a `#[repr(C)]` struct whose fields are all `DeviceCopy` (the bounds) is plain
        // data as they are; a field type that is not (a reference, a cell) fails here.
        unsafe impl #impl_generics ::ferrocuda_device::launch::DeviceCopy for #name #type_generics
        where
            Self: ::core::marker::Copy,
            #( #field_types: ::ferrocuda_device::launch::DeviceCopy, )*
            #predicates
        {
        }

        impl #impl_generics ::ferrocuda_device::launch::KernelArgs for #name #type_generics
        where
            Self: ::core::marker::Copy,
            #( #field_types: ::ferrocuda_device::launch::DeviceCopy, )*
            #predicates
        {
            fn check_lengths(&self) -> ::core::result::Result<(), ::ferrocuda_device::launch::LengthMismatch> {
                #(#checks)*
                ::core::result::Result::Ok(())
            }

            #[cfg(not(target_arch = "nvptx64"))]
            fn views(&self, visit: &mut dyn ::core::ops::FnMut(::ferrocuda_device::launch::ViewSpan)) {
                #list_views
            }
        }

        // An argument struct inside another lists its views under the outer field's name.
        #[cfg(not(target_arch = "nvptx64"))]
        impl #impl_generics ::ferrocuda_device::launch::HoldsViews for #name #type_generics #where_clause {
            fn visit_views(
                &self,
                _: &'static str,
                visit: &mut dyn ::core::ops::FnMut(::ferrocuda_device::launch::ViewSpan),
            ) {
                #list_views
            }
        }
    })
}

fn single_argument_type(function: &ItemFn) -> syn::Result<&Type> {
    let inputs = &function.sig.inputs;
    match (inputs.len(), inputs.first()) {
        (1, Some(FnArg::Typed(arg))) if matches!(*arg.pat, Pat::Ident(_)) => Ok(&arg.ty),
        _ => Err(syn::Error::new_spanned(
            inputs,
            "a kernel takes exactly one parameter, its `#[repr(C)]` arguments struct: `fn k(args: KArgs)`",
        )),
    }
}

/// True when `tokens` hold the elided lifetime `'_`.
fn contains_elided_lifetime(tokens: &TokenStream2) -> bool {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().any(|(k, tree)| match tree {
        TokenTree::Punct(p) if p.as_char() == '\'' => {
            matches!(trees.get(k + 1), Some(TokenTree::Ident(i)) if i == "_")
        }
        TokenTree::Group(group) => contains_elided_lifetime(&group.stream()),
        _ => false,
    })
}

/// `tokens` with every `'_` replaced by `'__args`, for an impl header, where lifetimes are named.
fn name_elided_lifetimes(tokens: TokenStream2) -> TokenStream2 {
    use proc_macro2::TokenTree;
    let mut out = Vec::new();
    let mut trees = tokens.into_iter().peekable();
    while let Some(tree) = trees.next() {
        match tree {
            TokenTree::Punct(p)
                if p.as_char() == '\'' && matches!(trees.peek(), Some(TokenTree::Ident(i)) if i == "_") =>
            {
                trees.next();
                out.extend(quote!('__args));
            }
            TokenTree::Group(group) => {
                let mut new = proc_macro2::Group::new(group.delimiter(), name_elided_lifetimes(group.stream()));
                new.set_span(group.span());
                out.push(TokenTree::Group(new));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

/// Replaces every occurrence of the type parameter `param` in `ty` by `with`.
fn substitute(ty: &Type, param: &Ident, with: &Type) -> Type {
    let tokens = quote!(#ty);
    let replaced: TokenStream2 = tokens
        .into_iter()
        .map(|tree| replace_ident(tree, param, with))
        .collect();
    parse_quote!(#replaced)
}

fn replace_ident(tree: proc_macro2::TokenTree, param: &Ident, with: &Type) -> TokenStream2 {
    use proc_macro2::TokenTree;
    match tree {
        TokenTree::Ident(ident) if ident == *param => quote!(#with),
        TokenTree::Group(group) => {
            let inner: TokenStream2 = group
                .stream()
                .into_iter()
                .map(|t| replace_ident(t, param, with))
                .collect();
            let mut new = proc_macro2::Group::new(group.delimiter(), inner);
            new.set_span(group.span());
            TokenTree::Group(new).into()
        }
        other => other.into(),
    }
}

fn camel_case(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}
