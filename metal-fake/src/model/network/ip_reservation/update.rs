//! `updateIPAddress` (`PATCH /ips/{id}`): a reservation's `details`,
//! `tags` and `customdata`, each changed only when the body names it.

use serde_json::{Map, Value};
use tokio::time::Instant;
use uuid::Uuid;

use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, too_long, MAX_TEXT};
use crate::model::World;

/// What an update body changes (`None`: left alone).
#[derive(Debug, Default)]
pub(crate) struct IpUpdate {
    /// `details` (`description`, as the Terraform provider names it, is
    /// read as the same).
    details: Option<String>,
    tags: Option<Vec<String>>,
    customdata: Option<Map<String, Value>>,
}

impl IpUpdate {
    /// Reads an update body: a JSON object whose `details` (or
    /// `description`) is text, `tags` a list of text (`[]` clears them),
    /// `customdata` an object or the text of one; anything else is `422`.
    /// A `null` is absent, as in every body (see [`crate::Call::json`]).
    pub(crate) fn read(body: Value) -> Result<Self, ApiError> {
        let Value::Object(fields) = body else {
            return Err(ApiError::unprocessable("The body must be a JSON object"));
        };
        let mut update = Self::default();
        for (key, value) in fields {
            match (key.as_str(), value) {
                ("details" | "description", Value::String(t)) => update.details = Some(t),
                ("tags", Value::Array(items)) => {
                    let tags = items
                        .into_iter()
                        .map(|t| match t {
                            Value::String(t) => Ok(t),
                            _ => Err(ApiError::unprocessable("tags must be a list of text")),
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    update.tags = Some(tags);
                }
                ("customdata", Value::Object(c)) => update.customdata = Some(c),
                ("customdata", Value::String(t)) => match serde_json::from_str(&t) {
                    Ok(Value::Object(c)) => update.customdata = Some(c),
                    _ => return Err(ApiError::unprocessable("customdata must be a JSON object")),
                },
                ("details" | "description", _) => {
                    return Err(ApiError::unprocessable("details must be text"))
                }
                ("tags", _) => return Err(ApiError::unprocessable("tags must be a list of text")),
                ("customdata", _) => {
                    return Err(ApiError::unprocessable("customdata must be a JSON object"))
                }
                // Fields the fake does not model are ignored, as a
                // generated client may send its whole model.
                _ => {}
            }
        }
        Ok(update)
    }
}

impl World {
    /// `updateIPAddress` of the reservation `id`: the fields `update`
    /// names, within the bounds a request has (`422` otherwise, nothing
    /// changed). An assignment is `422`: it has none of these fields.
    pub(crate) fn update_ip_address(
        &mut self,
        id: Uuid,
        update: IpUpdate,
        now: Instant,
    ) -> Result<(), ApiError> {
        if self.live_assignment(id).is_some() {
            return Err(ApiError::unprocessable(
                "An IP assignment has no details, tags or customdata to update",
            ));
        }
        if !self.ips.reservations.contains_key(&id) {
            return Err(ApiError::not_found());
        }
        let customdata = update
            .customdata
            .as_ref()
            .map(|c| serde_json::to_string(c).unwrap_or_default());
        refuse([
            update.tags.as_deref().and_then(bad_tags),
            update
                .details
                .as_deref()
                .and_then(|d| too_long("Details", d, MAX_TEXT)),
            customdata.and_then(|c| too_long("Customdata", &c, MAX_TEXT)),
        ])?;
        self.ips
            .reservations
            .update(&mut self.journal, id, "updated", now, |r| {
                if let Some(d) = update.details {
                    r.rec.details = Some(d);
                }
                if let Some(t) = update.tags {
                    r.rec.tags = t;
                }
                if let Some(c) = update.customdata {
                    r.rec.customdata = c;
                }
            })
            .ok_or_else(ApiError::not_found)
    }
}
