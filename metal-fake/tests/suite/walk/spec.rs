//! What the walk reads from `openapi/metal.json`: the operations it may
//! call (every operation of `metal_api::operation::ALL` but those still
//! answering `501`), each one's request schema, and bodies made from a
//! schema: required properties always, optional ones sometimes, each
//! `oneOf` branch, enum values and the open enums' known values (so every
//! variant: an action type, a connection or IP reservation type),
//! formats (uuid, ip, cidr, date-time), and IDs from the pool where a
//! property names a thing.

use metal_api::operation::{self, Operation};
use rand::rngs::StdRng;
use rand::Rng;
use serde_json::{json, Map, Value};

use super::pool::Pool;
use crate::no_501::NOT_YET_MODELLED;

/// Operations the walk never calls, each with its reason: not "not yet
/// modelled" (that list is read from `no_501`), but calls that would end
/// the walk's own access rather than exercise the API.
pub const NEVER: &[(&str, &str)] = &[
    (
        "disableTfaApp",
        "turns off the walk's user's second factor; nothing else reads it",
    ),
    (
        "resetPassword",
        "resets the walk's user's password; nothing else reads it",
    ),
];

/// Optional properties the walk always sends where a schema has them,
/// each with its reason: the spec leaves them optional, but the API (and
/// the clients) took no request without them.
pub const ALWAYS: &[(&str, &str)] = &[
    (
        "speed",
        "a connection's: optional in the spec, required for all but a z_side shared connection (the Terraform provider refuses to leave it out)",
    ),
    (
        "account_id",
        "a cloud provider's (`AWSFabricProvider`): the derived spec drops `required` from schemas replies share",
    ),
    (
        "type",
        "a variant's discriminator (an IP request's, a cloud provider's): the derived spec drops `required` from schemas replies share",
    ),
];

/// The spec, and the operations the walk calls.
pub struct Spec {
    doc: Value,
    /// The operations the walk's steps call, in `operation::ALL` order.
    pub ops: Vec<&'static Operation>,
    /// Every walkable operation (the walk's own reads use any of them).
    pub all: Vec<&'static Operation>,
}

impl Spec {
    /// Reads the spec, walking the operations `only` names (all when it
    /// is empty); the walkable operations are read at run time from
    /// `no_501::NOT_YET_MODELLED`, so an operation modelled elsewhere
    /// joins the walk without an edit here.
    pub fn load_only(only: &[&str]) -> Self {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/metal.json");
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let all: Vec<&'static Operation> = operation::ALL
            .iter()
            .copied()
            .filter(|op| !NOT_YET_MODELLED.contains(&op.id))
            .filter(|op| !NEVER.iter().any(|(id, _)| *id == op.id))
            .collect();
        let ops = all
            .iter()
            .copied()
            .filter(|op| only.is_empty() || only.contains(&op.id))
            .collect();
        Self { doc, ops, all }
    }

    /// The spec's entry of `op`.
    fn entry(&self, op: &Operation) -> &Value {
        let method = op.method.as_str().to_ascii_lowercase();
        &self.doc["paths"][op.path][method.as_str()]
    }

    /// `value` with its `$ref` followed (schemas and request bodies).
    fn resolve<'a>(&'a self, mut value: &'a Value) -> &'a Value {
        for _ in 0..16 {
            let Some(r) = value.get("$ref").and_then(Value::as_str) else {
                return value;
            };
            let pointer = r.trim_start_matches('#');
            match self.doc.pointer(pointer) {
                Some(v) => value = v,
                None => return value,
            }
        }
        value
    }

    /// The JSON request schema of `op`, if it takes a body.
    pub fn request_schema(&self, op: &Operation) -> Option<&Value> {
        let body = self.resolve(self.entry(op).get("requestBody")?);
        body.pointer("/content/application~1json/schema")
            .map(|s| self.resolve(s))
    }

    /// The query parameters of `op` the walk sends: none but paging.
    pub fn pages(&self, op: &Operation) -> bool {
        self.entry(op)["parameters"].as_array().is_some_and(|ps| {
            ps.iter()
                .any(|p| self.resolve(p)["name"].as_str() == Some("per_page"))
        })
    }

    /// A body for `schema`: a value it accepts, as far as the schema says,
    /// with IDs and slugs from `pool` where a property names one.
    pub fn body(&self, schema: &Value, name: &str, pool: &Pool, rng: &mut StdRng) -> Value {
        self.value(schema, name, pool, rng, 0)
    }

    fn value(
        &self,
        schema: &Value,
        name: &str,
        pool: &Pool,
        rng: &mut StdRng,
        depth: u32,
    ) -> Value {
        if depth > 10 {
            return Value::Null;
        }
        let schema = self.resolve(schema);
        if let Some(v) = pool.hint(name, schema, rng) {
            return v;
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(alts) = schema[key].as_array().filter(|a| !a.is_empty()) {
                let alt = &alts[rng.random_range(0..alts.len())];
                return self.value(alt, name, pool, rng, depth + 1);
            }
        }
        if let Some(parts) = schema["allOf"].as_array() {
            let mut out = Map::new();
            for part in parts {
                if let Value::Object(m) = self.value(part, name, pool, rng, depth + 1) {
                    out.extend(m);
                }
            }
            return Value::Object(out);
        }
        if let Some(values) = schema["enum"].as_array().filter(|v| !v.is_empty()) {
            return values[rng.random_range(0..values.len())].clone();
        }
        // A value the spec knows (`x-known-values`: the derived spec's
        // open enums, such as an IP reservation's `type`) nine times in
        // ten, so the walk draws every variant a client sends.
        if let Some(values) = schema["x-known-values"]
            .as_array()
            .filter(|v| !v.is_empty() && rng.random_bool(0.9))
        {
            return values[rng.random_range(0..values.len())].clone();
        }
        let kind = schema["type"]
            .as_str()
            .unwrap_or(if schema.get("properties").is_some() {
                "object"
            } else {
                "string"
            });
        match kind {
            "object" => {
                let mut out = Map::new();
                let required: Vec<&str> = schema["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(props) = schema["properties"].as_object() {
                    for (key, prop) in props {
                        let wanted = required.contains(&key.as_str())
                            || ALWAYS.iter().any(|(k, _)| k == key)
                            || (depth < 4 && rng.random_bool(if depth == 0 { 0.5 } else { 0.2 }));
                        if wanted && !self.resolve(prop)["readOnly"].as_bool().unwrap_or(false) {
                            out.insert(key.clone(), self.value(prop, key, pool, rng, depth + 1));
                        }
                    }
                }
                Value::Object(out)
            }
            "array" => {
                let n = if depth > 2 { 0 } else { rng.random_range(0..3) };
                let min = schema["minItems"].as_u64().unwrap_or(0) as usize;
                let items = &schema["items"];
                Value::Array(
                    (0..n.max(min))
                        .map(|_| self.value(items, name, pool, rng, depth + 1))
                        .collect(),
                )
            }
            "boolean" => json!(rng.random_bool(0.5)),
            "integer" | "number" => {
                let min = schema["minimum"].as_i64().unwrap_or(1);
                let max = schema["maximum"].as_i64().unwrap_or(min.max(0) + 100);
                json!(rng.random_range(min..=max.max(min)))
            }
            _ => string(schema, name, rng),
        }
    }
}

/// A string for `schema`, by its format.
fn string(schema: &Value, name: &str, rng: &mut StdRng) -> Value {
    let n: u32 = rng.random_range(1..250);
    match schema["format"].as_str().unwrap_or("") {
        "uuid" => json!(uuid::Uuid::from_u128(rng.random()).to_string()),
        "date-time" => json!("2030-01-01T00:00:00Z"),
        "email" => json!(format!("walk{n}@example.com")),
        "ipv4" | "ip" => json!(format!("10.0.0.{n}")),
        "ipv6" => json!(format!("2001:db8::{n:x}")),
        "cidr" => json!(format!("10.{n}.0.0/24")),
        _ if name.contains("cidr") => json!(format!("10.{n}.0.0/24")),
        _ if name == "address" => json!(format!("10.0.0.{n}")),
        _ => json!(format!("walk-{name}-{n}")),
    }
}
