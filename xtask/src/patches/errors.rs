//! Error responses.

use serde_json::{json, Value};

use super::walk;

/// Patch 5 (on the upstream spec, before the selection). An error response
/// (4xx or 5xx) documented without a body gets the API's `Error` body.
///
/// Why: progenitor 0.15 generates one error type per operation and panics
/// (an assertion in its method generation) when an operation's error
/// responses have different types. `getDeviceHealthRollup` and the three
/// firmware-set reads document a 500 with an `Error` body but a 401 and a
/// 404 without one, so none of the four could be generated. The API
/// answers every error with the same JSON object (`{"error": ...}` or
/// `{"errors": [...]}`; packngo and equinix-sdk-go read that one shape for
/// any failure status), and every other operation documents it so. Nothing
/// changes on the wire; the client reads those replies as
/// `Error::ErrorResponse` with the body, as it does everywhere else.
pub fn give_error_responses_the_error_body(spec: &mut Value) {
    if spec.pointer("/components/schemas/Error").is_none() {
        return;
    }
    for op in walk::operations_mut(spec) {
        let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
            continue;
        };
        for (status, response) in responses.iter_mut() {
            let is_error = status.starts_with('4') || status.starts_with('5');
            let Some(response) = response.as_object_mut() else {
                continue;
            };
            if is_error && !response.contains_key("content") && !response.contains_key("$ref") {
                response.insert(
                    "content".into(),
                    json!({"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodiless_errors_get_the_error_body_and_others_stay() {
        let error = json!({"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}});
        let mut spec = json!({
            "paths": {"/h": {"get": {"responses": {
                "200": {"description": "OK"},
                "401": {"description": "Unauthorized"},
                "404": {"$ref": "#/components/responses/NotFound"},
                "500": {"content": error.clone()}
            }}}},
            "components": {"schemas": {"Error": {"type": "object"}}}
        });
        give_error_responses_the_error_body(&mut spec);
        let responses = &spec["paths"]["/h"]["get"]["responses"];
        assert_eq!(responses["401"]["content"], error);
        assert_eq!(responses["500"]["content"], error);
        assert!(
            responses["200"].get("content").is_none(),
            "a success keeps no body"
        );
        assert!(
            responses["404"].get("content").is_none(),
            "a reference is left alone"
        );

        // Without an Error schema there is nothing to point at.
        let mut bare = json!({"paths": {"/h": {"get": {"responses": {"401": {}}}}}});
        give_error_responses_the_error_body(&mut bare);
        assert_eq!(bare["paths"]["/h"]["get"]["responses"]["401"], json!({}));
    }
}
