//! `openapi/metal.json` holds no prose: `cargo xtask spec` strips upstream
//! descriptions, summaries, examples and external docs. What may remain:
//! our own one-line operation summaries, the response `description` that
//! OpenAPI requires (the status's reason phrase), and schema properties
//! that happen to be *named* `description` (keys of a `properties` map are
//! names, not keywords).

use serde_json::{json, Value};

const PROSE: &[&str] = &[
    "description",
    "summary",
    "example",
    "examples",
    "externalDocs",
];
/// Keywords whose value is a map from names (chosen by the spec's author)
/// to objects: their keys are never keywords.
const NAME_MAPS: &[&str] = &[
    "properties",
    "paths",
    "schemas",
    "responses",
    "content",
    "requestBodies",
    "securitySchemes",
    "parameters", // in `components`; in an operation it is an array
    "headers",
    "links",
    "callbacks",
    "variables",
    "encoding",
];
const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "patch", "head", "options", "trace",
];

/// Every place in `doc` where a prose keyword occurs and is not allowed,
/// as a JSON pointer.
fn prose_found(doc: &Value) -> Vec<String> {
    let mut found = Vec::new();
    walk(doc, &mut Vec::new(), false, &mut found);
    found
}

fn walk(value: &Value, path: &mut Vec<String>, is_name_map: bool, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                path.push(key.clone());
                if !is_name_map && PROSE.contains(&key.as_str()) && !allowed(path, child) {
                    found.push(format!("/{}", path.join("/")));
                }
                let child_is_name_map = !is_name_map && NAME_MAPS.contains(&key.as_str());
                walk(child, path, child_is_name_map, found);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                walk(item, path, false, found);
                path.pop();
            }
        }
        _ => {}
    }
}

fn allowed(path: &[String], value: &Value) -> bool {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    match p.as_slice() {
        // Our own operation summary: one short line.
        ["paths", _, method, "summary"] if METHODS.contains(method) => value
            .as_str()
            .is_some_and(|s| !s.contains('\n') && s.len() <= 80 && s.ends_with('.')),
        // The response description OpenAPI requires: the reason phrase.
        ["paths", _, method, "responses", code, "description"] if METHODS.contains(method) => {
            let reason = code
                .parse::<u16>()
                .ok()
                .and_then(|c| reqwest::StatusCode::from_u16(c).ok())
                .and_then(|s| s.canonical_reason());
            reason.is_some() && value.as_str() == reason
        }
        _ => false,
    }
}

fn spec() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/metal.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_spec_holds_no_prose() {
    let spec = spec();
    let found = prose_found(&spec);
    assert!(
        found.is_empty(),
        "prose left in openapi/metal.json: {found:#?}"
    );
}

#[test]
fn every_operation_keeps_its_summary_and_every_response_its_reason() {
    let spec = spec();
    let mut operations = 0;
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if !METHODS.contains(&method.as_str()) {
                continue;
            }
            operations += 1;
            assert!(op["summary"].is_string(), "{method} {path} has no summary");
            for (code, response) in op["responses"].as_object().unwrap() {
                assert!(
                    response["description"].is_string(),
                    "{method} {path} {code} lacks the required description"
                );
            }
        }
    }
    // One operation per line of openapi/operations.txt (comments aside), so
    // adding an operation there needs no edit here.
    let listed = include_str!("../../../openapi/operations.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .count();
    assert_eq!(operations, listed, "the kept operations");
}

#[test]
fn a_property_named_description_is_not_prose() {
    // The spec's own schemas have such properties; the walker must see them.
    let spec = spec();
    assert!(spec
        .pointer("/components/schemas/Device/properties/description")
        .is_some());
}

#[test]
fn the_walker_finds_prose_where_it_hides() {
    let doc = json!({
        "info": {"title": "t", "version": "1", "description": "About the API"},
        "externalDocs": {"url": "https://example.test"},
        "paths": {"/d/{id}": {
            "parameters": [{"name": "id", "in": "path", "description": "The id"}],
            "get": {
                "summary": "Read one device.",
                "description": "Returns a device.",
                "responses": {
                    "200": {"description": "OK", "content": {"application/json": {
                        "examples": {"a": {"value": {}}},
                        "schema": {"$ref": "#/components/schemas/D"}
                    }}},
                    "404": {"description": "The device was not found"}
                }
            },
            "post": {"summary": "A summary\nover two lines.", "responses": {}}
        }},
        "components": {"schemas": {"D": {
            "type": "object",
            "description": "A device",
            "properties": {
                "description": {"type": "string", "example": "web server"},
                "summary": {"type": "string"},
                "nested": {"type": "object", "properties": {
                    "examples": {"type": "array", "items": {"type": "string", "description": "x"}}
                }}
            }
        }}}
    });
    let mut found = prose_found(&doc);
    found.sort();
    assert_eq!(
        found,
        [
            "/components/schemas/D/description",
            "/components/schemas/D/properties/description/example",
            "/components/schemas/D/properties/nested/properties/examples/items/description",
            "/externalDocs",
            "/info/description",
            "/paths//d/{id}/get/description",
            "/paths//d/{id}/get/responses/200/content/application/json/examples",
            "/paths//d/{id}/get/responses/404/description",
            "/paths//d/{id}/parameters/0/description",
            "/paths//d/{id}/post/summary",
        ]
    );
}
