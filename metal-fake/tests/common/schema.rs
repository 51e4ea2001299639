//! Checks the fake server's replies against `openapi/metal.json`'s own
//! schemas (not only our generated types), with `jsonschema`.

use std::collections::HashMap;

use metal_fake::RecordedReply;
use serde_json::{json, Value};

/// The fields the fake sends beyond the spec, because real clients read
/// them (see `metal_fake::fidelity`): (schema, field, the field's schema:
/// a `$ref`, or JSON types' names, separated by commas).
pub const BEYOND_SPEC: &[(&str, &str, &str)] = &[
    // packngo's `SSHKey.Owner`; the Terraform provider reads its href.
    ("SSHKey", "owner", "#/components/schemas/Href"),
    // packngo's `VirtualNetwork.FacilityCode`; terraform-provider-metal's
    // `metal_vlan` sets `facility` from it (`null` for a metro VLAN).
    ("VirtualNetwork", "facility_code", "string,null"),
    // A user's, as packet-python's recorded `get_user.json` has them and
    // metal-cli's `getDefaultIds` excludes them by name.
    ("User", "features", "array"),
    ("User", "social_accounts", "object"),
    ("User", "verification_stage", "string"),
];

/// Properties the real API sent as `null` where it had no value, although
/// the spec does not say `nullable`, which the fake sends as `null` too
/// (see "Replies whole" in `metal_fake::fidelity`): (schema, properties,
/// evidence). None is required, and every client here decodes the `null`
/// as unset: packngo's pointers, strings and numbers, metalv1's pointers,
/// the Python SDK's `Optional` fields, metal-api's `Option`s.
pub const SENT_NULL: &[(&str, &[&str], &str)] = &[
    (
        "Device",
        &["description", "image_url", "ipxe_script_url", "storage"],
        "a recorded 2019 reply (a Go client's TestAPIGetDevices fixture: description, image_url, ipxe_script_url, storage null); packet-python's recorded get_devices fixture (description null)",
    ),
    (
        "Device",
        &["firmware_set_id", "hardware_reservation", "spot_price_max", "termination_time"],
        "null until set, as the recorded reply's other optional fields; every client decodes it as unset",
    ),
    (
        "Event",
        &["created_at", "href", "id", "ip", "state"],
        "a recorded events reply (state and ip null) and a recorded create reply (a step to come: all but type and body null)",
    ),
    ("Facility", &["address"], "a recorded 2019 reply (a Go client's TestAPIGetDevices fixture: the facility's address null)"),
    ("IPReservation_facility", &["address"], "as Facility.address"),
    (
        "HardwareReservation",
        &["custom_rate", "device", "termination_time"],
        "null until set (a contract's own rate, a device while it holds none, an end date)",
    ),
    (
        "IPReservation",
        &["available", "details", "facility", "metal_gateway", "metro", "requested_by"],
        "null until set (available only on a device's own block: a reservation's is its path); a recorded 2019 reply has an assignment's details null",
    ),
    ("Vrf", &["description"], "null until set, as the real API sent an unset description (a device's, the 2019 reply)"),
    (
        "BgpNeighborData",
        &["md5_password"],
        "null while the project's BGP has no password (a metadata BGP client's test fixture: md5_enabled false, md5_password null)",
    ),
    (
        "IPAssignment",
        &["metro", "next_hop", "parent_block"],
        "next_hop only for a routed block; a device's own addresses have no metro or parent block of their own",
    ),
    ("BgpConfig", &["route_object"], "null until set (an AS-SET for route filters)"),
    ("Project", &["bgp_config", "url"], "bgp_config until BGP is requested; url no source gives"),
    (
        "Organization",
        &["description", "enforce_2fa_at", "logo", "terms", "twitter", "website"],
        "null until set",
    ),
    (
        "Organization",
        &["address", "billing_address"],
        "null when included and unset (left out unless included: metal-cli's test/helper/helper.go)",
    ),
    (
        "User",
        &["default_organization_id", "default_project_id", "fraud_score", "phone_number", "timezone"],
        "null until set (defaults for a user of no project); fraud_score is not public (a recorded 2016 user reply has fraud_details null)",
    ),
    ("AuthToken", &["project", "user"], "a user's key has no project, a project's key no user (packngo's APIKey has both, one null)"),
    (
        "Interconnection",
        &["authorization_code", "fabric_provider", "project", "token"],
        "by type: a dedicated port is no project's; fabric_provider and authorization_code only on a shared connection; token deprecated",
    ),
    (
        "VlanVirtualCircuit",
        &["nni_vlan", "provider_connection_id", "virtual_network", "vnid"],
        "null until given (a shared connection's circuit has no nni_vlan; the provider's side the fake does not model)",
    ),
    ("VirtualNetwork", &["description", "facility"], "null until set; a VLAN made in a metro has no facility"),
    (
        "Port",
        &["bond", "native_virtual_network"],
        "a recorded 2019 reply (a Go client's TestAPIGetDevices fixture: native_virtual_network null on every port); bond0 has no bond",
    ),
    (
        "OperatingSystem",
        &["build_date", "deprecation_date", "end_of_life_date", "end_of_service_date", "lifecycle_state", "release_date", "release_notes"],
        "Metal's image lifecycle: no public source gives its values",
    ),
    (
        "SpotMarketRequest",
        &["end_at", "instances"],
        "end_at for a request without an end; instances: no public source gives its value (packngo lists devices)",
    ),
    ("Invitation", &["nonce"], "a secret, sent to the invitee only"),
];

/// Whether [`SENT_NULL`] lists `schema`'s `property`.
pub fn sent_null(schema: &str, property: &str) -> bool {
    SENT_NULL
        .iter()
        .any(|(s, ps, _)| *s == schema && ps.contains(&property))
}

/// The spec, with `additionalProperties: false` added to every object
/// schema that lists its properties, so a reply with a field the spec does
/// not know fails (but for those of [`BEYOND_SPEC`]); an `{"href": ...}`
/// alone stands for any object, a thing not included.
pub fn strict_spec() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/metal.json");
    let mut spec: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // OpenAPI 3.0's `nullable: true` is JSON Schema's `null` among the
    // types, which the validator reads.
    fn nullable(v: &mut Value) {
        match v {
            Value::Object(o) => {
                if o.get("nullable") == Some(&Value::Bool(true))
                    && let Some(Value::String(t)) = o.get("type").cloned()
                {
                    o.insert("type".into(), json!([t, "null"]));
                }
                o.values_mut().for_each(nullable);
            }
            Value::Array(a) => a.iter_mut().for_each(nullable),
            _ => {}
        }
    }
    if let Some(schemas) = spec.pointer_mut("/components/schemas") {
        nullable(schemas);
    }
    for (schema, field, reference) in BEYOND_SPEC {
        let properties = spec
            .pointer_mut(&format!("/components/schemas/{schema}/properties"))
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| panic!("the spec has no schema {schema} with properties"));
        let schema = if reference.starts_with('#') {
            json!({ "$ref": reference })
        } else {
            json!({ "type": reference.split(',').collect::<Vec<_>>() })
        };
        properties.insert(field.to_string(), schema);
    }
    // What the real API sent as `null` where it had no value (a schema
    // that is an `allOf` of another, such as `IPReservation_facility`,
    // takes its part's).
    for (schema, properties, _) in SENT_NULL {
        for property in *properties {
            let at = format!("/components/schemas/{schema}/properties/{property}");
            if let Some(p) = spec.pointer_mut(&at) {
                let inner = p.take();
                *p = json!({"anyOf": [inner, {"type": "null"}]});
            }
        }
    }
    // A list's `meta.next` on its last page (`previous` on its first) is
    // `null`, as the real API sent it (packngo's list loops rely on it).
    for link in ["next", "previous"] {
        if let Some(p) = spec.pointer_mut(&format!("/components/schemas/Meta/properties/{link}")) {
            let schema = p.take();
            *p = json!({"anyOf": [schema, {"type": "null"}]});
        }
    }
    // A thing not included (or excluded) is an `{"href": ...}` in its
    // place (the spec's introduction), whatever its schema.
    let link = json!({"type": "object", "properties": {"href": {"type": "string"}},
                      "required": ["href"], "additionalProperties": false});
    if let Some(Value::Object(schemas)) = spec.pointer_mut("/components/schemas") {
        for schema in schemas.values_mut() {
            if let Value::Object(s) = schema
                && s.contains_key("properties")
                && !s.contains_key("additionalProperties")
            {
                s.insert("additionalProperties".into(), Value::Bool(false));
                let closed = Value::Object(std::mem::take(s));
                *schema = json!({"anyOf": [closed, link.clone()]});
            }
        }
    }
    spec
}

/// Success replies with a body where the spec gives none, because real
/// clients read it (each also in `metal_fake::fidelity`): (operationId,
/// status, the body's schema).
pub const BODIES_BEYOND_SPEC: &[(&str, u16, &str)] = &[
    // packngo's TestAccBGPSession reads the updated session's ID.
    ("updateBgpSession", 200, "#/components/schemas/BgpSession"),
];

/// The schema `$ref` of each (operationId, status) the spec documents
/// (or [`BODIES_BEYOND_SPEC`] adds); `None` for a documented status
/// without a body.
pub fn documented(spec: &Value) -> HashMap<(String, u16), Option<String>> {
    let mut out: HashMap<(String, u16), Option<String>> = BODIES_BEYOND_SPEC
        .iter()
        .map(|(id, status, schema)| ((id.to_string(), *status), Some(schema.to_string())))
        .collect();
    for item in spec["paths"].as_object().unwrap().values() {
        for op in item.as_object().unwrap().values() {
            let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                continue;
            };
            for (status, resp) in op["responses"].as_object().unwrap() {
                let schema = resp
                    .pointer("/content/application~1json/schema/$ref")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                out.entry((id.to_string(), status.parse().unwrap()))
                    .or_insert(schema);
            }
        }
    }
    out
}

/// A validator for one `#/components/schemas/...` reference, with the
/// components embedded so references resolve.
pub fn validator(spec: &Value, reference: &str) -> jsonschema::Validator {
    let doc = json!({ "components": spec["components"], "$ref": reference });
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&doc)
        .unwrap()
}

/// Checks one reply: a documented success status has exactly the spec's
/// body (or none); every JSON body validates against the schema of its
/// status, or `Error` for statuses the spec leaves out (429, 5xx, and the
/// 404/422 it does not list everywhere).
pub fn check(spec: &Value, docs: &HashMap<(String, u16), Option<String>>, reply: &RecordedReply) {
    if let Err(problem) = problem(spec, docs, reply, &mut HashMap::new()) {
        panic!("{problem}");
    }
}

/// What [`check`] finds wrong with one reply, without panicking; the
/// validators built so far are kept in `validators` (by reference), for a
/// caller that checks many replies of one spec.
pub fn problem(
    spec: &Value,
    docs: &HashMap<(String, u16), Option<String>>,
    reply: &RecordedReply,
    validators: &mut HashMap<String, jsonschema::Validator>,
) -> Result<(), String> {
    let key = (reply.operation.clone(), reply.status);
    let what = format!(
        "{} {} {:?}",
        reply.operation,
        reply.status,
        String::from_utf8_lossy(&reply.body)
    );
    let fail = |why: &str| Err(format!("{why}: {what}"));
    if reply.status < 300 {
        let Some(schema) = docs.get(&key) else {
            return fail("undocumented success status");
        };
        return match schema {
            None if reply.body.is_empty() => Ok(()),
            None => fail("body on a bodiless status"),
            Some(reference) => validate(spec, reference, reply, &what, validators),
        };
    }
    if reply.content_type.as_deref() == Some("text/html") {
        if reply.status != 502 {
            return fail("only the injected proxy page is HTML");
        }
        return Ok(());
    }
    let reference = docs
        .get(&key)
        .cloned()
        .flatten()
        .unwrap_or_else(|| "#/components/schemas/Error".to_string());
    if reference != "#/components/schemas/Error" {
        return fail(&format!("an error status documented as {reference}"));
    }
    validate(spec, &reference, reply, &what, validators)?;
    let body: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
    // `errors`, or the single `error` string the real API sends with a
    // bad token's 401 (the schema has both).
    if body["errors"].as_array().is_some_and(|e| !e.is_empty())
        || body["error"].as_str().is_some_and(|e| !e.is_empty())
    {
        Ok(())
    } else {
        fail("error body without errors")
    }
}

fn validate(
    spec: &Value,
    reference: &str,
    reply: &RecordedReply,
    what: &str,
    validators: &mut HashMap<String, jsonschema::Validator>,
) -> Result<(), String> {
    if reply.content_type.as_deref() != Some("application/json; charset=utf-8") {
        return Err(format!("content type {:?}: {what}", reply.content_type));
    }
    let body: Value =
        serde_json::from_slice(&reply.body).map_err(|e| format!("not JSON ({e}): {what}"))?;
    let v = validators
        .entry(reference.to_string())
        .or_insert_with(|| validator(spec, reference));
    let errors: Vec<String> = v.iter_errors(&body).map(|e| e.to_string()).collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{reference}: {errors:?}: {what}"))
    }
}

/// Checks every reply.
pub fn check_all(replies: &[RecordedReply]) {
    let spec = strict_spec();
    let docs = documented(&spec);
    for reply in replies {
        check(&spec, &docs, reply);
    }
}

/// A fake served on a loopback port that records its replies, for the
/// tests that send over HTTP and then check every reply against the spec:
/// `serve`, `send` what the test needs, then `check_and_stop`.
pub struct Checked {
    server: metal_fake::ServerHandle,
    client: reqwest::Client,
}

impl Checked {
    /// The token the server takes.
    pub const TOKEN: &'static str = "t";

    /// Serves `fake` on a loopback port, taking [`Checked::TOKEN`] and
    /// recording every reply.
    pub async fn serve(fake: metal_fake::Fake) -> Self {
        let config = metal_fake::ServerConfig::new(Self::TOKEN).record_replies(true);
        let server = crate::http::serve(&fake, config).await;
        Checked {
            server,
            client: crate::http::client(),
        }
    }

    /// One request, as [`Checked::TOKEN`]: its status and JSON body.
    pub async fn send(
        &self,
        method: &str,
        path: String,
        body: Option<serde_json::Value>,
    ) -> (u16, serde_json::Value) {
        crate::http::over_http(
            &self.client,
            self.server.base_url(),
            Self::TOKEN,
            method,
            path,
            body,
        )
        .await
    }

    /// How many replies the server has recorded.
    pub fn replies(&self) -> usize {
        self.server.recorded_replies().len()
    }

    /// Checks every reply so far against the spec, then stops the server.
    pub async fn check_and_stop(self) {
        check_all(&self.server.recorded_replies());
        self.server.shutdown().await;
    }
}
