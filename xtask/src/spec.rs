//! Deriving `openapi/metal.json` from the upstream spec: keep every
//! operation (each must have a line in `openapi/operations.txt`) and the
//! components they reference, drop all prose, apply our patches, add our
//! summaries, write with sorted keys.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{Map, Value};

use crate::{patches, refs, table};

/// Keys that carry prose, never facts; removed wherever they are keywords.
const PROSE_KEYS: &[&str] = &[
    "description",
    "summary",
    "example",
    "examples",
    "externalDocs",
    "contact",
    "termsOfService",
    "license",
    "x-displayName",
    "x-tagGroups",
];

/// Keys whose value is a map from names (property names, status codes, media
/// types, component names) to objects: their keys are never keywords, so a
/// property called `description` survives.
const NAME_MAP_KEYS: &[&str] = &[
    "properties",
    "schemas",
    "paths",
    "responses",
    "content",
    "securitySchemes",
    "requestBodies",
    "headers",
    "links",
    "callbacks",
    "variables",
    "encoding",
    "mapping",
    "parameters",
];

const HTTP_METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Reads YAML or JSON (JSON is YAML, so one parser serves both).
pub fn parse_upstream(text: &str) -> Result<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return Ok(v);
    }
    serde_norway::from_str::<Value>(text).context("the upstream spec is neither JSON nor YAML")
}

/// The whole pipeline: upstream text and the summaries table in,
/// `metal.json` out.
pub fn generate(upstream: &str, table_text: &str) -> Result<String> {
    let mut upstream = parse_upstream(upstream)?;
    patches::apply_to_upstream(&mut upstream);
    let table = table::parse(table_text)?;
    let ids = operation_ids(&upstream)?;
    table::check_covers(&table, &ids)?;
    let mut spec = subset(&upstream, &ids)?;
    strip_prose(&mut spec, false);
    patches::apply_all(&mut spec)?;
    add_summaries(&mut spec, &table);
    add_response_descriptions(&mut spec);
    let mut text = serde_json::to_string_pretty(&canonical(&spec))?;
    text.push('\n');
    Ok(text)
}

/// The operations of a spec, as (method, path, operation) triples.
fn operations(spec: &Value) -> impl Iterator<Item = (&str, &str, &Value)> {
    spec.get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|paths| paths.iter())
        .filter_map(|(path, item)| Some((path, item.as_object()?)))
        .flat_map(|(path, item)| {
            item.iter()
                .filter(|(method, _)| HTTP_METHODS.contains(&method.as_str()))
                .map(move |(method, op)| (method.as_str(), path.as_str(), op))
        })
}

/// Every operationId of the upstream spec; an operation without one is an
/// error (progenitor names methods by it, and so do we).
pub fn operation_ids(upstream: &Value) -> Result<BTreeSet<String>> {
    let mut ids = BTreeSet::new();
    for (method, path, op) in operations(upstream) {
        let id = op
            .get("operationId")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                anyhow!(
                    "upstream {} {path} has no operationId; name it in \
                 xtask/src/patches (see name_unnamed_operations)",
                    method.to_uppercase()
                )
            })?;
        if !ids.insert(id.to_string()) {
            bail!("upstream names two operations {id}");
        }
    }
    Ok(ids)
}

/// Builds the subset document: the operations named in `wanted`, the
/// components they reference (transitively), the security scheme and
/// server.
pub fn subset(upstream: &Value, wanted: &BTreeSet<String>) -> Result<Value> {
    let version = upstream
        .get("openapi")
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow!("the upstream spec has no `openapi` version"))?;
    if !version.starts_with("3.0") {
        bail!("expected an OpenAPI 3.0 document, found {version}");
    }
    let mut found = BTreeSet::new();
    let mut paths = Map::new();
    let upstream_paths = upstream
        .get("paths")
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("the upstream spec has no paths"))?;
    for (path, item) in upstream_paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        let mut kept_item = Map::new();
        for (method, op) in item {
            if !HTTP_METHODS.contains(&method.as_str()) {
                continue;
            }
            let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                continue;
            };
            if wanted.contains(id) {
                found.insert(id.to_string());
                kept_item.insert(method.clone(), op.clone());
            }
        }
        if !kept_item.is_empty() {
            if let Some(params) = item.get("parameters") {
                kept_item.insert("parameters".into(), params.clone());
            }
            paths.insert(path.clone(), Value::Object(kept_item));
        }
    }
    let missing: Vec<&str> = wanted
        .iter()
        .map(String::as_str)
        .filter(|id| !found.contains(*id))
        .collect();
    if !missing.is_empty() {
        bail!("operations not found upstream: {}", missing.join(", "));
    }

    let paths = Value::Object(paths);
    let components = upstream.get("components").cloned().unwrap_or(Value::Null);
    let mut kept_components: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for r in refs::reachable(&paths, |r| component(&components, r).map(Some))? {
        let (kind, name) = parse_component_ref(&r)?;
        let target = component(&components, &r)?;
        kept_components
            .entry(kind.to_string())
            .or_default()
            .insert(name.to_string(), target.clone());
    }

    // Security: keep the top-level requirement and the schemes it names.
    let security = upstream.get("security").cloned().unwrap_or(Value::Null);
    if let Some(reqs) = security.as_array() {
        for req in reqs {
            for scheme in req.as_object().into_iter().flat_map(|o| o.keys()) {
                let def = components
                    .get("securitySchemes")
                    .and_then(|s| s.get(scheme))
                    .ok_or_else(|| anyhow!("unknown security scheme {scheme}"))?;
                kept_components
                    .entry("securitySchemes".into())
                    .or_default()
                    .insert(scheme.clone(), def.clone());
            }
        }
    }

    let mut doc = Map::new();
    doc.insert("openapi".into(), Value::String(version.to_string()));
    let mut info = Map::new();
    for key in ["title", "version"] {
        if let Some(v) = upstream.get("info").and_then(|i| i.get(key)) {
            info.insert(key.into(), v.clone());
        }
    }
    doc.insert("info".into(), Value::Object(info));
    if let Some(servers) = upstream.get("servers") {
        doc.insert("servers".into(), servers.clone());
    }
    if !security.is_null() {
        doc.insert("security".into(), security);
    }
    doc.insert("paths".into(), paths);
    doc.insert(
        "components".into(),
        Value::Object(
            kept_components
                .into_iter()
                .map(|(k, v)| (k, Value::Object(v)))
                .collect(),
        ),
    );
    Ok(Value::Object(doc))
}

/// What a local component reference points at.
fn component<'a>(components: &'a Value, r: &str) -> Result<&'a Value> {
    let (kind, name) = parse_component_ref(r)?;
    components
        .get(kind)
        .and_then(|k| k.get(name))
        .ok_or_else(|| anyhow!("dangling reference {r}"))
}

fn parse_component_ref(r: &str) -> Result<(&str, &str)> {
    let rest = r
        .strip_prefix("#/components/")
        .ok_or_else(|| anyhow!("unsupported reference {r} (only local component references)"))?;
    rest.split_once('/')
        .ok_or_else(|| anyhow!("malformed reference {r}"))
}

/// Removes prose keywords everywhere, except as names inside name maps.
pub fn strip_prose(v: &mut Value, in_name_map: bool) {
    match v {
        Value::Object(map) => {
            if !in_name_map {
                map.retain(|k, _| !PROSE_KEYS.contains(&k.as_str()));
                // Top-level tag objects are prose; operations keep tag names.
                if map.contains_key("openapi") {
                    map.remove("tags");
                }
            }
            for (k, x) in map.iter_mut() {
                let names = !in_name_map && NAME_MAP_KEYS.contains(&k.as_str());
                strip_prose(x, names);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| strip_prose(x, false)),
        _ => {}
    }
}

fn add_summaries(spec: &mut Value, table: &[table::Entry]) {
    let Some(paths) = spec.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for op in item.values_mut().filter_map(Value::as_object_mut) {
            let id = op.get("operationId").and_then(Value::as_str);
            if let Some(summary) = id.and_then(|id| table::summary(table, id)) {
                op.insert("summary".into(), Value::String(summary.to_string()));
            }
        }
    }
}

/// OpenAPI 3.0 requires a `description` on every response object; with the
/// upstream prose gone, each gets the standard reason phrase of its status.
fn add_response_descriptions(spec: &mut Value) {
    let Some(paths) = spec.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for op in item.values_mut() {
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            for (status, response) in responses.iter_mut() {
                if let Some(obj) = response.as_object_mut() {
                    obj.insert(
                        "description".into(),
                        Value::String(reason_phrase(status).into()),
                    );
                }
            }
        }
    }
}

fn reason_phrase(status: &str) -> &'static str {
    match status {
        "200" => "OK",
        "201" => "Created",
        "202" => "Accepted",
        "204" => "No Content",
        "400" => "Bad Request",
        "401" => "Unauthorized",
        "403" => "Forbidden",
        "404" => "Not Found",
        "409" => "Conflict",
        "422" => "Unprocessable Entity",
        "429" => "Too Many Requests",
        "405" => "Method Not Allowed",
        "406" => "Not Acceptable",
        "408" => "Request Timeout",
        "410" => "Gone",
        "412" => "Precondition Failed",
        "415" => "Unsupported Media Type",
        "500" => "Internal Server Error",
        "501" => "Not Implemented",
        "502" => "Bad Gateway",
        "503" => "Service Unavailable",
        "504" => "Gateway Timeout",
        _ => "Response",
    }
}

/// A copy of `v` whose object keys are in sorted order, whatever map type
/// serde_json was built with.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, Value> =
                map.iter().map(|(k, x)| (k, canonical(x))).collect();
            Value::Object(sorted.into_iter().map(|(k, x)| (k.clone(), x)).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// A unified diff of two texts, for `--check`.
pub fn diff(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(
            "openapi/metal.json (committed)",
            "openapi/metal.json (generated)",
        )
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_upstream_operation_needs_a_summary_and_an_id() {
        let upstream = json!({
            "openapi": "3.0.0",
            "paths": {
                "/a": {"get": {"operationId": "getA", "summary": "Their prose", "responses": {}},
                       "parameters": []},
                "/b": {"post": {"operationId": "makeB", "responses": {"201": {}}}}
            }
        });
        let text = upstream.to_string();
        let out = generate(&text, "getA  Read an a.\nmakeB  Make a b.\n").unwrap();
        let out: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(out["paths"]["/a"]["get"]["summary"], "Read an a.");
        assert_eq!(out["paths"]["/b"]["post"]["summary"], "Make a b.");
        assert_eq!(
            out["paths"]["/b"]["post"]["responses"]["201"]["description"],
            "Created"
        );

        let err = generate(&text, "getA  Read an a.\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no line in openapi/operations.txt") && err.contains("makeB"));

        let unnamed = json!({"openapi": "3.0.0", "paths": {"/c": {"get": {"responses": {}}}}});
        let err = operation_ids(&unnamed).unwrap_err().to_string();
        assert!(err.contains("GET /c has no operationId"), "{err}");
        let twice = json!({"openapi": "3.0.0", "paths": {
            "/c": {"get": {"operationId": "x"}}, "/d": {"get": {"operationId": "x"}}}});
        assert!(operation_ids(&twice).is_err());
    }

    #[test]
    fn prose_goes_but_properties_named_like_keywords_stay() {
        let mut v = json!({
            "description": "prose",
            "properties": {
                "description": {"type": "string", "description": "prose", "example": "x"},
                "summary": {"type": "string"}
            }
        });
        strip_prose(&mut v, false);
        assert_eq!(
            v,
            json!({"properties": {"description": {"type": "string"}, "summary": {"type": "string"}}})
        );
    }

    #[test]
    fn subset_keeps_listed_operations_and_referenced_components_only() {
        let upstream = json!({
            "openapi": "3.0.0",
            "info": {"title": "T", "version": "1", "description": "long prose"},
            "security": [{"tok": []}],
            "paths": {
                "/a": {"get": {"operationId": "getA", "responses": {"200": {"content":
                    {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}}}},
                "/b": {"get": {"operationId": "getB", "responses": {}}}
            },
            "components": {
                "schemas": {
                    "A": {"properties": {"b": {"$ref": "#/components/schemas/B"}}},
                    "B": {"type": "string"},
                    "Unused": {"type": "string"}
                },
                "securitySchemes": {"tok": {"type": "apiKey", "in": "header", "name": "X"}}
            }
        });
        let out = subset(&upstream, &ids(&["getA"])).unwrap();
        assert!(out["paths"].get("/b").is_none());
        let schemas = out["components"]["schemas"].as_object().unwrap();
        assert_eq!(schemas.keys().collect::<Vec<_>>(), vec!["A", "B"]);
        assert!(out["components"]["securitySchemes"].get("tok").is_some());
        assert!(out["info"].get("description").is_none());

        let err = subset(&upstream, &ids(&["getA", "nope"]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("nope"), "{err}");
    }

    #[test]
    fn yaml_and_json_read_alike() {
        let yaml = "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      operationId: getA\n";
        let json = r#"{"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": "getA"}}}}"#;
        assert_eq!(parse_upstream(yaml).unwrap(), parse_upstream(json).unwrap());
        assert!(parse_upstream("{ not: [valid").is_err());
    }

    #[test]
    fn canonical_output_is_sorted_and_stable() {
        let v = json!({"b": 1, "a": {"d": 2, "c": 3}});
        let text = serde_json::to_string(&canonical(&v)).unwrap();
        assert_eq!(text, r#"{"a":{"c":3,"d":2},"b":1}"#);
    }

    #[test]
    fn diff_shows_changed_lines() {
        let d = diff("a\nb\n", "a\nc\n");
        assert!(d.contains("-b") && d.contains("+c"), "{d}");
    }
}
