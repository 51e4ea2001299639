//! The control API's JSON: faults as scripted over HTTP (converted to the
//! in-process [`Fault`] and [`RandomFaults`], same kinds and targeting),
//! recorded calls, the faults armed, the clock, and the summary of a
//! world; and the JSON Schema of them all ([`schema`]), shipped as
//! `metal-fake/control.schema.json`, which the Python and Go harnesses
//! check the field names they use against.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::document::{seconds, WorldDoc};
use crate::faults::{Fault, FaultKind, RandomFaults};
use crate::log::CallRecord;

/// `POST /_fake/faults`: scripted faults, and random ones.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct FaultsRequest {
    #[serde(default)]
    pub(super) faults: Vec<FaultSpec>,
    #[serde(default)]
    pub(super) random: Option<RandomSpec>,
}

/// The fault kinds, by their labels (`FaultKind::label` in Rust).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum KindName {
    NotSent,
    FailBefore,
    FailAfter,
    Throttle,
    Latency,
    DropAfter,
    Hang,
    BadGateway,
    Truncated,
    Competitor,
}

/// One scripted fault: which calls (an operation or any, a target, the
/// nth, how many times: as `Fault::on` or `Fault::any`, `Fault::target`,
/// `Fault::nth`, `Fault::times` in Rust) and what happens to them.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct FaultSpec {
    /// The operationId; absent: any operation.
    operation: Option<String>,
    /// Only calls whose path names this ID.
    target: Option<Uuid>,
    /// Only the nth call (1-based) of the operation (of all, without one).
    nth: Option<u64>,
    /// How many matching calls in a row (default 1).
    times: Option<u32>,
    kind: KindName,
    status: Option<u16>,
    retry_after_seconds: Option<f64>,
    seconds: Option<f64>,
}

/// Random faults, on a share of the calls (`RandomFaults` in Rust).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RandomSpec {
    rate: f64,
    #[serde(default)]
    seed: u64,
    /// The kinds, as in a scripted fault without `operation`, `target`,
    /// `nth` or `times`.
    #[serde(default)]
    kinds: Vec<FaultSpec>,
}

/// The kind and its parameters (status, retry_after_seconds, seconds).
fn kind_of(p: &FaultSpec) -> Result<FaultKind, String> {
    let kind = p.kind;
    let wants_status = matches!(kind, KindName::FailBefore | KindName::FailAfter);
    if p.status.is_some() && !wants_status {
        return Err("status applies to fail_before and fail_after only".to_string());
    }
    if p.retry_after_seconds.is_some() && kind != KindName::Throttle {
        return Err("retry_after_seconds applies to throttle only".to_string());
    }
    if p.seconds.is_some() && kind != KindName::Latency {
        return Err("seconds applies to latency only".to_string());
    }
    let status = || -> Result<u16, String> {
        match p.status {
            Some(s) if (400..=599).contains(&s) => Ok(s),
            Some(s) => Err(format!("status {s} is not an error status (400 to 599)")),
            None => Err("fail_before and fail_after need a status".to_string()),
        }
    };
    let secs = |field: &'static str, v: f64| -> Result<Duration, String> {
        seconds(field, "the fault", v).map_err(|e| e.to_string())
    };
    Ok(match kind {
        KindName::NotSent => FaultKind::NotSent,
        KindName::FailBefore => FaultKind::FailBefore { status: status()? },
        KindName::FailAfter => FaultKind::FailAfter { status: status()? },
        KindName::Throttle => FaultKind::Throttle {
            retry_after: secs("retry_after_seconds", p.retry_after_seconds.unwrap_or(1.0))?,
        },
        KindName::Latency => match p.seconds {
            Some(s) => FaultKind::Latency(secs("seconds", s)?),
            None => return Err("latency needs seconds".to_string()),
        },
        KindName::DropAfter => FaultKind::DropAfter,
        KindName::Hang => FaultKind::Hang,
        KindName::BadGateway => FaultKind::BadGateway,
        KindName::Truncated => FaultKind::Truncated,
        KindName::Competitor => FaultKind::Competitor,
    })
}

impl FaultSpec {
    /// The in-process fault, or why it is refused.
    pub(super) fn to_fault(&self) -> Result<Fault, String> {
        let kind = kind_of(self)?;
        let mut fault = match &self.operation {
            Some(op) if metal_api::operation::find(op).is_some() => Fault::on(op.clone(), kind),
            Some(op) => return Err(format!("{op:?} is not an operationId of the spec")),
            None => Fault::any(kind),
        };
        if let Some(id) = self.target {
            fault = fault.target(id);
        }
        if let Some(n) = self.nth {
            if n == 0 {
                return Err("nth counts from 1".to_string());
            }
            fault = fault.nth(n);
        }
        match self.times {
            Some(0) => return Err("times must be at least 1".to_string()),
            Some(t) => fault = fault.times(t),
            None => {}
        }
        Ok(fault)
    }
}

impl RandomSpec {
    /// The in-process random faults, or why they are refused.
    pub(super) fn to_random(&self) -> Result<RandomFaults, String> {
        if !(0.0..=1.0).contains(&self.rate) {
            return Err(format!("rate {} is not a probability in [0, 1]", self.rate));
        }
        let kinds = self
            .kinds
            .iter()
            .map(|k| {
                if k.operation.is_some()
                    || k.target.is_some()
                    || k.nth.is_some()
                    || k.times.is_some()
                {
                    return Err("random kinds take no operation, target, nth or times".to_string());
                }
                kind_of(k)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RandomFaults {
            rate: self.rate,
            seed: self.seed,
            kinds,
        })
    }
}

/// One recorded call, as `GET /_fake/calls` lists it.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct CallJson {
    pub(super) seq: u64,
    /// The request's method.
    pub(super) method: String,
    /// The request's path (at most 512 bytes).
    pub(super) path: String,
    /// The request's query, without `?` (`null`: none; at most 512
    /// bytes).
    pub(super) query: Option<String>,
    pub(super) operation: &'static str,
    /// `null` when no reply was sent.
    pub(super) status: Option<u16>,
    /// The error message the fake answered (`null`: a success, or no
    /// reply; at most 512 bytes).
    pub(super) error: Option<String>,
    pub(super) fault: Option<&'static str>,
    /// When it arrived, on the fake's clock (RFC 3339).
    pub(super) at: String,
}

impl CallJson {
    pub(super) fn of(c: CallRecord, at: String) -> Self {
        Self {
            seq: c.seq,
            method: c.method,
            path: c.path,
            query: c.query,
            operation: c.operation,
            status: c.status,
            error: c.error,
            fault: c.fault,
            at,
        }
    }
}

/// One recorded call with its bodies, as `GET /_fake/calls/{seq}` answers.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct CallDetail {
    #[serde(flatten)]
    pub(super) call: CallJson,
    /// The request's body: its first 4096 bytes as text, the string value
    /// of every secret field (`token`, `password`, `root_password`, `md5`,
    /// ...) replaced by `<redacted>`, ending in `...` when cut; `null`: no
    /// body, or the call is older than the newest 1000, whose bodies are
    /// kept.
    pub(super) request_body: Option<String>,
    /// The reply's body, kept as the request's (`null`: no reply, no
    /// body, or too old).
    pub(super) reply_body: Option<String>,
    /// Whether the call is still among the newest 1000, whose bodies are
    /// kept.
    pub(super) bodies_kept: bool,
}

/// One scripted fault pending, as `GET /_fake/faults` lists it: the
/// fields of a fault of `POST /_fake/faults`, `times` what is left.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ArmedFault {
    /// The operationId; `null`: any operation.
    operation: Option<String>,
    /// Only calls whose path names this ID.
    target: Option<Uuid>,
    /// Only the nth call (1-based) of the operation (of all, without one).
    nth: Option<u64>,
    /// How many more matching calls it hits.
    times: u32,
    /// The kind's label (`fail_before`, `drop_after`, ...).
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seconds: Option<f64>,
}

/// A fault kind and its parameters, as `GET /_fake/faults` lists random
/// kinds.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ArmedKind {
    /// The kind's label.
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seconds: Option<f64>,
}

impl ArmedKind {
    fn of(kind: &FaultKind) -> Self {
        let (status, retry_after_seconds, seconds) = match kind {
            FaultKind::FailBefore { status } | FaultKind::FailAfter { status } => {
                (Some(*status), None, None)
            }
            FaultKind::Throttle { retry_after } => (None, Some(retry_after.as_secs_f64()), None),
            FaultKind::Latency(d) => (None, None, Some(d.as_secs_f64())),
            _ => (None, None, None),
        };
        Self {
            kind: kind.label(),
            status,
            retry_after_seconds,
            seconds,
        }
    }
}

/// The random faults set, as `GET /_fake/faults` lists them.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ArmedRandom {
    /// The probability that a call gets one, in `[0, 1]`.
    rate: f64,
    /// The kinds drawn from, uniformly.
    kinds: Vec<ArmedKind>,
}

/// The reply of `GET /_fake/faults`: the faults armed now.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ArmedFaults {
    /// The scripted faults pending, in the order they are matched.
    faults: Vec<ArmedFault>,
    /// The random faults (`null`: none).
    random: Option<ArmedRandom>,
}

impl ArmedFaults {
    pub(super) fn of(scripted: &[Fault], random: Option<(f64, &[FaultKind])>) -> Self {
        let faults = scripted
            .iter()
            .map(|f| {
                let (operation, target, nth, times) = f.matching();
                let kind = ArmedKind::of(f.kind());
                ArmedFault {
                    operation: operation.map(str::to_string),
                    target,
                    nth,
                    times,
                    kind: kind.kind,
                    status: kind.status,
                    retry_after_seconds: kind.retry_after_seconds,
                    seconds: kind.seconds,
                }
            })
            .collect();
        let random = random.map(|(rate, kinds)| ArmedRandom {
            rate,
            kinds: kinds.iter().map(ArmedKind::of).collect(),
        });
        Self { faults, random }
    }
}

/// The reply of `GET /_fake/devices`: every device as the API renders it
/// (the spec's `Device`: state, plan, metro and facility, `ip_addresses`,
/// `network_ports` with their `virtual_networks`, ...), its project and
/// hardware reservation included, oldest first.
#[derive(Debug, JsonSchema)]
#[allow(dead_code)] // only its schema is used: the reply is the model's bytes
pub(super) struct DevicesReply(Vec<serde_json::Map<String, serde_json::Value>>);

/// `POST /_fake/clock`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ClockRequest {
    pub(super) advance_seconds: f64,
}

/// The clock, as `GET`/`POST /_fake/clock` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct ClockJson {
    /// Now on the fake's clock (RFC 3339).
    pub(super) now: String,
    /// The total advance, in seconds.
    pub(super) advanced_seconds: f64,
    /// How much faster than real time it runs.
    pub(super) time_scale: f64,
}

/// How many records of each kind a world has (the reply of a reset or a
/// load).
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct Summary {
    pub(super) main_project: Option<uuid::Uuid>,
    pub(super) organizations: usize,
    pub(super) projects: usize,
    pub(super) tokens: usize,
    pub(super) reservations: usize,
    pub(super) devices: usize,
    pub(super) ssh_keys: usize,
}

impl Summary {
    pub(super) fn of(doc: &WorldDoc) -> Self {
        Self {
            main_project: doc.projects.first().map(|p| p.id),
            organizations: doc.organizations.len(),
            projects: doc.projects.len(),
            tokens: doc.tokens.len(),
            reservations: doc.reservations.len(),
            devices: doc.devices.len(),
            ssh_keys: doc.ssh_keys.len(),
        }
    }
}

/// The reply of `POST /_fake/faults`.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct FaultsAdded {
    /// How many scripted faults were added.
    pub(super) added: usize,
    /// Whether random faults were set.
    pub(super) random: bool,
}

/// The reply of `DELETE /_fake/faults`.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct Cleared {
    /// Always `true`.
    pub(super) cleared: bool,
}

/// The query of `GET /_fake/calls`: these parameters, and no other (the
/// handler reads `CALLS_QUERY`).
#[derive(Debug, JsonSchema)]
#[allow(dead_code)] // only its schema is used
struct CallsQuery {
    /// Only the calls of this operationId (or `unknown`).
    operation: Option<String>,
    /// At most this many calls, the last ones (1 to 100000; default 1000).
    limit: Option<usize>,
    /// Only the calls numbered after this `seq` (default 0: all): what a
    /// reader following the log has not seen yet.
    since: Option<u64>,
}

/// The query parameters of `GET /_fake/calls`: [`CallsQuery`]'s fields.
pub(super) const CALLS_QUERY: [&str; 3] = ["operation", "limit", "since"];

/// The reply of `GET /_fake/calls`.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct Calls {
    /// How many recorded calls matched (more than listed when `limit` cut
    /// the list).
    pub(super) total: usize,
    /// The last `limit` of them, oldest first.
    pub(super) calls: Vec<CallJson>,
    /// The `seq` of the newest call logged (0: none since the last
    /// reset), whatever matched: the next `since` of a reader following
    /// the log.
    pub(super) last_seq: u64,
    /// How many times the log was emptied (`POST /_fake/reset`) since the
    /// fake started: when it changes, a reader following the log starts
    /// over from `since=0`.
    pub(super) resets: u64,
}

/// A refusal: `400`, `404`, `405`, `408`, `413`, `422` or `500`.
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct Errors {
    /// What was wrong, for a person to read.
    pub(super) errors: Vec<String>,
}

/// The refusal of a request without the control token (`401`).
#[derive(Debug, Serialize, JsonSchema)]
pub(super) struct TokenRefused {
    /// What was wrong.
    pub(super) error: String,
}

/// One endpoint of the schema: its method and path, and the definitions
/// of its query, request body and reply (`None`: none).
struct Endpoint {
    method: &'static str,
    path: &'static str,
    does: &'static str,
    query: Option<schemars::schema::Schema>,
    request: Option<schemars::schema::Schema>,
    reply: schemars::schema::Schema,
}

/// A reference to the world document's own schema, shipped beside this
/// one.
fn world_ref() -> schemars::schema::Schema {
    schemars::schema::Schema::new_ref("world.schema.json".to_string())
}

/// The control API's JSON Schema (draft 7), as shipped in
/// `metal-fake/control.schema.json` (pretty-printed, with a final
/// newline): under `definitions` every request, query and reply type, and
/// under `endpoints` which endpoint takes and answers which.
pub(crate) fn schema() -> String {
    let mut generator = schemars::r#gen::SchemaSettings::draft07().into_generator();
    let endpoints = [
        Endpoint {
            method: "POST",
            path: "/_fake/reset",
            does: "back to the seeded world and faults, empty call log",
            query: None,
            request: None,
            reply: generator.subschema_for::<Summary>(),
        },
        Endpoint {
            method: "GET",
            path: "/_fake/world",
            does: "the world now",
            query: None,
            request: None,
            reply: world_ref(),
        },
        Endpoint {
            method: "POST",
            path: "/_fake/world",
            does: "replaces the world with the document sent",
            query: None,
            request: Some(world_ref()),
            reply: generator.subschema_for::<Summary>(),
        },
        Endpoint {
            method: "POST",
            path: "/_fake/faults",
            does: "adds scripted and random faults",
            query: None,
            request: Some(generator.subschema_for::<FaultsRequest>()),
            reply: generator.subschema_for::<FaultsAdded>(),
        },
        Endpoint {
            method: "DELETE",
            path: "/_fake/faults",
            does: "clears every fault",
            query: None,
            request: None,
            reply: generator.subschema_for::<Cleared>(),
        },
        Endpoint {
            method: "GET",
            path: "/_fake/calls",
            does: "the recorded calls",
            query: Some(generator.subschema_for::<CallsQuery>()),
            request: None,
            reply: generator.subschema_for::<Calls>(),
        },
        Endpoint {
            method: "GET",
            path: "/_fake/calls/{seq}",
            does: "one recorded call with its request and reply bodies (bounded, secrets redacted)",
            query: None,
            request: None,
            reply: generator.subschema_for::<CallDetail>(),
        },
        Endpoint {
            method: "GET",
            path: "/_fake/faults",
            does: "the faults armed: scripted ones pending and the random ones",
            query: None,
            request: None,
            reply: generator.subschema_for::<ArmedFaults>(),
        },
        Endpoint {
            method: "GET",
            path: "/_fake/devices",
            does: "every device as the API renders it, project and reservation included",
            query: None,
            request: None,
            reply: generator.subschema_for::<DevicesReply>(),
        },
        Endpoint {
            method: "GET",
            path: "/_fake/clock",
            does: "the fake's clock",
            query: None,
            request: None,
            reply: generator.subschema_for::<ClockJson>(),
        },
        Endpoint {
            method: "POST",
            path: "/_fake/clock",
            does: "advances the fake's clock",
            query: None,
            request: Some(generator.subschema_for::<ClockRequest>()),
            reply: generator.subschema_for::<ClockJson>(),
        },
        Endpoint {
            method: "GET",
            path: "/_fake/state",
            does: "counters and the world's contents",
            query: None,
            request: None,
            reply: generator.subschema_for::<crate::Snapshot>(),
        },
    ];
    let errors = generator.subschema_for::<Errors>();
    let token_refused = generator.subschema_for::<TokenRefused>();
    let mut listed = serde_json::Map::new();
    for e in endpoints {
        let mut entry = serde_json::Map::new();
        entry.insert("description".into(), e.does.into());
        let parts = [
            ("query", e.query),
            ("request", e.request),
            ("reply", Some(e.reply)),
        ];
        for (name, schema) in parts {
            if let Some(schema) = schema {
                entry.insert(name.into(), serde_json::json!(schema));
            }
        }
        listed.insert(format!("{} {}", e.method, e.path), entry.into());
    }
    let doc = serde_json::json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "metal-fake control API",
        "description": "The JSON of metal-fake's control API (/_fake/...): each endpoint's query, request body and reply, and the refusals (errors: 400, 404, 405, 408, 413, 422, 500; token_refused: 401). The world document's schema is world.schema.json. GET /_fake/console (with /_fake/console/console.css and /_fake/console/console.js) is the console, an HTML page reading these endpoints, not JSON.",
        "endpoints": listed,
        "errors": errors,
        "token_refused": token_refused,
        "definitions": generator.definitions(),
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{BODY_CAPACITY, MAX_LOGGED_BODY, REDACTED};

    /// The bounds the schema states for the bodies are the log's.
    #[test]
    fn the_schema_states_the_logs_bounds_for_bodies() {
        let text = schema();
        assert!(text.contains(&format!("its first {MAX_LOGGED_BODY} bytes")));
        assert!(text.contains(&format!("the newest {BODY_CAPACITY}")));
        assert!(text.contains(&format!("replaced by `{REDACTED}`")));
    }

    /// The parameters the handler accepts are the query's fields in the
    /// schema.
    #[test]
    fn the_calls_query_is_what_the_handler_reads() {
        let schema = schemars::schema_for!(CallsQuery);
        let mut fields: Vec<&str> = schema
            .schema
            .object
            .as_ref()
            .map(|o| o.properties.keys().map(String::as_str).collect())
            .unwrap_or_default();
        fields.sort_unstable();
        let mut known = CALLS_QUERY.to_vec();
        known.sort_unstable();
        assert_eq!(fields, known);
    }
}
