//! The current user's security: two-factor authentication by app
//! (enabled once, disabled once), password reset (requested, then
//! reset once), and email verification (requested; consumed with the
//! token the mail would carry, which the fake sends nowhere).

use serde::Serialize;
use uuid::Uuid;

use super::rules::change_user;
use crate::call::{ApiError, Call, Reply};
use crate::model::render::reply;
use crate::model::resource::{acts, Prepared};

/// `enableTfaApp`: `422` when it is on already.
pub(super) fn enable_tfa_app(_call: &Call) -> Result<Prepared, ApiError> {
    acts(|w, caller, now| {
        let id = caller.user_or_denied(w)?;
        change_user(w, id, "two_factor", now, |u| {
            if u.rec.two_factor {
                return Err(ApiError::unprocessable(
                    "Two factor authentication is already enabled",
                ));
            }
            u.rec.two_factor = true;
            Ok(Reply::Empty)
        })
    })
}

/// `disableTfaApp`: `404` when it is off.
pub(super) fn disable_tfa_app(_call: &Call) -> Result<Prepared, ApiError> {
    acts(|w, caller, now| {
        let id = caller.user_or_denied(w)?;
        change_user(w, id, "two_factor", now, |u| {
            if !u.rec.two_factor {
                return Err(ApiError::not_found());
            }
            u.rec.two_factor = false;
            Ok(Reply::Empty)
        })
    })
}

/// `createPasswordResetToken`: for the user of `email` (`422` for an
/// address no user has).
pub(super) fn create_password_reset_token(call: &Call) -> Result<Prepared, ApiError> {
    let email = call
        .text("email")
        .ok_or_else(|| ApiError::unprocessable("email can't be blank"))?;
    acts(move |w, _, now| {
        let id = w
            .user_by_email(&email)
            .map(|u| u.rec.id)
            .ok_or_else(|| ApiError::unprocessable("No user has that email address"))?;
        change_user(w, id, "reset_requested", now, |u| {
            u.reset_requested = true;
            Ok(Reply::Empty)
        })
    })
}

/// The new password of a reset.
#[derive(Serialize)]
struct NewPassword {
    new_password: String,
}

/// `resetPassword`: once, after a reset was requested for the caller.
pub(super) fn reset_password(_call: &Call) -> Result<Prepared, ApiError> {
    acts(|w, caller, now| {
        let id = caller.user_or_denied(w)?;
        change_user(w, id, "password", now, |u| {
            if !u.reset_requested {
                return Err(ApiError::unprocessable("No password reset was requested"));
            }
            u.reset_requested = false;
            Ok(())
        })?;
        reply(&NewPassword {
            new_password: Uuid::new_v4().simple().to_string(),
        })
    })
}

/// `createValidationRequest`: for the user whose `login` (email) it is.
pub(super) fn create_validation_request(call: &Call) -> Result<Prepared, ApiError> {
    let login = call
        .text("login")
        .ok_or_else(|| ApiError::unprocessable("login can't be blank"))?;
    acts(move |w, _, now| {
        let id = w
            .user_by_email(&login)
            .map(|u| u.rec.id)
            .ok_or_else(|| ApiError::unprocessable("No user has that login"))?;
        change_user(w, id, "verification_requested", now, |u| {
            u.verification = Some(Uuid::new_v4().simple().to_string());
            Ok(Reply::Empty)
        })
    })
}

/// `consumeVerificationRequest`: the token of a request, once; `422`
/// otherwise.
pub(super) fn consume_verification_request(call: &Call) -> Result<Prepared, ApiError> {
    let body: metal_api::types::VerifyEmail = call.json()?;
    acts(move |w, _, now| {
        let id = w
            .users
            .values()
            .find(|u| u.verification.as_deref() == Some(body.user_token.as_str()))
            .map(|u| u.rec.id)
            .ok_or_else(|| ApiError::unprocessable("The verification token is not valid"))?;
        change_user(w, id, "verified", now, |u| {
            u.verification = None;
            Ok(Reply::Empty)
        })
    })
}
