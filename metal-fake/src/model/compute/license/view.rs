//! A license as the API sends it, written straight to bytes.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use crate::model::project;
use crate::model::render::{Stub, API_PREFIX};
use crate::model::World;

/// The collection the licensee product's href names.
const PRODUCTS: &str = "licensee-products";

/// A license in a reply.
#[derive(Serialize)]
pub(crate) struct LicenseView<'a> {
    id: Uuid,
    /// `""` when none was given (the spec's `License` has no `href`).
    description: &'a str,
    license_key: &'a str,
    licensee_product: ProductStub,
    project: Stub,
    size: f64,
}

/// The licensee product a license is for: its href.
#[derive(Serialize)]
struct ProductStub {
    href: String,
}

/// A list of licenses.
#[derive(Serialize)]
pub(crate) struct LicenseList<'a> {
    pub(crate) licenses: Vec<LicenseView<'a>>,
}

impl World {
    /// `l` as the API shows it.
    pub(crate) fn license_view<'a>(&'a self, l: &'a Kept) -> LicenseView<'a> {
        let rec = &l.rec;
        LicenseView {
            id: rec.id,
            description: rec.description.as_deref().unwrap_or_default(),
            license_key: &rec.license_key,
            licensee_product: ProductStub {
                href: format!("{}/{PRODUCTS}/{}", API_PREFIX, rec.licensee_product_id),
            },
            project: Stub::new(project::COLLECTION, rec.project),
            size: rec.size,
        }
    }
}
