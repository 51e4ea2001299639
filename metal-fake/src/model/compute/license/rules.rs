//! The rules of licenses: what a create or an update may say, and the
//! changes themselves.

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, License};
use crate::call::ApiError;
use crate::model::bounds::{room_for, too_long, MAX_NAME, MAX_TEXT};
use crate::model::relations::Kind;
use crate::model::World;

/// The fields of a license a body gives, checked: a product (on create),
/// a size that is a positive finite number, a description within bounds.
/// Every problem is one message of the `422`.
pub(crate) fn check(
    product: Option<&str>,
    size: Option<f64>,
    description: Option<&str>,
) -> Result<(), ApiError> {
    let mut problems = Vec::new();
    if let Some(p) = product {
        if p.trim().is_empty() {
            problems.push("licensee_product_id is required".to_string());
        }
        problems.extend(too_long("licensee_product_id", p, MAX_NAME));
    }
    if let Some(s) = size
        && !(s.is_finite() && s > 0.0)
    {
        problems.push("size must be greater than 0".to_string());
    }
    problems.extend(description.and_then(|d| too_long("description", d, MAX_TEXT)));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ApiError {
            status: 422,
            messages: problems,
        })
    }
}

impl World {
    /// `createLicense`: a license of `project`, its key issued by the fake.
    pub(crate) fn create_license(
        &mut self,
        project: Uuid,
        body: &types::LicenseCreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if !self.projects.contains_key(&project) {
            return Err(ApiError::not_found());
        }
        let product = body.licensee_product_id.as_deref().unwrap_or_default();
        let size = body.size.unwrap_or(1.0);
        check(Some(product), Some(size), body.description.as_deref())?;
        room_for("Licenses", self.licenses.len())?;
        let id = Uuid::new_v4();
        let rec = License {
            id,
            project,
            licensee_product_id: product.to_string(),
            size,
            description: body.description.clone(),
            license_key: license_key(id),
        };
        self.licenses
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
        Ok(id)
    }

    /// `updateLicense`: its description and size, as the body gives them.
    pub(crate) fn update_license(
        &mut self,
        id: Uuid,
        body: &types::LicenseUpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        if !self.licenses.contains_key(&id) {
            return Err(ApiError::not_found());
        }
        check(None, body.size, body.description.as_deref())?;
        self.licenses
            .rows()
            .update(&mut self.journal, id, "fields", now, |l| {
                if let Some(d) = &body.description {
                    l.rec.description = Some(d.clone());
                }
                if let Some(s) = body.size {
                    l.rec.size = s;
                }
            });
        Ok(())
    }

    /// `deleteLicense`.
    pub(crate) fn delete_license(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.delete_record(Kind::License, id, now)
    }

    /// Removes one license (for a cascade), journaled.
    pub(crate) fn remove_license(&mut self, id: Uuid, at: Instant) {
        self.licenses.rows().remove(&mut self.journal, id, at);
    }
}

/// The key the fake issues a license: five groups of its ID's hex, as
/// product keys are written (the real format is not published).
fn license_key(id: Uuid) -> String {
    let hex = id.simple().to_string().to_ascii_uppercase();
    hex.as_bytes()
        .chunks(5)
        .take(5)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("-")
}
