//! Response schemas, read as real servers answer.

use std::collections::BTreeSet;

use serde_json::Value;

use super::walk;

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
    for schema in walk::schemas_mut(spec, response_schemas).map(|(_, s)| s) {
        walk::visit_schemas(schema, &mut |obj| {
            if let Some(values) = obj.remove("enum") {
                obj.insert("x-known-values".into(), values);
            }
        });
    }
}

/// Patch 3. Response objects have no required properties (except `href`
/// in `Href`) and accept properties they do not list, and response strings
/// have no length or pattern limits. The facts stay, where no generator
/// reads them: the required properties as `x-required`, and a closed
/// object as `x-additional-properties: false` (as the enums' values stay
/// in `x-known-values`), for the tests that check a reply as a strict
/// client (equinix-sdk-go's metalv1) would read it.
///
/// Why: the API answers with `{"href": "..."}` stubs for every nested object
/// that was not included (`created_by`, a facility's address, ...). A stub
/// lacks the fields the spec marks required (`UserLite.id`, `Address.zip_code`),
/// so a strict decoder rejects every ordinary device reply. Keeping `Href`'s
/// one requirement keeps the stub itself well-formed. Length and pattern
/// limits are rules for what we send; the server's values are what they are,
/// and a project named with 81 characters must not make every device reply
/// that includes it fail to decode. So must a property a newer API adds:
/// `additionalProperties: false` (on `IPReservation`) would make it a
/// decoding error.
pub fn relax_response_constraints(spec: &mut Value, response_schemas: &BTreeSet<String>) {
    let keep: BTreeSet<String> = ["Href".to_string()].into();
    let names: BTreeSet<String> = response_schemas.difference(&keep).cloned().collect();
    for schema in walk::schemas_mut(spec, &names).map(|(_, s)| s) {
        walk::visit_schemas(schema, &mut |obj| {
            if let Some(required) = obj.remove("required") {
                obj.insert("x-required".into(), required);
            }
            for key in ["minLength", "maxLength", "pattern"] {
                obj.remove(key);
            }
            if obj.get("additionalProperties") == Some(&Value::Bool(false)) {
                obj.remove("additionalProperties");
                obj.insert("x-additional-properties".into(), Value::Bool(false));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Value {
        walk::sample()
    }

    #[test]
    fn response_enums_open_and_request_enums_stay_closed() {
        let mut spec = sample();
        let names = walk::schemas_reachable_from_responses(&spec);
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
        let names = walk::schemas_reachable_from_responses(&spec);
        relax_response_constraints(&mut spec, &names);
        let schemas = &spec["components"]["schemas"];
        assert!(schemas["D"].get("required").is_none());
        assert!(schemas["D"].get("additionalProperties").is_none());
        // The facts stay where no generator reads them.
        assert_eq!(schemas["D"]["x-required"], json!(["id"]));
        assert_eq!(schemas["D"]["x-additional-properties"], json!(false));
        assert_eq!(schemas["User"]["x-required"], json!(["id"]));
        assert_eq!(schemas["Input"]["additionalProperties"], json!(false));
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
}
