//! Update bodies.

use std::collections::BTreeSet;

use serde_json::Value;

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
    use serde_json::json;

    #[test]
    fn update_lists_become_nullable_and_other_bodies_stay() {
        let mut spec = super::super::walk::sample();
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
}
