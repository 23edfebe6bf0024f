//! Structural claims of ARCHITECTURE.md, checked on the source itself so they cannot drift:
//! no module cycle inside a crate, and no function over [`MAX_FN_LINES`] lines outside tests.
//!
//! Each crate's module tree is read with `syn` from its `lib.rs` or `main.rs` (following
//! `mod x;` to `x.rs` or `x/mod.rs`, and `#[path]`); `#[cfg(test)]` items and `#[test]`
//! functions are left out, and so are `tests/`, `benches/` and `examples/`, which are never
//! reached from the crate root.
//!
//! Hooks for further structural checks: [`crates`] lists the crates checked and [`parse`]
//! gives a crate's modules with their syntax trees ([`Module::file`]), so a check over the
//! source (say, that one function owns the binary sniff) walks the same trees; checks over the
//! README (its counts) belong beside these, reading `repo().join("README.md")`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::spanned::Spanned as _;
use syn::visit::Visit;

/// The longest a function may be, from its signature to its closing brace, nested code counted.
pub(crate) const MAX_FN_LINES: usize = 150;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every crate checked: a folder of `crates/` (or `xtask`) and its root file.
pub(crate) fn crates() -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let mut folders: Vec<PathBuf> =
        std::fs::read_dir(repo().join("crates")).unwrap().map(|entry| entry.unwrap().path()).collect();
    folders.push(repo().join("xtask"));
    folders.sort();
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        for root in ["src/lib.rs", "src/main.rs"] {
            if folder.join(root).is_file() {
                found.push((name.clone(), folder.join(root)));
            }
        }
    }
    found
}

/// A module path inside a crate: `[]` for the root, `["tools", "run"]` for `crate::tools::run`.
type ModPath = Vec<String>;

fn show(module: &[String]) -> String {
    if module.is_empty() { "crate".to_owned() } else { format!("crate::{}", module.join("::")) }
}

/// One module: where it is written and its items (test-only items removed).
pub(crate) struct Module {
    /// The file it is written in.
    pub(crate) file: PathBuf,
    /// Its items, `#[cfg(test)]` ones and `#[test]` functions dropped.
    pub(crate) items: Vec<syn::Item>,
    /// Names brought in by `use`: name → path as written (relative to this module).
    imports: BTreeMap<String, Vec<String>>,
}

/// Whether `attrs` make an item test-only (`#[cfg(test)]`, `#[test]`).
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if attr.path().is_ident("test") {
            return true;
        }
        if !attr.path().is_ident("cfg") {
            return false;
        }
        let tokens = attr.meta.require_list().map(|list| list.tokens.to_string()).unwrap_or_default();
        tokens.split(|c: char| !c.is_alphanumeric() && c != '_').any(|word| word == "test") && !tokens.contains("not")
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(item) => &item.attrs,
        syn::Item::Enum(item) => &item.attrs,
        syn::Item::Fn(item) => &item.attrs,
        syn::Item::Impl(item) => &item.attrs,
        syn::Item::Mod(item) => &item.attrs,
        syn::Item::Static(item) => &item.attrs,
        syn::Item::Struct(item) => &item.attrs,
        syn::Item::Trait(item) => &item.attrs,
        syn::Item::Type(item) => &item.attrs,
        syn::Item::Use(item) => &item.attrs,
        syn::Item::Macro(item) => &item.attrs,
        _ => &[],
    }
}

/// Every module of the crate whose root file is `root`.
pub(crate) fn parse(root: &Path) -> BTreeMap<ModPath, Module> {
    let mut modules = BTreeMap::new();
    let source = std::fs::read_to_string(root).unwrap();
    let file = syn::parse_file(&source).unwrap_or_else(|error| panic!("{}: {error}", root.display()));
    add_module(&mut modules, Vec::new(), root.to_owned(), root.parent().unwrap().to_owned(), file.items);
    modules
}

/// Adds the module `path`, written in `file` with `items`, whose child modules' files are in `dir`.
fn add_module(
    modules: &mut BTreeMap<ModPath, Module>,
    path: ModPath,
    file: PathBuf,
    dir: PathBuf,
    items: Vec<syn::Item>,
) {
    let items: Vec<syn::Item> = items.into_iter().filter(|item| !test_only(item_attrs(item))).collect();
    let mut imports = BTreeMap::new();
    for item in &items {
        match item {
            syn::Item::Use(used) => collect_imports(&used.tree, &mut Vec::new(), &mut imports),
            syn::Item::Mod(child) => {
                let name = child.ident.to_string();
                let mut child_path = path.clone();
                child_path.push(name.clone());
                let explicit =
                    child.attrs.iter().find(|attr| attr.path().is_ident("path")).and_then(|attr| {
                        match &attr.meta.require_name_value().ok()?.value {
                            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) => Some(text.value()),
                            _ => None,
                        }
                    });
                match &child.content {
                    Some((_, inline)) => {
                        add_module(modules, child_path, file.clone(), dir.join(&name), inline.clone());
                    }
                    None => {
                        let child_file = match explicit {
                            Some(explicit) => file.parent().unwrap().join(explicit),
                            None if dir.join(format!("{name}.rs")).is_file() => dir.join(format!("{name}.rs")),
                            None => dir.join(&name).join("mod.rs"),
                        };
                        let source = std::fs::read_to_string(&child_file)
                            .unwrap_or_else(|error| panic!("{}: {error}", child_file.display()));
                        let parsed = syn::parse_file(&source)
                            .unwrap_or_else(|error| panic!("{}: {error}", child_file.display()));
                        let child_dir = if child_file.file_name().is_some_and(|name| name == "mod.rs") {
                            child_file.parent().unwrap().to_owned()
                        } else {
                            dir.join(&name)
                        };
                        add_module(modules, child_path, child_file, child_dir, parsed.items);
                    }
                }
            }
            _ => {}
        }
    }
    modules.insert(path, Module { file, items, imports });
}

/// Names a `use` tree brings in, each with its full path as written.
fn collect_imports(tree: &syn::UseTree, prefix: &mut Vec<String>, into: &mut BTreeMap<String, Vec<String>>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            collect_imports(&path.tree, prefix, into);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let mut full = prefix.clone();
            let name = name.ident.to_string();
            if name == "self" {
                if let Some(last) = prefix.last() {
                    into.insert(last.clone(), full);
                }
            } else {
                full.push(name.clone());
                into.insert(name, full);
            }
        }
        syn::UseTree::Rename(rename) => {
            let mut full = prefix.clone();
            let name = rename.ident.to_string();
            if name != "self" {
                full.push(name);
            }
            into.insert(rename.rename.to_string(), full);
        }
        syn::UseTree::Glob(_) => {}
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                collect_imports(tree, prefix, into);
            }
        }
    }
}

/// The module a path written in `from` leads to (the deepest module on the way, re-exports
/// followed), or `None` for a path that leaves the crate or names a local item.
fn resolve(modules: &BTreeMap<ModPath, Module>, from: &[String], segments: &[String], depth: usize) -> Option<ModPath> {
    if depth > 16 {
        return None;
    }
    let (first, rest) = segments.split_first()?;
    let mut current: ModPath;
    let mut rest = rest;
    match first.as_str() {
        "crate" => current = Vec::new(),
        "self" => current = from.to_vec(),
        "super" => {
            current = from.to_vec();
            current.pop();
            while rest.first().is_some_and(|segment| segment == "super") {
                current.pop();
                rest = &rest[1..];
            }
        }
        name => {
            let mut child = from.to_vec();
            child.push(name.to_owned());
            if modules.contains_key(&child) {
                current = child;
            } else {
                let imported = modules.get(from)?.imports.get(name)?;
                if imported.first().is_some_and(|head| head == name) {
                    return None;
                }
                let mut full = imported.clone();
                full.extend(rest.iter().cloned());
                return resolve(modules, from, &full, depth + 1);
            }
        }
    }
    for (at, segment) in rest.iter().enumerate() {
        let mut child = current.clone();
        child.push(segment.clone());
        if modules.contains_key(&child) {
            current = child;
            continue;
        }
        // A name `current` re-exports: follow it to where it is defined.
        if let Some(imported) = modules.get(&current).and_then(|module| module.imports.get(segment)) {
            let mut full = imported.clone();
            full.extend(rest[at + 1..].iter().cloned());
            // A re-export of another crate's item is no dependency inside this one.
            return resolve(modules, &current, &full, depth + 1);
        }
        break;
    }
    Some(current)
}

/// Collects the paths a module's code names: `use` trees, paths in types and expressions, and
/// `a::b` runs of tokens inside macro calls.
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.found.push(path.segments.iter().map(|segment| segment.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, used: &'ast syn::ItemUse) {
        // A re-export (`pub use`, `pub(crate) use`) only names an item elsewhere: paths through
        // it are followed to that item's module ([`resolve`]), and the re-export itself is no
        // use of that module.
        if !matches!(used.vis, syn::Visibility::Inherited) {
            return;
        }
        let mut all = Vec::new();
        use_paths(&used.tree, &mut Vec::new(), &mut all);
        self.found.extend(all);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        syn::visit::visit_macro(self, mac);
        token_paths(mac.tokens.clone(), &mut self.found);
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {
        // A child module is a module of its own.
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        // Derive helpers such as `#[error("... {max}", max = crate::MAX)]` expand to code that
        // uses their paths; doc comments and `cfg` only name things.
        if let syn::Meta::List(list) = &attr.meta
            && !attr.path().is_ident("cfg")
        {
            token_paths(list.tokens.clone(), &mut self.found);
        }
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(crate)`, `pub(super)`: where an item is seen, not a use.
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !test_only(&item.attrs) {
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !test_only(&item.attrs) {
            syn::visit::visit_impl_item_fn(self, item);
        }
    }
}

fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, into: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_paths(&path.tree, prefix, into);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let mut full = prefix.clone();
            if name.ident != "self" {
                full.push(name.ident.to_string());
            }
            into.push(full);
        }
        syn::UseTree::Rename(rename) => {
            let mut full = prefix.clone();
            if rename.ident != "self" {
                full.push(rename.ident.to_string());
            }
            into.push(full);
        }
        syn::UseTree::Glob(_) => into.push(prefix.clone()),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_paths(tree, prefix, into);
            }
        }
    }
}

/// Runs `a::b::c` of identifiers in a macro's tokens.
fn token_paths(tokens: proc_macro2::TokenStream, into: &mut Vec<Vec<String>>) {
    let mut run: Vec<String> = Vec::new();
    let mut colons = 0;
    let flush = |run: &mut Vec<String>, into: &mut Vec<Vec<String>>| {
        if run.len() > 1 {
            into.push(std::mem::take(run));
        }
        run.clear();
    };
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Ident(ident) => {
                if colons != 2 {
                    flush(&mut run, into);
                }
                run.push(ident.to_string());
                colons = 0;
            }
            proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ':' && !run.is_empty() => colons += 1,
            proc_macro2::TokenTree::Group(group) => {
                flush(&mut run, into);
                colons = 0;
                token_paths(group.stream(), into);
            }
            _ => {
                flush(&mut run, into);
                colons = 0;
            }
        }
    }
    flush(&mut run, into);
}

/// Module → the modules of the same crate it uses, each with the first path that uses it.
fn dependencies(modules: &BTreeMap<ModPath, Module>) -> BTreeMap<ModPath, BTreeMap<ModPath, String>> {
    let mut graph = BTreeMap::new();
    for (path, module) in modules {
        let mut paths = Paths::default();
        for item in &module.items {
            paths.visit_item(item);
        }
        let mut targets = BTreeMap::new();
        for segments in &paths.found {
            if let Some(target) = resolve(modules, path, segments, 0).filter(|target| target != path) {
                targets.entry(target).or_insert_with(|| segments.join("::"));
            }
        }
        graph.insert(path.clone(), targets);
    }
    graph
}

/// Every cycle of the graph, one per strongly connected component, as a closed walk.
fn cycles(graph: &BTreeMap<ModPath, BTreeMap<ModPath, String>>) -> Vec<(Vec<ModPath>, Vec<ModPath>)> {
    // Tarjan's algorithm, recursive: module graphs are small.
    struct State<'g> {
        graph: &'g BTreeMap<ModPath, BTreeMap<ModPath, String>>,
        index: BTreeMap<&'g ModPath, usize>,
        low: BTreeMap<&'g ModPath, usize>,
        stack: Vec<&'g ModPath>,
        on_stack: BTreeSet<&'g ModPath>,
        components: Vec<Vec<&'g ModPath>>,
    }
    fn connect<'g>(state: &mut State<'g>, node: &'g ModPath) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        for target in state.graph.get(node).into_iter().flat_map(BTreeMap::keys) {
            let Some((target, _)) = state.graph.get_key_value(target) else { continue };
            if !state.index.contains_key(target) {
                connect(state, target);
                let low = state.low[node].min(state.low[target]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.low[node].min(state.index[target]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                component.push(top);
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                state.components.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node) {
            connect(&mut state, node);
        }
    }
    // One shortest cycle through the smallest member of each component (breadth first).
    let mut found = Vec::new();
    for component in &state.components {
        let members: BTreeSet<&ModPath> = component.iter().copied().collect();
        let start = *members.iter().next().unwrap();
        let mut previous: BTreeMap<&ModPath, &ModPath> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut closing = None;
        while let Some(node) = queue.pop_front() {
            for target in graph.get(node).into_iter().flat_map(BTreeMap::keys) {
                if target == start {
                    closing = Some(node);
                    break;
                }
                if members.contains(target) && !previous.contains_key(target) {
                    previous.insert(target, node);
                    queue.push_back(target);
                }
            }
            if closing.is_some() {
                break;
            }
        }
        let mut walk = vec![start.clone()];
        let mut node = closing.unwrap();
        let mut back = vec![node.clone()];
        while node != start {
            node = previous[node];
            if node != start {
                back.push(node.clone());
            }
        }
        walk.extend(back.into_iter().rev());
        walk.push(start.clone());
        found.push((walk, members.iter().map(|member| (*member).clone()).collect()));
    }
    found
}

/// The module cycles of the crate rooted at `root`, one per set of modules that reach each
/// other: `a → b → a`, each step with its file and the path that makes it.
pub(crate) fn module_cycles(root: &Path) -> Vec<String> {
    let modules = parse(root);
    let graph = dependencies(&modules);
    cycles(&graph)
        .iter()
        .map(|(walk, members)| {
            let names: Vec<String> = walk.iter().map(|module| show(module)).collect();
            let steps: Vec<String> = walk
                .windows(2)
                .map(|step| {
                    let file = &modules[&step[0]].file;
                    let file = file.strip_prefix(repo()).unwrap_or(file).display();
                    format!("{file} uses `{}`", graph[&step[0]][&step[1]])
                })
                .collect();
            let more = if members.len() + 1 > walk.len() {
                let edges: Vec<String> = members
                    .iter()
                    .flat_map(|from| {
                        graph[from]
                            .iter()
                            .filter(|(to, _)| members.contains(to))
                            .map(move |(to, path)| format!("{} → {} (`{path}`)", show(from), show(to)))
                    })
                    .collect();
                format!(";\n    all uses among the modules that reach each other:\n      {}", edges.join("\n      "))
            } else {
                String::new()
            };
            format!("{} ({}{more})", names.join(" → "), steps.join(", "))
        })
        .collect()
}

/// Functions (free, methods, trait defaults) longer than [`MAX_FN_LINES`], outside tests.
struct LongFunctions<'a> {
    file: &'a Path,
    module: &'a [String],
    owner: Option<String>,
    found: Vec<String>,
}

impl LongFunctions<'_> {
    fn check(&mut self, name: &syn::Ident, signature: proc_macro2::Span, body: proc_macro2::Span) {
        let (first, last) = (signature.start().line, body.end().line);
        let lines = last + 1 - first;
        if lines > MAX_FN_LINES {
            let mut path = vec![show(self.module)];
            path.extend(self.owner.clone());
            path.push(name.to_string());
            let file = self.file.strip_prefix(repo()).unwrap_or(self.file).display();
            self.found.push(format!("{} is {lines} lines ({file}:{first})", path.join("::")));
        }
    }
}

impl<'ast> Visit<'ast> for LongFunctions<'_> {
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !test_only(&item.attrs) {
            self.check(&item.sig.ident, item.sig.span(), item.block.span());
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if test_only(&item.attrs) {
            return;
        }
        let saved = self.owner.take();
        self.owner = match &*item.self_ty {
            syn::Type::Path(path) => path.path.segments.last().map(|segment| segment.ident.to_string()),
            _ => None,
        };
        syn::visit::visit_item_impl(self, item);
        self.owner = saved;
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !test_only(&item.attrs) {
            self.check(&item.sig.ident, item.sig.span(), item.block.span());
            syn::visit::visit_impl_item_fn(self, item);
        }
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(body) = &item.default
            && !test_only(&item.attrs)
        {
            self.check(&item.sig.ident, item.sig.span(), body.span());
        }
        syn::visit::visit_trait_item_fn(self, item);
    }
}

/// The functions over [`MAX_FN_LINES`] lines in the crate rooted at `root`, outside tests.
pub(crate) fn long_functions(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for (module, parsed) in parse(root) {
        let mut visitor = LongFunctions { file: &parsed.file, module: &module, owner: None, found: Vec::new() };
        for item in &parsed.items {
            visitor.visit_item(item);
        }
        found.extend(visitor.found);
    }
    found
}

/// The root files of the crate in folder `name`.
fn roots_of(name: &str) -> Vec<PathBuf> {
    let roots: Vec<PathBuf> = crates().into_iter().filter(|(folder, _)| folder == name).map(|(_, root)| root).collect();
    assert!(!roots.is_empty(), "no crate `{name}` under crates/ (or xtask)");
    roots
}

#[track_caller]
fn no_cycles(name: &str) {
    let found: Vec<String> = roots_of(name).iter().flat_map(|root| module_cycles(root)).collect();
    assert!(
        found.is_empty(),
        "module cycles in `{name}` (break each, say through a module both use):\n  {}",
        found.join("\n  ")
    );
}

#[track_caller]
fn no_long_functions(name: &str) {
    let found: Vec<String> = roots_of(name).iter().flat_map(|root| long_functions(root)).collect();
    assert!(
        found.is_empty(),
        "functions over {MAX_FN_LINES} lines in `{name}` (split each into named steps):\n  {}",
        found.join("\n  ")
    );
}

/// One test of each check per crate, so a finding names its crate in the test's name.
macro_rules! per_crate {
    ($($name:ident)*) => {
        $(
            mod $name {
                #[test]
                fn has_no_module_cycle() {
                    super::no_cycles(stringify!($name));
                }

                #[test]
                fn has_no_function_over_150_lines() {
                    super::no_long_functions(stringify!($name));
                }
            }
        )*

        /// Every crate has its tests above: a new crate cannot go unchecked.
        #[test]
        fn every_crate_is_checked() {
            let checked: BTreeSet<&str> = [$(stringify!($name)),*].into_iter().collect();
            for (name, _) in crates() {
                assert!(checked.contains(name.as_str()), "add `{name}` to `per_crate!` in tidy_structure.rs");
            }
        }
    };
}

per_crate!(analyze cli lsp matcher patch python run search toolkit vfs xtask);

/// The checks themselves: a cycle through a re-export and a child's `super::` is found, a
/// test module is not, and a long function is measured from its signature to its brace.
mod self_test {
    use super::*;

    fn crate_of(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let root = dir.path().join("lib.rs");
        (dir, root)
    }

    #[test]
    fn cycles_through_reexports_super_and_macros_are_found() {
        let (_dir, root) = crate_of(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\npub use a::Thing;\nfn helper() {}\n"),
            ("a.rs", "pub struct Thing;\nfn f() { crate::b::g(); }\n"),
            ("b.rs", "pub fn g() { let _ = format!(\"{:?}\", crate::Thing); }\n"),
            ("c.rs", "mod inner { fn h() { super::super::helper(); } }\n#[cfg(test)]\nmod tests { use crate::c; }\n"),
        ]);
        let found = module_cycles(&root);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("crate::a → crate::b → crate::a"), "{found:?}");
        // `crate::c::inner` uses the root, which uses no part of `c`: no cycle.
        let (_dir, root) = crate_of(&[
            ("lib.rs", "mod c;\nfn helper() {}\nfn g() { c::f(); }\n"),
            ("c.rs", "pub fn f() { super::helper(); }\n"),
        ]);
        let found = module_cycles(&root);
        assert!(found.len() == 1 && found[0].starts_with("crate → crate::c → crate ("), "{found:?}");
    }

    #[test]
    fn long_functions_are_measured_and_tests_left_out() {
        let body = "    let _ = 1;\n".repeat(MAX_FN_LINES - 2);
        let long = format!("fn long() {{\n{body}}}\nfn short() {{\n}}\n");
        let longer = format!("impl S {{\n    fn method() {{\n{body}    let _ = 2;\n    }}\n}}\nstruct S;\n");
        let tests = format!("#[cfg(test)]\nmod tests {{\n    fn huge() {{\n{body}{body}    }}\n}}\n");
        let (_dir, root) = crate_of(&[("lib.rs", &format!("mod m;\n{long}{tests}")), ("m.rs", &longer)]);
        let found = long_functions(&root);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with(&format!("crate::m::S::method is {} lines", MAX_FN_LINES + 1)), "{found:?}");
    }
}
