//! Who owns an organisation (for access), and how organisations load and
//! save. The fake models no organisation operation yet: adding one is a
//! line in [`RESOURCE`]'s table and its function here.

use std::collections::HashSet;

use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, Organization};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::unique;
use crate::model::resource::Resource;
use crate::model::world::oldest_first;
use crate::model::World;

/// Organisations.
pub(crate) static RESOURCE: Resource = Resource {
    collection: "organizations",
    operations: &[],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.organizations.get(&id).map(|_| Owner::Organization(id))
}

/// Adds an organisation.
pub(crate) fn insert(w: &mut World, rec: Organization) {
    let seq = w.next_seq();
    w.organizations.insert(rec.id, Kept { rec, seq });
}

fn load(w: &mut World, doc: &WorldDoc, _now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    for o in &doc.organizations {
        unique(&mut seen, o.id, "organization", o.id)?;
        insert(w, o.clone());
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.organizations = oldest_first(&w.organizations, |o| o.seq)
        .into_iter()
        .map(|o| o.rec.clone())
        .collect();
}
