//! The crate's public surface, listed from its source and compared with
//! `tests/public-api.txt`: a change to it is a reviewed change. Regenerate with
//! `EDITKIT_UPDATE_PUBLIC_API=1 cargo test -p editkit-vfs --test it public_api`.
//!
//! The listing walks `src/` from `lib.rs` with `syn`, as `cargo public-api` would from
//! rustdoc's JSON (which needs a nightly toolchain): every item of a `pub mod`, every item a
//! `pub use` in `lib.rs` re-exports from a private module, their `pub` fields, variants and
//! trait methods, the `pub` methods of their inherent impls and the traits they implement.
//! One line per item.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{ImplItem, Item, UseTree, Visibility};

/// Tokens printed as source text, with the spaces `quote` puts between tokens taken out
/// where Rust would not write them.
fn text(tokens: &impl ToTokens) -> String {
    let mut out = tokens.to_token_stream().to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" ;", ";"),
        ("' ", "'"),
        (" ?", "?"),
        (" : ", ": "),
        (",)", ")"),
        (" !", "!"),
    ] {
        while out.contains(from) {
            out = out.replace(from, to);
        }
    }
    out
}

fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

/// Whether `#[cfg(test)]` is among the attributes.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| attr.path().is_ident("cfg") && text(&attr.meta).contains("test"))
}

/// The names `lib.rs` re-exports, by module: `pub use files::{FileText, Written}`.
fn reexports(tree: &UseTree, module: Option<&str>, out: &mut Vec<(String, String)>) {
    match tree {
        UseTree::Path(path) => {
            let name = path.ident.to_string();
            let module = match (module, name.as_str()) {
                (_, "crate" | "self") => None,
                (None, _) => Some(name.as_str()),
                (Some(module), _) => Some(module),
            };
            reexports(&path.tree, module, out);
        }
        UseTree::Name(name) => out.push((module.unwrap_or_default().to_owned(), name.ident.to_string())),
        UseTree::Rename(rename) => out.push((module.unwrap_or_default().to_owned(), rename.ident.to_string())),
        UseTree::Group(group) => group.items.iter().for_each(|item| reexports(item, module, out)),
        UseTree::Glob(_) => out.push((module.unwrap_or_default().to_owned(), "*".to_owned())),
    }
}

/// The source file of module `name` declared in `file`.
fn module_file(file: &Path, name: &str) -> PathBuf {
    let dir = match file.file_name().and_then(|f| f.to_str()) {
        Some("lib.rs" | "mod.rs") => file.parent().unwrap().to_owned(),
        _ => file.with_extension(""),
    };
    let flat = dir.join(format!("{name}.rs"));
    if flat.exists() { flat } else { dir.join(name).join("mod.rs") }
}

struct Lister {
    lines: BTreeSet<String>,
    /// Lines of impls with the name of the type they are on, kept when that type is listed.
    impls: Vec<(String, String)>,
}

impl Lister {
    /// Lists the items of a module: all `pub` ones when `all`, else those in `wanted`.
    fn module(&mut self, path: &str, file: &Path, items: &[Item], all: bool, wanted: &HashSet<String>) {
        let shown =
            |vis: &Visibility, name: &str| is_pub(vis) && (all || wanted.contains(name) || wanted.contains("*"));
        for item in items {
            match item {
                Item::Struct(s) if shown(&s.vis, &s.ident.to_string()) && !test_only(&s.attrs) => {
                    self.lines.insert(format!("pub struct {path}::{}{}", s.ident, text(&s.generics)));
                    for field in s.fields.iter().filter(|f| is_pub(&f.vis)) {
                        let name = field.ident.as_ref().map_or_else(String::new, |i| format!("{i}: "));
                        self.lines.insert(format!("pub field {path}::{}::{name}{}", s.ident, text(&field.ty)));
                    }
                }
                Item::Enum(e) if shown(&e.vis, &e.ident.to_string()) && !test_only(&e.attrs) => {
                    self.lines.insert(format!("pub enum {path}::{}{}", e.ident, text(&e.generics)));
                    for variant in &e.variants {
                        self.lines.insert(format!("variant {path}::{}::{}", e.ident, text(&variant.ident)));
                    }
                }
                Item::Trait(t) if shown(&t.vis, &t.ident.to_string()) && !test_only(&t.attrs) => {
                    self.lines.insert(format!("pub trait {path}::{}", t.ident));
                    for inner in &t.items {
                        if let syn::TraitItem::Fn(f) = inner {
                            self.lines.insert(format!("trait fn {path}::{}::{}", t.ident, text(&f.sig)));
                        }
                    }
                }
                Item::Fn(f) if shown(&f.vis, &f.sig.ident.to_string()) && !test_only(&f.attrs) => {
                    self.lines.insert(format!("pub fn {path}::{}", text(&f.sig).trim_start_matches("fn ")));
                }
                Item::Const(c) if shown(&c.vis, &c.ident.to_string()) => {
                    self.lines.insert(format!("pub const {path}::{}: {}", c.ident, text(&c.ty)));
                }
                Item::Static(s) if shown(&s.vis, &s.ident.to_string()) => {
                    self.lines.insert(format!("pub static {path}::{}: {}", s.ident, text(&s.ty)));
                }
                Item::Type(t) if shown(&t.vis, &t.ident.to_string()) => {
                    self.lines.insert(format!("pub type {path}::{}{} = {}", t.ident, text(&t.generics), text(&t.ty)));
                }
                Item::Impl(imp) if !test_only(&imp.attrs) => self.impl_block(imp),
                Item::Mod(m) if !test_only(&m.attrs) => {
                    let name = m.ident.to_string();
                    let nested = match &m.content {
                        Some((_, items)) => items.clone(),
                        None => {
                            let nested_file = module_file(file, &name);
                            syn::parse_file(&std::fs::read_to_string(&nested_file).unwrap()).unwrap().items
                        }
                    };
                    // A private module's impls of public types are public all the same.
                    let public = is_pub(&m.vis) && all;
                    if public {
                        self.lines.insert(format!("pub mod {path}::{name}"));
                    }
                    self.module(
                        &format!("{path}::{name}"),
                        &module_file(file, &name),
                        &nested,
                        public,
                        &HashSet::new(),
                    );
                }
                _ => {}
            }
        }
    }

    /// The `pub` methods of an inherent impl, or the trait a trait impl implements.
    fn impl_block(&mut self, imp: &syn::ItemImpl) {
        let self_ty = text(&imp.self_ty);
        let base = self_ty.split('<').next().unwrap_or_default().rsplit("::").next().unwrap_or_default().to_owned();
        match &imp.trait_ {
            Some((_, trait_path, _)) => {
                self.impls.push((base.clone(), format!("impl {} for {base}", text(trait_path))));
            }
            None => {
                for item in &imp.items {
                    match item {
                        ImplItem::Fn(f) if is_pub(&f.vis) && !test_only(&f.attrs) => {
                            self.impls.push((
                                base.clone(),
                                format!("pub fn {base}::{}", text(&f.sig).trim_start_matches("fn ")),
                            ));
                        }
                        ImplItem::Const(c) if is_pub(&c.vis) => {
                            self.impls.push((base.clone(), format!("pub const {base}::{}: {}", c.ident, text(&c.ty))));
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

/// The public surface of the crate at `src`, one line per item, sorted.
fn listing(src: &Path) -> String {
    let lib = src.join("lib.rs");
    let file = syn::parse_file(&std::fs::read_to_string(&lib).unwrap()).unwrap();
    let mut exported = Vec::new();
    for item in &file.items {
        if let Item::Use(u) = item
            && is_pub(&u.vis)
        {
            reexports(&u.tree, None, &mut exported);
        }
    }
    let mut lister = Lister { lines: BTreeSet::new(), impls: Vec::new() };
    let local: HashSet<String> = file
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Mod(m) => Some(m.ident.to_string()),
            _ => None,
        })
        .collect();
    // What is re-exported from another crate is surface too.
    for (module, name) in exported.iter().filter(|(module, _)| !local.contains(module)) {
        lister.lines.insert(format!("pub use {module}::{name}"));
    }
    for item in &file.items {
        let Item::Mod(m) = item else { continue };
        let name = m.ident.to_string();
        let path = module_file(&lib, &name);
        let items = syn::parse_file(&std::fs::read_to_string(&path).unwrap()).unwrap().items;
        let wanted: HashSet<String> =
            exported.iter().filter(|(module, _)| *module == name).map(|(_, item)| item.clone()).collect();
        if is_pub(&m.vis) {
            lister.lines.insert(format!("pub mod {name}"));
        }
        lister.module(&name, &path, &items, is_pub(&m.vis), &wanted);
    }
    // Impls of types no one can name are not surface: keep impls whose type is listed.
    let types: HashSet<String> = lister
        .lines
        .iter()
        .filter_map(|line| {
            let rest = line.strip_prefix("pub struct ").or_else(|| line.strip_prefix("pub enum "))?;
            let name = rest.split('<').next()?.rsplit("::").next()?;
            Some(name.to_owned())
        })
        .collect();
    let mut lines = lister.lines;
    lines.extend(lister.impls.into_iter().filter(|(ty, _)| types.contains(ty)).map(|(_, line)| line));
    let mut out = String::new();
    for line in &lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[test]
fn public_api_matches_the_checked_in_listing() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = listing(&crate_dir.join("src"));
    let expected_path = crate_dir.join("tests/public-api.txt");
    if std::env::var_os("EDITKIT_UPDATE_PUBLIC_API").is_some() {
        std::fs::write(&expected_path, &listed).unwrap();
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert!(
        listed == expected,
        "the public API of editkit-vfs changed ({} items now, {} listed); review the difference and \
         regenerate with EDITKIT_UPDATE_PUBLIC_API=1 cargo test -p editkit-vfs --test it public_api\n{}",
        listed.lines().count(),
        expected.lines().count(),
        diff(&expected, &listed)
    );
}

/// Lines only in one listing, marked `-` (checked in) or `+` (now).
fn diff(expected: &str, listed: &str) -> String {
    let old: BTreeSet<&str> = expected.lines().collect();
    let new: BTreeSet<&str> = listed.lines().collect();
    let mut out = String::new();
    for line in old.difference(&new) {
        out.push_str(&format!("- {line}\n"));
    }
    for line in new.difference(&old) {
        out.push_str(&format!("+ {line}\n"));
    }
    out
}
