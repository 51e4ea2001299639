//! No test starts a cargo build: the README's test command builds the
//! workspace once, in its own feature set and profile, and a test that ran
//! `cargo build` (or `test`, `run`, ...) would build it again in another
//! (as the provisioning run's tests once did, with every feature). A test
//! runs a binary of its package through `CARGO_BIN_EXE_<name>` instead,
//! which cargo builds with the test.
//!
//! Read from the sources: every `.rs` file under a workspace member's
//! `src/`, `tests/` and `examples/` (an example's tests run under
//! `cargo test` too). Benchmarks are not read: they run under `cargo bench`
//! only, and the comparison benchmark's build section measures builds on
//! purpose.

use std::path::{Path, PathBuf};

/// Files allowed to start a cargo build, relative to the workspace's root.
const ALLOWED: &[&str] = &[];

/// cargo's subcommands that compile.
const COMPILING: &[&str] = &[
    "build", "test", "run", "bench", "check", "clippy", "doc", "rustc", "install", "package",
    "publish",
];

/// The ways a program names cargo (its path from the environment, or the
/// command on the PATH), spelled in pieces so that this file does not
/// match them.
fn cargo_names() -> [String; 4] {
    [
        concat!("env!(\"CAR", "GO\")").to_string(),
        concat!("var(\"CAR", "GO\")").to_string(),
        concat!("var_os(\"CAR", "GO\")").to_string(),
        concat!("Command::new(\"car", "go\")").to_string(),
    ]
}

/// Whether `source` names cargo and then, before the end of that item (the
/// next line closing a top-level item), passes it a compiling subcommand as
/// a string literal; the line that names cargo, if so. Comment lines are
/// skipped.
fn starts_a_cargo_build(source: &str) -> Option<usize> {
    let lines: Vec<&str> = source.lines().collect();
    let code = |l: &str| !l.trim_start().starts_with("//");
    let names = cargo_names();
    for (i, line) in lines.iter().enumerate() {
        if !code(line) || !names.iter().any(|n| line.contains(n.as_str())) {
            continue;
        }
        let item_end = lines[i..]
            .iter()
            .position(|l| l.starts_with('}'))
            .map_or(lines.len(), |n| i + n);
        let compiles = lines[i..item_end].iter().filter(|l| code(l)).any(|l| {
            COMPILING
                .iter()
                .any(|sub| l.contains(&format!("\"{sub}\"")))
        });
        if compiles {
            return Some(i + 1);
        }
    }
    None
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The workspace's packages' directories: the root's directories with a
/// manifest (the target directory and hidden ones aside).
fn members(root: &Path) -> Vec<PathBuf> {
    let mut members: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("the workspace's root is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n != "target" && !n.starts_with('.'))
        })
        .collect();
    members.sort();
    members
}

#[test]
fn no_test_starts_a_cargo_build() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace's root");
    let members = members(root);
    for member in ["metal-provision", "metal-fake", "metal-policy"] {
        assert!(members.iter().any(|m| m.ends_with(member)), "{members:?}");
    }
    let mut files = Vec::new();
    for member in &members {
        for dir in ["src", "tests", "examples"] {
            rust_files(&member.join(dir), &mut files);
        }
    }
    // The reading reached this file, so it reads the tests.
    assert!(
        files.iter().any(|f| f.ends_with("tests/suite/builds.rs")),
        "{} files read",
        files.len()
    );
    let mut found = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("a readable source file");
        let relative = file.strip_prefix(root).expect("under the root");
        if let Some(line) = starts_a_cargo_build(&source) {
            let name = relative.to_string_lossy().replace('\\', "/");
            if !ALLOWED.contains(&name.as_str()) {
                found.push(format!("{name}:{line}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "these start a cargo build, a second build of the workspace beside the test run's \
         (run the package's binary through CARGO_BIN_EXE_<name> instead): {found:?}"
    );
}

/// The reading finds a build started as the provisioning run's tests once
/// started theirs, and one through `cargo` on the PATH; not a run of a
/// built binary, nor a mention in a comment.
#[test]
fn the_reading_finds_a_cargo_build_and_only_that() {
    let env_cargo = concat!("env!(\"CAR", "GO\")");
    let path_cargo = concat!("Command::new(\"car", "go\")");
    let from_env = format!(
        "fn example() -> PathBuf {{\n    \
             let mut build = Command::new({env_cargo});\n    \
             for (key, _) in std::env::vars_os() {{}}\n    \
             let out = build\n        \
                 .args([\"build\", \"--locked\", \"--workspace\"])\n        \
                 .output();\n\
         }}\n"
    );
    assert_eq!(starts_a_cargo_build(&from_env), Some(2));
    let on_path = format!("fn t() {{\n    {path_cargo}.arg(\"test\").status();\n}}\n");
    assert_eq!(starts_a_cargo_build(&on_path), Some(2));

    // cargo asked its version only; a subcommand after the item's end.
    let version = format!(
        "fn v() {{\n    {path_cargo}.arg(\"--version\");\n}}\nfn w() {{ x.arg(\"build\"); }}\n"
    );
    assert_eq!(starts_a_cargo_build(&version), None);
    let binary = "fn b() {\n    Command::new(env!(\"CARGO_BIN_EXE_provision\")).arg(\"run\");\n}\n";
    assert_eq!(starts_a_cargo_build(binary), None);
    let comment = format!("fn c() {{\n    // {path_cargo}.arg(\"build\")\n}}\n");
    assert_eq!(starts_a_cargo_build(&comment), None);
}
