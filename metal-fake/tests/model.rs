//! The model and the in-process transport on tokio's paused clock:
//! lifecycles, reservation release, faults before and after acting,
//! latency, hangs, seeded random faults, pagination, and a soak run of
//! idempotent creates under random faults.

use std::time::Duration;

use metal_api::types;
use metal_fake::{Fake, Fault, FaultKind, RandomFaults, Timings};
use metal_policy::{AttemptError, Metal, Request, Response, Transport};
use tokio::time::{advance, Instant};
use uuid::Uuid;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn timings() -> Timings {
    Timings {
        queued: secs(2),
        provisioning: secs(10),
        power: secs(3),
        reinstall: secs(10),
        reservation_release: secs(20),
    }
}

fn create(fake: &Fake, reservation: Uuid, hostname: &str) -> Request {
    let input: types::DeviceCreateInMetroInput = types::DeviceCreateInMetroInput::builder()
        .metro("da")
        .plan("c3.small.x86")
        .operating_system("ubuntu_24_04")
        .hardware_reservation_id(reservation.to_string())
        .hostname(Some(hostname.to_string()))
        .try_into()
        .unwrap();
    Request::CreateDevice {
        project: fake.project(),
        body: types::CreateDeviceRequest::MetroInput(input),
    }
}

async fn state(fake: &Fake, id: Uuid) -> String {
    match fake
        .send(Request::GetDevice {
            id,
            include: None,
            exclude: None,
        })
        .await
        .unwrap()
    {
        Response::Device(d) => d.state.unwrap(),
        other => panic!("{other:?}"),
    }
}

async fn act(
    fake: &Fake,
    id: Uuid,
    action: types::DeviceActionInputType,
) -> Result<Response, AttemptError> {
    fake.send(Request::DeviceAction { id, action }).await
}

async fn created(fake: &Fake, request: Request) -> Uuid {
    match fake.send(request).await.unwrap() {
        Response::Device(d) => d.id.unwrap(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn lifecycle_follows_the_fakes_clock() {
    use types::DeviceActionInputType as A;
    let fake = Fake::builder().reservations(1).timings(timings()).build();
    let r = fake.provisionable_reservations()[0];
    let id = created(&fake, create(&fake, r, "a")).await;
    assert_eq!(state(&fake, id).await, "queued");
    advance(secs(2)).await;
    assert_eq!(state(&fake, id).await, "provisioning");
    // Actions wait for provisioning to end.
    assert!(matches!(
        act(&fake, id, A::Reboot).await,
        Err(AttemptError::Rejected { status: 422, .. })
    ));
    advance(secs(10)).await;
    assert_eq!(state(&fake, id).await, "active");

    act(&fake, id, A::PowerOff).await.unwrap();
    assert_eq!(state(&fake, id).await, "powering_off");
    advance(secs(3)).await;
    assert_eq!(state(&fake, id).await, "inactive");
    match act(&fake, id, A::PowerOff).await {
        Err(AttemptError::Rejected {
            status: 422,
            messages,
        }) => {
            assert_eq!(messages, ["Device must be powered on"])
        }
        other => panic!("{other:?}"),
    }
    act(&fake, id, A::PowerOn).await.unwrap();
    assert_eq!(state(&fake, id).await, "powering_on");
    advance(secs(3)).await;
    assert_eq!(state(&fake, id).await, "active");

    act(&fake, id, A::Reboot).await.unwrap();
    assert_eq!(fake.reboots(id), Some(1));
    assert_eq!(state(&fake, id).await, "active");
}

#[tokio::test(start_paused = true)]
async fn delete_frees_the_reservation_after_the_release_delay() {
    let fake = Fake::builder().reservations(1).timings(timings()).build();
    let r = fake.provisionable_reservations()[0];
    let id = created(&fake, create(&fake, r, "a")).await;
    // Taken: a second create is refused as the API does.
    match fake.send(create(&fake, r, "b")).await {
        Err(AttemptError::Rejected { status: 422, .. }) => {}
        other => panic!("{other:?}"),
    }
    fake.send(Request::DeleteDevice { id, force: false })
        .await
        .unwrap();
    assert!(matches!(
        fake.send(Request::GetDevice {
            id,
            include: None,
            exclude: None
        })
        .await,
        Err(AttemptError::Rejected { status: 404, .. })
    ));
    assert!(fake.provisionable_reservations().is_empty());
    match fake.send(create(&fake, r, "b")).await {
        Err(AttemptError::Rejected { status: 422, .. }) => {}
        other => panic!("{other:?}"),
    }
    advance(secs(20)).await;
    assert_eq!(fake.provisionable_reservations(), vec![r]);
    let again = created(&fake, create(&fake, r, "b")).await;
    assert_ne!(again, id);
}

#[tokio::test(start_paused = true)]
async fn refusals_are_the_apis() {
    let other = Uuid::new_v4();
    let fake = Fake::builder()
        .reservations(1)
        .other_project(other, 1)
        .build();
    let theirs = fake
        .reservations()
        .into_iter()
        .find(|r| r.project.as_ref().and_then(|p| p.id) == Some(other))
        .and_then(|r| r.id)
        .unwrap();
    let rejected = |r: Result<Response, AttemptError>| match r {
        Err(AttemptError::Rejected { status, messages }) => {
            assert!(!messages.is_empty());
            status
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(rejected(fake.send(create(&fake, theirs, "x")).await), 422);
    assert_eq!(
        rejected(fake.send(create(&fake, Uuid::new_v4(), "x")).await),
        404
    );
    assert_eq!(
        rejected(fake.send(Request::GetProject { id: Uuid::new_v4() }).await),
        404
    );
    let mut wrong_plan = create(&fake, fake.provisionable_reservations()[0], "x");
    if let Request::CreateDevice {
        body: types::CreateDeviceRequest::MetroInput(b),
        ..
    } = &mut wrong_plan
    {
        b.plan = "m3.large.x86".into();
    }
    assert_eq!(rejected(fake.send(wrong_plan).await), 422);
    assert!(fake.devices().is_empty());
}

#[tokio::test(start_paused = true)]
async fn include_and_exclude_shape_the_reply() {
    let fake = Fake::builder().reservations(1).build();
    let r = fake.provisionable_reservations()[0];
    let id = created(&fake, create(&fake, r, "a")).await;
    let get = |include: Option<&str>, exclude: Option<&str>| Request::GetDevice {
        id,
        include: include.map(Into::into),
        exclude: exclude.map(Into::into),
    };
    let Response::Device(plain) = fake.send(get(None, None)).await.unwrap() else {
        panic!()
    };
    let project = plain.project.unwrap();
    assert_eq!(project.id, None, "not included: a stub");
    assert_eq!(
        project.href.unwrap(),
        format!("/metal/v1/projects/{}", fake.project())
    );
    let hr = plain.hardware_reservation.unwrap();
    assert_eq!((hr.id, hr.href.is_some()), (None, true));

    let Response::Device(full) = fake
        .send(get(Some("project,hardware_reservation"), Some("plan")))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(full.project.unwrap().id, Some(fake.project()));
    assert_eq!(full.hardware_reservation.unwrap().id, Some(r));
    assert!(full.plan.is_none());

    let res = |include: Option<&str>| Request::GetReservation {
        id: r,
        include: include.map(Into::into),
    };
    let Response::Reservation(stub) = fake.send(res(None)).await.unwrap() else {
        panic!()
    };
    let device = stub.device.unwrap();
    assert_eq!(
        (device.id, device.href),
        (None, Some(format!("/metal/v1/devices/{id}")))
    );
    let Response::Reservation(with) = fake.send(res(Some("device"))).await.unwrap() else {
        panic!()
    };
    let device = with.device.unwrap();
    assert_eq!(device.id, Some(id));
    assert_eq!(device.hostname.as_deref(), Some("a"));
}

#[tokio::test(start_paused = true)]
async fn lists_paginate_with_meta() {
    let fake = Fake::builder().reservations(5).build();
    let page = |n| Request::ListReservations {
        project: fake.project(),
        page: n,
        per_page: 2,
        include: None,
    };
    let Response::Reservations(p2) = fake.send(page(2)).await.unwrap() else {
        panic!()
    };
    assert_eq!(p2.hardware_reservations.len(), 2);
    let meta = p2.meta.unwrap();
    assert_eq!(
        (meta.current_page, meta.last_page, meta.total),
        (Some(2), Some(3), Some(5))
    );
    assert!(meta.next.unwrap().href.ends_with("page=3&per_page=2"));
    assert!(meta.previous.unwrap().href.ends_with("page=1&per_page=2"));
    let Response::Reservations(p3) = fake.send(page(3)).await.unwrap() else {
        panic!()
    };
    assert_eq!(p3.hardware_reservations.len(), 1);
    assert!(p3.meta.unwrap().next.is_none());
}

#[tokio::test(start_paused = true)]
async fn fail_before_changes_nothing_and_fail_after_applies() {
    let fake = Fake::builder().reservations(2).build();
    let free = fake.provisionable_reservations();
    fake.inject(Fault::on(
        "createDevice",
        FaultKind::FailBefore { status: 500 },
    ));
    match fake.send(create(&fake, free[0], "a")).await {
        Err(AttemptError::Unknown {
            status: Some(500), ..
        }) => {}
        other => panic!("{other:?}"),
    }
    assert!(fake.devices().is_empty());

    fake.inject(Fault::on(
        "createDevice",
        FaultKind::FailAfter { status: 503 },
    ));
    match fake.send(create(&fake, free[0], "a")).await {
        Err(AttemptError::Unknown {
            status: Some(503), ..
        }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(fake.devices().len(), 1, "the lost-reply case: applied");

    fake.inject(Fault::on("createDevice", FaultKind::NotSent));
    assert!(matches!(
        fake.send(create(&fake, free[1], "b")).await,
        Err(AttemptError::NotSent { .. })
    ));
    fake.inject(Fault::on("createDevice", FaultKind::DropAfter));
    assert!(matches!(
        fake.send(create(&fake, free[1], "b")).await,
        Err(AttemptError::Unknown { status: None, .. })
    ));
    assert_eq!(fake.devices().len(), 2);
    let snap = fake.snapshot();
    assert_eq!(snap.requests["createDevice"].get("none"), Some(&2));
    assert_eq!(snap.faults_injected.len(), 4);
}

#[tokio::test(start_paused = true)]
async fn throttle_latency_and_hang() {
    let fake = Fake::builder().build();
    let get = || Request::GetProject { id: fake.project() };
    fake.inject(Fault::on(
        "findProjectById",
        FaultKind::Throttle {
            retry_after: Duration::from_millis(1500),
        },
    ));
    match fake.send(get()).await {
        Err(AttemptError::Throttled {
            status: 429,
            retry_after,
        }) => {
            assert_eq!(
                retry_after,
                Some(secs(2)),
                "whole seconds, as Retry-After says"
            )
        }
        other => panic!("{other:?}"),
    }
    fake.inject(Fault::on("findProjectById", FaultKind::Latency(secs(3))));
    let start = Instant::now();
    fake.send(get()).await.unwrap();
    assert_eq!(start.elapsed(), secs(3));

    fake.inject(Fault::on("findProjectById", FaultKind::Hang));
    let waited = tokio::time::timeout(secs(3600), fake.send(get())).await;
    assert!(waited.is_err(), "a hung reply never comes");
    fake.send(get()).await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn random_faults_repeat_with_the_seed() {
    let run = |seed| async move {
        let fake = Fake::builder()
            .random_faults(RandomFaults {
                rate: 0.4,
                seed,
                kinds: Vec::new(),
            })
            .build();
        for _ in 0..40 {
            let _ = fake.send(Request::GetProject { id: fake.project() }).await;
        }
        fake.calls()
            .into_iter()
            .map(|c| c.fault)
            .collect::<Vec<_>>()
    };
    let a = run(1).await;
    assert_eq!(a, run(1).await);
    assert_ne!(a, run(2).await);
    assert!(a.iter().any(Option::is_some) && a.iter().any(Option::is_none));
}

/// A soak run through the fake's own `Metal` (the policy client): 20
/// creates under 30 % random faults, each on its own reservation; every
/// device exists exactly once.
#[tokio::test(start_paused = true)]
async fn soak_creates_under_random_faults_make_each_device_once() {
    let fake = Fake::builder()
        .reservations(20)
        .random_faults(RandomFaults {
            rate: 0.3,
            seed: 42,
            kinds: Vec::new(),
        })
        .build();
    let free = fake.provisionable_reservations();
    let mut ids = Vec::new();
    for (i, r) in free.iter().enumerate() {
        let Request::CreateDevice { body, .. } = create(&fake, *r, &format!("soak-{i}")) else {
            unreachable!()
        };
        let d = fake.create_device(fake.project(), &body).await.unwrap();
        ids.push(d.id.unwrap());
    }
    let snap = fake.snapshot();
    assert_eq!(snap.world.devices_created, 20, "{snap:?}");
    assert_eq!(snap.world.reservations_with_device, 20);
    assert!(snap.faults_injected.values().sum::<u64>() >= 5, "{snap:?}");
    let devices = fake.devices();
    assert_eq!(devices.len(), 20);
    for (i, id) in ids.iter().enumerate() {
        let d = devices.iter().find(|d| d.id == Some(*id)).unwrap();
        assert_eq!(d.hostname.as_deref(), Some(format!("soak-{i}").as_str()));
    }
}
