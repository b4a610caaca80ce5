//! The module layering check: imports run one way.
//!
//! Reads every module file of a crate (following `mod` declarations from the crate root),
//! collects its module-level references to other modules of the same crate — `use` lines and
//! inline `crate::`/`super::`/`self::`/child-module paths alike, outside `#[cfg(test)]` items —
//! and reports cycles between module files and references against the crate's layering.
//!
//! A path resolves to the deepest module file it names (`crate::front::FrontError` is a
//! reference to `front/mod.rs`), so a child that uses an item its parent defines depends on the
//! parent: shared items belong in a leaf module of their own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The layers of a crate's top-level modules, highest first; a module may only refer to
/// modules of lower layers (and, within one top-level module, to anything without a cycle).
#[derive(Clone, Debug)]
pub struct Layering {
    /// Layers from the top: each a list of top-level module names and whether modules of that
    /// layer may refer to each other (without cycles).
    pub layers: Vec<(Vec<&'static str>, bool)>,
}

/// The product crate: cli → server → workflow → jobs → (front, synth, emit, output) → (vocab, cache)
/// (the language server sits beside the command line: only `cli` knows it).
pub fn product() -> Layering {
    Layering {
        layers: vec![
            (vec!["cli"], false),
            (vec!["server"], false),
            (vec!["workflow"], false),
            (vec!["jobs"], false),
            (vec!["front", "synth", "emit", "output"], false),
            (vec!["vocab", "cache"], false),
        ],
    }
}

/// The oracle crate: checkers (and `traps`) → (report, tree, smt, bv_eval, print) → arith → ir.
pub fn oracle() -> Layering {
    Layering {
        layers: vec![
            (vec!["sdv", "named", "exec", "traps"], false),
            (vec!["report", "tree", "smt", "bv_eval", "print"], true),
            (vec!["arith"], false),
            (vec!["ir"], false),
        ],
    }
}

/// A module file of the crate, by its module path (`front::lower::expr`; empty for the root).
type ModPath = Vec<String>;

/// One reference between module files, with where it was written.
#[derive(Clone, Debug)]
struct Edge {
    to: ModPath,
    at: String,
}

/// The module files of a crate and their references.
#[derive(Debug, Default)]
pub struct Graph {
    /// Module path → its file.
    pub files: BTreeMap<ModPath, PathBuf>,
    edges: BTreeMap<ModPath, Vec<Edge>>,
    /// Files of `#[cfg(test)]` modules: part of the tree, but their references are not read.
    pub test_files: Vec<PathBuf>,
    /// `mod` declarations whose file was not found, and files that could not be parsed.
    pub problems: Vec<String>,
}

impl Graph {
    /// Reads the crate whose root file is `root` (`src/lib.rs`).
    pub fn read(root: &Path) -> Graph {
        let mut g = Graph::default();
        let dir = root.parent().unwrap_or(Path::new(".")).to_path_buf();
        g.read_module(Vec::new(), root, &dir);
        let known: BTreeSet<ModPath> = g.files.keys().cloned().collect();
        let mut edges = BTreeMap::new();
        for (m, file) in &g.files {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            let Ok(ast) = syn::parse_file(&text) else {
                continue;
            };
            let mut refs = Refs {
                known: &known,
                here: m.clone(),
                file: file.display().to_string(),
                out: Vec::new(),
            };
            for item in &ast.items {
                refs.item(item);
            }
            edges.insert(m.clone(), refs.out);
        }
        g.edges = edges;
        g
    }

    /// Reads module `m` from `file`; its children live in `dir` (`x/` for `x.rs` and `x/mod.rs`).
    fn read_module(&mut self, m: ModPath, file: &Path, dir: &Path) {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => return self.problems.push(format!("{}: {e}", file.display())),
        };
        let ast = match syn::parse_file(&text) {
            Ok(a) => a,
            Err(e) => return self.problems.push(format!("{}: does not parse: {e}", file.display())),
        };
        self.files.insert(m.clone(), file.to_path_buf());
        for item in &ast.items {
            let syn::Item::Mod(md) = item else { continue };
            if md.content.is_some() {
                continue;
            }
            let name = md.ident.to_string();
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(&name).join("mod.rs");
            if is_test(&md.attrs) {
                self.test_files
                    .extend([flat, nested].into_iter().filter(|f| f.is_file()));
                continue;
            }
            let mut child = m.clone();
            child.push(name.clone());
            match (flat.is_file(), nested.is_file()) {
                (true, _) => self.read_module(child, &flat, &dir.join(&name)),
                (false, true) => self.read_module(child, &nested, &dir.join(&name)),
                _ => self
                    .problems
                    .push(format!("{}: `mod {name};` has no file", file.display())),
            }
        }
    }

    /// Every reference as (from, to, where written), self-references left out.
    pub fn edges(&self) -> impl Iterator<Item = (&ModPath, &ModPath, &str)> {
        self.edges
            .iter()
            .flat_map(|(from, es)| es.iter().map(move |e| (from, &e.to, e.at.as_str())))
            .filter(|(from, to, _)| from != to)
    }

    /// The cycles: strongly connected groups of more than one module file, each with the
    /// references inside it.
    pub fn cycles(&self) -> Vec<Vec<String>> {
        let nodes: Vec<&ModPath> = self.files.keys().collect();
        let index: BTreeMap<&ModPath, usize> = nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let mut succ = vec![BTreeSet::new(); nodes.len()];
        for (from, to, _) in self.edges() {
            if let (Some(&a), Some(&b)) = (index.get(from), index.get(to)) {
                succ[a].insert(b);
            }
        }
        let mut out = Vec::new();
        for scc in strongly_connected(&succ) {
            if scc.len() < 2 {
                continue;
            }
            let members: BTreeSet<&ModPath> = scc.iter().map(|&i| nodes[i]).collect();
            let mut lines: Vec<String> = self
                .edges()
                .filter(|(f, t, _)| members.contains(f) && members.contains(t))
                .map(|(f, t, at)| format!("{} → {} ({at})", show(f), show(t)))
                .collect();
            lines.dedup();
            out.push(lines);
        }
        out
    }

    /// References against `layering`, and top-level modules it does not place.
    pub fn layer_violations(&self, layering: &Layering) -> Vec<String> {
        let place = |top: &str| {
            layering
                .layers
                .iter()
                .position(|(ms, _)| ms.contains(&top))
                .map(|i| (i, layering.layers[i].1))
        };
        let mut out = BTreeSet::new();
        for m in self.files.keys() {
            if let Some(top) = m.first() {
                if place(top).is_none() {
                    out.insert(format!("top-level module `{top}` has no layer"));
                }
            }
        }
        for (from, to, at) in self.edges() {
            let (Some(a), Some(b)) = (from.first(), to.first()) else {
                // The crate root only declares modules; a reference to it is one to everything.
                if !from.is_empty() {
                    out.insert(format!("{} refers to the crate root ({at})", show(from)));
                }
                continue;
            };
            if a == b {
                continue;
            }
            let (Some((la, sideways)), Some((lb, _))) = (place(a), place(b)) else {
                continue;
            };
            let ok = la < lb || (la == lb && sideways);
            if !ok {
                let how = if la == lb { "a sibling" } else { "a higher layer" };
                out.insert(format!("{} refers to {how}, {} ({at})", show(from), show(to)));
            }
        }
        out.into_iter().collect()
    }
}

/// Every problem of the crate rooted at `root` under `layering`: unreadable modules, cycles,
/// references against the layers, and `.rs` files under the crate's directory that are in no
/// module tree (`extra_roots` are other roots there, such as `main.rs`).
pub fn check(root: &Path, layering: &Layering, extra_roots: &[&str]) -> Vec<String> {
    let g = Graph::read(root);
    let mut out = g.problems.clone();
    for c in g.cycles() {
        out.push(format!("import cycle:\n    {}", c.join("\n    ")));
    }
    out.extend(g.layer_violations(layering));
    let dir = root.parent().unwrap_or(Path::new("."));
    let mut tracked: BTreeSet<PathBuf> = g.files.values().chain(&g.test_files).cloned().collect();
    tracked.extend(extra_roots.iter().map(|r| dir.join(r)));
    for f in rust_files(dir) {
        if !tracked.contains(&f) && !f.components().any(|c| c.as_os_str() == "snapshots") {
            out.push(format!("{} is in no module tree", f.display()));
        }
    }
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else { return out };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

fn show(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// Whether attributes hold `#[cfg(test)]` (alone or in `all(...)`/`any(...)` with others).
pub(crate) fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && {
            let mut found = false;
            let _ = a.parse_nested_meta(|meta| {
                found |= meta.path.is_ident("test");
                Ok(())
            });
            found
        }
    })
}

/// Collects the references of one module file.
struct Refs<'a> {
    known: &'a BTreeSet<ModPath>,
    /// The module the code being read is in (inline `mod` blocks extend the file's path).
    here: ModPath,
    file: String,
    out: Vec<Edge>,
}

impl Refs<'_> {
    fn item(&mut self, item: &syn::Item) {
        if is_test(item_attrs(item)) {
            return;
        }
        match item {
            syn::Item::Use(u) => {
                let line = u.use_token.span.start().line;
                let mut prefix = Vec::new();
                self.use_tree(&u.tree, &mut prefix, line);
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    self.here.push(m.ident.to_string());
                    for i in items {
                        self.item(i);
                    }
                    self.here.pop();
                }
            }
            other => self.visit_item(other),
        }
    }

    fn use_tree(&mut self, t: &syn::UseTree, prefix: &mut Vec<String>, line: usize) {
        match t {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(&p.tree, prefix, line);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.reference(&full, line, true);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.reference(&full, line, true);
            }
            syn::UseTree::Glob(_) => self.reference(prefix, line, true),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(t, prefix, line);
                }
            }
        }
    }

    /// Records the module file a path names, if it is one of this crate's. `in_use`: a `use`
    /// path (a lone child-module name there is a reference; in code it may be a local).
    fn reference(&mut self, segs: &[String], line: usize, in_use: bool) {
        let Some(abs) = self.absolute(segs, in_use) else { return };
        let target = (0..=abs.len())
            .rev()
            .map(|n| abs[..n].to_vec())
            .find(|p| self.known.contains(p))
            .unwrap_or_default();
        let at = format!("{}:{line}", self.file);
        self.out.push(Edge { to: target, at });
    }

    /// The absolute module path of `segs`, or None for paths outside the crate.
    fn absolute(&self, segs: &[String], in_use: bool) -> Option<ModPath> {
        let first = segs.first()?;
        let mut base = self.here.clone();
        let mut rest = segs;
        match first.as_str() {
            "crate" => {
                base.clear();
                rest = &segs[1..];
            }
            "self" => rest = &segs[1..],
            "super" => {
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
            }
            name => {
                let mut child = self.here.clone();
                child.push(name.to_string());
                let module_prefix = self.known.contains(&child) && (in_use || segs.len() > 1);
                if !module_prefix {
                    return None;
                }
            }
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }
}

impl<'ast> Visit<'ast> for Refs<'_> {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = p.segments.first().map(|s| s.ident.span().start().line).unwrap_or(0);
        self.reference(&segs, line, false);
        syn::visit::visit_path(self, p);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // Inline modules nested in functions or blocks: same rules as at module level.
        self.item(&syn::Item::Mod(m.clone()));
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.item(&syn::Item::Use(u.clone()));
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(crate)`, `pub(super)`: a visibility, not a reference.
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {
        // Attribute paths (`derive`, `serde`, `allow`) are never this crate's modules.
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Tarjan's strongly connected components over successor sets.
fn strongly_connected(succ: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct St<'a> {
        succ: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut St, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in s.succ[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(comp);
        }
    }
    let n = succ.len();
    let mut s = St {
        succ,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a crate from (path, text) pairs into a fresh directory and returns its root.
    fn fake(files: &[(&str, &str)]) -> (tempdir::Dir, PathBuf) {
        let d = tempdir::Dir::new();
        for (p, t) in files {
            let f = d.0.join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(&f, t).unwrap();
        }
        let root = d.0.join("lib.rs");
        (d, root)
    }

    mod tempdir {
        /// A directory removed when dropped.
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                use std::sync::atomic::{AtomicU32, Ordering};
                static N: AtomicU32 = AtomicU32::new(0);
                let n = N.fetch_add(1, Ordering::SeqCst);
                let p = std::env::temp_dir().join(format!("layering-{}-{n}", std::process::id()));
                let _ = std::fs::remove_dir_all(&p);
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    fn two_layers() -> Layering {
        Layering {
            layers: vec![(vec!["top"], false), (vec!["a", "b"], false)],
        }
    }

    #[test]
    fn downward_references_pass() {
        let (_d, root) = fake(&[
            ("lib.rs", "pub mod top; pub mod a; pub mod b;"),
            ("top.rs", "use crate::a::f; fn g() { crate::b::h(); }"),
            ("a.rs", "pub fn f() {}"),
            ("b.rs", "pub fn h() {}"),
        ]);
        assert_eq!(check(&root, &two_layers(), &[]), Vec::<String>::new());
    }

    #[test]
    fn upward_sibling_inline_and_unknown_references_fail() {
        let (_d, root) = fake(&[
            ("lib.rs", "pub mod top; pub mod a; pub mod b; pub mod c;"),
            ("top.rs", "pub fn t() {}"),
            ("a.rs", "pub fn f() -> crate::top::T { crate::b::h() }"),
            ("b.rs", "pub fn h() {}"),
            ("c.rs", ""),
        ]);
        let v = check(&root, &two_layers(), &[]);
        assert!(v.iter().any(|m| m.contains("a refers to a higher layer, top")), "{v:?}");
        assert!(v.iter().any(|m| m.contains("a refers to a sibling, b")), "{v:?}");
        assert!(v.iter().any(|m| m.contains("`c` has no layer")), "{v:?}");
    }

    #[test]
    fn child_using_its_parent_is_a_cycle_and_tests_are_ignored() {
        let (_d, root) = fake(&[
            ("lib.rs", "pub mod a;"),
            ("a/mod.rs", "mod x; mod y; pub const N: u32 = 1; use x::F;"),
            ("a/x.rs", "pub struct F; fn f() -> u32 { super::N }"),
            (
                "a/y.rs",
                "pub fn g() {} #[cfg(test)] mod tests { use super::super::x::F; use crate::a::N; }",
            ),
            ("a/stray.rs", ""),
        ]);
        let layering = Layering {
            layers: vec![(vec!["a"], false)],
        };
        let v = check(&root, &layering, &[]);
        assert!(
            v.iter()
                .any(|m| m.starts_with("import cycle") && m.contains("a → a::x")),
            "{v:?}"
        );
        assert!(
            !v.iter().any(|m| m.contains("a::y →")),
            "test modules are not edges: {v:?}"
        );
        assert!(v.iter().any(|m| m.contains("stray.rs is in no module tree")), "{v:?}");
    }

    #[test]
    fn use_groups_globs_and_child_paths_resolve() {
        let (_d, root) = fake(&[
            ("lib.rs", "pub mod p;"),
            ("p/mod.rs", "pub mod q; pub mod r; fn f() { q::go(); }"),
            ("p/q.rs", "use super::r::{self, *}; pub fn go() {}"),
            ("p/r.rs", "use super::{q::go as g};"),
        ]);
        let g = Graph::read(&root);
        let edges: BTreeSet<(String, String)> = g.edges().map(|(a, b, _)| (show(a), show(b))).collect();
        assert!(edges.contains(&("p".into(), "p::q".into())));
        assert!(edges.contains(&("p::q".into(), "p::r".into())));
        assert!(edges.contains(&("p::r".into(), "p::q".into())));
        assert_eq!(g.cycles().len(), 1);
    }
}
