//! The model through the generated client over the in-process exchange
//! (`Fake::api_client`), on tokio's paused clock: lifecycles, reservation
//! release, refusals, include/exclude, pagination, faults before and after
//! acting, latency, hangs under a timeout, and seeded random faults.

use std::time::Duration;

use metal_api::{types, ExchangeError};
use metal_fake::{Fake, Fault, FaultKind, RandomFaults, Timings};
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
        deprovisioning: secs(5),
        reservation_release: secs(20),
        ..Timings::default()
    }
}

/// What one call came to, as these tests compare it.
#[derive(Debug, PartialEq)]
enum Got {
    /// A success.
    Ok,
    /// An API reply with an error status: the status, the `errors` of its
    /// body (empty when the body is not the API's JSON) and `Retry-After`.
    Status {
        status: u16,
        messages: Vec<String>,
        retry_after: Option<String>,
    },
    /// The exchange says the request was never sent.
    NotSent,
    /// The exchange says the connection closed with no reply.
    NoReply,
    /// The reply's body could not be read whole.
    BodyCut,
    /// Anything else (a failure of the test).
    Other(String),
}

/// The status of a `Got::Status`, for short assertions.
fn status(got: &Got) -> Option<u16> {
    match got {
        Got::Status { status, .. } => Some(*status),
        _ => None,
    }
}

async fn got<T: std::fmt::Debug>(
    result: Result<metal_api::ResponseValue<T>, metal_api::Error<types::Error>>,
) -> Got {
    match result {
        Ok(_) => Got::Ok,
        Err(metal_api::Error::ErrorResponse(rv)) => Got::Status {
            status: rv.status().as_u16(),
            retry_after: None,
            messages: rv.into_inner().errors,
        },
        Err(metal_api::Error::UnexpectedResponse(resp)) => {
            let status = resp.status().as_u16();
            let retry_after = resp
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_string());
            let messages = resp
                .json::<types::Error>()
                .await
                .map(|e| e.errors)
                .unwrap_or_default();
            Got::Status {
                status,
                messages,
                retry_after,
            }
        }
        Err(metal_api::Error::CommunicationError(e)) => match ExchangeError::find(&e) {
            Some(ExchangeError::NotSent(_)) => Got::NotSent,
            Some(ExchangeError::NoReply(_)) => Got::NoReply,
            _ => Got::Other(format!("{e:?}")),
        },
        Err(metal_api::Error::ResponseBodyError(_)) => Got::BodyCut,
        Err(other) => Got::Other(format!("{other:?}")),
    }
}

fn create_body(reservation: Uuid, hostname: &str) -> types::CreateDeviceRequest {
    let input: types::DeviceCreateInMetroInput = types::DeviceCreateInMetroInput::builder()
        .metro("da")
        .plan("c3.small.x86")
        .operating_system("ubuntu_24_04")
        .hardware_reservation_id(reservation.to_string())
        .hostname(Some(hostname.to_string()))
        .try_into()
        .unwrap();
    types::CreateDeviceRequest::MetroInput(input)
}

async fn create(fake: &Fake, body: types::CreateDeviceRequest) -> Got {
    got(fake
        .api_client()
        .create_device()
        .id(fake.project())
        .body(body)
        .send()
        .await)
    .await
}

async fn created(fake: &Fake, reservation: Uuid, hostname: &str) -> Uuid {
    fake.api_client()
        .create_device()
        .id(fake.project())
        .body(create_body(reservation, hostname))
        .send()
        .await
        .unwrap()
        .into_inner()
        .id
        .unwrap()
}

async fn device(fake: &Fake, id: Uuid) -> Result<types::Device, Got> {
    match fake.api_client().find_device_by_id().id(id).send().await {
        Ok(d) => Ok(d.into_inner()),
        Err(e) => Err(got::<()>(Err(e)).await),
    }
}

async fn state(fake: &Fake, id: Uuid) -> String {
    device(fake, id).await.unwrap().state.unwrap()
}

async fn act(fake: &Fake, id: Uuid, action: types::DeviceActionInputType) -> Got {
    let input = types::DeviceActionInput {
        deprovision_fast: None,
        force_delete: None,
        ipxe_script_url: None,
        operating_system: None,
        preserve_data: None,
        type_: action,
    };
    got(fake
        .api_client()
        .perform_action()
        .id(id)
        .body(input)
        .send()
        .await)
    .await
}

async fn get_project(fake: &Fake) -> Got {
    got(fake
        .api_client()
        .find_project_by_id()
        .id(fake.project())
        .send()
        .await)
    .await
}

#[tokio::test(start_paused = true)]
async fn lifecycle_follows_the_fakes_clock() {
    use types::DeviceActionInputType as A;
    let fake = Fake::builder().reservations(1).timings(timings()).build();
    let r = fake.provisionable_reservations()[0];
    let id = created(&fake, r, "a").await;
    assert_eq!(state(&fake, id).await, "queued");
    advance(secs(2)).await;
    assert_eq!(state(&fake, id).await, "provisioning");
    // Actions wait for provisioning to end.
    assert_eq!(status(&act(&fake, id, A::Reboot).await), Some(422));
    advance(secs(10)).await;
    assert_eq!(state(&fake, id).await, "active");

    assert_eq!(act(&fake, id, A::PowerOff).await, Got::Ok);
    assert_eq!(state(&fake, id).await, "powering_off");
    advance(secs(3)).await;
    assert_eq!(state(&fake, id).await, "inactive");
    assert_eq!(
        act(&fake, id, A::PowerOff).await,
        Got::Status {
            status: 422,
            messages: vec!["Device must be powered on".to_string()],
            retry_after: None,
        }
    );
    assert_eq!(act(&fake, id, A::PowerOn).await, Got::Ok);
    assert_eq!(state(&fake, id).await, "powering_on");
    advance(secs(3)).await;
    assert_eq!(state(&fake, id).await, "active");

    assert_eq!(act(&fake, id, A::Reboot).await, Got::Ok);
    assert_eq!(fake.reboots(id), Some(1));
    assert_eq!(state(&fake, id).await, "active");
    // Every success status came from the spec: 201, 200, 202.
    let snap = fake.snapshot();
    assert_eq!(snap.requests["createDevice"]["201"], 1);
    assert_eq!(snap.requests["performAction"]["202"], 3);
    assert_eq!(snap.requests["performAction"]["422"], 2);
}

#[tokio::test(start_paused = true)]
async fn delete_frees_the_reservation_after_the_release_delay() {
    let fake = Fake::builder().reservations(1).timings(timings()).build();
    let r = fake.provisionable_reservations()[0];
    let id = created(&fake, r, "a").await;
    // Taken: a second create is refused as the API does.
    assert_eq!(status(&create(&fake, create_body(r, "b")).await), Some(422));
    // Deletable once provisioned (2 s queued, 10 s provisioning).
    advance(secs(12)).await;
    let deleted = fake.api_client().delete_device().id(id).send().await;
    assert_eq!(got(deleted).await, Got::Ok);
    assert_eq!(fake.snapshot().requests["deleteDevice"]["204"], 1);
    assert_eq!(state(&fake, id).await, "deprovisioning");
    advance(secs(5)).await;
    assert_eq!(status(&device(&fake, id).await.unwrap_err()), Some(404));
    assert!(fake.provisionable_reservations().is_empty());
    assert_eq!(status(&create(&fake, create_body(r, "b")).await), Some(422));
    // 20 s after the delete.
    advance(secs(15)).await;
    assert_eq!(fake.provisionable_reservations(), vec![r]);
    let again = created(&fake, r, "b").await;
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
    let refused = |g: Got| match g {
        Got::Status {
            status, messages, ..
        } => {
            assert!(!messages.is_empty());
            status
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(refused(create(&fake, create_body(theirs, "x")).await), 422);
    assert_eq!(
        refused(create(&fake, create_body(Uuid::new_v4(), "x")).await),
        404
    );
    let unknown = fake
        .api_client()
        .find_project_by_id()
        .id(Uuid::new_v4())
        .send()
        .await;
    assert_eq!(refused(got(unknown).await), 404);
    let mut wrong_plan = create_body(fake.provisionable_reservations()[0], "x");
    if let types::CreateDeviceRequest::MetroInput(b) = &mut wrong_plan {
        b.plan = "m3.large.x86".into();
    }
    assert_eq!(refused(create(&fake, wrong_plan).await), 422);
    assert!(fake.devices().is_empty());
}

#[tokio::test(start_paused = true)]
async fn include_and_exclude_shape_the_reply() {
    let fake = Fake::builder().reservations(1).build();
    let r = fake.provisionable_reservations()[0];
    let id = created(&fake, r, "a").await;
    let api = fake.api_client();
    let plain = device(&fake, id).await.unwrap();
    let project = plain.project.unwrap();
    assert_eq!(project.id, None, "not included: a stub");
    assert_eq!(
        project.href.unwrap(),
        format!("/metal/v1/projects/{}", fake.project())
    );
    let hr = plain.hardware_reservation.unwrap();
    assert_eq!((hr.id, hr.href.is_some()), (None, true));

    let full = api
        .find_device_by_id()
        .id(id)
        .include(metal_api::csv(["project", "hardware_reservation"]))
        .exclude("plan")
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(full.project.unwrap().id, Some(fake.project()));
    assert_eq!(full.hardware_reservation.unwrap().id, Some(r));
    // Excluded: its href alone (the spec's introduction).
    assert!(full.plan.is_none_or(|p| p.slug.is_none()));

    let stub = api
        .find_hardware_reservation_by_id()
        .id(r)
        .send()
        .await
        .unwrap()
        .into_inner();
    let d = stub.device.unwrap();
    assert_eq!(
        (d.id, d.href),
        (None, Some(format!("/metal/v1/devices/{id}")))
    );
    let with = api
        .find_hardware_reservation_by_id()
        .id(r)
        .include("device")
        .send()
        .await
        .unwrap()
        .into_inner();
    let d = with.device.unwrap();
    assert_eq!(d.id, Some(id));
    assert_eq!(d.hostname.as_deref(), Some("a"));
}

#[tokio::test(start_paused = true)]
async fn lists_paginate_with_meta() {
    let fake = Fake::builder().reservations(5).build();
    let api = fake.api_client();
    let page = |n: u32| {
        api.find_project_hardware_reservations()
            .id(fake.project())
            .page(std::num::NonZeroU32::new(n).unwrap())
            .per_page(std::num::NonZeroU32::new(2).unwrap())
            .send()
    };
    let p2 = page(2).await.unwrap().into_inner();
    assert_eq!(p2.hardware_reservations.len(), 2);
    let meta = p2.meta.unwrap();
    assert_eq!(
        (meta.current_page, meta.last_page, meta.total),
        (Some(2), Some(3), Some(5))
    );
    assert!(meta.next.unwrap().href.ends_with("page=3&per_page=2"));
    assert!(meta.previous.unwrap().href.ends_with("page=1&per_page=2"));
    let p3 = page(3).await.unwrap().into_inner();
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
    ))
    .unwrap();
    assert_eq!(
        status(&create(&fake, create_body(free[0], "a")).await),
        Some(500)
    );
    assert!(fake.devices().is_empty());

    fake.inject(Fault::on(
        "createDevice",
        FaultKind::FailAfter { status: 503 },
    ))
    .unwrap();
    assert_eq!(
        status(&create(&fake, create_body(free[0], "a")).await),
        Some(503)
    );
    assert_eq!(fake.devices().len(), 1, "the lost-reply case: applied");

    fake.inject(Fault::on("createDevice", FaultKind::NotSent))
        .unwrap();
    assert_eq!(create(&fake, create_body(free[1], "b")).await, Got::NotSent);
    assert_eq!(fake.devices().len(), 1, "never sent: nothing changed");
    fake.inject(Fault::on("createDevice", FaultKind::DropAfter))
        .unwrap();
    assert_eq!(create(&fake, create_body(free[1], "b")).await, Got::NoReply);
    assert_eq!(fake.devices().len(), 2, "dropped after acting: applied");

    fake.inject(Fault::on("findDeviceById", FaultKind::BadGateway))
        .unwrap();
    let id = fake.devices()[0].id.unwrap();
    let page = device(&fake, id).await.unwrap_err();
    assert_eq!(status(&page), Some(502));
    fake.inject(Fault::on("findDeviceById", FaultKind::Truncated))
        .unwrap();
    assert_eq!(device(&fake, id).await.unwrap_err(), Got::BodyCut);

    let snap = fake.snapshot();
    assert_eq!(snap.requests["createDevice"].get("none"), Some(&2));
    assert_eq!(snap.requests["createDevice"].get("500"), Some(&1));
    assert_eq!(snap.requests["createDevice"].get("503"), Some(&1));
    assert_eq!(snap.faults_injected.len(), 6);
}

#[tokio::test(start_paused = true)]
async fn a_competitor_takes_the_reservation_just_before_the_create() {
    let fake = Fake::builder().reservations(1).build();
    let r = fake.provisionable_reservations()[0];
    fake.inject(Fault::on("createDevice", FaultKind::Competitor))
        .unwrap();
    assert_eq!(
        status(&create(&fake, create_body(r, "mine")).await),
        Some(422),
        "the reservation already has a device"
    );
    let devices = fake.devices();
    assert_eq!(devices.len(), 1);
    assert!(fake.is_competitor(devices[0].id.unwrap()));
    assert_eq!(devices[0].tags, ["competitor"]);
    assert_eq!(fake.snapshot().world.competitor_devices, 1);
}

#[tokio::test(start_paused = true)]
async fn throttle_latency_and_hang() {
    let fake = Fake::builder().build();
    fake.inject(Fault::on(
        "findProjectById",
        FaultKind::Throttle {
            retry_after: Duration::from_millis(1500),
        },
    ))
    .unwrap();
    match get_project(&fake).await {
        Got::Status {
            status: 429,
            retry_after,
            ..
        } => assert_eq!(
            retry_after.as_deref(),
            Some("2"),
            "whole seconds, as Retry-After says"
        ),
        other => panic!("{other:?}"),
    }
    fake.inject(Fault::on("findProjectById", FaultKind::Latency(secs(3))))
        .unwrap();
    let start = Instant::now();
    assert_eq!(get_project(&fake).await, Got::Ok);
    assert_eq!(start.elapsed(), secs(3));

    fake.inject(Fault::on("findProjectById", FaultKind::Hang))
        .unwrap();
    let start = Instant::now();
    let waited = tokio::time::timeout(secs(3600), get_project(&fake)).await;
    assert!(waited.is_err(), "a hung reply never comes");
    assert_eq!(start.elapsed(), secs(3600), "ended by the caller's timeout");
    assert_eq!(get_project(&fake).await, Got::Ok);
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
            let _ = get_project(&fake).await;
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

/// 20 creates, one attempt each on its own reservation, under 30 % random
/// faults: a device exists exactly for the calls whose fault (if any)
/// applies the change, and the client's outcome matches the fault.
#[tokio::test(start_paused = true)]
async fn random_faults_apply_a_create_exactly_when_their_kind_applies() {
    let fake = Fake::builder()
        .reservations(20)
        .random_faults(RandomFaults {
            rate: 0.3,
            seed: 42,
            kinds: Vec::new(),
        })
        .build();
    let free = fake.provisionable_reservations();
    let mut outcomes = Vec::new();
    for (i, r) in free.iter().enumerate() {
        outcomes.push(create(&fake, create_body(*r, &format!("soak-{i}"))).await);
    }
    let calls = fake.calls();
    assert_eq!(calls.len(), 20);
    let applies = |label: Option<&str>| {
        let kind = FaultKind::recoverable()
            .into_iter()
            .find(|k| Some(k.label()) == label);
        kind.is_none_or(|k| k.applies_change() || matches!(k, FaultKind::Latency(_)))
    };
    let devices = fake.devices();
    for (i, (r, call)) in free.iter().zip(&calls).enumerate() {
        let on_r = devices
            .iter()
            .find(|d| d.hardware_reservation.as_ref().and_then(|h| h.id) == Some(*r));
        assert_eq!(on_r.is_some(), applies(call.fault), "{i}: {call:?}");
        if let Some(d) = on_r {
            assert_eq!(d.hostname.as_deref(), Some(format!("soak-{i}").as_str()));
        }
        let expected_ok = matches!(call.fault, None | Some("latency"));
        assert_eq!(
            outcomes[i] == Got::Ok,
            expected_ok,
            "{i}: {:?}",
            outcomes[i]
        );
    }
    let snap = fake.snapshot();
    assert!(snap.faults_injected.values().sum::<u64>() >= 3, "{snap:?}");
    assert_eq!(snap.world.devices_created as usize, devices.len());
}
