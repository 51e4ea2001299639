//! Walking a spec for the patches: its operations, its parameters, the
//! schemas a response can contain, and every subschema of a schema.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::refs;

/// Every operation object of the spec (the path items' `parameters` aside).
pub fn operations_mut(spec: &mut Value) -> impl Iterator<Item = &mut Map<String, Value>> {
    spec.get_mut("paths")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.iter_mut())
        .filter(|(k, _)| k.as_str() != "parameters")
        .filter_map(|(_, op)| op.as_object_mut())
}

/// Every query parameter object of every operation.
pub fn query_params_mut(spec: &mut Value) -> impl Iterator<Item = &mut Map<String, Value>> {
    operations_mut(spec)
        .filter_map(|op| op.get_mut("parameters").and_then(Value::as_array_mut))
        .flat_map(|params| params.iter_mut())
        .filter_map(Value::as_object_mut)
        .filter(|p| p.get("in").and_then(Value::as_str) == Some("query"))
}

/// The names of the component schemas that some response can contain.
pub fn schemas_reachable_from_responses(spec: &Value) -> BTreeSet<String> {
    let responses: Vec<&Value> = spec
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|paths| paths.values().filter_map(Value::as_object))
        .flat_map(|item| item.values().filter_map(|op| op.get("responses")))
        .collect();
    let start = Value::Array(responses.into_iter().cloned().collect());
    // Only schema references are followed; a missing one is not followed
    // (the subset already refused dangling references).
    let refs = refs::reachable(&start, |r| {
        Ok(r.strip_prefix("#/components/schemas/")
            .and_then(|name| spec.pointer(&format!("/components/schemas/{name}"))))
    })
    .unwrap_or_default();
    refs.iter()
        .filter_map(|r| r.strip_prefix("#/components/schemas/"))
        .map(str::to_string)
        .collect()
}

/// The component schemas named in `names`, as (name, schema) pairs.
pub fn schemas_mut<'a>(
    spec: &'a mut Value,
    names: &'a BTreeSet<String>,
) -> impl Iterator<Item = (&'a String, &'a mut Value)> + 'a {
    spec.pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|schemas| schemas.iter_mut())
        .filter(move |(name, _)| names.contains(name.as_str()))
}

/// Calls `f` on `schema` and on every subschema below it.
pub fn visit_schemas(schema: &mut Value, f: &mut dyn FnMut(&mut Map<String, Value>)) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    f(obj);
    for key in ["items", "additionalProperties", "not"] {
        if let Some(sub) = obj.get_mut(key) {
            visit_schemas(sub, f);
        }
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        if let Some(subs) = obj.get_mut(key).and_then(Value::as_array_mut) {
            subs.iter_mut().for_each(|s| visit_schemas(s, f));
        }
    }
    if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
        props.values_mut().for_each(|s| visit_schemas(s, f));
    }
}

/// A small spec with what every patch acts on, for the patches' tests.
#[cfg(test)]
pub fn sample() -> Value {
    serde_json::json!({
        "paths": {"/d/{id}": {
            "get": {
                "operationId": "getD",
                "parameters": [
                    {"in": "path", "name": "id", "schema": {"type": "string"}},
                    {"in": "query", "name": "include", "style": "form", "explode": false,
                     "schema": {"type": "array", "items": {"type": "string"}}},
                    {"in": "query", "name": "page", "schema": {"type": "integer"}},
                    {"in": "query", "name": "types", "style": "form",
                     "schema": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}
                ],
                "responses": {"200": {"content": {"application/json":
                    {"schema": {"$ref": "#/components/schemas/D"}}}}}
            },
            "put": {
                "operationId": "updateD",
                "requestBody": {"content": {"application/json":
                    {"schema": {"$ref": "#/components/schemas/Update"}}}},
                "responses": {"204": {}}
            },
            "post": {
                "operationId": "act",
                "requestBody": {"content": {"application/json":
                    {"schema": {"$ref": "#/components/schemas/Input"}}}},
                "responses": {"204": {}}
            }
        }},
        "components": {"schemas": {
            "D": {"type": "object", "required": ["id"], "additionalProperties": false, "properties": {
                "id": {"type": "string"},
                "state": {"type": "string", "enum": ["active", "queued"]},
                "user": {"$ref": "#/components/schemas/User"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}},
                "link": {"$ref": "#/components/schemas/Href"}
            }},
            "User": {"type": "object", "required": ["id"], "properties": {
                "id": {"type": "string"},
                "name": {"type": "string", "minLength": 1, "maxLength": 80, "pattern": "^a"}
            }},
            "Href": {"type": "object", "required": ["href"], "properties": {"href": {"type": "string"}}},
            "Input": {"type": "object", "required": ["type"], "additionalProperties": false, "properties": {
                "type": {"type": "string", "enum": ["reboot"]},
                "name": {"type": "string", "maxLength": 80},
                "tags": {"type": "array", "items": {"type": "string"}}
            }},
            "Update": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "name": {"type": "string"}
            }}
        }}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reachability_follows_refs_from_responses_only() {
        let spec = sample();
        let names = schemas_reachable_from_responses(&spec);
        let expected: BTreeSet<String> = ["D", "User", "Href"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn query_params_are_the_query_ones() {
        let mut spec = sample();
        let names: Vec<String> = query_params_mut(&mut spec)
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, ["include", "page", "types"]);
    }
}
