//! Query parameters, encoded as the API reads them.

use serde_json::{json, Map, Value};

use super::walk;

/// The list parameters the API reads as one comma-separated value on every
/// operation, whatever `explode` the spec gives them.
const COMMA_JOINED: &[&str] = &["include", "exclude"];

/// Patch 1. Query lists the API reads as one comma-separated value become
/// one string that the caller comma-joins (`?include=project,plan`):
/// every list declared `style: form, explode: false`, and `include` and
/// `exclude` everywhere. Every other list stays a list, sent as repeated
/// keys (`?types=public_ipv4&types=vrf`), its item enumeration kept.
///
/// Why: progenitor 0.15 sends every list as repeated keys, which is what
/// an exploded list means, but for `explode: false` the spec asks for one
/// comma-separated value. `include` and `exclude` mean the same on every
/// operation: the spec declares them `explode: false` on 136 operations and
/// leaves the default (exploded) on five (`findFacilities`, the two port
/// VLAN assignment reads and the two VRF IP reservation reads), and
/// packngo, which sends them on every operation, comma-joins them in its
/// `ListOptions` and `GetOptions`. An item enumeration becomes `x-known-values` on the string,
/// so the facts stay; `metal_api::csv` joins a list.
pub fn comma_join_query_lists(spec: &mut Value) {
    for param in walk::query_params_mut(spec) {
        let is_array = param
            .get("schema")
            .and_then(|s| s.get("type"))
            .and_then(Value::as_str)
            == Some("array");
        let name = param
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let unexploded = param.get("explode") == Some(&Value::Bool(false));
        if !(is_array && (unexploded || COMMA_JOINED.contains(&name))) {
            continue;
        }
        let known = param
            .get("schema")
            .and_then(|s| s.pointer("/items/enum"))
            .cloned();
        let mut schema = json!({"type": "string"});
        if let Some(known) = known {
            schema["x-known-values"] = known;
        }
        param.insert("schema".into(), schema);
        param.remove("style");
        param.remove("explode");
    }
}

/// Patch 6 (on the upstream spec, before the selection). A `deepObject`
/// query parameter becomes one parameter per property of its object,
/// named `name[property]`: `findTraffic`'s `timeframe` becomes
/// `timeframe[started_at]` and `timeframe[ended_at]`.
///
/// Why: progenitor 0.15 refuses `style: deepObject` ("unsupported style
/// of query parameter"), so `findTraffic` could not be generated at all.
/// `deepObject` is defined as exactly those keys
/// (`?timeframe[started_at]=...&timeframe[ended_at]=...`), so the bytes on
/// the wire are the same; the brackets are percent-encoded in the query,
/// as equinix-sdk-go's `url.Values` encodes them too, and a server decodes
/// them before it reads the keys. What is lost is only that the two come
/// as a pair: each is optional, as the parameter was; a property is
/// required only if the parameter and the property both were.
pub fn flatten_deep_object_query_params(spec: &mut Value) {
    let components = spec.get("components").cloned().unwrap_or(Value::Null);
    let resolve = |schema: &Value| -> Option<Value> {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => components.pointer(r.strip_prefix("#/components")?).cloned(),
            None => Some(schema.clone()),
        }
    };
    for op in walk::operations_mut(spec) {
        let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) else {
            continue;
        };
        let mut out = Vec::with_capacity(params.len());
        for param in params.drain(..) {
            let deep = param.get("in").and_then(Value::as_str) == Some("query")
                && param.get("style").and_then(Value::as_str) == Some("deepObject");
            let object = deep
                .then(|| param.get("schema").and_then(&resolve))
                .flatten();
            let Some(props) = object
                .as_ref()
                .and_then(|o| o.get("properties"))
                .and_then(Value::as_object)
            else {
                out.push(param);
                continue;
            };
            let name = param
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let param_required = param.get("required") == Some(&Value::Bool(true));
            let required_props: Vec<&str> = object
                .as_ref()
                .and_then(|o| o.get("required"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for (prop, schema) in props {
                let mut flat = Map::new();
                flat.insert("in".into(), json!("query"));
                flat.insert("name".into(), json!(format!("{name}[{prop}]")));
                flat.insert("schema".into(), schema.clone());
                if param_required && required_props.contains(&prop.as_str()) {
                    flat.insert("required".into(), json!(true));
                }
                out.push(Value::Object(flat));
            }
        }
        *params = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unexploded_lists_and_include_become_strings_and_others_stay_lists() {
        let mut spec = walk::sample();
        let params = spec.pointer_mut("/paths/~1d~1{id}/get/parameters").unwrap();
        params.as_array_mut().unwrap().push(json!(
            {"in": "query", "name": "exclude", "style": "form",
             "schema": {"type": "array", "items": {"type": "string", "enum": ["address", "labels"]}}}
        ));
        comma_join_query_lists(&mut spec);
        let params = &spec["paths"]["/d/{id}"]["get"]["parameters"];
        assert_eq!(
            params[1],
            json!({"in": "query", "name": "include", "schema": {"type": "string"}})
        );
        // An exploded list that is not include/exclude keeps its items.
        assert_eq!(params[3]["style"], "form");
        assert_eq!(params[3]["schema"]["items"]["enum"], json!(["a", "b"]));
        // Exploded by default, but exclude: joined, the values kept as facts.
        assert_eq!(
            params[4],
            json!({"in": "query", "name": "exclude",
                   "schema": {"type": "string", "x-known-values": ["address", "labels"]}})
        );
        // Non-lists are untouched.
        assert_eq!(params[2]["schema"], json!({"type": "integer"}));
    }

    #[test]
    fn a_deep_object_becomes_one_bracketed_parameter_per_property() {
        let mut spec = json!({
            "paths": {"/t": {"get": {"parameters": [
                {"in": "query", "name": "direction", "required": true, "schema": {"type": "string"}},
                {"in": "query", "name": "timeframe", "style": "deepObject", "explode": true,
                 "schema": {"$ref": "#/components/schemas/TF"}},
                {"in": "query", "name": "window", "style": "deepObject", "required": true,
                 "schema": {"type": "object", "required": ["from"], "properties": {
                     "from": {"type": "string"}, "to": {"type": "string"}}}}
            ]}}},
            "components": {"schemas": {"TF": {"type": "object", "required": ["ended_at", "started_at"],
                "properties": {
                    "ended_at": {"type": "string", "format": "date-time"},
                    "started_at": {"type": "string", "format": "date-time"}}}}}
        });
        flatten_deep_object_query_params(&mut spec);
        assert_eq!(
            spec["paths"]["/t"]["get"]["parameters"],
            json!([
                {"in": "query", "name": "direction", "required": true, "schema": {"type": "string"}},
                {"in": "query", "name": "timeframe[ended_at]",
                 "schema": {"type": "string", "format": "date-time"}},
                {"in": "query", "name": "timeframe[started_at]",
                 "schema": {"type": "string", "format": "date-time"}},
                {"in": "query", "name": "window[from]", "required": true, "schema": {"type": "string"}},
                {"in": "query", "name": "window[to]", "schema": {"type": "string"}}
            ])
        );
    }
}
