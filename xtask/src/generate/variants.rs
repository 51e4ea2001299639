//! Response unions (`oneOf`/`anyOf` of several schemas), which
//! `metal-api` decodes with its own types in `metal_api::variants`.
//!
//! Generated, a union would not tell its variants apart: patch 3 leaves no
//! required property in a response schema, so under progenitor's untagged
//! enum the first variant accepts every body, and under its `anyOf` struct
//! every variant does. `metal_api::variants` reads the property that
//! tells them apart (`type`, or `vrf`), and progenitor uses those types
//! wherever the spec names the union.

use std::collections::BTreeSet;

use anyhow::{bail, Result};
use heck::ToUpperCamelCase;
use serde_json::Value;

/// Each response union, by the name progenitor gives its component, and
/// the `metal-api` type that replaces it.
pub const REPLACED: &[(&str, &str)] = &[
    ("FindIpAddressById200Response", "crate::variants::IpAddress"),
    (
        "FindMetalGatewayById200Response",
        "crate::variants::AnyMetalGateway",
    ),
    (
        "IpReservationListIpAddressesInner",
        "crate::variants::AnyIpReservation",
    ),
    (
        "MetalGatewayListMetalGatewaysInner",
        "crate::variants::AnyMetalGateway",
    ),
    (
        "RequestIpReservation201Response",
        "crate::variants::AnyIpReservation",
    ),
    ("VirtualCircuit", "crate::variants::VirtualCircuit"),
];

/// The names (as progenitor spells them) of the component schemas that a
/// response can contain and that are unions of several schemas; an error
/// for a union a response contains that has no name to replace it by.
pub fn response_unions(spec: &Value) -> Result<BTreeSet<String>> {
    let reachable = crate::patches::schemas_reachable_from_responses(spec);
    let mut unions = BTreeSet::new();
    for name in &reachable {
        let Some(schema) = spec.pointer(&format!("/components/schemas/{name}")) else {
            continue;
        };
        if is_union(schema) {
            unions.insert(name.to_upper_camel_case());
        }
        if let Some(path) = nested_union(schema, "") {
            bail!(
                "the response schema {name} has a union at {path} that has no name of its \
                 own; give it one (a component) so that metal-api can decode it"
            );
        }
    }
    Ok(unions)
}

/// Checks that `replaced` names exactly the response unions.
pub fn check(spec: &Value, replaced: &[(&str, &str)]) -> Result<()> {
    let unions = response_unions(spec)?;
    let replaced: BTreeSet<String> = replaced.iter().map(|(n, _)| n.to_string()).collect();
    let missing: Vec<&String> = unions.difference(&replaced).collect();
    let stale: Vec<&String> = replaced.difference(&unions).collect();
    if !missing.is_empty() {
        bail!(
            "response unions without a metal_api::variants type (write one, then list it in \
             xtask/src/generate/variants.rs): {missing:?}"
        );
    }
    if !stale.is_empty() {
        bail!("xtask/src/generate/variants.rs replaces what is no response union: {stale:?}");
    }
    Ok(())
}

/// Whether `schema` is a `oneOf` or `anyOf` of more than one schema (one
/// alone is generated as a newtype, which decodes to itself).
fn is_union(schema: &Value) -> bool {
    ["oneOf", "anyOf"].iter().any(|k| {
        schema
            .get(*k)
            .and_then(Value::as_array)
            .is_some_and(|v| v.len() > 1)
    })
}

/// Where below the top of `schema` an inline union sits, if anywhere.
fn nested_union(schema: &Value, at: &str) -> Option<String> {
    let obj = schema.as_object()?;
    let mut children: Vec<(String, &Value)> = Vec::new();
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = obj.get(key) {
            children.push((format!("{at}/{key}"), sub));
        }
    }
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (name, sub) in props {
            children.push((format!("{at}/properties/{name}"), sub));
        }
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        for (i, sub) in obj
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            children.push((format!("{at}/{key}/{i}"), sub));
        }
    }
    children.into_iter().find_map(|(path, sub)| {
        if is_union(sub) {
            Some(path)
        } else {
            nested_union(sub, &path)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(schemas: Value) -> Value {
        json!({
            "paths": {"/a": {"get": {"responses": {"200": {"content": {"application/json":
                {"schema": {"$ref": "#/components/schemas/List"}}}}}}}},
            "components": {"schemas": schemas}
        })
    }

    #[test]
    fn unions_a_response_contains_are_found_by_generated_name() {
        let spec = spec(json!({
            "List": {"properties": {"items": {"items": {"$ref": "#/components/schemas/List_items_inner"}}}},
            "List_items_inner": {"anyOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]},
            "A": {"oneOf": [{"$ref": "#/components/schemas/B"}]},
            "B": {"type": "object"},
            "Request": {"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]}
        }));
        let unions = response_unions(&spec).unwrap();
        // A single-schema oneOf and a request-only union are not listed.
        assert_eq!(unions, BTreeSet::from(["ListItemsInner".to_string()]));
        let err = check(&spec, &[]).unwrap_err().to_string();
        assert!(
            err.contains("without a metal_api::variants type") && err.contains("ListItemsInner"),
            "{err}"
        );
        check(&spec, &[("ListItemsInner", "crate::X")]).unwrap();
        let err = check(
            &spec,
            &[("ListItemsInner", "crate::X"), ("Gone", "crate::Y")],
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("no response union") && err.contains("Gone"),
            "{err}"
        );
    }

    #[test]
    fn an_inline_union_in_a_response_is_refused() {
        let spec = spec(json!({
            "List": {"properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}
        }));
        let err = response_unions(&spec).unwrap_err().to_string();
        assert!(err.contains("List has a union at /properties/x"), "{err}");
    }

    #[test]
    fn the_committed_spec_has_exactly_the_replaced_unions() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../openapi/metal.json"),
        )
        .unwrap();
        check(&serde_json::from_str(&text).unwrap(), REPLACED).unwrap();
    }
}
