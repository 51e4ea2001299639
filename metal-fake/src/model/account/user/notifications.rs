//! The user's notifications (`GET /notifications`, `GET` and `PUT
//! /notifications/{id}`), as packngo's `Notifications` service
//! (`notifications.go`: `List`, `Get`, `MarkAsRead`) used them: the 2024
//! spec has none of these paths, so their [`Operation`]s are declared
//! here, and the router serves every modelled operation the spec lacks
//! beside the spec's. What a notification said and when the API made one
//! is not public beyond packngo's `Notification` type, so the fake makes
//! none: the list is empty, and one by ID is `404`.

use crate::call::{ApiError, Call};
use crate::model::list::{page, Listing};
use crate::model::render::{reply, API_PREFIX};
use crate::model::resource::{acts, Prepared};
use metal_api::operation::{Method, Operation};

/// `GET /notifications`, outside the 2024 spec (its ID is the fake's).
pub(crate) static FIND_NOTIFICATIONS: Operation = Operation {
    id: "findNotifications",
    method: Method::Get,
    path: "/notifications",
    success: 200,
    lists: &[],
};

/// `GET /notifications/{id}`, outside the 2024 spec.
pub(crate) static FIND_NOTIFICATION_BY_ID: Operation = Operation {
    id: "findNotificationById",
    method: Method::Get,
    path: "/notifications/{id}",
    success: 200,
    lists: &[],
};

/// `PUT /notifications/{id}` (mark as read), outside the 2024 spec.
pub(crate) static UPDATE_NOTIFICATION: Operation = Operation {
    id: "updateNotification",
    method: Method::Put,
    path: "/notifications/{id}",
    success: 200,
    lists: &[],
};

/// The user's notifications: none, paginated as every list (packngo
/// follows `meta.next`).
pub(super) fn find_notifications(call: &Call) -> Result<Prepared, ApiError> {
    let listing = Listing::of(call, &[])?;
    acts(move |_, _, _| {
        let path = format!("{API_PREFIX}/notifications");
        let none: [&u64; 0] = [];
        reply(&page(
            "notifications",
            &path,
            none.into_iter(),
            |n| *n,
            &listing,
            |n| *n,
        ))
    })
}

/// A notification by ID, read or marked read: none is kept, so `404`.
pub(super) fn find_notification(call: &Call) -> Result<Prepared, ApiError> {
    call.id("id")?;
    acts(move |_, _, _| Err(ApiError::not_found()))
}
