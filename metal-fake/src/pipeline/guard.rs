//! What the access step checked ([`Guard`]), for the act step to check
//! again under the lock it changes the world under, so that nothing
//! changes hands in between.

use uuid::Uuid;

use crate::call::ApiError;
use crate::model::{Access, Resource, World};

/// The ID a path names and the resource that owns it: what the act step
/// checks again under its lock.
#[derive(Clone, Copy)]
pub(crate) struct Guard {
    id: Uuid,
    of: &'static Resource,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("id", &self.id)
            .field("of", &self.of.collection)
            .finish()
    }
}

impl Guard {
    /// The guard of `id`, owned as `of` says.
    pub(super) fn new(id: Uuid, of: &'static Resource) -> Self {
        Self { id, of }
    }

    /// Whether `caller` may reach the guarded thing in `world` now.
    pub(crate) fn check(&self, world: &World, caller: &Access) -> Result<(), ApiError> {
        if *caller == Access::All {
            return Ok(());
        }
        world.check_access(caller, (self.of.owner)(world, self.id))
    }
}
