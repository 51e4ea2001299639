//! The spot market request operations the fake models, and who owns a
//! request.

use metal_api::operation as op;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, SpotMarketRequest};
use super::rules::CreateRequest;
use super::rules::MAX_SPOT_DEVICES;
use super::view::RequestList;
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::flag_in_query_or_body;
use crate::model::load::unknown;
use crate::model::project;
use crate::model::render::{reply, Expand};
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;

/// Spot market requests.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::LIST_SPOT_MARKET_REQUESTS, list_spot_market_requests)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::CREATE_SPOT_MARKET_REQUEST, create_spot_market_request)
            .names("id", &project::RESOURCE),
        Modelled::new(
            &op::FIND_SPOT_MARKET_REQUEST_BY_ID,
            find_spot_market_request_by_id,
        )
        .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_SPOT_MARKET_REQUEST, delete_spot_market_request)
            .names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.spot_requests
        .get(&id)
        .map(|r| Owner::Project(r.rec.project))
}

impl World {
    fn spot_request_reply(
        &self,
        id: Uuid,
        expand: &Expand,
        now: tokio::time::Instant,
    ) -> Result<Reply, ApiError> {
        let r = self
            .spot_requests
            .get(&id)
            .ok_or_else(ApiError::not_found)?;
        reply(&self.spot_request_view(r, expand, now))
    }
}

fn list_spot_market_requests(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        let mut requests: Vec<_> = w
            .spot_requests
            .values()
            .filter(|r| r.rec.project == project)
            .collect();
        requests.sort_by_key(|r| r.meta.seq);
        reply(&RequestList {
            spot_market_requests: requests
                .into_iter()
                .map(|r| w.spot_request_view(r, &expand, now))
                .collect(),
        })
    })
}

fn create_spot_market_request(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let req = CreateRequest::read(call.json_value()?)?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = w.create_spot_request(project, &req, now)?;
        w.spot_request_reply(id, &expand, now)
    })
}

fn find_spot_market_request_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| w.spot_request_reply(id, &expand, now))
}

fn delete_spot_market_request(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    // The spec's query, or packngo's body (`{"force_termination": true}`).
    let force = flag_in_query_or_body(call, "force_termination")?.unwrap_or(false);
    acts(move |w, _, now| {
        w.delete_spot_request(id, force, now)?;
        Ok(Reply::Empty)
    })
}

/// Loads the document's requests: each of a project the world has, on a
/// plan and in a metro or facilities of its catalog, `1 <= devices_min
/// <= devices_max <=` [`MAX_SPOT_DEVICES`], a finite bid, and naming
/// devices of its own project, each once in all requests.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut claimed = std::collections::HashSet::new();
    for r in &doc.spot_market_requests {
        let from = || format!("spot market request {}", r.id);
        let bad = |why: &str| WorldError::Inconsistent(format!("{}: {why}", from()));
        if w.spot_requests.contains_key(&r.id) {
            return Err(WorldError::Duplicate {
                kind: "spot market request",
                id: r.id.to_string(),
            });
        }
        if !w.projects.contains_key(&r.project) {
            return Err(unknown(from(), "project", r.project));
        }
        if w.catalog.plan(&r.plan).is_none() {
            return Err(unknown(from(), "plan", &r.plan));
        }
        if let Some(m) = r.metro.as_ref().filter(|m| w.catalog.metro(m).is_none()) {
            return Err(unknown(from(), "metro", m));
        }
        if let Some(f) = r
            .facilities
            .iter()
            .find(|f| w.catalog.facility(f).is_none())
        {
            return Err(unknown(from(), "facility", f));
        }
        if r.metro.is_none() == r.facilities.is_empty() {
            return Err(bad("names exactly one of metro and facilities"));
        }
        if r.devices_min == 0 || r.devices_min > r.devices_max || r.devices_max > MAX_SPOT_DEVICES {
            return Err(bad(&format!(
                "needs 1 <= devices_min <= devices_max <= {MAX_SPOT_DEVICES}"
            )));
        }
        if !(r.max_bid_price.is_finite() && r.max_bid_price > 0.0) {
            return Err(bad("max_bid_price must be a finite number above 0"));
        }
        for d in &r.devices {
            if w.devices.get(d).is_none_or(|k| k.rec.project != r.project) {
                return Err(unknown(from(), "device of its project", d));
            }
            if !claimed.insert(*d) {
                return Err(bad(&format!("device {d} is another request's")));
            }
        }
        w.spot_requests
            .rows()
            .insert(&mut w.journal, r.id, now, |meta| Kept {
                rec: r.clone(),
                meta,
            });
        w.queue_spot_end(r.id, r.end_at, now);
    }
    Ok(())
}

/// Saves the requests into `doc`, oldest first, each naming the devices
/// it made that are still there.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.spot_market_requests = oldest_first(w.spot_requests.iter(), |r| r.meta.seq)
        .into_iter()
        .map(|r| entry(w, r))
        .collect();
}

/// One request's entry in a world document, naming the devices it made
/// that are still there.
pub(crate) fn entry(w: &World, r: &Kept) -> SpotMarketRequest {
    SpotMarketRequest {
        devices: w.request_devices(r).collect(),
        ..r.rec.clone()
    }
}
