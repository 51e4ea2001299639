//! How a request body is read before its operation's type decodes it, as
//! the real API reads what its clients send:
//!
//! - `null` is the same as leaving the field out, for every field of the
//!   body and of the objects in it (packngo sends `"tags": null` for a
//!   device without tags; a generated client's optional arrays and strings
//!   go out as `null` too). Inside a free-form object ([`FREE_FORM`], such
//!   as `customdata`) nothing is dropped: there `null` is the caller's data.
//! - A free-form object given as the text of a JSON object is that object
//!   (packngo's `DeviceCreateRequest.CustomData` and `DeviceUpdateRequest.
//!   CustomData` are strings); empty text is the empty object (packngo
//!   clears a device's custom data with `"customdata": ""`). Other text
//!   that is not a JSON object is left for the typed decode to refuse.
//! - A number given as the text of one is that number where a client
//!   sends it so ([`NUMBER_AS_TEXT`]: packngo's `DeviceCreateRequest.
//!   SpotPriceMax` has the `,string` tag). Text that is not a number is
//!   left for the typed decode to refuse.

use serde_json::Value;

/// The fields of request bodies whose value is a free-form object (the
/// spec's `type: object` with `additionalProperties` and no properties of
/// its own): kept whole, `null`s included. A test checks this list
/// against every request body of `openapi/metal.json`.
pub(crate) const FREE_FORM: &[&str] = &["customdata"];

/// The fields of request bodies a client sends as the text of a number.
pub(crate) const NUMBER_AS_TEXT: &[&str] = &["spot_price_max"];

/// `body` read as the API reads it (see the module docs).
pub(crate) fn normalize(body: &mut Value) {
    if let Value::Object(fields) = body {
        fields.retain(|_, v| !v.is_null());
        for (name, value) in fields.iter_mut() {
            if FREE_FORM.contains(&name.as_str()) {
                parse_text(value);
            } else if NUMBER_AS_TEXT.contains(&name.as_str()) {
                parse_number(value);
            } else {
                normalize(value);
            }
        }
    } else if let Value::Array(items) = body {
        items.iter_mut().for_each(normalize);
    }
}

/// A free-form object given as JSON text becomes the object; empty text
/// the empty object.
fn parse_text(value: &mut Value) {
    let Value::String(text) = value else { return };
    if text.trim().is_empty() {
        *value = Value::Object(serde_json::Map::new());
    } else if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
        *value = object;
    }
}

/// A number given as text becomes the number (a finite decimal).
fn parse_number(value: &mut Value) {
    let Value::String(text) = value else { return };
    if let Some(n) = text
        .trim()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
    {
        *value = Value::Number(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nulls_are_absent_except_inside_free_form_objects() {
        let mut body = json!({
            "tags": null,
            "hostname": "web",
            "ip_addresses": [{"address_family": 4, "cidr": null}],
            "storage": {"disks": null, "raid": []},
            "customdata": {"kept": null, "nested": {"also": null}},
        });
        normalize(&mut body);
        assert_eq!(
            body,
            json!({
                "hostname": "web",
                "ip_addresses": [{"address_family": 4}],
                "storage": {"raid": []},
                "customdata": {"kept": null, "nested": {"also": null}},
            })
        );
    }

    #[test]
    fn a_free_form_object_given_as_text_is_the_object() {
        let mut body = json!({"customdata": "{\"a\": 1, \"b\": null}"});
        normalize(&mut body);
        assert_eq!(body, json!({"customdata": {"a": 1, "b": null}}));
        // Text that is not an object stays text, for the decode to refuse;
        // empty text is the empty object (packngo's update clears so).
        for text in ["[1]", "not json"] {
            let mut body = json!({ "customdata": text });
            normalize(&mut body);
            assert_eq!(body, json!({ "customdata": text }));
        }
        for text in ["", "  "] {
            let mut body = json!({ "customdata": text });
            normalize(&mut body);
            assert_eq!(body, json!({ "customdata": {} }));
        }
        let mut body = json!({"customdata": null});
        normalize(&mut body);
        assert_eq!(body, json!({}));
    }

    #[test]
    fn a_number_given_as_text_is_the_number_where_clients_send_it_so() {
        let mut body = json!({"spot_price_max": "0.45", "devices": [{"spot_price_max": "1"}]});
        normalize(&mut body);
        assert_eq!(
            body,
            json!({"spot_price_max": 0.45, "devices": [{"spot_price_max": 1.0}]})
        );
        // Other text stays, for the decode to refuse; other fields keep it.
        for text in ["cheap", "NaN", ""] {
            let mut body = json!({ "spot_price_max": text, "hostname": "1" });
            normalize(&mut body);
            assert_eq!(body, json!({ "spot_price_max": text, "hostname": "1" }));
        }
    }

    /// Every property of every request body of the spec whose schema is a
    /// free-form object is in [`FREE_FORM`], and no name there is also a
    /// structured object somewhere (whose nulls would then be kept).
    #[test]
    fn free_form_fields_are_the_specs() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/metal.json");
        let spec: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        fn resolve<'a>(spec: &'a Value, mut s: &'a Value) -> &'a Value {
            while let Some(r) = s.get("$ref").and_then(Value::as_str) {
                s = spec.pointer(r.trim_start_matches('#')).unwrap();
            }
            s
        }
        let resolve = |s| resolve(&spec, s);
        let mut todo: Vec<&Value> = spec["paths"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|item| item.as_object().unwrap().values())
            .filter_map(|op| op.pointer("/requestBody/content/application~1json/schema"))
            .collect();
        let (mut seen, mut free, mut structured) = (Vec::new(), Vec::new(), Vec::new());
        while let Some(schema) = todo.pop() {
            let schema = resolve(schema);
            if seen.contains(&(schema as *const Value)) {
                continue;
            }
            seen.push(schema as *const Value);
            for key in ["allOf", "oneOf", "anyOf"] {
                todo.extend(
                    schema
                        .get(key)
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten(),
                );
            }
            todo.extend(schema.get("items"));
            for (name, property) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let p = resolve(property);
                let item = p.get("items").map(resolve);
                if p.get("properties").is_some()
                    || item.is_some_and(|i| i.get("properties").is_some())
                {
                    structured.push(name.clone());
                } else if p.get("type") == Some(&json!("object"))
                    && p.get("additionalProperties").is_some()
                {
                    free.push(name.clone());
                }
                todo.push(property);
            }
        }
        for name in &free {
            assert!(
                FREE_FORM.contains(&name.as_str()),
                "{name} is free-form in the spec"
            );
        }
        for name in FREE_FORM {
            assert!(
                free.iter().any(|f| f == name),
                "{name} is not free-form in the spec"
            );
            assert!(
                !structured.iter().any(|s| s == name),
                "{name} is also structured"
            );
        }
    }
}
