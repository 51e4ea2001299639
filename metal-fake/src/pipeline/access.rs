//! The access step: a token reaching for a project, device, reservation,
//! SSH key or organisation it does not see gets `403`. Who owns the thing
//! the path's `{id}` names is its resource's say
//! ([`crate::model::Resource`]); a thing that does not exist passes (its
//! handler answers `404`).

use metal_api::operation::Operation;

use super::{Context, Outcome, Pipeline, Step};
use crate::call::Params;
use crate::model::{resource_of, Access};

impl Pipeline {
    /// Sets the ID the path names, and stops with `403` when the caller
    /// may not see it.
    pub(super) fn access(
        &self,
        mut cx: Context,
        operation: &'static Operation,
        params: &Params,
    ) -> Step {
        cx.target = params
            .iter()
            .find(|(name, _)| name == "id")
            .and_then(|(_, id)| uuid::Uuid::try_parse(id).ok());
        let (Some(id), false) = (cx.target, cx.caller == Access::All) else {
            return Ok(cx);
        };
        let Some(resource) = resource_of(operation.path) else {
            return Ok(cx);
        };
        let checked = {
            let store = self.store.lock();
            let owner = (resource.owner)(&store.world, id);
            store.world.check_access(&cx.caller, owner)
        };
        match checked {
            Ok(()) => Ok(cx),
            Err(refused) => Err(cx.stop(Outcome::Reply(Err(refused)))),
        }
    }
}
