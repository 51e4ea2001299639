//! The coverage table (`metal-fake/COVERAGE.md`), made from the code:
//! each modelled operation is called with every query parameter of the
//! spec's and a body its schema accepts, and what its `prepare` read is
//! what it honours (see [`super`]).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use axum::body::Bytes;
use metal_api::operation::{self, Operation};

use super::pending::PENDING;
use super::spec;
use super::variants::{Status, BEYOND_SPEC, VARIANTS};
use crate::call::reads::reading;
use crate::call::Call;
use crate::model::{modelled, Modelled};

/// The file the table is written to, beside the crate's `Cargo.toml`.
const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/COVERAGE.md");

/// Where the clients' census section begins in the file (written by the
/// suite's `census` test, not by this table).
const CENSUS: &str = "\n## Routes each client sends";

/// What one operation does with its query parameters.
struct Reading {
    op: &'static Operation,
    /// The spec's parameters it read.
    read: Vec<&'static str>,
    /// The parameters it read that the spec does not name for it.
    beyond: Vec<String>,
    /// The spec's parameters it neither read nor declared.
    undeclared: Vec<&'static str>,
    /// The parameters declared unread that it read, or that the spec does
    /// not name for it.
    wrong: Vec<String>,
    m: &'static Modelled,
}

/// Calls `m`'s prepare with every query parameter of the spec's.
fn read(m: &'static Modelled) -> Reading {
    let op = m.operation;
    let params = op
        .path
        .split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| {
            (
                name.to_string(),
                "00000000-0000-4000-8000-000000000001".to_string(),
            )
        })
        .collect();
    let query = spec::query(op);
    let pairs = query
        .iter()
        .map(|(name, schema)| (name.to_string(), spec::query_value(name, schema)))
        .collect();
    let body = spec::request(op)
        .map(|s| serde_json::to_vec(&spec::body(s)).unwrap_or_default())
        .unwrap_or_default();
    let call = Call::new(op, params, pairs, Bytes::from(body));
    let (_, names) = reading(|| crate::model::expand::prepare(m, &call).err());
    let names: BTreeSet<String> = names;
    let spec_names: Vec<&'static str> = query.iter().map(|(n, _)| *n).collect();
    let pending = pending_of(op);
    let declared = |n: &str| m.unread.iter().any(|u| u.name == n) || pending.contains(&n);
    Reading {
        op,
        read: spec_names
            .iter()
            .copied()
            .filter(|n| names.contains(*n))
            .collect(),
        beyond: names
            .iter()
            .filter(|n| !spec_names.contains(&n.as_str()))
            .cloned()
            .collect(),
        undeclared: spec_names
            .iter()
            .copied()
            .filter(|n| !names.contains(*n) && !declared(n))
            .collect(),
        wrong: m
            .unread
            .iter()
            .map(|u| u.name)
            .chain(pending.iter().copied())
            .filter(|n| names.contains(*n) || !spec_names.contains(n))
            .map(str::to_string)
            .collect(),
        m,
    }
}

/// The parameters of `op` that [`PENDING`] lists.
fn pending_of(op: &Operation) -> Vec<&'static str> {
    PENDING
        .iter()
        .filter(|(id, _, _)| *id == op.id)
        .flat_map(|(_, names, _)| names.iter().copied())
        .collect()
}

/// Every modelled operation's reading, in the spec's order (then those
/// beyond it).
fn readings() -> Vec<Reading> {
    let mut all: Vec<&'static Modelled> = modelled().collect();
    let rank = |m: &&Modelled| {
        operation::ALL
            .iter()
            .position(|op| op.id == m.operation.id)
            .unwrap_or(usize::MAX)
    };
    all.sort_by_key(rank);
    all.into_iter().map(read).collect()
}

/// Counts of one kind of thing by how it is served.
#[derive(Default)]
struct Tally {
    modelled: usize,
    no_effect: usize,
    pending: usize,
    refused: usize,
}

impl Tally {
    fn total(&self) -> usize {
        self.modelled + self.no_effect + self.pending + self.refused
    }
}

/// Escapes a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The table, as `COVERAGE.md` holds it.
fn render(readings: &[Reading]) -> String {
    let mut params = Tally::default();
    let mut variants = Tally::default();
    let mut ops = String::new();
    let mut unread = String::new();
    let mut unmodelled = String::new();
    for r in readings {
        let op = r.op;
        params.modelled += r.read.len();
        let mut honoured: Vec<String> = r.read.iter().map(|n| format!("`{n}`")).collect();
        honoured.extend(r.beyond.iter().map(|n| format!("`{n}` (beyond the spec)")));
        for u in r.m.unread {
            params.no_effect += 1;
            let (label, why) = ("no effect in the fake", u.why);
            let _ = writeln!(
                unread,
                "| `{}` | `{}` | {label} | {} |",
                op.id,
                u.name,
                cell(why)
            );
        }
        for (id, names, by) in PENDING.iter().filter(|(id, _, _)| *id == op.id) {
            for name in *names {
                params.pending += 1;
                let _ = writeln!(
                    unread,
                    "| `{id}` | `{name}` | not honoured yet | {} |",
                    cell(by)
                );
            }
        }
        let vs = spec::variants(op);
        let mut served = Vec::new();
        for v in &vs {
            match VARIANTS
                .iter()
                .find(|d| d.operation == op.id && d.variant == v)
            {
                None => {
                    variants.modelled += 1;
                    served.push(format!("`{v}`"));
                }
                Some(d) => {
                    let (label, why) = match d.status {
                        Status::Refused(w) => {
                            variants.refused += 1;
                            ("refused, as the real API refused it", w)
                        }
                    };
                    let _ = writeln!(
                        unmodelled,
                        "| `{}` | `{v}` | {label} | {} |",
                        op.id,
                        cell(why)
                    );
                }
            }
        }
        let beyond = if metal_api::operation::ALL.iter().any(|o| o.id == op.id) {
            ""
        } else {
            " (beyond the spec)"
        };
        let _ = writeln!(
            ops,
            "| `{}`{beyond} | `{} {}` | {} | {} |",
            op.id,
            op.method.as_str(),
            op.path,
            if honoured.is_empty() {
                "none".to_string()
            } else {
                honoured.join(", ")
            },
            if vs.is_empty() {
                "one".to_string()
            } else if served.is_empty() {
                "none".to_string()
            } else {
                served.join(", ")
            },
        );
    }
    let modelled_ops = readings.len();
    let spec_ops = operation::ALL.len();
    let served_spec_ops = operation::ALL
        .iter()
        .filter(|op| readings.iter().any(|r| r.op.id == op.id))
        .count();
    let mut out = String::new();
    let _ = write!(
        out,
        "# What metal-fake serves of the Metal API\n\n\
         Written from the code by the test `coverage::table::the_coverage_table_is_current` \
         (`METAL_FAKE_WRITE_COVERAGE=1 cargo test -p metal-fake --lib coverage` rewrites it); \
         do not edit. A query parameter is honoured when the operation's handler reads it \
         (the test calls each operation with every parameter of `openapi/metal.json`); one it \
         does not read is declared with the operation, with why. A request variant is a \
         `oneOf` branch of the body, a value of its `type` (an action's type), or one of the \
         few the spec leaves untyped; each is modelled unless `src/coverage/variants.rs` \
         says otherwise, and the test `coverage::replies` sends every one of them.\n\n\
         | | served | of |\n| --- | --- | --- |\n\
         | operations of the spec | {served_spec_ops} | {spec_ops} |\n\
         | query parameters honoured | {} | {} |\n\
         | request variants modelled | {} | {} |\n\n",
        params.modelled,
        params.total(),
        variants.modelled,
        variants.total(),
    );
    let _ = write!(
        out,
        "Of the query parameters not honoured: {} with no effect in the fake's world, {} \
         not honoured yet. Of the variants not modelled: {} refused as the real API refused \
         them.\n\n",
        params.no_effect, params.pending, variants.refused,
    );
    out.push_str("## Query parameters not honoured\n\n| operation | parameter | how | why |\n| --- | --- | --- | --- |\n");
    out.push_str(&unread);
    out.push_str("\n## Variants not modelled\n\n| operation | variant | how | why |\n| --- | --- | --- | --- |\n");
    out.push_str(&unmodelled);
    out.push_str("\n## Variants beyond the spec's types\n\n| operation | variant | evidence |\n| --- | --- | --- |\n");
    for (id, v, e) in BEYOND_SPEC {
        let _ = writeln!(out, "| `{id}` | `{v}` | {} |", cell(e));
    }
    let _ = write!(
        out,
        "\n## Every operation ({modelled_ops} modelled)\n\n| operation | method and path | query parameters honoured | variants modelled |\n| --- | --- | --- | --- |\n"
    );
    out.push_str(&ops);
    out
}

/// Every query parameter of every modelled operation is read by its
/// handler or declared unread with why; none declared unread is read.
#[test]
fn every_query_parameter_is_honoured_or_declared() {
    let mut bad = Vec::new();
    for r in readings() {
        if !r.undeclared.is_empty() {
            bad.push(format!(
                "{}: neither read nor declared: {:?}",
                r.op.id, r.undeclared
            ));
        }
        if !r.wrong.is_empty() {
            bad.push(format!(
                "{}: declared unread, but read or not the spec's: {:?}",
                r.op.id, r.wrong
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `COVERAGE.md` is what the code says; with `METAL_FAKE_WRITE_COVERAGE`
/// set, the test writes it instead.
#[test]
fn the_coverage_table_is_current() {
    let table = render(&readings());
    let file = std::fs::read_to_string(FILE).unwrap_or_default();
    // The clients' census (`tests/suite/census.rs`) writes and checks the
    // section after the table, from its heading on.
    let (current, census) = file.split_at(file.find(CENSUS).unwrap_or(file.len()));
    if std::env::var_os("METAL_FAKE_WRITE_COVERAGE").is_some() {
        std::fs::write(FILE, format!("{table}{census}")).expect("COVERAGE.md is writable");
        return;
    }
    assert!(
        current == table,
        "metal-fake/COVERAGE.md is stale: run `METAL_FAKE_WRITE_COVERAGE=1 cargo test -p metal-fake --lib coverage`"
    );
}

/// Every declared variant is one of its operation's.
#[test]
fn every_declared_variant_is_one_of_the_spec_s() {
    for d in VARIANTS {
        let op = operation::ALL
            .iter()
            .find(|op| op.id == d.operation)
            .unwrap_or_else(|| panic!("{} is no operation", d.operation));
        assert!(
            spec::variants(op).iter().any(|v| v == d.variant),
            "{} has no variant {}",
            d.operation,
            d.variant
        );
    }
}
