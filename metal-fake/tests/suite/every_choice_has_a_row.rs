//! Nothing the fake decides without a row: every refusal message, every
//! delay and every state of the model is named in `metal_fake::fidelity`
//! (`src/fidelity.rs`), so no choice of the fake is invisible.
//!
//! The walk reads the model's source (`src/model/**/*.rs`, test modules
//! left out) as text at test time, through a small lexer (comments
//! skipped, strings unescaped), and finds:
//!
//! - **refusal messages**: the string literals that reach an `ApiError`
//!   (the `errors` of the API's `422`, `403`, `404`, `503` bodies): those
//!   given to `ApiError::unprocessable(…)`, `ApiError::new(status, …)`
//!   (not `500`, the fake's own failures) and `ApiError { … }`, and to
//!   `OnDelete::Restrict(…)` and `refuse(…)`, the relations' and the
//!   bounds' carriers; `format!` templates inside them (their
//!   placeholders read as wildcards); the `&str` constants they name
//!   (`NOT_PROVISIONABLE`); the locals they name, through the `let` (or
//!   `if let Some(x) =`) that binds them, and a `messages` vector through
//!   its `push`es; the functions they call that return a message
//!   (`String`, `&str`, `Option<String>`, `Result<_, String>`), and those
//!   whose error `map_err(ApiError::unprocessable)` turns into one. A
//!   literal counts where it is a value (an argument of `format!`, `Some`,
//!   `Err`, `push`, a carrier; a block's, a match arm's or a closure's
//!   result), not where it is an argument of another call (`join(", ")`,
//!   a field name given to `too_long`);
//! - **delays**: the fields of `Timings` (`src/model/timings.rs`), named in
//!   fidelity as `Timings::field`, and every other `Duration` constant of
//!   the model, named as `folder::NAME` (`vrf_route::SETTLE`);
//! - **states**: the variants of the model's `…State` and `…Status` enums
//!   (by their serde names), the states written as literals (`state:
//!   "active"`, `body["state"] = "deleting"`, a `fn state`'s results, a
//!   match arm of a state), each named in fidelity as a word.
//!
//! A message is mentioned when fidelity's text (its lines joined,
//! backticks left out, ASCII case ignored) holds its fixed text in order,
//! each placeholder any text of at most 80 characters. The test fails
//! naming each one fidelity does not mention; a second test shows the
//! walk finds a refusal added to the model without its row.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------
// The lexer.

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// A string literal's value; `raw` when it was `r"…"` (no escapes).
    Str(String),
    Num(String),
    Punct(char),
    Lifetime,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

fn lex(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if raw_string_at(&chars, i) {
            // A raw string: r"…", r#"…"#, br"…".
            let start_line = line;
            i += if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while at(i) == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1; // the opening quote
            let mut value = String::new();
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '"' && (0..hashes).all(|h| at(i + 1 + h) == '#') {
                    i += 1 + hashes;
                    break;
                }
                if chars[i] == '\n' {
                    line += 1;
                }
                value.push(chars[i]);
                i += 1;
            }
            out.push(Token {
                tok: Tok::Str(value),
                line: start_line,
            });
        } else if c == '"' || (c == 'b' && at(i + 1) == '"') {
            let start_line = line;
            i += if c == 'b' { 2 } else { 1 };
            let mut value = String::new();
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    let e = at(i + 1);
                    i += 2;
                    match e {
                        'n' => value.push('\n'),
                        't' => value.push('\t'),
                        'r' => value.push('\r'),
                        '0' => value.push('\0'),
                        '\n' => {
                            // A line continuation: the next line's
                            // leading whitespace goes too.
                            line += 1;
                            while at(i).is_whitespace() {
                                if at(i) == '\n' {
                                    line += 1;
                                }
                                i += 1;
                            }
                        }
                        'u' => {
                            // \u{…}
                            let mut hex = String::new();
                            i += 1; // {
                            while at(i) != '}' && i < chars.len() {
                                hex.push(at(i));
                                i += 1;
                            }
                            i += 1;
                            if let Some(ch) =
                                u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
                            {
                                value.push(ch);
                            }
                        }
                        'x' => {
                            let hex: String = [at(i), at(i + 1)].iter().collect();
                            i += 2;
                            if let Some(ch) =
                                u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
                            {
                                value.push(ch);
                            }
                        }
                        other => value.push(other),
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    value.push(chars[i]);
                    i += 1;
                }
            }
            i += 1;
            out.push(Token {
                tok: Tok::Str(value),
                line: start_line,
            });
        } else if c == '\'' {
            // A char literal ('x', '\n', '\'') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push(Token {
                    tok: Tok::Num("char".into()),
                    line,
                });
            } else if at(i + 2) == '\'' {
                i += 3;
                out.push(Token {
                    tok: Tok::Num("char".into()),
                    line,
                });
            } else {
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Lifetime,
                    line,
                });
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(chars[start..i].iter().collect()),
                line,
            });
        } else if c.is_ascii_digit() {
            let start = i;
            while at(i).is_alphanumeric()
                || at(i) == '_'
                || (at(i) == '.' && at(i + 1).is_ascii_digit())
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Num(chars[start..i].iter().collect()),
                line,
            });
        } else {
            out.push(Token {
                tok: Tok::Punct(c),
                line,
            });
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------
// A file's tokens, with its brackets matched and its functions found.

struct FnDef {
    name: String,
    /// The return type's tokens, joined.
    ret: String,
    /// The body's `{` and `}`.
    body: (usize, usize),
}

struct File {
    path: String,
    /// The folder under `model/` (`vrf_route`), or the file's stem for a
    /// file directly under it.
    resource: String,
    toks: Vec<Token>,
    /// For each bracket, its partner.
    partner: Vec<Option<usize>>,
    fns: Vec<FnDef>,
}

impl File {
    fn new(path: String, resource: String, src: &str) -> Self {
        let toks = without_tests(lex(src));
        let partner = partners(&toks);
        let mut f = Self {
            path,
            resource,
            toks,
            partner,
            fns: Vec::new(),
        };
        f.fns = f.find_fns();
        f
    }

    fn ident(&self, i: usize) -> Option<&str> {
        match self.toks.get(i).map(|t| &t.tok) {
            Some(Tok::Ident(s)) => Some(s),
            _ => None,
        }
    }

    fn is(&self, i: usize, c: char) -> bool {
        matches!(self.toks.get(i).map(|t| &t.tok), Some(Tok::Punct(p)) if *p == c)
    }

    fn is_ident(&self, i: usize, name: &str) -> bool {
        self.ident(i) == Some(name)
    }

    fn str_at(&self, i: usize) -> Option<&str> {
        match self.toks.get(i).map(|t| &t.tok) {
            Some(Tok::Str(s)) => Some(s),
            _ => None,
        }
    }

    fn find_fns(&self) -> Vec<FnDef> {
        let mut fns = Vec::new();
        for i in 0..self.toks.len() {
            if !self.is_ident(i, "fn") {
                continue;
            }
            let Some(name) = self.ident(i + 1) else {
                continue;
            };
            // The parameters' parenthesis, then the return type up to the
            // body (or `;` for a declaration).
            let Some(open) = (i + 2..self.toks.len()).find(|&j| self.is(j, '(')) else {
                continue;
            };
            let Some(close) = self.partner[open] else {
                continue;
            };
            let mut j = close + 1;
            let mut ret = String::new();
            let mut in_ret = false;
            while j < self.toks.len() && !self.is(j, '{') && !self.is(j, ';') {
                if self.is(j, '-') && self.is(j + 1, '>') {
                    in_ret = true;
                    j += 2;
                    continue;
                }
                if self.is_ident(j, "where") {
                    in_ret = false;
                }
                if in_ret {
                    ret.push_str(&text(&self.toks[j].tok));
                }
                j += 1;
            }
            if self.is(j, '{')
                && let Some(end) = self.partner[j]
            {
                fns.push(FnDef {
                    name: name.to_string(),
                    ret,
                    body: (j, end),
                });
            }
        }
        fns
    }

    /// The innermost function whose body holds token `i`.
    fn enclosing(&self, i: usize) -> Option<&FnDef> {
        self.fns
            .iter()
            .filter(|f| f.body.0 < i && i < f.body.1)
            .min_by_key(|f| f.body.1 - f.body.0)
    }

    /// The token before `i`'s group opener's callee: for `(` at `open`,
    /// the name called (`format` for `format!(`), with whether it was a
    /// macro.
    fn callee(&self, open: usize) -> Option<(&str, bool)> {
        if open == 0 {
            return None;
        }
        if self.is(open - 1, '!') {
            return self.ident(open.checked_sub(2)?).map(|n| (n, true));
        }
        // `push::<T>(` does not occur; generics before a call are skipped
        // by the caller's shapes.
        self.ident(open - 1).map(|n| (n, false))
    }

    /// The opener of the innermost group holding `i`.
    fn group_of(&self, i: usize) -> Option<usize> {
        let mut depth = 0i32;
        for j in (0..i).rev() {
            match &self.toks[j].tok {
                Tok::Punct(')' | ']' | '}') => depth += 1,
                Tok::Punct('(' | '[' | '{') => {
                    if depth == 0 {
                        return Some(j);
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
        None
    }

    /// Whether `ApiError :: new` is the call whose `(` is at `open`.
    fn is_api_error_new(&self, open: usize) -> bool {
        open >= 3
            && self.is_ident(open - 1, "new")
            && self.is(open - 2, ':')
            && self.is(open - 3, ':')
            && self.is_ident(open.wrapping_sub(4), "ApiError")
    }
}

fn text(t: &Tok) -> String {
    match t {
        Tok::Ident(s) | Tok::Num(s) => format!("{s} "),
        Tok::Str(s) => format!("{s:?}"),
        Tok::Punct(c) => c.to_string(),
        Tok::Lifetime => "'_ ".into(),
    }
}

/// The tokens without the items under `#[cfg(test)]`.
fn without_tests(toks: Vec<Token>) -> Vec<Token> {
    let is = |i: usize, t: &Tok| toks.get(i).is_some_and(|x| &x.tok == t);
    let id = |s: &str| Tok::Ident(s.to_string());
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let cfg_test = is(i, &Tok::Punct('#'))
            && is(i + 1, &Tok::Punct('['))
            && is(i + 2, &id("cfg"))
            && is(i + 3, &Tok::Punct('('))
            && is(i + 4, &id("test"))
            && is(i + 5, &Tok::Punct(')'))
            && is(i + 6, &Tok::Punct(']'));
        if !cfg_test {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        // Skip the item: up to its `;`, or its body's closing brace.
        let mut j = i + 7;
        let mut depth = 0i32;
        while j < toks.len() {
            match toks[j].tok {
                Tok::Punct('(' | '[') => depth += 1,
                Tok::Punct(')' | ']') => depth -= 1,
                Tok::Punct(';') if depth == 0 => break,
                Tok::Punct('{') if depth == 0 => {
                    let mut braces = 0;
                    while j < toks.len() {
                        match toks[j].tok {
                            Tok::Punct('{') => braces += 1,
                            Tok::Punct('}') => {
                                braces -= 1;
                                if braces == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        i = j + 1;
    }
    out
}

fn partners(toks: &[Token]) -> Vec<Option<usize>> {
    let mut partner = vec![None; toks.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t.tok {
            Tok::Punct('(' | '[' | '{') => stack.push(i),
            Tok::Punct(')' | ']' | '}') => {
                if let Some(open) = stack.pop() {
                    partner[open] = Some(i);
                    partner[i] = Some(open);
                }
            }
            _ => {}
        }
    }
    partner
}

// ---------------------------------------------------------------------
// The model's source.

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The model's files, plus `extra` (a path under `model/` and its text)
/// in place of or beside them.
fn model_files(extra: Option<(&str, &str)>) -> Vec<File> {
    let root = manifest().join("src/model");
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    let mut files: Vec<File> = paths
        .iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if extra.is_some_and(|(path, _)| path == rel) {
                return None;
            }
            let src = std::fs::read_to_string(p).unwrap();
            Some(File::new(rel.clone(), resource_of(&rel), &src))
        })
        .collect();
    if let Some((path, src)) = extra {
        files.push(File::new(path.to_string(), resource_of(path), src));
    }
    files
}

fn resource_of(rel: &str) -> String {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.len() >= 2 {
        parts[parts.len() - 2].to_string()
    } else {
        rel.trim_end_matches(".rs").to_string()
    }
}

// ---------------------------------------------------------------------
// The walk.

/// One thing the model decides, and where.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    /// The message's text (a `format!` template keeps its placeholders),
    /// the delay's name as fidelity names it, or the state's wire name.
    what: String,
    /// Whether `what` is a `format!` template.
    template: bool,
    /// `file:line`.
    at: String,
}

#[derive(Default)]
struct Walk {
    messages: BTreeMap<String, Found>,
    delays: BTreeMap<String, Found>,
    states: BTreeMap<String, Found>,
}

/// The names a refusal is handed to: its message is their argument.
const CARRIERS: [&str; 3] = ["unprocessable", "Restrict", "refuse"];

/// The calls whose argument is a value (a literal there is a message):
/// besides the carriers and `ApiError::new`.
const VALUE_CALLS: [&str; 6] = ["Some", "Err", "push", "from", "format", "then_some"];

struct Walker<'a> {
    files: &'a [File],
    consts: BTreeMap<String, (String, String)>,
    visited_fns: BTreeSet<(usize, usize)>,
    visited_locals: BTreeSet<(usize, usize)>,
    walk: Walk,
}

impl<'a> Walker<'a> {
    fn new(files: &'a [File]) -> Self {
        // `const NAME: &str = "…";` (or `&'static str`).
        let mut consts = BTreeMap::new();
        for f in files {
            for i in 0..f.toks.len() {
                if !(f.is_ident(i, "const") || f.is_ident(i, "static")) {
                    continue;
                }
                let Some(name) = f.ident(i + 1) else { continue };
                // : & ['static] str = "…" ;
                let mut j = i + 2;
                if !f.is(j, ':') {
                    continue;
                }
                j += 1;
                if !f.is(j, '&') {
                    continue;
                }
                j += 1;
                if matches!(f.toks.get(j).map(|t| &t.tok), Some(Tok::Lifetime)) {
                    j += 1;
                }
                if !f.is_ident(j, "str") || !f.is(j + 1, '=') {
                    continue;
                }
                if let Some(s) = f.str_at(j + 2) {
                    consts.insert(
                        name.to_string(),
                        (s.to_string(), format!("{}:{}", f.path, f.toks[i].line)),
                    );
                }
            }
        }
        Self {
            files,
            consts,
            visited_fns: BTreeSet::new(),
            visited_locals: BTreeSet::new(),
            walk: Walk::default(),
        }
    }

    fn message(&mut self, fi: usize, i: usize, text: &str, template: bool) {
        let f = &self.files[fi];
        if fixed_text(text, template)
            .chars()
            .filter(|c| c.is_alphabetic())
            .count()
            < 3
        {
            return;
        }
        self.walk
            .messages
            .entry(text.to_string())
            .or_insert_with(|| Found {
                what: text.to_string(),
                template,
                at: format!("{}:{}", f.path, f.toks[i].line),
            });
    }

    fn run(mut self) -> Walk {
        for fi in 0..self.files.len() {
            let f = &self.files[fi];
            let mut spans = Vec::new();
            for i in 0..f.toks.len() {
                // ApiError::unprocessable( … ), a carrier( … )
                if f.is(i + 1, '(') {
                    if let Some(name) = f.ident(i)
                        && CARRIERS.contains(&name)
                        && !f.is_ident(i.wrapping_sub(1), "fn")
                    {
                        spans.push((i + 1, false));
                    }
                    if f.is_api_error_new(i + 1) {
                        // Not the fake's own failures (500).
                        let status = f.toks.get(i + 2).map(|t| text(&t.tok));
                        if status.as_deref() != Some("500 ") {
                            spans.push((i + 1, false));
                        }
                    }
                }
                // ApiError { status, messages }
                if f.is_ident(i, "ApiError")
                    && f.is(i + 1, '{')
                    && !f.is_ident(i.wrapping_sub(1), "struct")
                    && !f.is_ident(i.wrapping_sub(1), "impl")
                    && !f.is_ident(i.wrapping_sub(1), "for")
                {
                    spans.push((i + 1, true));
                }
                // f(…).map_err(ApiError::unprocessable): f's errors.
                if f.is_ident(i, "map_err")
                    && f.is(i + 1, '(')
                    && f.is_ident(i + 2, "ApiError")
                    && f.is_ident(i + 5, "unprocessable")
                    && f.is(i + 6, ')')
                    && f.is(i.wrapping_sub(1), '.')
                    && f.is(i.wrapping_sub(2), ')')
                    && let Some(open) = f.partner[i - 2]
                    && let Some(name) = f.ident(open.wrapping_sub(1))
                {
                    let name = name.to_string();
                    self.called(&name, 0);
                }
            }
            for (open, struct_literal) in spans {
                let Some(close) = self.files[fi].partner[open] else {
                    continue;
                };
                self.collect(fi, open, close, 0);
                if struct_literal {
                    // messages: a local vector: its pushes.
                    let f = &self.files[fi];
                    for j in open..close {
                        if f.is_ident(j, "messages")
                            && f.is(j + 1, ':')
                            && let Some(local) = f.ident(j + 2)
                        {
                            let local = local.to_string();
                            self.pushes(fi, j, &local);
                        }
                    }
                }
            }
        }
        self.delays();
        self.states();
        self.walk
    }

    /// Collects what the tokens strictly between `open` and `close` of
    /// file `fi` give a message: literals at value places, constants,
    /// locals and called message functions.
    fn collect(&mut self, fi: usize, open: usize, close: usize, depth: usize) {
        if depth > 4 {
            return;
        }
        let mut i = open + 1;
        while i < close {
            let f = &self.files[fi];
            match &f.toks[i].tok {
                Tok::Str(s) => {
                    if let Some(template) = value_place(f, i) {
                        let s = s.clone();
                        self.message(fi, i, &s, template);
                    }
                }
                Tok::Ident(name) => {
                    let name = name.clone();
                    let next_call = f.is(i + 1, '(');
                    let after_dot = f.is(i.wrapping_sub(1), '.');
                    let path = f.is(i + 1, ':') && f.is(i + 2, ':');
                    // A receiver (`f.plan`) or a field's name (`status: 422`).
                    let not_a_value = f.is(i + 1, '.') || (f.is(i + 1, ':') && !path);
                    if let Some((value, at)) = self.consts.get(&name).cloned() {
                        if !next_call {
                            self.walk.messages.entry(value.clone()).or_insert(Found {
                                what: value,
                                template: false,
                                at,
                            });
                        }
                    } else if next_call && !path {
                        self.called(&name, depth + 1);
                    } else if !after_dot
                        && !path
                        && !not_a_value
                        && name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                        && !is_keyword(&name)
                    {
                        self.local(fi, i, &name, depth + 1);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// A local `name` used at token `i`: what its binding in the enclosing
    /// function gives.
    fn local(&mut self, fi: usize, i: usize, name: &str, depth: usize) {
        let f = &self.files[fi];
        let Some(func) = f.enclosing(i) else { return };
        let (start, end) = func.body;
        let mut ranges = Vec::new();
        for j in start..end.min(i) {
            // let [mut] name [: T] = … ;
            let binds = f.is_ident(j, "let")
                && (f.is_ident(j + 1, name)
                    || (f.is_ident(j + 1, "mut") && f.is_ident(j + 2, name)));
            if binds
                && let Some(eq) =
                    (j..end).find(|&k| f.is(k, '=') && !f.is(k + 1, '=') && !f.is(k - 1, '='))
                && let Some(semi) = statement_end(f, eq, end)
            {
                ranges.push((eq, semi));
            }
            // if let Some(name) = … {
            let some = f.is_ident(j, "let")
                && (f.is_ident(j + 1, "Some") || f.is_ident(j + 1, "Ok"))
                && f.is(j + 2, '(')
                && f.is_ident(j + 3, name)
                && f.is(j + 4, ')')
                && f.is(j + 5, '=');
            if some && let Some(brace) = (j + 6..end).find(|&k| f.is(k, '{')) {
                ranges.push((j + 5, brace));
            }
        }
        for (from, to) in ranges {
            if self.visited_locals.insert((fi, from)) {
                self.collect(fi, from, to, depth);
            }
        }
    }

    /// `name.push(…)` in the function enclosing token `i`, and its `let`.
    fn pushes(&mut self, fi: usize, i: usize, name: &str) {
        let f = &self.files[fi];
        let Some(func) = f.enclosing(i) else { return };
        let (start, end) = func.body;
        let mut groups = Vec::new();
        for j in start..end {
            if f.is_ident(j, name)
                && f.is(j + 1, '.')
                && f.is_ident(j + 2, "push")
                && f.is(j + 3, '(')
                && let Some(close) = f.partner[j + 3]
            {
                groups.push((j + 3, close));
            }
        }
        for (open, close) in groups {
            self.collect(fi, open, close, 1);
        }
        self.local(fi, i, name, 1);
    }

    /// A call of `name`: the bodies of the model's functions of that name
    /// that return a message.
    fn called(&mut self, name: &str, depth: usize) {
        let mut bodies = Vec::new();
        for (fi, f) in self.files.iter().enumerate() {
            for func in &f.fns {
                if func.name == name && returns_a_message(&func.ret) {
                    bodies.push((fi, func.body));
                }
            }
        }
        for (fi, (open, close)) in bodies {
            if self.visited_fns.insert((fi, open)) {
                self.collect(fi, open, close, depth);
            }
        }
    }

    fn delays(&mut self) {
        for f in self.files {
            for i in 0..f.toks.len() {
                // pub struct Timings { pub name: …, }
                if f.path == "timings.rs"
                    && f.is_ident(i, "struct")
                    && f.is_ident(i + 1, "Timings")
                    && f.is(i + 2, '{')
                {
                    let close = f.partner[i + 2].unwrap_or(i + 2);
                    for j in i + 3..close {
                        if f.is_ident(j, "pub")
                            && f.is(j + 2, ':')
                            && let Some(field) = f.ident(j + 1)
                        {
                            let what = format!("Timings::{field}");
                            self.walk.delays.insert(
                                what.clone(),
                                Found {
                                    what,
                                    template: false,
                                    at: format!("{}:{}", f.path, f.toks[j].line),
                                },
                            );
                        }
                    }
                }
                // const NAME: …Duration = …;
                if f.is_ident(i, "const") && f.is(i + 2, ':') {
                    let Some(name) = f.ident(i + 1) else { continue };
                    let Some(eq) = (i + 3..f.toks.len()).find(|&k| f.is(k, '=')) else {
                        continue;
                    };
                    let ty = f.ident(eq - 1);
                    if matches!(ty, Some("Duration" | "TimeDelta")) {
                        let what = format!("{}::{name}", f.resource);
                        self.walk.delays.insert(
                            what.clone(),
                            Found {
                                what,
                                template: false,
                                at: format!("{}:{}", f.path, f.toks[i].line),
                            },
                        );
                    }
                }
            }
        }
    }

    fn states(&mut self) {
        let add = |walk: &mut Walk, what: &str, f: &File, i: usize| {
            walk.states
                .entry(what.to_string())
                .or_insert_with(|| Found {
                    what: what.to_string(),
                    template: false,
                    at: format!("{}:{}", f.path, f.toks[i].line),
                });
        };
        for f in self.files {
            for i in 0..f.toks.len() {
                // enum …State { Variant, #[serde(rename = "x")] Variant }
                if f.is_ident(i, "enum") && f.is(i + 2, '{') {
                    let name = f.ident(i + 1).unwrap_or_default();
                    if !(name.ends_with("State") || name.ends_with("Status")) {
                        continue;
                    }
                    let close = f.partner[i + 2].unwrap_or(i + 2);
                    let mut rename: Option<String> = None;
                    let mut j = i + 3;
                    while j < close {
                        if f.is(j, '#') && f.is(j + 1, '[') {
                            let end = f.partner[j + 1].unwrap_or(j + 1);
                            if f.is_ident(j + 2, "serde") {
                                for k in j..end {
                                    if f.is_ident(k, "rename") && f.is(k + 1, '=') {
                                        rename = f.str_at(k + 2).map(str::to_string);
                                    }
                                }
                            }
                            j = end + 1;
                            continue;
                        }
                        if let Some(variant) = f.ident(j) {
                            let wire = rename.take().unwrap_or_else(|| snake(variant));
                            add(&mut self.walk, &wire, f, j);
                            // Skip a variant's fields, then its comma.
                            while j < close && !f.is(j, ',') {
                                if let Some(p) =
                                    f.partner[j].filter(|_| f.is(j, '(') || f.is(j, '{'))
                                {
                                    j = p;
                                }
                                j += 1;
                            }
                        }
                        j += 1;
                    }
                }
                // state: "x", status: "x", ["state"] = "x"
                let field = (f.is_ident(i, "state") || f.is_ident(i, "status"))
                    && f.is(i + 1, ':')
                    && !f.is(i + 2, ':');
                if field && let Some(s) = f.str_at(i + 2) {
                    add(&mut self.walk, s, f, i);
                }
                let index = matches!(f.str_at(i), Some("state" | "status"))
                    && f.is(i + 1, ']')
                    && f.is(i + 2, '=');
                if index && let Some(s) = f.str_at(i + 3) {
                    add(&mut self.walk, s, f, i);
                }
                // => "x" after a pattern naming a …State:: or …Status::
                if f.is(i, '=')
                    && f.is(i + 1, '>')
                    && let Some(s) = f.str_at(i + 2)
                {
                    let arm_start = (0..i)
                        .rev()
                        .take_while(|&k| !f.is(k, ',') && !f.is(k, '{') && !f.is(k, '}'))
                        .last()
                        .unwrap_or(i);
                    let of_a_state = (arm_start..i).any(|k| {
                        f.ident(k)
                            .is_some_and(|n| n.ends_with("State") || n.ends_with("Status"))
                            && f.is(k + 1, ':')
                    });
                    if of_a_state && s.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                        add(&mut self.walk, s, f, i);
                    }
                }
            }
            // fn state(…) -> &str { "x" … }
            for func in &f.fns {
                if matches!(func.name.as_str(), "state" | "status") && func.ret.contains("str") {
                    for k in func.body.0..func.body.1 {
                        if let Some(s) = f.str_at(k)
                            && value_place(f, k).is_some()
                            && s.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                        {
                            add(&mut self.walk, s, f, k);
                        }
                    }
                }
            }
        }
    }
}

/// Whether a raw string (`r"…"`, `r#"…"#`, `br"…"`) starts at `i`.
fn raw_string_at(chars: &[char], i: usize) -> bool {
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let r = match (at(i), at(i + 1)) {
        ('r', _) => i + 1,
        ('b', 'r') => i + 2,
        _ => return false,
    };
    // Not the end of an identifier (`for"` does not occur; `br` and `r`
    // start one only after a non-identifier character).
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return false;
    }
    let mut j = r;
    while at(j) == '#' {
        j += 1;
    }
    at(j) == '"'
}

fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "self"
            | "true"
            | "false"
            | "if"
            | "else"
            | "match"
            | "let"
            | "mut"
            | "ref"
            | "as"
            | "in"
            | "return"
            | "move"
            | "None"
            | "_"
    )
}

/// The index after the statement that starts at `from`: its `;` at the
/// same depth, or the end of the enclosing block.
fn statement_end(f: &File, from: usize, end: usize) -> Option<usize> {
    let mut j = from;
    while j < end {
        if f.is(j, ';') {
            return Some(j);
        }
        if f.is(j, '(') || f.is(j, '[') || f.is(j, '{') {
            j = f.partner[j]?;
        }
        if f.is(j, '}') && f.partner[j].is_some_and(|o| o < from) {
            return Some(j);
        }
        j += 1;
    }
    Some(end)
}

/// Whether the literal at `i` is a value (not another call's argument):
/// `Some(true)` when it is a `format!` template, `Some(false)` for a plain
/// value, `None` when it is not a value.
fn value_place(f: &File, i: usize) -> Option<bool> {
    let p = i.checked_sub(1)?;
    match &f.toks[p].tok {
        Tok::Punct('{') => Some(false),
        Tok::Punct('|') => Some(false),
        Tok::Ident(k) if k == "return" || k == "else" => Some(false),
        Tok::Punct('>') if f.is(p.wrapping_sub(1), '=') => Some(false),
        Tok::Punct('=') if !f.is(p.wrapping_sub(1), '=') && !f.is(p.wrapping_sub(1), '!') => {
            Some(false)
        }
        Tok::Punct('(') => match f.callee(p) {
            Some(("format", true)) => Some(true),
            Some((_, true)) => None,
            Some((name, false)) if CARRIERS.contains(&name) || VALUE_CALLS.contains(&name) => {
                Some(false)
            }
            Some(_) if f.is_api_error_new(p) => Some(false),
            _ => None,
        },
        Tok::Punct(',') => {
            let open = f.group_of(i)?;
            (f.is(open, '(') && f.is_api_error_new(open)).then_some(false)
        }
        _ => None,
    }
}

fn returns_a_message(ret: &str) -> bool {
    let ret = ret.replace(' ', "");
    ret == "String"
        || ret.starts_with("&'_str")
        || ret == "&str"
        || ret.starts_with("Option<String")
        || ret.starts_with("Option<&'_str")
        || (ret.starts_with("Result<") && ret.ends_with(",String>"))
}

fn snake(camel: &str) -> String {
    let mut out = String::new();
    for (n, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if n > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

// ---------------------------------------------------------------------
// Fidelity's text, and what it mentions.

/// Fidelity's text: its doc lines joined, backticks left out, whitespace
/// collapsed, ASCII lower case.
fn fidelity_text() -> String {
    let src = std::fs::read_to_string(manifest().join("src/fidelity.rs")).unwrap();
    normal(
        &src.lines()
            .map(|l| {
                l.trim_start()
                    .trim_start_matches("//!")
                    .trim_start_matches("///")
            })
            .collect::<Vec<_>>()
            .join(" "),
    )
}

fn normal(s: &str) -> String {
    s.replace('`', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
}

/// The fixed pieces of `text`: a template's placeholders cut it.
fn pieces(text: &str, template: bool) -> Vec<String> {
    if !template {
        return vec![normal(text)];
    }
    let mut out = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.last_mut().unwrap().push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.last_mut().unwrap().push('}');
            }
            '{' => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
                out.push(String::new());
            }
            c => out.last_mut().unwrap().push(c),
        }
    }
    // Whitespace at a cut is the placeholder's: "a {x} b" is "a", "b".
    out.iter()
        .map(|p| normal(p))
        .filter(|p| !p.is_empty())
        .collect()
}

fn fixed_text(text: &str, template: bool) -> String {
    pieces(text, template).join(" ")
}

/// Whether `hay` holds `pieces` in order, each after the one before within
/// 80 characters.
fn mentions(hay: &str, pieces: &[String]) -> bool {
    let Some(first) = pieces.first() else {
        return true;
    };
    let mut from = 0;
    while let Some(at) = hay[from..].find(first.as_str()) {
        let start = from + at;
        let mut pos = start + first.len();
        let mut all = true;
        for p in &pieces[1..] {
            let window_end = (pos + 80 + p.len()).min(hay.len());
            let window = &hay[pos..floor(hay, window_end)];
            match window.find(p.as_str()) {
                Some(k) => pos += k + p.len(),
                None => {
                    all = false;
                    break;
                }
            }
        }
        if all {
            return true;
        }
        from = start + first.len();
    }
    false
}

fn floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Whether `hay` holds `word` with no letter, digit or `_` either side.
fn mentions_word(hay: &str, word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    hay.match_indices(word.as_str()).any(|(at, _)| {
        !is_word(hay[..at].chars().next_back()) && !is_word(hay[at + word.len()..].chars().next())
    })
}

/// What the walk finds that fidelity's text does not mention.
fn unmentioned(walk: &Walk, fidelity: &str) -> Vec<String> {
    let mut out = Vec::new();
    for m in walk.messages.values() {
        if !mentions(fidelity, &pieces(&m.what, m.template)) {
            out.push(format!("refusal message {:?} ({})", m.what, m.at));
        }
    }
    for d in walk.delays.values() {
        if !fidelity.contains(&d.what.to_ascii_lowercase()) {
            out.push(format!("delay {} ({})", d.what, d.at));
        }
    }
    for s in walk.states.values() {
        if !mentions_word(fidelity, &s.what) {
            out.push(format!("state {:?} ({})", s.what, s.at));
        }
    }
    out
}

#[test]
fn every_refusal_delay_and_state_of_the_model_has_its_row_in_fidelity() {
    let files = model_files(None);
    let walk = Walker::new(&files).run();
    // The walk finds what the model holds: a walk that found nothing would
    // pass whatever fidelity says.
    let (m, d, s) = (walk.messages.len(), walk.delays.len(), walk.states.len());
    eprintln!("walked {m} refusal messages, {d} delays, {s} states");
    assert!(m >= 300, "only {m} refusal messages found");
    assert!(d >= 15, "only {d} delays found");
    assert!(s >= 25, "only {s} states found");
    for known in [
        "Cannot delete a locked item",
        "Cannot delete a device while it is provisioning",
        "Virtual network {vxlan} is not assigned",
        "{kind} are too many (maximum is {} a world)",
        "Cannot delete a project that has devices",
    ] {
        assert!(
            walk.messages.contains_key(known),
            "the walk misses {known:?}"
        );
    }
    for known in [
        "Timings::queued",
        "Timings::gateway_deleting",
        "vrf_route::SETTLE",
    ] {
        assert!(walk.delays.contains_key(known), "the walk misses {known}");
    }
    for known in [
        "deprovisioning",
        "waiting_on_customer_vlan",
        "in_progress",
        "deleting",
        "requested",
    ] {
        assert!(walk.states.contains_key(known), "the walk misses {known}");
    }
    let missing = unmentioned(&walk, &fidelity_text());
    assert!(
        missing.is_empty(),
        "{} choices of the model have no row in metal_fake::fidelity (src/fidelity.rs): \
         name each in the row of its behaviour, or in \"Refusals, delays and states\", \
         with what decided it:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// The walk is honest: a refusal, a delay and a state added to the model
/// without a row are each named.
#[test]
fn the_walk_names_a_refusal_a_delay_and_a_state_added_without_a_row() {
    let path = "network/vlan/added.rs";
    let src = r#"
        use crate::call::ApiError;
        pub(crate) const LATER: std::time::Duration = std::time::Duration::from_secs(7);
        #[serde(rename_all = "snake_case")]
        pub enum WidgetState { Polishing, #[serde(rename = "shiny")] Done }
        const GONE: &str = "The widget went away for a reason no row names";
        fn why(n: u8) -> Option<String> {
            (n > 3).then(|| format!("Widget {n} is past its row-less bound"))
        }
        impl World {
            fn widget(&self, n: u8) -> Result<(), ApiError> {
                if n == 0 {
                    return Err(ApiError::unprocessable("A widget of no row at all"));
                }
                if let Some(problem) = why(n) {
                    return Err(ApiError::unprocessable(problem));
                }
                let mut missing = Vec::new();
                missing.push("widget_id is required by no row".to_string());
                if n == 1 {
                    return Err(ApiError { status: 422, messages: missing });
                }
                Err(ApiError::new(403, GONE))
            }
        }
        #[cfg(test)]
        mod tests {
            fn t() { ApiError::unprocessable("a test's own words are not the model's"); }
        }
    "#;
    let files = model_files(Some((path, src)));
    let walk = Walker::new(&files).run();
    let missing = unmentioned(&walk, &fidelity_text());
    for want in [
        "refusal message \"A widget of no row at all\"",
        "refusal message \"Widget {n} is past its row-less bound\"",
        "refusal message \"widget_id is required by no row\"",
        "refusal message \"The widget went away for a reason no row names\"",
        "delay vlan::LATER",
        "state \"polishing\"",
        "state \"shiny\"",
    ] {
        assert!(
            missing.iter().any(|m| m.starts_with(want)),
            "{want} not named: {missing:#?}"
        );
    }
    assert!(
        !missing.iter().any(|m| m.contains("a test's own words")),
        "a test module is not the model: {missing:#?}"
    );
    // And what fidelity names is not named.
    assert!(!missing
        .iter()
        .any(|m| m.contains("Cannot delete a locked item")));
}

#[test]
fn a_template_s_placeholders_are_wildcards_and_its_pieces_come_in_order() {
    let hay = normal(
        "refused: `422` \"Virtual network `1001` is not assigned\"; then 'X' \"Widget is here\"",
    );
    assert!(mentions(
        &hay,
        &pieces("Virtual network {vxlan} is not assigned", true)
    ));
    assert!(!mentions(
        &hay,
        &pieces("Virtual network {vxlan} is not gone", true)
    ));
    assert!(!mentions(
        &hay,
        &pieces("is not assigned {x} Virtual network", true)
    ));
    assert!(mentions(&hay, &pieces("Widget is here", false)));
    // A plain string's braces are text.
    assert!(!mentions(&hay, &pieces("Widget {x} is here", false)));
    assert_eq!(pieces("{{a}} {b} c", true), ["{a}", "c"]);
    assert!(mentions_word("states: active, in_progress", "in_progress"));
    assert!(!mentions_word("inactive", "active"));
}
