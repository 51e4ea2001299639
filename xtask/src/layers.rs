//! `cargo xtask layers`: the import graph of the workspace's library
//! crates, file by file, and what is wrong with it.
//!
//! A file depends on another when a path it names resolves into it: a
//! `use` (but a re-export, `pub use`/`pub(crate) use`, which only passes
//! a name on), or a path in its code (`crate::a::b::C`, `super::x::f`,
//! `module::Item` through a `use` of the module). Re-exports are followed
//! to where the item is defined, so a facade `mod.rs` is not a stop on the
//! way. A single name that stands for a module is a local variable of
//! the same name, not a use (a module is no value, type or pattern). Two
//! things are wrong:
//!
//! - **A circle**: two files that use each other (an arrow each way).
//!   The few that are allowed are named in [`ALLOWED_CIRCLES`], with why.
//!   Longer loops through a hub (every resource's rules use the world, and
//!   the world holds every resource's table) are counted and shown
//!   (`knots`: the strongly connected components), not refused: they are
//!   what a world of many tables is, where a two-way pair is always a
//!   concept split in the wrong place.
//! - **An arrow running back up**: a file of a lower layer (see
//!   [`LAYERS`]: each crate's top-level modules, from the bottom) that
//!   depends on a file of a higher one. Each must say why, in a comment
//!   `// up: <reason>` on the line of the `use` (or of the path), or on
//!   the line just above it.
//!
//! `--check` exits non-zero on either; without it the command prints the
//! graph's figures, its circles and its upward arrows.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use syn::visit_mut::VisitMut;

/// The library crates whose graphs are checked (their `src/lib.rs`); the
/// generated client (`metal-api/src/generated/`) is one file to the graph.
pub const CRATES: &[&str] = &[
    "metal-tls",
    "metal-api",
    "metal-policy",
    "metal-fake",
    "metal-provision",
];

/// Each crate's top-level modules, from the bottom layer up: a module may
/// use those of its own layer and below. A module not named is in no
/// layer, and not checked for direction.
pub const LAYERS: &[(&str, &[&[&str]])] = &[
    (
        "metal-fake",
        &[
            &["clock"],
            &["call", "faults", "fidelity"],
            // The world document holds the model's records, and the model
            // loads and saves it: one layer.
            &["model", "document"],
            // The store holds the call log (whose snapshot carries the
            // world's counts) and the handlers (the model's operations, a
            // test's own, or none).
            &["state", "store", "log", "handlers"],
            &["pipeline"],
            &["control", "router"],
            // The coverage tests drive a whole fake; the in-process
            // exchange is the `Exchange` of `Fake`.
            &["server", "fake", "coverage", "in_process"],
        ],
    ),
    (
        "metal-policy",
        &[
            // `children` is the metrics' cache of labelled collectors'
            // children (std alone), below the metrics that use it.
            &["redact", "error", "metrics", "children"],
            &["classify", "limit", "shared", "retry", "exchange"],
            &["client", "metal", "wait", "watch"],
        ],
    ),
];

/// Circles allowed, each with its reason: (crate, the pair as `a <-> b`
/// in sorted order, reason).
pub const ALLOWED_CIRCLES: &[(&str, &str, &str)] = &[(
    "metal-api",
    "src/config.rs <-> src/exchange.rs",
    "a `Config` builds the HTTP exchange, which reads back the bounds of the \
         configuration it was built from: one concept in two files",
)];

/// One module: its path below the crate root and its file.
#[derive(Clone, Debug)]
struct Module {
    file: PathBuf,
    /// Local names: what each name used in the module stands for (a
    /// `use`, a `mod`, or an item of its own), as a path from the crate
    /// root.
    names: BTreeMap<String, Vec<String>>,
    /// Globs (`use a::b::*`): their paths from the crate root.
    globs: Vec<Vec<String>>,
}

/// A crate's modules by path (`[]` is the root).
#[derive(Default)]
struct Crate {
    modules: BTreeMap<Vec<String>, Module>,
}

/// One dependency of a file: the file it lands in, and the line of the
/// path in the source file (for its `// up:` comment).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Use {
    to: PathBuf,
    line: usize,
}

/// The graph of one crate: each file's dependencies.
pub struct Graph {
    /// The crate's folder.
    pub krate: String,
    root: PathBuf,
    edges: BTreeMap<PathBuf, BTreeSet<Use>>,
}

/// What a check found.
#[derive(Default)]
pub struct Findings {
    /// Circles (two-way pairs) not allowed: `a <-> b`.
    pub circles: Vec<String>,
    /// Knots: the strongly connected components of more than two files,
    /// by size (shown, not refused).
    pub knots: Vec<usize>,
    /// Allowed circles met (to tell a stale allowance).
    pub allowed_met: BTreeSet<(String, String)>,
    /// Upward arrows without a reason: `from:line -> to`.
    pub unexplained_up: Vec<String>,
    /// Upward arrows with their reasons: `from:line -> to: reason`.
    pub explained_up: Vec<String>,
    /// Files and arrows counted (file pairs).
    pub files: usize,
    /// File-to-file arrows.
    pub arrows: usize,
    /// Folder-to-folder arrows (rooms).
    pub room_arrows: usize,
    /// Folders.
    pub rooms: usize,
}

fn module_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let flat = dir.join(format!("{name}.rs"));
    if flat.exists() {
        return Some(flat);
    }
    let nested = dir.join(name).join("mod.rs");
    nested.exists().then_some(nested)
}

/// The folder a module's children live in.
fn child_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new("")).to_path_buf();
    match file.file_name().and_then(|f| f.to_str()) {
        Some("mod.rs" | "lib.rs" | "main.rs") => parent,
        _ => parent.join(file.file_stem().unwrap_or_default()),
    }
}

fn path_of(p: &syn::Path) -> Vec<String> {
    p.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// Expands a use tree into (local name, path) pairs, and globs.
fn use_tree(
    prefix: &[String],
    tree: &syn::UseTree,
    out: &mut Vec<(String, Vec<String>)>,
    globs: &mut Vec<Vec<String>>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut next = prefix.to_vec();
            next.push(p.ident.to_string());
            use_tree(&next, &p.tree, out, globs);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut full = prefix.to_vec();
            if name == "self" {
                let local = prefix.last().cloned().unwrap_or_default();
                out.push((local, full));
            } else {
                full.push(name.clone());
                out.push((name, full));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.to_vec();
            if r.ident != "self" {
                full.push(r.ident.to_string());
            }
            out.push((r.rename.to_string(), full));
        }
        syn::UseTree::Glob(_) => globs.push(prefix.to_vec()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(prefix, t, out, globs);
            }
        }
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    Some(
        match item {
            syn::Item::Const(i) => &i.ident,
            syn::Item::Enum(i) => &i.ident,
            syn::Item::Fn(i) => &i.sig.ident,
            syn::Item::Static(i) => &i.ident,
            syn::Item::Struct(i) => &i.ident,
            syn::Item::Trait(i) => &i.ident,
            syn::Item::Type(i) => &i.ident,
            syn::Item::Union(i) => &i.ident,
            syn::Item::Macro(m) => return m.ident.as_ref().map(|i| i.to_string()),
            _ => return None,
        }
        .to_string(),
    )
}

/// Makes a use path absolute (from the crate root), as seen from module
/// `at`; `None` for another crate's.
fn absolute(at: &[String], path: &[String], krate: &Crate) -> Option<Vec<String>> {
    let first = path.first()?;
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "self" => Some([at, &path[1..]].concat()),
        "super" => {
            let mut base = at.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            Some([&base[..], rest].concat())
        }
        _ => {
            // 2018 paths: a name of the module itself (a `mod` or a `use`).
            let m = krate.modules.get(at)?;
            let target = m.names.get(first)?;
            Some([&target[..], &path[1..]].concat())
        }
    }
}

impl Crate {
    /// Reads module `at` from `file`, and its children.
    fn read(&mut self, at: Vec<String>, file: &Path) -> Result<()> {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let parsed =
            syn::parse_file(&text).with_context(|| format!("parsing {}", file.display()))?;
        self.items(at, file, &parsed.items)
    }

    fn items(&mut self, at: Vec<String>, file: &Path, items: &[syn::Item]) -> Result<()> {
        let mut module = Module {
            file: file.to_path_buf(),
            names: BTreeMap::new(),
            globs: Vec::new(),
        };
        let mut children = Vec::new();
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let path = [&at[..], std::slice::from_ref(&name)].concat();
                    module.names.insert(name.clone(), path.clone());
                    match &m.content {
                        Some((_, inner)) => children.push((path, file.to_path_buf(), Some(inner))),
                        None => {
                            let dir = child_dir(file);
                            if let Some(f) = module_file(&dir, &name) {
                                children.push((path, f, None));
                            }
                        }
                    }
                }
                syn::Item::Use(u) => {
                    let mut out = Vec::new();
                    use_tree(&[], &u.tree, &mut out, &mut module.globs);
                    for (name, path) in out {
                        module.names.insert(name, path);
                    }
                }
                other => {
                    if let Some(name) = item_name(other) {
                        module
                            .names
                            .insert(name.clone(), [&at[..], &[name]].concat());
                    }
                }
            }
        }
        // Use paths as written: made absolute once every module is read.
        self.modules.insert(at, module);
        for (path, f, inner) in children {
            match inner {
                Some(items) => self.items(path, &f, items)?,
                None => self.read(path, &f)?,
            }
        }
        Ok(())
    }

    /// Makes every module's names absolute.
    fn settle(&mut self) {
        let keys: Vec<Vec<String>> = self.modules.keys().cloned().collect();
        for at in keys {
            let names = self.modules[&at].names.clone();
            let globs = self.modules[&at].globs.clone();
            let mut settled = BTreeMap::new();
            for (name, path) in names {
                let abs = if path.starts_with(&at) && path.len() == at.len() + 1 {
                    // Its own item or child module.
                    Some(path)
                } else {
                    self.absolute_use(&at, &path)
                };
                if let Some(abs) = abs {
                    settled.insert(name, abs);
                }
            }
            let globs = globs
                .iter()
                .filter_map(|g| self.absolute_use(&at, g))
                .collect();
            let m = self.modules.get_mut(&at).expect("a key of the map");
            m.names = settled;
            m.globs = globs;
        }
    }

    /// A `use` path from module `at`: `crate::`, `self::`, `super::`, or a
    /// child module's name; `None` for another crate's.
    fn absolute_use(&self, at: &[String], path: &[String]) -> Option<Vec<String>> {
        let first = path.first()?;
        match first.as_str() {
            "crate" | "self" | "super" => absolute(at, path, self),
            _ => {
                let child = [at, std::slice::from_ref(first)].concat();
                self.modules
                    .contains_key(&child)
                    .then(|| [at, path].concat())
            }
        }
    }

    /// The file a crate-root path lands in, following re-exports.
    fn land(&self, path: &[String], depth: usize) -> Option<PathBuf> {
        if depth > 16 {
            return None;
        }
        // The longest prefix that is a module.
        let mut n = path.len();
        while n > 0 && !self.modules.contains_key(&path[..n]) {
            n -= 1;
        }
        let m = self.modules.get(&path[..n])?;
        let Some(name) = path.get(n) else {
            return Some(m.file.clone());
        };
        if let Some(target) = m.names.get(name) {
            if target[..] != path[..=n] {
                let next = [&target[..], &path[n + 1..]].concat();
                return self.land(&next, depth + 1);
            }
            return Some(m.file.clone());
        }
        for g in &m.globs {
            let next = [&g[..], &path[n..]].concat();
            if let Some(f) = self.land(&next, depth + 1)
                && self.defines(&next)
            {
                return Some(f);
            }
        }
        Some(m.file.clone())
    }

    /// Whether the module a path's prefix names defines its next name.
    fn defines(&self, path: &[String]) -> bool {
        let mut n = path.len();
        while n > 0 && !self.modules.contains_key(&path[..n]) {
            n -= 1;
        }
        match (self.modules.get(&path[..n]), path.get(n)) {
            (Some(m), Some(name)) => m.names.contains_key(name),
            _ => false,
        }
    }
}

/// Collects the paths of a file's code, with their lines, per module.
struct Paths<'a> {
    krate: &'a Crate,
    at: Vec<String>,
    found: Vec<(Vec<String>, usize)>,
}

impl Paths<'_> {
    fn push(&mut self, path: Vec<String>, line: usize) {
        if let Some(abs) = absolute(&self.at, &path, self.krate) {
            self.found.push((abs, line));
        }
    }
}

impl VisitMut for Paths<'_> {
    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        if m.content.is_some() {
            self.at.push(m.ident.to_string());
            syn::visit_mut::visit_item_mod_mut(self, m);
            self.at.pop();
        }
    }

    fn visit_item_use_mut(&mut self, u: &mut syn::ItemUse) {
        // A re-export passes a name on; it is no dependency of its own.
        if !matches!(u.vis, syn::Visibility::Inherited) {
            return;
        }
        let mut out = Vec::new();
        let mut globs = Vec::new();
        use_tree(&[], &u.tree, &mut out, &mut globs);
        let line = u.use_token.span.start().line;
        for (_, path) in out
            .into_iter()
            .chain(globs.into_iter().map(|g| (String::new(), g)))
        {
            let abs = self.krate.absolute_use(&self.at, &path);
            if let Some(abs) = abs {
                self.found.push((abs, line));
            }
        }
    }

    fn visit_visibility_mut(&mut self, _: &mut syn::Visibility) {
        // `pub(crate)`, `pub(super)`: a scope, not a dependency.
    }

    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        let line = p
            .segments
            .first()
            .map(|s| s.ident.span().start().line)
            .unwrap_or_default();
        if p.segments.len() > 1 {
            self.push(path_of(p), line);
        } else if p.leading_colon.is_none() {
            // One name alone is never a module in code (a module is no
            // value, type or pattern): a name that stands for one here is
            // a local of the same name (`let body = ...` beside `mod
            // body;`), not a use of it.
            if let Some(abs) = absolute(&self.at, &path_of(p), self.krate)
                && !self.krate.modules.contains_key(&abs)
            {
                self.found.push((abs, line));
            }
        }
        syn::visit_mut::visit_path_mut(self, p);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        // A macro's arguments, when they read as expressions.
        type Exprs = syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>;
        if let Ok(mut exprs) = syn::parse::Parser::parse2(Exprs::parse_terminated, m.tokens.clone())
        {
            for e in exprs.iter_mut() {
                self.visit_expr_mut(e);
            }
        }
        syn::visit_mut::visit_macro_mut(self, m);
    }
}

impl Graph {
    /// Reads crate `krate` (a folder of the workspace) from its
    /// `src/lib.rs`.
    pub fn read(workspace: &Path, krate: &str) -> Result<Self> {
        let root = workspace.join(krate);
        let lib = root.join("src/lib.rs");
        let mut c = Crate::default();
        c.read(Vec::new(), &lib)?;
        c.settle();
        let mut edges: BTreeMap<PathBuf, BTreeSet<Use>> = BTreeMap::new();
        let files: BTreeSet<PathBuf> = c.modules.values().map(|m| m.file.clone()).collect();
        for file in &files {
            // The module that is this file (not one of its inline ones).
            let Some(at) = c
                .modules
                .iter()
                .filter(|(_, m)| &m.file == file)
                .map(|(k, _)| k.clone())
                .min_by_key(Vec::len)
            else {
                continue;
            };
            let text = std::fs::read_to_string(file)?;
            let mut parsed = syn::parse_file(&text)?;
            let mut paths = Paths {
                krate: &c,
                at,
                found: Vec::new(),
            };
            paths.visit_file_mut(&mut parsed);
            let set = edges.entry(file.clone()).or_default();
            for (path, line) in paths.found {
                if let Some(to) = c.land(&path, 0)
                    && &to != file
                {
                    set.insert(Use { to, line });
                }
            }
        }
        Ok(Self {
            krate: krate.to_string(),
            root,
            edges,
        })
    }

    fn rel(&self, f: &Path) -> String {
        f.strip_prefix(&self.root)
            .unwrap_or(f)
            .display()
            .to_string()
    }

    /// The top-level module a file belongs to (`src/model/x.rs`: `model`).
    fn top(&self, f: &Path) -> String {
        let rel = self.rel(f);
        let rest = rel.strip_prefix("src/").unwrap_or(&rel);
        let first = rest.split('/').next().unwrap_or_default();
        first.trim_end_matches(".rs").to_string()
    }

    /// File-to-file arrows (each pair once).
    fn pairs(&self) -> BTreeMap<(PathBuf, PathBuf), usize> {
        let mut out = BTreeMap::new();
        for (from, uses) in &self.edges {
            for u in uses {
                out.entry((from.clone(), u.to.clone())).or_insert(u.line);
            }
        }
        out
    }

    /// The strongly connected components of more than one file.
    fn circles(&self) -> Vec<Vec<PathBuf>> {
        let pairs = self.pairs();
        let nodes: Vec<PathBuf> = self
            .edges
            .keys()
            .cloned()
            .chain(pairs.keys().map(|(_, t)| t.clone()))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let index: BTreeMap<&PathBuf, usize> =
            nodes.iter().enumerate().map(|(i, n)| (n, i)).collect();
        let mut next = vec![Vec::new(); nodes.len()];
        for (from, to) in pairs.keys() {
            next[index[from]].push(index[to]);
        }
        tarjan(&next)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut files: Vec<PathBuf> = c.into_iter().map(|i| nodes[i].clone()).collect();
                files.sort();
                files
            })
            .collect()
    }

    /// Checks the graph: its circles and its upward arrows.
    pub fn check(&self) -> Result<Findings> {
        let mut f = Findings::default();
        let pairs = self.pairs();
        f.arrows = pairs.len();
        let files: BTreeSet<&PathBuf> = self.edges.keys().collect();
        f.files = files.len();
        let room = |p: &Path| p.parent().map(Path::to_path_buf).unwrap_or_default();
        let rooms: BTreeSet<PathBuf> = files.iter().map(|p| room(p)).collect();
        f.rooms = rooms.len();
        f.room_arrows = pairs
            .keys()
            .map(|(a, b)| (room(a), room(b)))
            .filter(|(a, b)| a != b)
            .collect::<BTreeSet<_>>()
            .len();
        for (a, b) in pairs.keys() {
            if a < b && pairs.contains_key(&(b.clone(), a.clone())) {
                let pair = format!("{} <-> {}", self.rel(a), self.rel(b));
                match ALLOWED_CIRCLES
                    .iter()
                    .find(|(k, p, _)| *k == self.krate && *p == pair)
                {
                    Some(_) => {
                        f.allowed_met.insert((self.krate.clone(), pair));
                    }
                    None => f.circles.push(pair),
                }
            }
        }
        f.knots = self
            .circles()
            .iter()
            .map(Vec::len)
            .filter(|n| *n > 2)
            .collect();
        f.knots.sort_unstable_by(|a, b| b.cmp(a));
        let layers = LAYERS
            .iter()
            .find(|(k, _)| *k == self.krate)
            .map(|(_, l)| *l)
            .unwrap_or(&[]);
        let layer_of = |top: &str| layers.iter().position(|l| l.contains(&top));
        for (from, uses) in &self.edges {
            let text = std::fs::read_to_string(from)?;
            let lines: Vec<&str> = text.lines().collect();
            let mut seen = BTreeSet::new();
            for u in uses {
                let (a, b) = (self.top(from), self.top(&u.to));
                let (Some(la), Some(lb)) = (layer_of(&a), layer_of(&b)) else {
                    continue;
                };
                if lb <= la || !seen.insert(u.to.clone()) {
                    continue;
                }
                let reason = [u.line, u.line.saturating_sub(1)]
                    .iter()
                    .filter_map(|n| lines.get(n.checked_sub(1)?))
                    .find_map(|l| l.split_once("// up:").map(|(_, r)| r.trim().to_string()));
                let arrow = format!("{}:{} -> {}", self.rel(from), u.line, self.rel(&u.to));
                match reason {
                    Some(r) if !r.is_empty() => f.explained_up.push(format!("{arrow}: {r}")),
                    _ => f.unexplained_up.push(arrow),
                }
            }
        }
        Ok(f)
    }
}

/// Tarjan's strongly connected components.
fn tarjan(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in &s.next[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
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
    let n = next.len();
    let mut s = State {
        next,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        counter: 0,
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

    #[test]
    fn tarjan_finds_a_circle_and_leaves_a_line_alone() {
        // 0 -> 1 -> 2 -> 0, 2 -> 3.
        let next = vec![vec![1], vec![2], vec![0, 3], vec![]];
        let mut big: Vec<Vec<usize>> = tarjan(&next).into_iter().filter(|c| c.len() > 1).collect();
        for c in &mut big {
            c.sort();
        }
        assert_eq!(big, vec![vec![0, 1, 2]]);
    }

    /// A small crate on disk: a circle through a facade's re-export is
    /// found, a re-export alone is no arrow, and an upward arrow needs its
    /// reason.
    #[test]
    fn a_small_crate_s_circle_and_arrows() {
        let dir = std::env::temp_dir().join(format!("xtask-layers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let src = dir.join("demo/src");
        std::fs::create_dir_all(src.join("model/thing")).unwrap();
        let write = |p: &str, t: &str| std::fs::write(src.join(p), t).unwrap();
        write("lib.rs", "mod model;\nmod server;\n");
        write(
            "model/mod.rs",
            "mod thing;\npub(crate) use thing::Thing;\npub(crate) struct World;\n",
        );
        write(
            "model/thing/mod.rs",
            "mod record;\nmod rules;\npub(crate) use record::Thing;\n",
        );
        write(
            "model/thing/record.rs",
            "use super::rules::BOUND;\npub(crate) struct Thing([u8; BOUND]);\n",
        );
        write(
            "model/thing/rules.rs",
            "pub(crate) const BOUND: usize = 1;\nfn f(_: &crate::model::Thing, _: &crate::model::World) {}\nfn g() { crate::server::serve(); }\n",
        );
        write(
            "server.rs",
            "pub(crate) fn serve() { let _ = crate::model::World; }\n",
        );
        let g = Graph::read(&dir, "demo").unwrap();
        let f = g.check().unwrap();
        assert_eq!(
            f.circles,
            ["src/model/thing/record.rs <-> src/model/thing/rules.rs"]
        );
        // No layers declared for "demo": nothing is up or down.
        assert!(f.unexplained_up.is_empty());
        // rules -> record, rules -> model/mod.rs (World), rules -> server,
        // record -> rules, server -> model/mod.rs.
        assert_eq!(f.arrows, 5, "{:?}", g.pairs());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A local variable named as a child module (`let body = ..` beside
    /// `mod body;`) is no arrow to the module; a path through it is.
    #[test]
    fn a_local_named_as_a_module_is_no_arrow() {
        let dir = std::env::temp_dir().join(format!("xtask-layers-local-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let src = dir.join("demo/src");
        std::fs::create_dir_all(&src).unwrap();
        let write = |p: &str, t: &str| std::fs::write(src.join(p), t).unwrap();
        write(
            "lib.rs",
            "mod body;\nmod rate;\nfn f(body: u8) -> u8 { let rate = body; rate }\nfn g() -> u8 { rate::LIMIT }\n",
        );
        write("body.rs", "pub(crate) fn read() {}\n");
        write("rate.rs", "pub(crate) const LIMIT: u8 = 1;\n");
        let g = Graph::read(&dir, "demo").unwrap();
        let pairs: Vec<String> = g
            .pairs()
            .keys()
            .map(|(a, b)| format!("{} -> {}", g.rel(a), g.rel(b)))
            .collect();
        assert_eq!(pairs, ["src/lib.rs -> src/rate.rs"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
