//! The project's patches to the upstream spec. Each is one function with the
//! reason it exists and a unit test; `apply_all` runs them in order.

use std::collections::BTreeSet;

use anyhow::Result;
use serde_json::{json, Map, Value};

use crate::refs;

/// Applies every patch, in a fixed order.
pub fn apply_all(spec: &mut Value) -> Result<()> {
    comma_join_array_query_params(spec);
    let response_schemas = schemas_reachable_from_responses(spec);
    open_response_enums(spec, &response_schemas);
    relax_response_constraints(spec, &response_schemas);
    send_empty_lists_in_updates(spec);
    Ok(())
}

fn operations_mut(spec: &mut Value) -> impl Iterator<Item = &mut Map<String, Value>> {
    spec.get_mut("paths")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.iter_mut())
        .filter(|(k, _)| k.as_str() != "parameters")
        .filter_map(|(_, op)| op.as_object_mut())
}

/// Patch 1. Array query parameters (`include`, `exclude`, `categories`)
/// become one string that the caller comma-joins (`?include=project,plan`).
///
/// Why: the spec declares `include`/`exclude` as `style: form,
/// explode: false`, i.e. one comma-separated value, but progenitor 0.15 sends
/// an array as repeated keys (`?include=project&include=plan`), and its
/// httpmock generator does not compile on array query parameters. A string
/// parameter gives the wire format the spec describes; `metal-api` offers a
/// helper that joins a list. `categories` is `explode: true` upstream; with a
/// single value both encodings are the same bytes, and callers that need
/// several send them comma-joined.
pub fn comma_join_array_query_params(spec: &mut Value) {
    for op in operations_mut(spec) {
        let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) else {
            continue;
        };
        for param in params.iter_mut().filter_map(Value::as_object_mut) {
            let is_query = param.get("in").and_then(Value::as_str) == Some("query");
            let is_array = param
                .get("schema")
                .and_then(|s| s.get("type"))
                .and_then(Value::as_str)
                == Some("array");
            if is_query && is_array {
                param.insert("schema".into(), json!({"type": "string"}));
                param.remove("style");
                param.remove("explode");
            }
        }
    }
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

fn response_schemas_mut<'a>(
    spec: &'a mut Value,
    names: &'a BTreeSet<String>,
) -> impl Iterator<Item = &'a mut Value> + 'a {
    spec.pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|schemas| schemas.iter_mut())
        .filter(move |(name, _)| names.contains(name.as_str()))
        .map(|(_, schema)| schema)
}

/// Calls `f` on `schema` and on every subschema below it.
fn visit_schemas(schema: &mut Value, f: &mut dyn FnMut(&mut Map<String, Value>)) {
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

/// Patch 2. Enumerations in response schemas are open.
///
/// Why: the API grows. A newer API sending one value we do not know (a new
/// device `state`, say) must not make a whole response fail to decode. The
/// known values are kept as facts in `x-known-values`; the schema accepts
/// any value of the enum's type, so the generated field is a `String` whose
/// text the caller can see (and `metal-api` offers typed views for the
/// values it knows). Enumerations in request-only schemas stay closed, so
/// the compiler still checks what we send.
pub fn open_response_enums(spec: &mut Value, response_schemas: &BTreeSet<String>) {
    for schema in response_schemas_mut(spec, response_schemas) {
        visit_schemas(schema, &mut |obj| {
            if let Some(values) = obj.remove("enum") {
                obj.insert("x-known-values".into(), values);
            }
        });
    }
}

/// Patch 3. Response objects have no required properties (except `href`
/// in `Href`), and response strings no length or pattern limits.
///
/// Why: the API answers with `{"href": "..."}` stubs for every nested object
/// that was not included (`created_by`, a facility's address, ...). A stub
/// lacks the fields the spec marks required (`UserLite.id`, `Address.zip_code`),
/// so a strict decoder rejects every ordinary device reply. Keeping `Href`'s
/// one requirement keeps the stub itself well-formed. Length and pattern
/// limits are rules for what we send; the server's values are what they are,
/// and a project named with 81 characters must not make every device reply
/// that includes it fail to decode.
pub fn relax_response_constraints(spec: &mut Value, response_schemas: &BTreeSet<String>) {
    let keep: BTreeSet<String> = ["Href".to_string()].into();
    let names: BTreeSet<String> = response_schemas.difference(&keep).cloned().collect();
    for schema in response_schemas_mut(spec, &names) {
        visit_schemas(schema, &mut |obj| {
            for key in ["required", "minLength", "maxLength", "pattern"] {
                obj.remove(key);
            }
        });
    }
}

/// The component schemas that a `PUT` takes as its body.
fn put_body_schemas(spec: &Value) -> BTreeSet<String> {
    spec.get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|paths| paths.values().filter_map(|item| item.get("put")))
        .filter_map(|op| op.get("requestBody")?.get("content")?.as_object())
        .flat_map(|content| content.values())
        .filter_map(|media| media.pointer("/schema/$ref")?.as_str())
        .filter_map(|r| r.strip_prefix("#/components/schemas/"))
        .map(str::to_string)
        .collect()
}

/// Patch 4. The list properties of an update's body (`PUT`) are nullable.
///
/// Why: in an update, an absent list leaves the value as it is and an
/// empty list clears it (`PUT /devices/{id}` with `{"tags": []}` removes
/// every tag). A list that is not required is generated as a `Vec` that is
/// left out of the body when empty, so the typed client could never clear
/// one. Nullable, it is an `Option<Vec<_>>`: `None` is left out,
/// `Some(vec![])` is sent as `[]`. Creates are left alone: there, an empty
/// list and an absent one mean the same.
pub fn send_empty_lists_in_updates(spec: &mut Value) {
    for name in put_body_schemas(spec) {
        let pointer = format!("/components/schemas/{name}/properties");
        let Some(props) = spec.pointer_mut(&pointer).and_then(Value::as_object_mut) else {
            continue;
        };
        for prop in props.values_mut().filter_map(Value::as_object_mut) {
            let kind = prop.get("type").and_then(Value::as_str);
            let free_form = kind == Some("object") && !prop.contains_key("properties");
            if kind == Some("array") || free_form {
                prop.insert("nullable".into(), Value::Bool(true));
                // Absent means "leave it" in an update, not this default.
                prop.remove("default");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Value {
        json!({
            "paths": {"/d/{id}": {
                "get": {
                    "operationId": "getD",
                    "parameters": [
                        {"in": "path", "name": "id", "schema": {"type": "string"}},
                        {"in": "query", "name": "include", "style": "form", "explode": false,
                         "schema": {"type": "array", "items": {"type": "string"}}},
                        {"in": "query", "name": "page", "schema": {"type": "integer"}}
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
                "D": {"type": "object", "required": ["id"], "properties": {
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
                "Input": {"type": "object", "required": ["type"], "properties": {
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

    #[test]
    fn array_query_params_become_strings_without_style() {
        let mut spec = sample();
        comma_join_array_query_params(&mut spec);
        let include = &spec["paths"]["/d/{id}"]["get"]["parameters"][1];
        assert_eq!(include["schema"], json!({"type": "string"}));
        assert!(include.get("style").is_none() && include.get("explode").is_none());
        // Non-array parameters are untouched.
        assert_eq!(
            spec["paths"]["/d/{id}"]["get"]["parameters"][2]["schema"],
            json!({"type": "integer"})
        );
    }

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
    fn response_enums_open_and_request_enums_stay_closed() {
        let mut spec = sample();
        let names = schemas_reachable_from_responses(&spec);
        open_response_enums(&mut spec, &names);
        let state = &spec["components"]["schemas"]["D"]["properties"]["state"];
        assert!(state.get("enum").is_none());
        assert_eq!(state["x-known-values"], json!(["active", "queued"]));
        let tag_items = &spec["components"]["schemas"]["D"]["properties"]["tags"]["items"];
        assert!(tag_items.get("enum").is_none());
        let input = &spec["components"]["schemas"]["Input"]["properties"]["type"];
        assert_eq!(input["enum"], json!(["reboot"]));
    }

    #[test]
    fn response_constraints_relaxed_but_href_and_requests_kept() {
        let mut spec = sample();
        let names = schemas_reachable_from_responses(&spec);
        relax_response_constraints(&mut spec, &names);
        let schemas = &spec["components"]["schemas"];
        assert!(schemas["D"].get("required").is_none());
        assert!(schemas["User"].get("required").is_none());
        assert_eq!(schemas["Href"]["required"], json!(["href"]));
        assert_eq!(schemas["Input"]["required"], json!(["type"]));
        assert_eq!(
            schemas["User"]["properties"]["name"],
            json!({"type": "string"})
        );
        assert_eq!(
            schemas["Input"]["properties"]["name"]["maxLength"],
            json!(80)
        );
    }

    #[test]
    fn update_lists_become_nullable_and_other_bodies_stay() {
        let mut spec = sample();
        send_empty_lists_in_updates(&mut spec);
        let schemas = &spec["components"]["schemas"];
        assert_eq!(
            schemas["Update"]["properties"]["tags"],
            json!({"type": "array", "items": {"type": "string"}, "nullable": true})
        );
        assert_eq!(
            schemas["Update"]["properties"]["name"],
            json!({"type": "string"})
        );
        // A POST body and a response keep their lists as they were.
        assert!(schemas["Input"]["properties"]["tags"]
            .get("nullable")
            .is_none());
        assert!(schemas["D"]["properties"]["tags"].get("nullable").is_none());
    }

    #[test]
    fn apply_all_is_idempotent() {
        let mut once = sample();
        apply_all(&mut once).unwrap();
        let mut twice = once.clone();
        apply_all(&mut twice).unwrap();
        assert_eq!(once, twice);
    }
}
