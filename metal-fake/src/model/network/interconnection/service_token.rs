//! A Fabric service token by its ID (`GET /fabric-service-tokens/{id}`),
//! as packngo's `FabricServiceTokens.Get` (`fabric_service_tokens.go`,
//! added with the shared connections' tokens in 2022) read it: the 2024
//! spec has no such path (a token shows only in its connection's
//! `service_tokens`), so its [`Operation`] is declared here, and the
//! router serves every modelled operation the spec lacks beside the
//! spec's.

use metal_api::operation::{Method, Operation};

use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::render::reply;
use crate::model::resource::{acts, Prepared};

/// The operation, outside the 2024 spec (its ID is the fake's).
pub(crate) static FIND_FABRIC_SERVICE_TOKEN_BY_ID: Operation = Operation {
    id: "findFabricServiceTokenById",
    method: Method::Get,
    path: "/fabric-service-tokens/{id}",
    success: 200,
    lists: &[],
};

/// The token as its connection shows it; `404` for a token no connection
/// has; `403` for one of a connection the caller does not see (as the
/// connection's read).
pub(super) fn find_fabric_service_token_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, caller, _| {
        let (c, view) = w.service_token_view(id).ok_or_else(ApiError::not_found)?;
        let owner = match c.rec.project {
            Some(p) => Owner::Project(p),
            None => Owner::Organization(c.rec.organization),
        };
        w.check_access(caller, Some(owner))?;
        reply(&view)
    })
}
