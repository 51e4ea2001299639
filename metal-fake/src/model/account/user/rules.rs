//! The rules of a user's changes: one write path for the folder's
//! operations, and the change another folder asks for (an email made the
//! default).

use super::record::Kept;

/// Changes user `id` at `now` by `f`, the change named `what`: `404` when
/// there is no such user, `f`'s refusal (nothing changed) otherwise.
pub(super) fn change_user<R>(
    w: &mut crate::model::World,
    id: uuid::Uuid,
    what: &'static str,
    now: tokio::time::Instant,
    f: impl FnOnce(&mut Kept) -> Result<R, crate::call::ApiError>,
) -> Result<R, crate::call::ApiError> {
    w.users
        .rows()
        .try_update(&mut w.journal, id, what, now, f)
        .unwrap_or_else(|| Err(crate::call::ApiError::not_found()))
}

impl crate::model::World {
    /// User `user`'s email is `address` from `now` on (an email of theirs
    /// made their default).
    pub(crate) fn set_user_email(
        &mut self,
        user: uuid::Uuid,
        address: &str,
        now: tokio::time::Instant,
    ) -> Result<(), crate::call::ApiError> {
        change_user(self, user, "email", now, |u| {
            u.rec.email = address.to_string();
            Ok(())
        })
    }
}
