//! A project's BGP configuration: off until requested (read as `200` with
//! an empty object, as cloud-provider-equinix-metal relies on), then the
//! ASN, deployment type and MD5 asked for.

use metal_api::types;
use serde::Serialize;
use uuid::Uuid;

use super::record::BgpConfig;
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::model::render::{reply, Href, Stamp, Stub};
use crate::model::resource::{acts, Prepared};

/// The most prefixes a local configuration announces (the API's default).
const MAX_PREFIX: u32 = 10;

/// A BGP configuration in a reply: all of it when on, `{}` when off.
#[derive(Serialize)]
#[serde(untagged)]
enum BgpConfigView<'a> {
    On(Box<BgpConfigOn<'a>>),
    Off {},
}

/// A BGP configuration that is on.
#[derive(Serialize)]
struct BgpConfigOn<'a> {
    id: Uuid,
    href: Href,
    asn: i64,
    deployment_type: &'a str,
    /// `null` without a password, as the spec allows.
    md5: Option<&'a str>,
    max_prefix: u32,
    status: &'static str,
    created_at: Stamp,
    requested_at: Stamp,
    project: Stub,
    /// The sessions of the project's devices, as links.
    sessions: Vec<Stub>,
    /// The project's global BGP ranges.
    ranges: Vec<crate::model::global_bgp_range::RangeView<'a>>,
    /// `null`: an AS-SET for route filters, which the fake does not model.
    route_object: (),
}

pub(super) fn find_bgp_config_by_project(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let p = w.projects.get(&id).ok_or_else(ApiError::not_found)?;
        let view = match (&p.rec.bgp_config, p.bgp_requested) {
            (Some(c), Some(at)) => {
                let at = Stamp(w.clock.wall(at));
                BgpConfigView::On(Box::new(BgpConfigOn {
                    id: c.id.unwrap_or_default(),
                    href: Href::new("bgp-configs", c.id.unwrap_or_default()),
                    asn: c.asn,
                    deployment_type: &c.deployment_type,
                    md5: c.md5.as_deref(),
                    max_prefix: MAX_PREFIX,
                    status: c.status(),
                    created_at: at,
                    requested_at: at,
                    project: Stub::new(COLLECTION, id),
                    sessions: w
                        .bgp_sessions_where(|s| {
                            w.devices.get(&s.rec.device).map(|d| d.rec.project) == Some(id)
                        })
                        .into_iter()
                        .map(|s| Stub::new(crate::model::bgp_session::COLLECTION, s.rec.id))
                        .collect(),
                    ranges: w.global_bgp_ranges_of(id).global_bgp_ranges,
                    route_object: (),
                }))
            }
            _ => BgpConfigView::Off {},
        };
        reply(&view)
    })
}

pub(super) fn request_bgp_config(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let mut value = call.json_value()?;
    // metal-cli always sends `md5`, `""` when no password is given: no
    // password (the spec's pattern would refuse the empty string).
    if value.get("md5").and_then(serde_json::Value::as_str) == Some("")
        && let Some(o) = value.as_object_mut()
    {
        o.remove("md5");
    }
    let body: types::BgpConfigRequestInput = crate::call::decode(value)?;
    if !(1..=4_294_967_295).contains(&body.asn) {
        return Err(ApiError::unprocessable(
            "asn must be between 1 and 4294967295",
        ));
    }
    let md5 = body.md5.clone().map(String::from);
    let deployment_type = match body.deployment_type {
        types::BgpConfigRequestInputDeploymentType::Local => "local",
        types::BgpConfigRequestInputDeploymentType::Global => "global",
    };
    acts(move |w, _, now| {
        w.projects
            .rows()
            .update(&mut w.journal, id, "bgp_config", now, |p| {
                let kept_id = p.rec.bgp_config.as_ref().and_then(|c| c.id);
                p.rec.bgp_config = Some(BgpConfig {
                    id: Some(kept_id.unwrap_or_else(Uuid::new_v4)),
                    asn: body.asn,
                    deployment_type: deployment_type.to_string(),
                    md5: md5.clone(),
                });
                p.bgp_requested.get_or_insert(now);
            })
            .ok_or_else(ApiError::not_found)?;
        Ok(Reply::Empty)
    })
}
