//! `include` and `exclude` on every reply, as the spec describes them: a
//! reference the view wrote as an `{"href": ...}` stub is made whole when
//! included (the thing its href names, as a `GET` of that href answers
//! it, with the names under it included in turn: `a.b`), and a whole
//! reference (or one of a list's) is cut to its `{"href": ...}` when
//! excluded. Each view decides what is whole and what is a stub by
//! default (the real API's defaults, see [`crate::fidelity`]); this walk
//! only changes what a request names, after the view is written, so the
//! views' fast path is untouched when a request names nothing.
//!
//! A list's entries (`{"devices": [...], "meta": ...}`) are each walked
//! with the request's names; a thing's own reply is walked from its top.
//! A plain name (without a dot) reaches every depth of what is already
//! whole in the reply: `include=virtual_networks` on a device makes each
//! network port's `virtual_networks` whole, `include=project` on a
//! connection each port's circuits' `project`, as the Terraform providers
//! read them.

use serde_json::{Map, Value};
use tokio::time::Instant;

use super::device::EXCLUDED_BY_VIEW;
use super::render::{Expand, API_PREFIX};
use super::resource::{Modelled, Prepared, Scope};
use super::World;
use crate::call::{ApiError, Call, Reply};
use metal_api::operation::Method;
use metal_api::shape::{self, Shape};

/// The schema of `key`'s value (or of each of its items) in an object of
/// schema `of`; for a schema that is one of several (a virtual circuit),
/// the first of them that has the property.
fn child_shape(of: Option<&'static Shape>, key: &str) -> Option<&'static Shape> {
    let of = of?;
    let property = of.property(key).or_else(|| {
        of.one_of
            .iter()
            .filter_map(|name| shape::find(name))
            .find_map(|s| s.property(key))
    })?;
    shape::find(property.shape?)
}

/// Whether the spec types a reference as an `{"href": ...}` alone (a
/// connection port's `organization`): never made whole below the top.
fn href_only(shape: Option<&'static Shape>) -> bool {
    shape.is_some_and(|s| s.name == "Href")
}

/// Reads `call` with `m`, and makes its reply honour the call's
/// `include` and `exclude`. Only a parameter the call gives is read, so
/// the coverage table counts them where the spec gives them.
pub(crate) fn prepare(m: &'static Modelled, call: &Call) -> Result<Prepared, ApiError> {
    let text = |name: &str| call.peek(name).is_some().then(|| call.text(name)).flatten();
    let expand = Expand::parse(text("include").as_deref(), text("exclude").as_deref());
    let mut prepared = (m.prepare)(call)?;
    if expand.is_empty() || written_by_view(m.operation.id, &expand) {
        return Ok(prepared);
    }
    let act = prepared.act;
    let shape = shape::reply(m.operation.id).and_then(shape::find);
    prepared.act = Box::new(move |w, scope, now| {
        let reply = act(w, scope, now)?;
        Ok(w.expand_reply(reply, &expand, shape, scope, now))
    });
    Ok(prepared)
}

/// Whether the reply of `operation`'s view is already what `expand` asks
/// for, so that the walk below (the reply parsed, walked and written
/// again) is not needed: a list of devices whose request only excludes
/// some of the references a device's view cuts itself
/// ([`EXCLUDED_BY_VIEW`]), as a device watch lists them. A plain name
/// reaches every depth, so `metro` alone would also cut the metro inside
/// a whole facility and each address's: the view takes it only with
/// `facility` and `ip_addresses` excluded too. The suite's
/// `a_device_list_s_excludes_are_each_device_s_read_with_them` checks
/// every combination against a device's read, which walks. A project's
/// reservations with `facility` and `device` included, as metal-policy
/// lists them: the view writes the facility whole and an included device
/// as a device's read writes it (the suite's
/// `a_reservation_list_s_includes_are_each_reservation_s_read_with_them`).
fn written_by_view(operation: &str, expand: &Expand) -> bool {
    if operation == metal_api::operation::FIND_PROJECT_HARDWARE_RESERVATIONS.id {
        return expand.excluded().next().is_none()
            && expand
                .included()
                .all(|name| name == "facility" || name == "device");
    }
    let lists_devices = operation == metal_api::operation::FIND_PROJECT_DEVICES.id
        || operation == metal_api::operation::FIND_ORGANIZATION_DEVICES.id;
    let by_view = |name: &str| EXCLUDED_BY_VIEW.contains(&name);
    lists_devices
        && expand.include_text().is_none()
        && expand.excluded().all(by_view)
        && (!expand.excludes("metro")
            || (expand.excludes("facility") && expand.excludes("ip_addresses")))
}

/// The collection of a whole thing that carries no `href` of its own (the
/// catalog's, a VRF's circuits, an event's maker), by the property that
/// names it, so that its exclusion has one.
fn collection_of(property: &str) -> Option<&'static str> {
    Some(match property {
        "facility" | "facilities" => "facilities",
        "metro" => "locations/metros",
        "plan" => "plans",
        "operating_system" => "operating-systems",
        "virtual_circuits" => "virtual-circuits",
        "modified_by" | "created_by" | "created_by_user" => "users",
        _ => return None,
    })
}

/// The property holding a thing's free-form custom data: the user's JSON,
/// not references, so neither `include` nor `exclude` reaches inside it.
const FREE_FORM: &str = "customdata";

/// Whether `value` is an `{"href": ...}` stub.
fn is_stub(value: &Value) -> bool {
    matches!(value, Value::Object(m) if m.len() == 1 && m.contains_key("href"))
}

/// `value`, a whole thing `property` names, as its `{"href": ...}` (left
/// whole when it says no href and none can be made).
fn collapse(property: &str, value: &mut Value) {
    let Value::Object(map) = value else { return };
    let href = match map.get("href").and_then(Value::as_str) {
        Some(href) => href.to_string(),
        None => {
            let (Some(collection), Some(id)) = (
                collection_of(property),
                map.get("id").and_then(Value::as_str),
            ) else {
                return;
            };
            format!("{API_PREFIX}/{collection}/{id}")
        }
    };
    let mut stub = Map::new();
    stub.insert("href".to_string(), Value::String(href));
    *map = stub;
}

impl World {
    /// `reply` with `expand` applied (a reply that is no JSON object is
    /// left as it is).
    pub(crate) fn expand_reply(
        &mut self,
        reply: Reply,
        expand: &Expand,
        shape: Option<&'static Shape>,
        scope: &Scope,
        now: Instant,
    ) -> Reply {
        let Reply::Json(body) = &reply else {
            return reply;
        };
        let Ok(Value::Object(mut top)) = serde_json::from_slice::<Value>(body) else {
            return reply;
        };
        if top.contains_key("id") || top.contains_key("href") {
            self.expand_object(&mut top, expand, (shape, true), scope, now);
        } else {
            // A list: each entry of its arrays of things.
            for (key, value) in top.iter_mut() {
                let entries = child_shape(shape, key);
                if let Value::Array(items) = value {
                    for item in items {
                        if let Value::Object(entry) = item {
                            self.expand_object(entry, expand, (entries, true), scope, now);
                        }
                    }
                }
            }
        }
        Reply::json(&Value::Object(top)).unwrap_or(reply)
    }

    /// Applies `expand` to the properties of one thing, of schema
    /// `shape` (when known), at the reply's top or below it.
    fn expand_object(
        &mut self,
        object: &mut Map<String, Value>,
        expand: &Expand,
        (shape, top): (Option<&'static Shape>, bool),
        scope: &Scope,
        now: Instant,
    ) {
        for (key, value) in object.iter_mut() {
            if key == FREE_FORM {
                continue;
            }
            let items: Vec<&mut Value> = if value.is_object() {
                vec![value]
            } else if let Value::Array(items) = value {
                items.iter_mut().collect()
            } else {
                continue;
            };
            if expand.excludes(key) {
                for item in items {
                    collapse(key, item);
                }
                continue;
            }
            let included = expand.includes(key);
            // A stub read whole takes the names under it; a thing already
            // whole in the reply takes those and the plain names too, so
            // a name reaches references inside lists and nested objects
            // (and never loops: each read it makes takes only the names
            // under its own, one dot shorter).
            let nested = expand.nested(key);
            let inside = expand.descend(key);
            let child = child_shape(shape, key);
            // Below the top, only what the spec types as a whole thing is
            // made whole: a reference it gives as an href alone stays so.
            let resolvable = top || !href_only(child);
            for item in items {
                if is_stub(item) {
                    if included
                        && resolvable
                        && let Some(whole) = self.resolve(item, &nested, scope, now)
                    {
                        *item = whole;
                    }
                } else if !inside.is_empty()
                    && let Value::Object(inner) = item
                {
                    self.expand_object(inner, &inside, (child, false), scope, now);
                }
            }
        }
    }

    /// The whole thing the stub `stub`'s href names, as a `GET` of the
    /// href answers it with `expand`; `None` when no read serves the href
    /// or the read fails (the stub stays).
    fn resolve(
        &mut self,
        stub: &Value,
        expand: &Expand,
        scope: &Scope,
        now: Instant,
    ) -> Option<Value> {
        let href = stub.get("href")?.as_str()?;
        let path = href.strip_prefix(API_PREFIX).unwrap_or(href);
        let path = path.split('?').next()?;
        if let Some(whole) = self.catalog_thing(path) {
            return Some(whole);
        }
        let (m, params) = read_of(path)?;
        let mut query = Vec::new();
        if let Some(text) = expand.include_text() {
            query.push(("include".to_string(), text));
        }
        if let Some(text) = expand.exclude_text() {
            query.push(("exclude".to_string(), text));
        }
        let call = Call::new(m.operation, params, query, Default::default());
        let prepared = prepare(m, &call).ok()?;
        match (prepared.act)(self, scope, now).ok()? {
            Reply::Json(body) => serde_json::from_slice(&body).ok(),
            _ => None,
        }
    }
}

impl World {
    /// A facility, plan or operating system its href names (by ID, or by
    /// code or slug), as a device shows it: the spec reads them only in
    /// lists.
    fn catalog_thing(&self, path: &str) -> Option<Value> {
        let (collection, key) = path.trim_matches('/').split_once('/')?;
        let id = |x: Option<uuid::Uuid>| x.is_some_and(|id| id.to_string() == key);
        let c = &self.catalog;
        match collection {
            "facilities" => {
                let f = c.facilities.iter().find(|f| f.code == key || id(f.id))?;
                serde_json::to_value(self.catalog.facility_view(&f.code)).ok()
            }
            "plans" => {
                let p = c.plans.iter().find(|p| p.slug == key || id(p.id))?;
                serde_json::to_value(self.plan_view(&p.slug)).ok()
            }
            "operating-systems" => {
                let o = c
                    .operating_systems
                    .iter()
                    .find(|o| o.slug == key || id(o.id))?;
                serde_json::to_value(self.catalog.operating_system_view(&o.slug)).ok()
            }
            _ => None,
        }
    }
}

/// A modelled read and the path parameters of one call of it.
type Read = (&'static Modelled, Vec<(String, String)>);

/// The modelled `GET` whose path `path` (below the API's root) is, and
/// its path parameters: of the paths it matches, the one with the most
/// literal segments (`/ips/{id}` rather than a path of parameters only).
fn read_of(path: &str) -> Option<Read> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let mut best: Option<(usize, Read)> = None;
    for m in super::modelled() {
        let op = m.operation;
        if op.method != Method::Get {
            continue;
        }
        let pattern: Vec<&str> = op.path.trim_matches('/').split('/').collect();
        if pattern.len() != segments.len() {
            continue;
        }
        let mut params = Vec::new();
        let mut literal = 0;
        let fits = pattern.iter().zip(&segments).all(|(p, s)| {
            match p.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                Some(name) => {
                    params.push((name.to_string(), (*s).to_string()));
                    true
                }
                None => {
                    literal += 1;
                    p == s
                }
            }
        });
        if fits && best.as_ref().is_none_or(|(l, _)| literal > *l) {
            best = Some((literal, (m, params)));
        }
    }
    best.map(|(_, read)| read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_href_is_read_by_the_get_of_its_path() {
        let (m, params) = read_of("/projects/0b000000-0000-4000-8000-000000000001").unwrap();
        assert_eq!(m.operation.id, "findProjectById");
        assert_eq!(
            params,
            [(
                "id".to_string(),
                "0b000000-0000-4000-8000-000000000001".to_string()
            )]
        );
        let (m, _) = read_of("/connections/a/ports/b").unwrap();
        assert_eq!(m.operation.id, "getInterconnectionPort");
        assert!(read_of("/no-such-things/a").is_none());
    }

    #[test]
    fn an_excluded_thing_keeps_only_its_href() {
        let mut whole = serde_json::json!({"id": "x", "href": "/metal/v1/projects/x", "name": "p"});
        collapse("project", &mut whole);
        assert_eq!(whole, serde_json::json!({"href": "/metal/v1/projects/x"}));
        let mut metro = serde_json::json!({"id": "m", "code": "da"});
        collapse("metro", &mut metro);
        assert_eq!(
            metro,
            serde_json::json!({"href": "/metal/v1/locations/metros/m"})
        );
        let mut other = serde_json::json!({"code": "x"});
        collapse("thing", &mut other);
        assert_eq!(other, serde_json::json!({"code": "x"}));
    }
}
