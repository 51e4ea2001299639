//! `openapi/operations.txt`: every operation of the API with our own
//! one-line summary, which becomes its generated method's doc comment.

use std::collections::BTreeSet;

use anyhow::{bail, Result};

/// The longest summary, in bytes: one line of a doc comment.
pub const MAX_SUMMARY: usize = 80;

/// One line of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The operationId.
    pub operation_id: String,
    /// Our summary: one sentence, ending with a full stop.
    pub summary: String,
}

/// Parses the table: `operationId  summary` per line, `#` comments and
/// blank lines ignored. Every line needs a summary of at most
/// [`MAX_SUMMARY`] bytes that ends with a full stop, and names an operation
/// once.
pub fn parse(text: &str) -> Result<Vec<Entry>> {
    let mut out: Vec<Entry> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let n = n + 1;
        let (id, summary) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let summary = summary.trim();
        if summary.is_empty() {
            bail!("operations.txt line {n}: {id} has no summary");
        }
        if summary.len() > MAX_SUMMARY || !summary.ends_with('.') {
            bail!(
                "operations.txt line {n}: {id}'s summary must be one sentence of at most \
                 {MAX_SUMMARY} bytes ending with a full stop"
            );
        }
        if out.iter().any(|e| e.operation_id == id) {
            bail!("operations.txt line {n}: {id} is listed twice");
        }
        out.push(Entry {
            operation_id: id.to_string(),
            summary: summary.to_string(),
        });
    }
    Ok(out)
}

/// Checks that the table and the upstream operations are the same set,
/// naming what to add or remove when they are not.
pub fn check_covers(table: &[Entry], upstream: &BTreeSet<String>) -> Result<()> {
    let listed: BTreeSet<&str> = table.iter().map(|e| e.operation_id.as_str()).collect();
    let unlisted: Vec<&str> = upstream
        .iter()
        .map(String::as_str)
        .filter(|id| !listed.contains(id))
        .collect();
    let gone: Vec<&str> = listed
        .iter()
        .copied()
        .filter(|id| !upstream.contains(*id))
        .collect();
    let mut problems = Vec::new();
    if !unlisted.is_empty() {
        problems.push(format!(
            "upstream operations with no line in openapi/operations.txt (add \
             `operationId  Our one-line summary.` for each): {}",
            unlisted.join(", ")
        ));
    }
    if !gone.is_empty() {
        problems.push(format!(
            "openapi/operations.txt names operations upstream lacks: {}",
            gone.join(", ")
        ));
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("; "));
    }
    Ok(())
}

/// Our summary for an operation.
pub fn summary<'a>(table: &'a [Entry], operation_id: &str) -> Option<&'a str> {
    table
        .iter()
        .find(|e| e.operation_id == operation_id)
        .map(|e| e.summary.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_to_ids_and_summaries() {
        let table = parse("# comment\n\nfindX   Read x.\n  createY Create a y.\n").unwrap();
        assert_eq!(
            table,
            [
                Entry {
                    operation_id: "findX".into(),
                    summary: "Read x.".into()
                },
                Entry {
                    operation_id: "createY".into(),
                    summary: "Create a y.".into()
                },
            ]
        );
        assert_eq!(summary(&table, "createY"), Some("Create a y."));
        assert_eq!(summary(&table, "nope"), None);
    }

    #[test]
    fn bad_lines_are_refused_with_their_number() {
        for (text, expected) in [
            ("findX\n", "line 1: findX has no summary"),
            ("findX  Read x\n", "ending with a full stop"),
            ("a A.\n\na B.\n", "line 3: a is listed twice"),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
        let long = format!("findX {}.\n", "x".repeat(MAX_SUMMARY));
        assert!(parse(&long).is_err());
    }

    #[test]
    fn the_table_must_match_upstream_both_ways() {
        let table = parse("a A.\nb B.\n").unwrap();
        let upstream: BTreeSet<String> = ["a", "b"].map(String::from).into();
        check_covers(&table, &upstream).unwrap();

        let upstream: BTreeSet<String> = ["a", "c"].map(String::from).into();
        let err = check_covers(&table, &upstream).unwrap_err().to_string();
        assert!(err.contains("no line in openapi/operations.txt"), "{err}");
        assert!(err.contains(": c"), "{err}");
        assert!(err.contains("upstream lacks: b"), "{err}");
    }
}
