//! Operations the upstream spec leaves unnamed.

use serde_json::{json, Value};

/// The operationIds we give, by method and path.
const NAMES: &[(&str, &str, &str)] = &[(
    "get",
    "/bgp-dynamic-neighbors/{id}",
    "findBgpDynamicNeighborById",
)];

/// Patch 7 (on the upstream spec, before the selection). Operations
/// without an operationId get one: `GET /bgp-dynamic-neighbors/{id}`
/// becomes `findBgpDynamicNeighborById`.
///
/// Why: progenitor names a method by its operationId and cannot generate
/// an operation without one; so do our operation table, metrics and the
/// fake's router. The upstream spec names the `DELETE` on the same path
/// `deleteBgpDynamicNeighborById` but not the `GET`, which metal-cli's
/// `gateway get-bgp-dynamic-neighbor` calls (equinix-sdk-go derives
/// `BgpDynamicNeighborsIdGet` from the path). The name follows the
/// `DELETE`'s. Nothing changes on the wire. An operation upstream names
/// itself later keeps its own name.
pub fn name_unnamed_operations(spec: &mut Value) {
    for (method, path, id) in NAMES {
        let Some(op) = spec
            .get_mut("paths")
            .and_then(|p| p.get_mut(*path))
            .and_then(|item| item.get_mut(*method))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        op.entry("operationId").or_insert_with(|| json!(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unnamed_get_is_named_and_named_ones_keep_their_names() {
        let mut spec = json!({"paths": {"/bgp-dynamic-neighbors/{id}": {
            "get": {"responses": {}},
            "delete": {"operationId": "deleteBgpDynamicNeighborById"}
        }}});
        name_unnamed_operations(&mut spec);
        let item = &spec["paths"]["/bgp-dynamic-neighbors/{id}"];
        assert_eq!(item["get"]["operationId"], "findBgpDynamicNeighborById");
        assert_eq!(
            item["delete"]["operationId"],
            "deleteBgpDynamicNeighborById"
        );

        let mut named = json!({"paths": {"/bgp-dynamic-neighbors/{id}": {
            "get": {"operationId": "theirName"}}}});
        name_unnamed_operations(&mut named);
        assert_eq!(
            named["paths"]["/bgp-dynamic-neighbors/{id}"]["get"]["operationId"],
            "theirName"
        );
        // A spec without the path is left as it is.
        let mut other = json!({"paths": {}});
        name_unnamed_operations(&mut other);
        assert_eq!(other, json!({"paths": {}}));
    }
}
