//! The library has no unit tests: its target is built without a test
//! harness (`[lib] test = false` in `Cargo.toml`: the generated client is
//! two thirds of the crate, and a harness of its own would compile all of
//! it again, in each feature set, for a handful of tests), so its tests
//! live here, where they use the public items as users do. A `#[test]` in
//! `src/` would never run: this fails if one appears.

use std::path::Path;

fn rust_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("metal-api/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn the_library_holds_no_test_that_would_never_run() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 5, "{files:?}");
    let mut offending = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a source file is UTF-8");
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("#[cfg(test)]")
                || line.starts_with("#[test]")
                || line.starts_with("#[tokio::test")
            {
                offending.push(format!("{}:{}", file.display(), n + 1));
            }
        }
    }
    assert!(
        offending.is_empty(),
        "tests in metal-api/src never run (`[lib] test = false`): move them to tests/suite: {offending:?}"
    );
}
