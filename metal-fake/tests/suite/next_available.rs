//! The policy client's idempotent `create_device` with
//! `hardware_reservation_id: "next-available"`, against the in-process
//! fake on the paused clock: replies lost after the server acted, several
//! clients racing for the same reservations, and the "none available"
//! 503, which is returned at once.

use std::collections::HashSet;

use metal_api::types;
use metal_fake::{Fake, Fault, FaultKind};
use metal_policy::client::WITNESS_TAG_PREFIX;
use metal_policy::{Error, Metal};
use uuid::Uuid;

fn next_available(hostname: &str) -> types::CreateDeviceRequest {
    types::CreateDeviceRequest::MetroInput(
        types::DeviceCreateInMetroInput::builder()
            .metro("da")
            .plan("c3.small.x86")
            .operating_system("ubuntu_24_04")
            .hardware_reservation_id("next-available".to_string())
            .hostname(Some(hostname.to_string()))
            .try_into()
            .unwrap(),
    )
}

fn witness_of(d: &types::Device) -> Option<&String> {
    d.tags.iter().find(|t| t.starts_with(WITNESS_TAG_PREFIX))
}

/// After a reply lost once the server created the device, the next attempt
/// finds it by its witness tag with one filtered list (one page even at
/// one device a page, among other devices), and creates nothing more.
#[tokio::test(start_paused = true)]
async fn a_lost_reply_is_recovered_by_one_filtered_list() {
    let lost = [
        FaultKind::DropAfter,
        FaultKind::FailAfter { status: 500 },
        FaultKind::FailAfter { status: 503 },
        FaultKind::Truncated,
    ];
    for kind in lost {
        let fake = Fake::builder().reservations(6).build();
        let metal = fake.client_with(|c| c.per_page(1)).unwrap();
        for i in 0..4 {
            let d = metal
                .create_device(fake.project(), &next_available(&format!("other-{i}")))
                .await;
            assert!(d.is_ok(), "{kind:?}: {d:?}");
        }
        assert_eq!(
            fake.call_count("findProjectDevices"),
            0,
            "no list without a fault"
        );
        fake.inject(Fault::on("createDevice", kind.clone()))
            .unwrap();
        let d = metal
            .create_device(fake.project(), &next_available("mine"))
            .await
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        assert_eq!(d.hostname.as_deref(), Some("mine"), "{kind:?}");
        assert!(witness_of(&d).is_some(), "{kind:?}");
        let snap = fake.snapshot();
        assert_eq!(snap.world.devices_created, 5, "{kind:?}: created twice");
        assert_eq!(fake.call_count("createDevice"), 5, "{kind:?}: sent again");
        assert_eq!(
            fake.call_count("findProjectDevices"),
            1,
            "{kind:?}: one filtered list"
        );
    }
}

/// A fault before the server acted: the filtered list finds nothing and
/// the create is sent again, once.
#[tokio::test(start_paused = true)]
async fn a_failure_before_acting_creates_once_after_the_list() {
    let fake = Fake::builder().reservations(2).build();
    let metal = fake.client();
    fake.inject(Fault::on(
        "createDevice",
        FaultKind::FailBefore { status: 502 },
    ))
    .unwrap();
    let d = metal
        .create_device(fake.project(), &next_available("retry"))
        .await
        .unwrap();
    assert_eq!(fake.snapshot().world.devices_created, 1);
    assert_eq!(fake.call_count("createDevice"), 2);
    assert_eq!(fake.call_count("findProjectDevices"), 1);
    assert!(witness_of(&d).is_some());
}

/// Clients racing for fewer reservations than they want, with replies
/// lost after acting: every reservation gets exactly one device, each
/// winner its own, and the others `NoReservationAvailable`.
#[tokio::test(start_paused = true)]
async fn clients_racing_for_next_available_create_no_duplicates() {
    const RESERVATIONS: usize = 6;
    const CLIENTS: usize = 9;
    let fake = Fake::builder().reservations(RESERVATIONS).build();
    // Every other create loses its reply after acting.
    for n in (1..=(CLIENTS as u64)).step_by(2) {
        fake.inject(Fault::on("createDevice", FaultKind::DropAfter).nth(n))
            .unwrap();
    }
    let calls = (0..CLIENTS).map(|i| {
        let fake = fake.clone();
        async move {
            let metal = fake.client();
            metal
                .create_device(fake.project(), &next_available(&format!("racer-{i}")))
                .await
        }
    });
    let results = futures::future::join_all(calls).await;
    let mut devices = Vec::new();
    let mut none_left = 0;
    for r in results {
        match r {
            Ok(d) => devices.push(d),
            Err(Error::NoReservationAvailable { .. }) => none_left += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(devices.len(), RESERVATIONS);
    assert_eq!(none_left, CLIENTS - RESERVATIONS);
    let ids: HashSet<Option<Uuid>> = devices.iter().map(|d| d.id).collect();
    let hosts: HashSet<Option<&String>> = devices.iter().map(|d| d.hostname.as_ref()).collect();
    assert_eq!(ids.len(), RESERVATIONS, "two callers got one device");
    assert_eq!(hosts.len(), RESERVATIONS, "a caller got another's device");
    // The server holds exactly the winners' devices, one per reservation.
    let all = fake.devices();
    assert_eq!(all.len(), RESERVATIONS, "a duplicate was created");
    assert_eq!(fake.snapshot().world.devices_created, RESERVATIONS as u64);
    let reservations: HashSet<_> = all
        .iter()
        .map(|d| d.hardware_reservation.as_ref().and_then(|r| r.id))
        .collect();
    assert_eq!(reservations.len(), RESERVATIONS);
    assert!(fake.provisionable_reservations().is_empty());
    // Calls 1, 3, 5, 7 and 9 of createDevice lost their replies.
    let injected = fake.snapshot().faults_injected;
    assert_eq!(injected.get("drop_after"), Some(&5), "{injected:?}");
}

/// "None available" ends the call at once: one request, no retry, no
/// backoff, whatever the deadline.
#[tokio::test(start_paused = true)]
async fn none_available_is_returned_at_once() {
    let fake = Fake::builder().reservations(0).build();
    let metal = fake.client();
    let started = tokio::time::Instant::now();
    match metal
        .create_device(fake.project(), &next_available("x"))
        .await
    {
        Err(e @ Error::NoReservationAvailable { .. }) => assert_eq!(e.status(), Some(503)),
        other => panic!("{other:?}"),
    }
    assert_eq!(fake.call_count("createDevice"), 1);
    assert_eq!(started.elapsed(), std::time::Duration::ZERO);
}
