//! `requestSupport` and `findIncidents`.

use metal_api::operation as op;
use metal_api::types;
use serde::Serialize;
use uuid::Uuid;

use crate::call::{ApiError, Call, Reply};
use crate::document::MAX_NAME;
use crate::model::access::{Owner, ACCESS_DENIED};
use crate::model::bounds::{refuse, too_long, MAX_TEXT};
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};

/// The most support requests the log keeps (the oldest go first).
const LOG_CAPACITY: usize = 1000;

/// Support requests and incidents.
pub(crate) static RESOURCE: Resource = Resource {
    collection: "support-requests",
    operations: &[
        Modelled::new(&op::REQUEST_SUPPORT, request_support),
        Modelled::new(&op::FIND_INCIDENTS, find_incidents),
    ],
    owner: |_, _| None::<Owner>,
    load: |_, _, _| Ok(()),
    save: |_, _, _| {},
};

/// `{"incidents": []}`.
#[derive(Serialize)]
struct IncidentList {
    incidents: [(); 0],
}

fn find_incidents(_call: &Call) -> Result<Prepared, ApiError> {
    acts(|_, _, _| reply(&IncidentList { incidents: [] }))
}

/// A UUID of the body, `422` when it is not one.
fn body_id(field: &str, value: Option<&String>) -> Result<Option<Uuid>, ApiError> {
    value
        .filter(|v| !v.is_empty())
        .map(|v| {
            Uuid::parse_str(v)
                .map_err(|_| ApiError::unprocessable(format!("{field} must be a UUID")))
        })
        .transpose()
}

/// `requestSupport`: `204` once checked and logged.
fn request_support(call: &Call) -> Result<Prepared, ApiError> {
    let body: types::SupportRequestInput = call.json()?;
    if body.subject.trim().is_empty() || body.message.trim().is_empty() {
        return Err(ApiError::unprocessable(
            "Subject and message can't be blank",
        ));
    }
    refuse([
        too_long("Subject", &body.subject, MAX_NAME),
        too_long("Message", &body.message, MAX_TEXT),
    ])?;
    let project = body_id("project_id", body.project_id.as_ref())?;
    let device = body_id("device_id", body.device_id.as_ref())?;
    acts(move |w, caller, _| {
        if let Some(p) = project {
            w.projects.get(&p).ok_or_else(ApiError::not_found)?;
            if !caller.sees(p) {
                return Err(ApiError::new(403, ACCESS_DENIED));
            }
        }
        if let Some(d) = device {
            let d = w.devices.get(&d).ok_or_else(ApiError::not_found)?;
            if !caller.sees(d.rec.project) {
                return Err(ApiError::new(403, ACCESS_DENIED));
            }
        }
        let log = &mut w.support.requests;
        if log.len() >= LOG_CAPACITY {
            log.pop_front();
        }
        log.push_back((body.subject.clone(), project));
        Ok(Reply::Empty)
    })
}
