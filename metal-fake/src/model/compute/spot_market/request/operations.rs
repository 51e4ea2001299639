//! The spot market request operations the fake models, and who owns a
//! request.

use metal_api::operation as op;
use uuid::Uuid;

use super::record;
use super::rules::CreateRequest;
use super::view::{RequestList, COLLECTION};
use crate::call::{ApiError, Call, Reply};
use crate::model::access::Owner;
use crate::model::list::flag_in_query_or_body;
use crate::model::project;
use crate::model::render::{reply, Expand};
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
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
    load: record::load,
    save: record::save,
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
