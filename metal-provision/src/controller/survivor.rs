//! Which device of a hostname is kept: the one rule every run of a name
//! applies to whatever view of the hostname's devices it holds.
//!
//! - The survivor is the preferred live device: the earliest `created_at`,
//!   then the smallest ID ([`prefer`]). A device being deleted is not live;
//!   a failed one never survives (whoever sees it deletes it).
//! - A run deletes other devices of a hostname only behind a survivor it
//!   has seen *active*, in a view listed after it was. A device that is
//!   active stays so, and only a run that has seen an active device
//!   preferred to it deletes it; so the most preferred device ever active
//!   is deleted by nobody, and no run deletes the device every other run
//!   keeps. A survivor still queued or provisioning may yet fail; the view
//!   it tops is not enough to delete the rest.
//! - A run keeps a device only once it is active and first among the live
//!   devices of a view listed after that. Such a view holds every device
//!   created before it was listed, so a device preferred to the kept one
//!   (created earlier) is in it: every run of the name that keeps a device
//!   keeps that same one.

use std::cmp::Ordering;

use metal_api::{types, DeviceState};
use uuid::Uuid;

/// Which of two live devices of one hostname is kept: the earlier created,
/// then the smaller ID; a device without a creation time comes last. Every
/// run of one name that sees both devices picks the same one.
pub(super) fn prefer(a: &types::Device, b: &types::Device) -> Ordering {
    let key = |d: &types::Device| (d.created_at.is_none(), d.created_at, d.id);
    key(a).cmp(&key(b))
}

/// Whether a device still counts for its hostname (not being deleted).
pub(super) fn is_live(d: &types::Device) -> bool {
    !matches!(
        d.state_kind(),
        Some(DeviceState::Deprovisioning | DeviceState::Deleted)
    )
}

/// A hostname's devices, split into the failed ones (by ID) and the live
/// others (not being deleted): the candidates to keep, of which a failed
/// one never is.
pub(super) fn split(
    devices: impl IntoIterator<Item = types::Device>,
) -> (Vec<Uuid>, Vec<types::Device>) {
    let mut failed = Vec::new();
    let mut live = Vec::new();
    for d in devices {
        match (d.id, d.state_kind()) {
            (Some(id), Some(DeviceState::Failed)) => failed.push(id),
            (Some(_), _) if is_live(&d) => live.push(d),
            _ => {}
        }
    }
    (failed, live)
}

/// The devices of one hostname to delete behind `kept`, from a view of its
/// devices: every other live one and every failed one, when `kept` is
/// active and the survivor in this view; none otherwise (the view does
/// not show a survivor seen active, or shows another).
pub(super) fn behind(devices: impl IntoIterator<Item = types::Device>, kept: Uuid) -> Vec<Uuid> {
    let (failed, mut live) = split(devices);
    live.sort_by(prefer);
    match live.first() {
        Some(first)
            if first.id == Some(kept) && first.state_kind() == Some(DeviceState::Active) =>
        {
            live.iter()
                .skip(1)
                .filter_map(|d| d.id)
                .chain(failed)
                .collect()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(id: u128, created: Option<&str>, state: &str) -> types::Device {
        serde_json::from_value(serde_json::json!({
            "id": Uuid::from_u128(id),
            "created_at": created,
            "state": state,
        }))
        .unwrap()
    }

    #[test]
    fn the_earliest_live_device_is_kept_then_the_smallest_id() {
        let early = device(9, Some("2026-01-01T00:00:00.100Z"), "provisioning");
        let late = device(1, Some("2026-01-01T00:00:00.200Z"), "active");
        let same_time_smaller_id = device(3, Some("2026-01-01T00:00:00.100Z"), "active");
        let undated = device(0, None, "active");
        let mut all = [late, undated, early.clone(), same_time_smaller_id];
        all.sort_by(prefer);
        let order: Vec<_> = all.iter().map(|d| d.id.unwrap().as_u128()).collect();
        assert_eq!(order, vec![3, 9, 1, 0]);
        assert!(is_live(&early));
        assert!(!is_live(&device(4, None, "deprovisioning")));
    }

    #[test]
    fn others_go_only_behind_a_survivor_seen_active() {
        let t = |ms: u32| format!("2026-01-01T00:00:00.{ms:03}Z");
        let kept = device(5, Some(&t(200)), "active");
        let later = device(6, Some(&t(300)), "provisioning");
        let failed = device(2, Some(&t(100)), "failed");
        let going = device(1, Some(&t(50)), "deprovisioning");
        let all = [kept.clone(), later.clone(), failed.clone(), going.clone()];
        let mut gone = behind(all.clone(), Uuid::from_u128(5));
        gone.sort();
        assert_eq!(gone, [Uuid::from_u128(2), Uuid::from_u128(6)]);
        // Not ours to keep: the later one is not the survivor.
        assert!(behind(all, Uuid::from_u128(6)).is_empty());
        // A survivor still provisioning may yet fail: nothing goes.
        let provisioning = device(5, Some(&t(200)), "provisioning");
        assert!(behind([provisioning, later.clone()], Uuid::from_u128(5)).is_empty());
        // An earlier live device, even one still queued, tops the view.
        let earlier = device(4, Some(&t(150)), "queued");
        assert!(behind([kept, later, earlier], Uuid::from_u128(5)).is_empty());
    }
}
