//! What the coverage tests read of `openapi/metal.json`: each operation's
//! query parameters and request variants, and placeholder values a
//! handler reads without refusing.

use std::sync::OnceLock;

use metal_api::operation::Operation;
use serde_json::{json, Map, Value};

use super::variants::BEYOND_SPEC;

/// The spec, read once.
pub(super) fn doc() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/metal.json");
        let text = std::fs::read_to_string(path).expect("openapi/metal.json is in the repository");
        serde_json::from_str(&text).expect("openapi/metal.json is JSON")
    })
}

/// `value` with its `$ref`s followed.
pub(super) fn resolve(mut value: &Value) -> &Value {
    while let Some(r) = value.get("$ref").and_then(Value::as_str) {
        match doc().pointer(r.trim_start_matches('#')) {
            Some(v) => value = v,
            None => break,
        }
    }
    value
}

/// The spec's entry of `op` (`None` for an operation beyond the spec).
fn entry(op: &Operation) -> Option<&'static Value> {
    let method = op.method.as_str().to_ascii_lowercase();
    doc().get("paths")?.get(op.path)?.get(method.as_str())
}

/// The query parameters of `op`, in the spec's order, with their schemas.
pub(super) fn query(op: &Operation) -> Vec<(&'static str, &'static Value)> {
    let Some(params) = entry(op).and_then(|e| e["parameters"].as_array()) else {
        return Vec::new();
    };
    params
        .iter()
        .map(resolve)
        .filter(|p| p["in"] == "query")
        .filter_map(|p| Some((p["name"].as_str()?, resolve(&p["schema"]))))
        .collect()
}

/// The JSON request schema of `op`, if it takes a body.
pub(super) fn request(op: &Operation) -> Option<&'static Value> {
    let body = resolve(entry(op)?.get("requestBody")?);
    body.pointer("/content/application~1json/schema")
        .map(resolve)
}

/// The variants of `op`'s request: its body's `oneOf`/`anyOf` branches
/// (by schema name) and each value of a `type` enumeration in it
/// (`type=value`), then [`BEYOND_SPEC`]'s; each once, in that order.
pub(super) fn variants(op: &Operation) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(schema) = entry(op)
        .and_then(|e| e.get("requestBody"))
        .map(resolve)
        .and_then(|b| b.pointer("/content/application~1json/schema"))
    {
        collect(schema, &mut out, 0);
    }
    for (id, variant, _) in BEYOND_SPEC {
        if *id == op.id && !out.iter().any(|v| v == variant) {
            out.push((*variant).to_string());
        }
    }
    out
}

fn collect(schema: &Value, out: &mut Vec<String>, depth: u32) {
    if depth > 4 {
        return;
    }
    let resolved = resolve(schema);
    let mut push = |v: String| {
        if !out.contains(&v) {
            out.push(v);
        }
    };
    for key in ["oneOf", "anyOf"] {
        for alt in resolved[key].as_array().into_iter().flatten() {
            if let Some(name) = alt["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
                push(name.to_string());
            }
        }
    }
    if let Some(values) = resolve(&resolved["properties"]["type"])["enum"].as_array() {
        for v in values.iter().filter_map(Value::as_str) {
            push(format!("type={v}"));
        }
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for alt in resolved[key].as_array().into_iter().flatten() {
            collect(alt, out, depth + 1);
        }
    }
}

/// A value of the query parameter `name` (of `schema`) that its reader
/// takes: the first of an enumeration, `true`, the least number, a time,
/// or text.
pub(super) fn query_value(name: &str, schema: &Value) -> String {
    let schema = resolve(schema);
    let first = |s: &Value| {
        resolve(s)["enum"]
            .as_array()
            .and_then(|e| e.first())
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if let Some(v) = first(schema) {
        return v;
    }
    match (schema["type"].as_str(), schema["format"].as_str()) {
        (Some("array"), _) => first(&schema["items"]).unwrap_or_else(|| "x".to_string()),
        (Some("boolean"), _) => "true".to_string(),
        (Some("integer" | "number"), _) => {
            schema["minimum"].as_i64().unwrap_or(1).max(1).to_string()
        }
        (_, Some("date-time" | "datetime")) => "2030-01-01T00:00:00Z".to_string(),
        _ => match name {
            "from" => "1700000000".to_string(),
            "until" => "1700003600".to_string(),
            "userdata" => "#!/bin/sh".to_string(),
            "vnid" => "1000".to_string(),
            _ => "x".to_string(),
        },
    }
}

/// A body for `schema`: its required properties, each a placeholder its
/// schema accepts (the first branch of a union).
pub(super) fn body(schema: &Value) -> Value {
    value(schema, "", 0)
}

fn value(schema: &Value, name: &str, depth: u32) -> Value {
    let schema = resolve(schema);
    if depth > 8 {
        return Value::Null;
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alt) = schema[key].as_array().and_then(|a| a.first()) {
            return value(alt, name, depth + 1);
        }
    }
    if let Some(parts) = schema["allOf"].as_array() {
        let mut out = Map::new();
        for part in parts {
            if let Value::Object(m) = value(part, name, depth + 1) {
                out.extend(m);
            }
        }
        return Value::Object(out);
    }
    if let Some(v) = schema["enum"].as_array().and_then(|e| e.first()) {
        return v.clone();
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
            for key in schema["required"].as_array().into_iter().flatten() {
                if let Some(key) = key.as_str() {
                    out.insert(
                        key.to_string(),
                        value(&schema["properties"][key], key, depth + 1),
                    );
                }
            }
            Value::Object(out)
        }
        "array" => {
            let min = schema["minItems"].as_u64().unwrap_or(0).min(2);
            Value::Array(
                (0..min)
                    .map(|_| value(&schema["items"], name, depth + 1))
                    .collect(),
            )
        }
        "boolean" => json!(false),
        "integer" | "number" => json!(schema["minimum"].as_i64().unwrap_or(1).max(1)),
        _ => match schema["format"].as_str() {
            Some("uuid") => json!("00000000-0000-4000-8000-000000000001"),
            Some("date-time") => json!("2030-01-01T00:00:00Z"),
            Some("email") => json!("coverage@example.com"),
            _ => json!(format!("coverage-{name}")),
        },
    }
}
