//! An invitation sent again (`POST /invitations/{id}`), as packngo's
//! `Invitations.Resend` (`invitations.go`) asked for it: the 2024 spec has
//! no `POST` on that path, so its [`Operation`] is declared here, and the
//! router serves every modelled operation the spec lacks beside the
//! spec's. The fake sends no mail: the invitation is touched (its
//! `updated_at`) and shown.

use metal_api::operation::{Method, Operation};

use crate::call::{ApiError, Call};
use crate::model::resource::{acts, Prepared};

/// The operation, outside the 2024 spec (its ID is the fake's).
pub(crate) static RESEND_INVITATION: Operation = Operation {
    id: "resendInvitation",
    method: Method::Post,
    path: "/invitations/{id}",
    success: 200,
    lists: &[],
};

/// The invitation, sent again; `404` for one the world lacks.
pub(super) fn resend_invitation(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.touch_invitation(id, now)?;
        w.invitation_reply(id)
    })
}
