//! The reply shapes: each object schema of the spec's components with its
//! property names (resolved through `$ref` and `allOf`, as the spec has
//! them), what each property holds (another schema, a list of one, or one
//! of known values), and which schema each operation's success reply is.
//! `metal_api::shape` includes the output, so a test can check a reply
//! both ways: no key the schema lacks, and none of its keys missing; and
//! as a strict client reads it: each required property (`required`, or
//! the `x-required` the response patch keeps it as) there, a `null` only
//! where the spec says `nullable`, and no other key on a closed object
//! (`additionalProperties: false`, kept as `x-additional-properties`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

/// The prefix of a component schema's `$ref`.
const PREFIX: &str = "#/components/schemas/";

/// One property as written to the table.
struct Property {
    name: String,
    shape: Option<String>,
    array: bool,
    values: Vec<String>,
    required: bool,
    nullable: bool,
}

/// The properties `schema` itself requires: its `required`, or the
/// `x-required` the response patch moved it to.
fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .or_else(|| schema.get("x-required"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether `schema` is closed: `additionalProperties: false`, or the
/// `x-additional-properties: false` the response patch moved it to.
fn closed(schema: &Value) -> bool {
    ["additionalProperties", "x-additional-properties"]
        .iter()
        .any(|k| schema.get(*k) == Some(&Value::Bool(false)))
}

/// The name of the schema `reference` names.
fn component(reference: &str) -> Result<&str> {
    reference
        .strip_prefix(PREFIX)
        .ok_or_else(|| anyhow!("$ref {reference} is not a component schema"))
}

/// The known values of a string schema: its `enum`, else the spec's
/// `x-known-values` (what the real API sent, where the spec does not close
/// the set).
fn values(schema: &Value) -> Vec<String> {
    let list = schema
        .get("enum")
        .or_else(|| schema.get("x-known-values"))
        .and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// What one property's schema holds.
fn property(name: &str, schema: &Value) -> Result<Property> {
    let (inner, array) = match schema.get("items") {
        Some(items) if schema.get("type").and_then(Value::as_str) == Some("array") => (items, true),
        _ => (schema, false),
    };
    let shape = match inner.get("$ref").and_then(Value::as_str) {
        Some(reference) => Some(component(reference)?.to_string()),
        None => None,
    };
    Ok(Property {
        name: name.to_string(),
        shape,
        array,
        values: values(inner),
        required: false,
        nullable: schema.get("nullable") == Some(&Value::Bool(true)),
    })
}

/// The properties of `schema`, its `allOf` parts' merged in order (a later
/// part's property replaces an earlier one of the same name); a property
/// is required when any part requires it.
fn properties(
    schemas: &serde_json::Map<String, Value>,
    schema: &Value,
    depth: usize,
) -> Result<BTreeMap<String, Property>> {
    if depth > 16 {
        bail!("allOf nests more than 16 deep");
    }
    let mut out = BTreeMap::new();
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        for part in parts {
            let resolved = match part.get("$ref").and_then(Value::as_str) {
                Some(reference) => {
                    let name = component(reference)?;
                    schemas
                        .get(name)
                        .ok_or_else(|| anyhow!("$ref {reference} names no schema"))?
                }
                None => part,
            };
            out.extend(properties(schemas, resolved, depth + 1)?);
        }
    }
    let mut names: Vec<String> = out
        .values()
        .filter(|p| p.required)
        .map(|p| p.name.clone())
        .collect();
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        // A part may require without listing properties.
        names.extend(parts.iter().flat_map(required).map(str::to_string));
    }
    names.extend(required(schema).into_iter().map(str::to_string));
    if let Some(own) = schema.get("properties").and_then(Value::as_object) {
        for (name, s) in own {
            out.insert(name.clone(), property(name, s)?);
        }
    }
    for name in &names {
        if let Some(p) = out.get_mut(name) {
            p.required = true;
        }
    }
    Ok(out)
}

/// The alternatives of a `oneOf` or `anyOf` schema, by name.
fn alternatives(schema: &Value) -> Result<Vec<String>> {
    let list = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .map(|alt| {
            let reference = alt
                .get("$ref")
                .and_then(Value::as_str)
                .ok_or_else(|| anyhow!("an alternative of oneOf/anyOf is not a $ref"))?;
            Ok(component(reference)?.to_string())
        })
        .collect()
}

/// The shapes file: `SHAPES` (sorted by name) and `REPLIES` (operationId
/// and its success reply's schema, sorted by operationId).
pub fn generate(spec: &Value, header: &str) -> Result<String> {
    // `components.schemas` is optional in OpenAPI: a spec whose schemas
    // are all inline has no named shapes.
    let none = serde_json::Map::new();
    let schemas = match spec.pointer("/components/schemas") {
        None => &none,
        Some(v) => v
            .as_object()
            .ok_or_else(|| anyhow!("the spec's components.schemas is not an object"))?,
    };
    let mut out = String::from(header);
    out.push_str(
        "/// Every object schema of the spec, sorted by name.\npub static SHAPES: &[Shape] = &[\n",
    );
    // Sorted by name whatever order the document has, for binary search.
    let sorted: BTreeMap<&String, &Value> = schemas.iter().collect();
    for (name, schema) in sorted {
        let one_of = alternatives(schema)?;
        let props = properties(schemas, schema, 0)?;
        if props.is_empty() && one_of.is_empty() {
            // A list of numbers (`SpotPricesDatapointsList`): no object.
            continue;
        }
        write!(
            out,
            "    Shape {{ name: {name:?}, one_of: &{one_of:?}, closed: {}, properties: &[",
            closed(schema)
        )?;
        for p in props.values() {
            let shape = match &p.shape {
                Some(s) => format!("Some({s:?})"),
                None => "None".to_string(),
            };
            write!(
                out,
                "\n        Property {{ name: {:?}, shape: {shape}, array: {}, values: &{:?}, required: {}, nullable: {} }},",
                p.name, p.array, p.values, p.required, p.nullable
            )?;
        }
        out.push_str(if props.is_empty() {
            "] },\n"
        } else {
            "\n    ] },\n"
        });
    }
    out.push_str("];\n");

    let mut replies = BTreeMap::new();
    let paths = spec
        .get("paths")
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("the spec has no paths"))?;
    for item in paths.values() {
        for op in item.as_object().into_iter().flat_map(|o| o.values()) {
            let (Some(id), Some(responses)) = (
                op.get("operationId").and_then(Value::as_str),
                op.get("responses").and_then(Value::as_object),
            ) else {
                continue;
            };
            let success = responses
                .iter()
                .filter_map(|(code, r)| Some((code.parse::<u16>().ok()?, r)))
                .filter(|(code, _)| (200..300).contains(code))
                .min_by_key(|(code, _)| *code);
            let Some((_, response)) = success else {
                continue;
            };
            if let Some(reference) = response
                .pointer("/content/application~1json/schema/$ref")
                .and_then(Value::as_str)
            {
                let name = component(reference)?;
                if !schemas.contains_key(name) {
                    bail!("{id}'s reply names schema {name}, which the spec lacks");
                }
                replies.insert(id.to_string(), name.to_string());
            }
        }
    }
    out.push_str("\n/// Each operation whose success reply has a body, with its schema, sorted by operationId.\npub static REPLIES: &[(&str, &str)] = &[\n");
    for (id, name) in &replies {
        writeln!(out, "    ({id:?}, {name:?}),")?;
    }
    out.push_str("];\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_of_merges_and_references_resolve() {
        let spec = serde_json::json!({
            "paths": {"/m": {"get": {"operationId": "getM", "responses": {
                "200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Wrap"}}}},
                "404": {}}}}},
            "components": {"schemas": {
                "Metro": {"type": "object", "x-required": ["code"], "x-additional-properties": false,
                          "properties": {
                    "code": {"type": "string"},
                    "state": {"type": "string", "x-known-values": ["a", "b"]}}},
                "Wrap": {"allOf": [{"$ref": "#/components/schemas/Metro"},
                                   {"required": ["tags"]},
                                   {"type": "object", "properties": {
                                       "tags": {"type": "array", "nullable": true,
                                                "items": {"$ref": "#/components/schemas/Metro"}}}}]},
                "Either": {"oneOf": [{"$ref": "#/components/schemas/Metro"}]},
                "Numbers": {"type": "array", "items": {"type": "number"}}
            }}
        });
        let text = generate(&spec, "").unwrap();
        assert!(text.contains("Shape { name: \"Wrap\", one_of: &[], closed: false, properties: &[\n        Property { name: \"code\", shape: None, array: false, values: &[], required: true, nullable: false },\n        Property { name: \"state\", shape: None, array: false, values: &[\"a\", \"b\"], required: false, nullable: false },\n        Property { name: \"tags\", shape: Some(\"Metro\"), array: true, values: &[], required: true, nullable: true },"), "{text}");
        assert!(
            text.contains(
                "Shape { name: \"Either\", one_of: &[\"Metro\"], closed: false, properties: &[] },"
            ),
            "{text}"
        );
        assert!(
            text.contains("Shape { name: \"Metro\", one_of: &[], closed: true, properties: &[\n        Property { name: \"code\", shape: None, array: false, values: &[], required: true, nullable: false },"),
            "{text}"
        );
        assert!(!text.contains("Numbers"), "{text}");
        assert!(text.contains("(\"getM\", \"Wrap\"),"), "{text}");
    }
}
