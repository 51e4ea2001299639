//! Replies whole: every read of the spec that answers an object or a list
//! of objects (each `GET` whose `200` schema in `openapi/metal.json`,
//! resolved through `$ref`, `allOf` and `oneOf`, has properties) is read in
//! a world with one of everything (`replies_both_ways`' world and reads,
//! with and without `include`), and each top-level property of its schema
//! (for a list, of its items' schema, in each item) must be in every
//! reply: a value, a `null` where there is none, or an `{"href": ...}` for
//! a thing not included. A property may be absent only when
//! [`OMITTED`] lists it with the evidence that the real API left it out
//! (the same rows as "Replies whole" in `metal_fake::fidelity`).
//!
//! It prints a table (operation, present/of, percent, missing names) and
//! fails when any read is below 95%, or a property is missing that
//! [`OMITTED`] does not list, or [`OMITTED`] lists one every reply has:
//! `cargo test -p metal-fake --all-features --test suite -- whole_replies
//! --nocapture`.

use std::collections::{BTreeMap, BTreeSet};

use metal_fake::Fake;
use serde_json::Value;

use crate::http;
use crate::replies_both_ways::{self as walk, Live};

/// Properties of a read's schema the fake leaves out of some replies,
/// each with the evidence that the real API left it out too: (schema,
/// property, why). One the reply holds when the read asks to `include`
/// it counts as present (and is printed as such).
const OMITTED: &[(&str, &str, &str)] = &[
    (
        "Organization",
        "address",
        "only when included: metal-cli's test/helper/helper.go (\"the address is not included by default\"); terraform-provider-equinix's sweepers list organisations with exclude=address,billing_address",
    ),
    ("Organization", "billing_address", "as address"),
    (
        "Interconnection",
        "mode",
        "not on a shared connection: upstream spec's Interconnection.mode (shared connections won't have this field)",
    ),
];

/// The list reads whose lists are empty in the walk's world, so that no
/// item of theirs is counted (their items' schemas are counted in other
/// reads but the last three's): (operation, why). A list read empty and
/// not here fails the test, and so does one here with items.
const EMPTY: &[(&str, &str)] = &[
    ("findDeviceSSHKeys", "the world's device got no keys at its create"),
    (
        "findInterconnectionEvents",
        "the world seeds the connection; the fake journals the changes made through the API (events.rs reads them)",
    ),
    ("findInterconnectionPortEvents", "as findInterconnectionEvents"),
    ("findVirtualCircuitEvents", "as findInterconnectionEvents"),
    ("findVrfRouteEvents", "as findInterconnectionEvents"),
    (
        "findInvitations",
        "the caller's invitations: the world invites no one at the caller's address",
    ),
    ("findOrganizationInvoices", "the fake bills nothing: no invoice exists"),
    ("getVrfBGPNeighbors", "no BGP runs in the fake"),
    ("getVrfLearnedRoutes", "no BGP runs in the fake"),
];

/// The spec, parsed once.
fn spec() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/metal.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A schema's name, when it is a `$ref` to a component.
fn ref_name(schema: &Value) -> Option<&str> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
}

/// An object schema, resolved: its name (the last `$ref` followed) and its
/// properties (`allOf`'s merged); or its `oneOf` alternatives.
enum Resolved<'a> {
    Object(String, Vec<(&'a str, &'a Value)>),
    OneOf(Vec<&'a Value>),
    Other,
}

fn resolve<'a>(spec: &'a Value, schema: &'a Value, name: &str) -> Resolved<'a> {
    if let Some(n) = ref_name(schema) {
        return resolve(spec, &spec["components"]["schemas"][n], n);
    }
    if let Some(alts) = schema.get("oneOf").and_then(Value::as_array) {
        return Resolved::OneOf(alts.iter().collect());
    }
    let mut properties = Vec::new();
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        for part in parts {
            if let Resolved::Object(_, p) = resolve(spec, part, name) {
                properties.extend(p);
            }
        }
    }
    if let Some(p) = schema.get("properties").and_then(Value::as_object) {
        properties.extend(p.iter().map(|(k, v)| (k.as_str(), v)));
    }
    properties.sort_by_key(|(k, _)| *k);
    properties.dedup_by_key(|(k, _)| *k);
    if properties.is_empty() {
        Resolved::Other
    } else {
        Resolved::Object(name.to_string(), properties)
    }
}

/// The object schema `value` is of: for a `oneOf`, the alternative whose
/// properties hold most of the value's keys.
fn object_of(spec: &Value, schema: &Value, value: &Value) -> Option<(String, Vec<String>)> {
    match resolve(spec, schema, "") {
        Resolved::Object(name, p) => Some((name, p.iter().map(|(k, _)| k.to_string()).collect())),
        Resolved::OneOf(alts) => {
            let keys: BTreeSet<&str> = value
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            alts.into_iter()
                .filter_map(|alt| object_of(spec, alt, value))
                .max_by_key(|(_, props)| {
                    let held = props.iter().filter(|p| keys.contains(p.as_str())).count();
                    // Most keys held, then fewest properties unheld.
                    (held, usize::MAX - props.len())
                })
        }
        Resolved::Other => None,
    }
}

/// What a read answers: one object, or a list of objects under one key
/// (its other properties only `meta`), of the spec's item schema or, where
/// `replies_both_ways::RETYPED` says the real API sent another, of that.
enum Reply<'a> {
    One(&'a Value),
    List(String, Value),
}

fn reply_kind<'a>(spec: &'a Value, schema: &'a Value) -> Option<Reply<'a>> {
    let Resolved::Object(name, properties) = resolve(spec, schema, "") else {
        return matches!(resolve(spec, schema, ""), Resolved::OneOf(_))
            .then_some(Reply::One(schema));
    };
    if walk::MAPS.iter().any(|(n, ..)| *n == name) {
        return None;
    }
    let lists: Vec<(&str, &Value)> = properties
        .iter()
        .copied()
        .filter(|(_, p)| {
            p.get("type").and_then(Value::as_str) == Some("array")
                && !matches!(resolve(spec, &p["items"], ""), Resolved::Other)
        })
        .collect();
    let others_are_meta = properties
        .iter()
        .all(|(k, _)| *k == "meta" || lists.iter().any(|(l, _)| l == k));
    match lists.as_slice() {
        [(key, p)] if others_are_meta => {
            let items = walk::RETYPED
                .iter()
                .find(|(n, k, _, array, _)| *n == name && k == key && *array)
                .map_or_else(
                    || p["items"].clone(),
                    |(_, _, inner, _, _)| {
                        serde_json::json!({ "$ref": format!("#/components/schemas/{inner}") })
                    },
                );
            Some(Reply::List(key.to_string(), items))
        }
        _ => Some(Reply::One(schema)),
    }
}

/// Per operation: its schema (of the items, for a list), each property
/// with whether every object read held it, and how many objects were read.
#[derive(Default)]
struct Tally {
    schema: String,
    list: bool,
    objects: usize,
    held: BTreeMap<String, bool>,
    /// A path the read was sent to.
    path: String,
}

impl Tally {
    fn count(&mut self, name: String, properties: Vec<String>, object: &Value) {
        self.schema = name;
        self.objects += 1;
        for p in properties {
            let here = object.get(&p).is_some();
            let entry = self.held.entry(p).or_insert(true);
            *entry &= here;
        }
    }
}

/// The objects of a reply: itself, or the items of its list.
fn objects<'a>(body: &'a Value, kind: &Reply) -> Vec<&'a Value> {
    match kind {
        Reply::One(_) => vec![body],
        Reply::List(key, _) => body[key.as_str()]
            .as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default(),
    }
}

/// The schema of `operation`'s reply: the spec's `200`, or the one
/// `replies_both_ways::REPLY_AS` says the real API sent.
fn read_schema(schemas: &BTreeMap<String, &Value>, operation: &str) -> Option<Value> {
    let schema = schemas.get(operation)?;
    Some(
        match walk::REPLY_AS.iter().find(|(op, ..)| *op == operation) {
            Some((_, name, _)) => {
                serde_json::json!({ "$ref": format!("#/components/schemas/{name}") })
            }
            None => (*schema).clone(),
        },
    )
}

#[tokio::test]
async fn every_read_has_every_property_of_its_schema() {
    let spec = spec();
    let mut schemas: BTreeMap<String, &Value> = BTreeMap::new();
    for item in spec["paths"].as_object().unwrap().values() {
        if let Some(op) = item.get("get")
            && let Some(s) = op.pointer("/responses/200/content/application~1json/schema")
        {
            schemas.insert(op["operationId"].as_str().unwrap().to_string(), s);
        }
    }
    let fake = Fake::builder()
        .token(walk::TOKEN)
        .world(walk::world())
        .build();
    let live = Live::new(&fake).await;
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut empty = BTreeSet::new();
    for (operation, path) in walk::reads(&live) {
        let Some(schema) = read_schema(&schemas, operation) else {
            continue;
        };
        let Some(kind) = reply_kind(&spec, &schema) else {
            continue;
        };
        let (status, body) = http::in_process(&fake, walk::TOKEN, "GET", &path, None).await;
        assert_eq!(status, 200, "{operation} {path}: {body}");
        let tally = tallies.entry(operation).or_default();
        tally.path = path.clone();
        match kind {
            Reply::One(s) => {
                let (name, props) = object_of(&spec, s, &body)
                    .unwrap_or_else(|| panic!("{operation}: no object schema"));
                tally.count(name, props, &body);
            }
            Reply::List(ref key, ref items) => {
                tally.list = true;
                let values = body[key].as_array().cloned().unwrap_or_default();
                if values.is_empty() {
                    empty.insert(format!("{operation} {path}"));
                }
                for item in &values {
                    let (name, props) = object_of(&spec, items, item)
                        .unwrap_or_else(|| panic!("{operation}: no item schema"));
                    tally.count(name, props, item);
                }
            }
        }
    }
    let omitted = |schema: &str, p: &str| OMITTED.iter().any(|(s, q, _)| *s == schema && *q == p);
    let mut table = String::new();
    let (mut all_present, mut all_of) = (0, 0);
    let mut low = Vec::new();
    let mut unlisted = Vec::new();
    let mut used = BTreeSet::new();
    for (operation, t) in &tallies {
        if t.objects == 0 {
            continue;
        }
        let of = t.held.len();
        let absent: Vec<&str> = t
            .held
            .iter()
            .filter(|(_, h)| !**h)
            .map(|(p, _)| p.as_str())
            .collect();
        // Those a read that includes them holds, in every object.
        let mut included = Vec::new();
        if !absent.is_empty() {
            let sep = if t.path.contains('?') { '&' } else { '?' };
            let path = format!("{}{sep}include={}", t.path, absent.join(","));
            let (status, body) = http::in_process(&fake, walk::TOKEN, "GET", &path, None).await;
            assert_eq!(status, 200, "{operation} {path}: {body}");
            let schema = read_schema(&schemas, operation).expect("read above");
            let kind = reply_kind(&spec, &schema).expect("read above");
            let objects = objects(&body, &kind);
            for p in &absent {
                if !objects.is_empty() && objects.iter().all(|o| o.get(p).is_some()) {
                    included.push(*p);
                }
            }
        }
        let missing: Vec<&str> = absent
            .iter()
            .copied()
            .filter(|p| !included.contains(p))
            .collect();
        let present = of - missing.len();
        for p in &absent {
            if omitted(&t.schema, p) {
                used.insert((t.schema.clone(), p.to_string()));
            } else {
                unlisted.push(format!("{operation}: {}.{p}", t.schema));
            }
        }
        let share = 100.0 * present as f64 / of as f64;
        if share < 95.0 {
            low.push(format!("{operation} {share:.1}%"));
        }
        all_present += present;
        all_of += of;
        let with_include = if included.is_empty() {
            String::new()
        } else {
            format!("  (only with include: {})", included.join(", "))
        };
        table.push_str(&format!(
            "{operation:<44} {:<5} {present:>3}/{of:<3} {share:>5.1}%  {}{with_include}\n",
            if t.list { "list" } else { "" },
            missing.join(", ")
        ));
    }
    println!("operation                                    kind  present/of  share  missing");
    print!("{table}");
    println!(
        "whole_replies: {} reads; {all_present} of {all_of} properties present ({:.1}%)",
        tallies.values().filter(|t| t.objects > 0).count(),
        100.0 * all_present as f64 / all_of.max(1) as f64
    );
    for e in &empty {
        println!("  an empty list (its items not counted): {e}");
    }
    let empty_ops: BTreeSet<&str> = tallies
        .iter()
        .filter(|(_, t)| t.objects == 0)
        .map(|(op, _)| *op)
        .collect();
    let listed: BTreeSet<&str> = EMPTY.iter().map(|(op, _)| *op).collect();
    assert_eq!(
        empty_ops, listed,
        "the list reads empty in the walk's world are those EMPTY lists"
    );
    let stale: Vec<String> = OMITTED
        .iter()
        .filter(|(s, p, _)| !used.contains(&(s.to_string(), p.to_string())))
        .map(|(s, p, _)| format!("{s}.{p}"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "{} properties missing without evidence:\n{}",
        unlisted.len(),
        unlisted.join("\n")
    );
    assert!(low.is_empty(), "reads below 95%: {low:?}");
    assert!(
        stale.is_empty(),
        "OMITTED lists what every reply has: {stale:?}"
    );
}

/// Every plan of the catalog has an hourly price and says where it can be
/// had: the metros of those sold (on demand or on the spot market), none
/// for those no longer sold or reserved only (see "Replies whole" in
/// `metal_fake::fidelity` for each price's evidence); the prices a
/// recorded reply gives are those.
#[tokio::test]
async fn every_catalog_plan_has_a_price_and_says_where_it_is_sold() {
    let fake = Fake::builder().build();
    let (status, body) = http::call(&fake, "GET", "/plans?per_page=1000", None).await;
    assert_eq!(status, 200, "{body}");
    let plans = body["plans"].as_array().expect("a list of plans");
    assert!(plans.len() >= 30, "the catalog's plans: {}", plans.len());
    let mut prices = BTreeMap::new();
    for plan in plans {
        let slug = plan["slug"].as_str().expect("a slug");
        let hour = plan["pricing"]["hour"].as_f64();
        assert!(hour.is_some_and(|h| h > 0.0), "{slug}: {plan}");
        let metros = plan["available_in_metros"]
            .as_array()
            .unwrap_or_else(|| panic!("{slug}: no available_in_metros"));
        let sold = !plan["deployment_types"]
            .as_array()
            .expect("deployment_types")
            .is_empty();
        assert_eq!(!metros.is_empty(), sold, "{slug}: {plan}");
        prices.insert(slug.to_string(), hour);
    }
    for (slug, hour) in [
        ("a3.large.opt-m3a2", 8.2),
        ("t1.small.x86", 0.07),
        ("baremetal_0", 0.07),
        ("c1.small.x86", 0.4),
        ("baremetal_1", 0.4),
        ("m1.xlarge.x86", 1.25),
        ("baremetal_2", 1.25),
        ("c1.xlarge.x86", 1.75),
        ("baremetal_3", 1.75),
    ] {
        assert_eq!(prices.get(slug), Some(&Some(hour)), "{slug}");
    }
}
