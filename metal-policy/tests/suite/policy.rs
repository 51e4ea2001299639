//! The policy's semantics against a scripted in-process exchange (real HTTP
//! replies below the generated client), on tokio's paused clock.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{
    assert_lines, client, device, device_with_state, gauge, metrics_text, Bounded, Fixed, Reply,
    Script,
};
use futures::StreamExt;
use metal_api::types;
use metal_policy::{AttemptError, Client, Error, ExponentialBackoff, Fields, KeyOwner, Metal};
use tokio::time::Instant;
use uuid::Uuid;

fn ok_device(op: &metal_api::Operation) -> Reply {
    Reply::ok(op, device(Uuid::nil(), &[]))
}

// ---------------------------------------------------------------- 1. concurrency

#[tokio::test(start_paused = true)]
async fn parallelism_bounds_in_flight_and_serves_waiters_fifo() {
    let t = Script::new(Duration::from_secs(10), |op, _, _| ok_device(op));
    let c = client(t.clone()).parallelism(2).build().unwrap();
    let ids: Vec<Uuid> = (0..6).map(|_| Uuid::new_v4()).collect();
    let mut tasks = Vec::new();
    for id in &ids {
        let c = c.clone();
        let id = *id;
        tasks.push(tokio::spawn(async move {
            c.get_device(id, &Fields::default()).await
        }));
        tokio::task::yield_now().await; // queue in this order
    }
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    assert_eq!(t.max_in_flight.load(Ordering::SeqCst), 2);
    let seen: Vec<Uuid> = t
        .requests()
        .iter()
        .map(|r| {
            assert_eq!(r.op, "findDeviceById");
            r.id()
        })
        .collect();
    assert_eq!(seen, ids, "FIFO");
    let times = t.times();
    let t0 = times[0];
    assert_eq!(times[4] - t0, Duration::from_secs(20));
}

#[tokio::test(start_paused = true)]
async fn a_call_sleeping_in_backoff_holds_no_slot() {
    let a = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |op, r, _| {
        // `a` fails once; its retry comes after a 100 s backoff.
        if r.id() == a {
            Reply::NotSent
        } else {
            ok_device(op)
        }
    });
    let c = client(t.clone())
        .parallelism(1)
        .backoff(Arc::new(Fixed(Duration::from_secs(100), Some(1))))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let ca = c.clone();
    let first = tokio::spawn(async move { ca.get_device(a, &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    assert!(
        t0.elapsed() < Duration::from_secs(100),
        "{:?}",
        t0.elapsed()
    );
    assert!(matches!(
        first.await.unwrap(),
        Err(Error::GaveUp { attempts: 2, .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn dropping_calls_anywhere_releases_slots_and_gauges() {
    let sleeper = Uuid::new_v4();
    let t = Script::new(Duration::from_secs(3600), move |op, r, _| {
        if r.id() == sleeper {
            Reply::NotSent
        } else {
            ok_device(op)
        }
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .parallelism(1)
        .registry(registry.clone())
        .backoff(Arc::new(Fixed(Duration::from_secs(3600), None)))
        .build()
        .unwrap();
    // One in flight, one waiting for the slot.
    let c1 = c.clone();
    let in_flight =
        tokio::spawn(async move { c1.get_device(Uuid::new_v4(), &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    let c2 = c.clone();
    let waiting =
        tokio::spawn(async move { c2.get_device(Uuid::new_v4(), &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 1.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 1.0);
    assert_eq!(t.in_flight.load(Ordering::SeqCst), 1);
    in_flight.abort();
    waiting.abort();
    let _ = in_flight.await;
    let _ = waiting.await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 0.0);
    assert_eq!(
        t.in_flight.load(Ordering::SeqCst),
        0,
        "the exchange dropped"
    );

    // One sleeping in backoff (after a 1 h attempt), then dropped.
    let c3 = c.clone();
    let backing_off = tokio::spawn(async move { c3.get_device(sleeper, &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(3601)).await;
    assert_eq!(
        gauge(&registry, "equinix_api_in_flight"),
        0.0,
        "no slot while sleeping"
    );
    backing_off.abort();
    let _ = backing_off.await;
    // The slot is free: a new call goes straight in.
    let start = Instant::now();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    assert_eq!(
        start.elapsed(),
        Duration::from_secs(3600),
        "only its own latency"
    );
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 0.0);
}

// ---------------------------------------------------------------- 2. rate limiting

#[tokio::test(start_paused = true)]
async fn every_request_takes_its_turn_from_the_shared_limiter() {
    let project = Uuid::new_v4();
    let reservation = Uuid::new_v4();
    let creates = AtomicUsize::new(0);
    let t = Script::new(Duration::ZERO, move |op, r, _| match op.id {
        "findProjectDevices" => Reply::ok(
            op,
            types::DeviceList {
                devices: vec![device(Uuid::new_v4(), &[])],
                meta: Some(types::Meta {
                    last_page: Some(3),
                    current_page: r.query("page").map(|p| p.parse().unwrap()),
                    ..Default::default()
                }),
            },
        ),
        "findHardwareReservationById" => Reply::ok(op, types::HardwareReservation::default()),
        // The first create's reply is lost.
        "createDevice" if creates.fetch_add(1, Ordering::SeqCst) == 0 => Reply::bad_gateway(),
        _ => ok_device(op),
    });
    let c = client(t.clone())
        .parallelism(4)
        .api_rate(Duration::from_secs(2))
        .backoff(Arc::new(Fixed(Duration::ZERO, None)))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let request = create_request(reservation);
    let (list, created) =
        tokio::join!(c.list_devices(project), c.create_device(project, &request),);
    assert_eq!(list.unwrap().len(), 3);
    created.unwrap();
    // 3 pages + create (unknown) + lookup + create = 6 requests, each 2 s
    // after the previous one, whoever made it.
    assert_eq!(t.count("findProjectDevices"), 3);
    assert_eq!(t.count("findHardwareReservationById"), 1);
    assert_eq!(t.count("createDevice"), 2);
    let mut times: Vec<Duration> = t.times().into_iter().map(|t| t - t0).collect();
    times.sort();
    let expected: Vec<Duration> = (0..6).map(|i| Duration::from_secs(2 * i)).collect();
    assert_eq!(times, expected);
}

#[tokio::test(start_paused = true)]
async fn a_throttling_reply_slows_the_whole_client_for_retry_after() {
    let t = Script::new(Duration::ZERO, |op, _, n| {
        if n == 0 {
            Reply::throttled(30)
        } else {
            ok_device(op)
        }
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .parallelism(2)
        .registry(registry.clone())
        .build()
        .unwrap();
    let t0 = Instant::now();
    let c1 = c.clone();
    let first =
        tokio::spawn(async move { c1.get_device(Uuid::new_v4(), &Fields::default()).await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    // Another call, which never saw the 429, also waits.
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    first.await.unwrap().unwrap();
    let times: Vec<Duration> = t.times().into_iter().map(|t| t - t0).collect();
    assert_eq!(times.len(), 3);
    assert_eq!(times[0], Duration::ZERO);
    assert!(times[1] >= Duration::from_secs(30), "{times:?}");
    assert!(times[2] >= Duration::from_secs(30), "{times:?}");
    let text = metrics_text(&registry);
    assert_lines(
        &text,
        &[
            r#"equinix_api_throttled_total{endpoint="findDeviceById"} 1"#,
            r#"equinix_api_attempts_total{endpoint="findDeviceById",outcome="throttled"} 1"#,
            r#"equinix_api_requests_total{endpoint="findDeviceById",status_code="429"} 1"#,
        ],
    );
}

#[tokio::test(start_paused = true)]
async fn throttling_pauses_are_capped_and_default_to_five_seconds() {
    let t = Script::new(Duration::ZERO, |op, _, n| match n {
        // An hour asked for: the client pauses 5 min at most.
        0 => Reply::throttled(3600),
        // No time given: 5 s.
        2 => Reply::errors(429, &["slow down"]),
        _ => ok_device(op),
    });
    let c = client(t.clone()).build().unwrap();
    let t0 = Instant::now();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    let times: Vec<Duration> = t.times().into_iter().map(|t| t - t0).collect();
    assert_eq!(
        times,
        [0, 300, 300, 305].map(Duration::from_secs),
        "{times:?}"
    );
}

// ---------------------------------------------------------------- 3. classification

#[tokio::test(start_paused = true)]
async fn reboot_with_unknown_outcome_is_not_repeated() {
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::bad_gateway());
    let c = client(t.clone())
        .backoff(Arc::new(Fixed(Duration::from_secs(1), Some(3))))
        .build()
        .unwrap();
    let err = c.reboot_device(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutcomeUnknown {
                operation: "performAction",
                attempts: 1,
                source: AttemptError::Unknown {
                    status: Some(502),
                    ..
                },
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.ops(), ["performAction"]);
    // A reply that never came is no different.
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::Dropped);
    let c = client(t.clone()).build().unwrap();
    let err = c.reboot_device(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutcomeUnknown {
                attempts: 1,
                source: AttemptError::Unknown { status: None, .. },
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn reboot_never_sent_is_retried() {
    let t = Script::new(Duration::ZERO, |op, _, n| {
        if n == 0 {
            Reply::NotSent
        } else {
            Reply::done(op)
        }
    });
    let c = client(t.clone()).build().unwrap();
    c.reboot_device(Uuid::new_v4()).await.unwrap();
    assert_eq!(t.ops(), ["performAction", "performAction"]);
    assert_eq!(
        t.requests()[1].body,
        Some(serde_json::json!({"type": "reboot"}))
    );
}

#[tokio::test(start_paused = true)]
async fn idempotent_read_retries_unknown_outcomes() {
    let t = Script::new(Duration::ZERO, |op, _, n| match n {
        0 => Reply::bad_gateway(),
        1 => Reply::Dropped,
        _ => ok_device(op),
    });
    let c = client(t.clone()).build().unwrap();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    assert_eq!(t.requests().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn rejections_return_at_once_with_the_server_messages() {
    // 401/403/404 are documented for findDeviceById, 400/409/422 are not:
    // both carry the server's messages.
    for status in [400, 401, 403, 404, 409, 422] {
        let t = Script::new(Duration::ZERO, move |_, _, _| Reply::rejected(status));
        let c = client(t.clone()).build().unwrap();
        let err = c
            .get_device(Uuid::new_v4(), &Fields::default())
            .await
            .unwrap_err();
        match err {
            Error::Rejected {
                operation,
                status: s,
                messages,
            } => {
                assert_eq!((operation, s), ("findDeviceById", status));
                assert_eq!(messages, vec![format!("server says {status}")]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(t.requests().len(), 1, "HTTP {status} not retried");
    }
}

#[tokio::test(start_paused = true)]
async fn decode_and_invalid_request_are_permanent() {
    let t = Script::new(Duration::ZERO, |op, _, _| {
        Reply::text(op.success, "not json")
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .registry(registry.clone())
        .build()
        .unwrap();
    assert!(matches!(
        c.get_project(Uuid::new_v4()).await,
        Err(Error::Decode {
            operation: "findProjectById",
            status: 200,
            ..
        })
    ));
    // The real status, not 0, whatever the success status is.
    let input = key_input("deploy", "k");
    let err = c
        .call(|api| api.create_ssh_key().body(input.clone()).send())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Decode {
                operation: "createSSHKey",
                status: 201,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.status(), Some(201));
    // The generated client's own validation: nothing is sent.
    let err = c
        .call(|api| api.find_project_by_id().send())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidRequest { reason, .. } if reason.contains("id")),
        "{err:?}"
    );
    // The policy's own: an SSH key needs a label.
    let err = c
        .create_ssh_key(KeyOwner::User, &key_input("  ", "k"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidRequest {
                operation: "createSSHKey",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.ops(), ["findProjectById", "createSSHKey"]);
    let text = metrics_text(&registry);
    assert_lines(
        &text,
        &[
            r#"equinix_api_attempts_total{endpoint="findProjectById",outcome="decode"} 1"#,
            r#"equinix_api_attempts_total{endpoint="createSSHKey",outcome="decode"} 1"#,
            r#"equinix_api_requests_total{endpoint="createSSHKey",status_code="201"} 1"#,
        ],
    );
    // The refused parameter is one attempt, classified `invalid`.
    assert!(text.contains(r#",outcome="invalid"} 1"#), "{text}");
}

#[tokio::test(start_paused = true)]
async fn default_backoff_gives_up_after_fifteen_minutes_with_the_last_error() {
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::bad_gateway());
    let c = Client::builder()
        .api(t.api())
        .api_rate(Duration::ZERO)
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = c
        .get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap_err();
    let elapsed = t0.elapsed();
    match err {
        Error::GaveUp {
            attempts,
            source: AttemptError::Unknown {
                status: Some(502), ..
            },
            ..
        } => {
            assert_eq!(attempts as usize, t.requests().len());
            assert!(attempts > 10, "{attempts}");
        }
        other => panic!("{other:?}"),
    }
    assert!(elapsed <= Duration::from_secs(15 * 60), "{elapsed:?}");
    assert!(elapsed >= Duration::from_secs(10 * 60), "{elapsed:?}");
}

#[tokio::test(start_paused = true)]
async fn deadline_ends_the_call_with_the_last_error() {
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::NotSent);
    let c = client(t.clone())
        .backoff(Arc::new(Fixed(Duration::from_secs(10), None)))
        .deadline(Some(Duration::from_secs(25)))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = c.get_project(Uuid::new_v4()).await.unwrap_err();
    assert_eq!(t0.elapsed(), Duration::from_secs(25));
    assert!(
        matches!(
            err,
            Error::DeadlineExceeded {
                operation: "findProjectById",
                attempts: 3,
                last: Some(AttemptError::NotSent { .. }),
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn attempt_timeout_is_an_unknown_outcome() {
    let t = Script::new(Duration::from_secs(60), |op, _, _| Reply::done(op));
    let c = client(t.clone())
        .attempt_timeout(Some(Duration::from_secs(5)))
        .build()
        .unwrap();
    // Not idempotent: the timed-out reboot is not repeated.
    let t0 = Instant::now();
    let err = c.reboot_device(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutcomeUnknown {
                attempts: 1,
                source: AttemptError::Unknown { status: None, .. },
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(t0.elapsed(), Duration::from_secs(5));
    assert_eq!(t.requests().len(), 1);
    assert_eq!(
        t.in_flight.load(Ordering::SeqCst),
        0,
        "the exchange dropped"
    );
}

#[tokio::test(start_paused = true)]
async fn a_reply_over_the_body_bound_is_too_large_and_permanent() {
    let t = Script::new(Duration::ZERO, |op, _, _| {
        Reply::ok(op, device(Uuid::new_v4(), &["x"; 100]))
    });
    let registry = prometheus::Registry::new();
    let c = Client::builder()
        .api(
            metal_api::Client::over(
                common::BASE_URL,
                Default::default(),
                Arc::new(Bounded(t.clone(), 64)),
            )
            .unwrap(),
        )
        .api_rate(Duration::ZERO)
        .registry(registry.clone())
        .backoff(Arc::new(Fixed(Duration::from_secs(1), None)))
        .build()
        .unwrap();
    let err = c
        .get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::TooLarge {
                operation: "findDeviceById",
                status: 200,
                limit: 64
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 1, "not retried");
    assert_lines(
        &metrics_text(&registry),
        &[r#"equinix_api_attempts_total{endpoint="findDeviceById",outcome="too_large"} 1"#],
    );
}

#[tokio::test(start_paused = true)]
async fn a_redirect_is_a_permanent_rejection_naming_its_location() {
    let t = Script::new(Duration::ZERO, |_, _, _| {
        Reply::text(302, "").header("location", "http://elsewhere.invalid/devices")
    });
    let c = client(t.clone()).build().unwrap();
    let err = c
        .get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap_err();
    match &err {
        Error::Rejected {
            status: 302,
            messages,
            ..
        } => assert!(
            messages[0].contains("http://elsewhere.invalid/devices"),
            "{messages:?}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(t.requests().len(), 1, "neither followed nor retried");
}

// ---------------------------------------------------------------- 4. create_device

fn create_request(reservation: Uuid) -> types::CreateDeviceRequest {
    types::CreateDeviceRequest::MetroInput(types::DeviceCreateInMetroInput {
        always_pxe: false,
        billing_cycle: None,
        customdata: Default::default(),
        description: None,
        features: vec![],
        hardware_reservation_id: reservation.to_string(),
        hostname: Some("node-1".into()),
        ip_addresses: vec![],
        ipxe_script_url: None,
        locked: false,
        metro: "am".into(),
        network_frozen: None,
        no_ssh_keys: false,
        operating_system: "custom_ipxe".into(),
        plan: "m3.small.x86".into(),
        private_ipv4_subnet_size: None,
        project_ssh_keys: vec![],
        public_ipv4_subnet_size: None,
        spot_instance: None,
        spot_price_max: None,
        ssh_keys: vec![],
        storage: None,
        tags: vec!["caller-tag".into()],
        termination_time: None,
        user_ssh_keys: vec![],
        userdata: None,
    })
}

/// A create's reply: a new device with the request's tags.
fn created(op: &metal_api::Operation, request: &common::Seen) -> Reply {
    Reply::ok(
        op,
        types::Device {
            id: Some(Uuid::new_v4()),
            tags: request.tags(),
            ..Default::default()
        },
    )
}

fn reservation_with(device: Option<types::Device>) -> types::HardwareReservation {
    types::HardwareReservation {
        device: device.map(Box::new),
        ..Default::default()
    }
}

#[tokio::test(start_paused = true)]
async fn create_device_without_a_reservation_sends_nothing() {
    let t = Script::new(Duration::ZERO, |op, _, _| ok_device(op));
    let c = client(t.clone()).build().unwrap();
    for bad in ["", "not-a-uuid"] {
        let mut req = create_request(Uuid::nil());
        if let types::CreateDeviceRequest::MetroInput(m) = &mut req {
            m.hardware_reservation_id = bad.into();
        }
        assert!(matches!(
            c.create_device(Uuid::new_v4(), &req).await,
            Err(Error::NoReservation)
        ));
    }
    assert!(t.requests().is_empty());
}

#[tokio::test(start_paused = true)]
async fn create_device_after_unknown_outcome_finds_its_own_device() {
    let reservation = Uuid::new_v4();
    let created = Uuid::new_v4();
    // The server creates the device but the reply is lost.
    let stored: Arc<Mutex<Option<types::Device>>> = Arc::default();
    let s = stored.clone();
    let t = Script::new(Duration::ZERO, move |op, r, _| match op.id {
        "findHardwareReservationById" => {
            assert_eq!(r.id(), reservation);
            assert_eq!(r.query("include").as_deref(), Some("device"));
            Reply::ok(
                op,
                types::HardwareReservation {
                    id: Some(reservation),
                    device: s.lock().unwrap().clone().map(Box::new),
                    ..Default::default()
                },
            )
        }
        "createDevice" => {
            *s.lock().unwrap() = Some(types::Device {
                id: Some(created),
                tags: r.tags(),
                ..Default::default()
            });
            Reply::bad_gateway()
        }
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    let request = create_request(reservation);
    let before = request.clone();
    let d = c.create_device(Uuid::new_v4(), &request).await.unwrap();
    assert_eq!(d.id, Some(created));
    assert_eq!(request, before, "the caller's request is not changed");
    assert_eq!(t.count("createDevice"), 1, "created once");
    // The first attempt creates without reading; only the attempt after
    // the lost reply reads the reservation, and finds its witness there.
    assert_eq!(t.ops(), ["createDevice", "findHardwareReservationById"]);
    let witness: Vec<String> = d
        .tags
        .iter()
        .filter(|t| t.starts_with("wrapngo-idempotency-"))
        .cloned()
        .collect();
    assert_eq!(witness.len(), 1);
    assert!(Uuid::parse_str(&witness[0]["wrapngo-idempotency-".len()..]).is_ok());
    assert!(d.tags.contains(&"caller-tag".to_string()));
}

#[tokio::test(start_paused = true)]
async fn create_device_witness_is_reused_on_every_attempt() {
    let reservation = Uuid::new_v4();
    let creates = AtomicUsize::new(0);
    let t = Script::new(Duration::ZERO, move |op, r, _| match op.id {
        "findHardwareReservationById" => Reply::ok(op, reservation_with(None)),
        "createDevice" if creates.fetch_add(1, Ordering::SeqCst) < 2 => Reply::NotSent,
        "createDevice" => Reply::ok(
            op,
            types::Device {
                tags: r.tags(),
                ..Default::default()
            },
        ),
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    c.create_device(Uuid::new_v4(), &create_request(reservation))
        .await
        .unwrap();
    // Not sent is no unknown outcome: nothing to look for before creating.
    assert_eq!(t.count("findHardwareReservationById"), 0);
    let witnesses: Vec<Vec<String>> = t
        .requests()
        .iter()
        .filter(|r| r.op == "createDevice")
        .map(|r| r.tags())
        .collect();
    assert_eq!(witnesses.len(), 3);
    assert!(witnesses.iter().all(|w| w == &witnesses[0] && w.len() == 2));
}

#[tokio::test(start_paused = true)]
async fn create_device_on_a_reservation_taken_by_someone_else_is_race_lost() {
    let reservation = Uuid::new_v4();
    let theirs = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |op, _, _| match op.id {
        "findHardwareReservationById" => Reply::ok(
            op,
            reservation_with(Some(device(theirs, &["wrapngo-idempotency-someone-else"]))),
        ),
        // The API refuses a create on a reservation that holds a device.
        "createDevice" => Reply::errors(
            422,
            &["Hardware reservation already has a device provisioned on it"],
        ),
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    let err = c
        .create_device(Uuid::new_v4(), &create_request(reservation))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::RaceLost { reservation: r, device: Some(d) } if r == reservation && d == theirs),
        "{err:?}"
    );
    // The create first, refused; one read tells the race lost; no retry.
    assert_eq!(t.ops(), ["createDevice", "findHardwareReservationById"]);
}

#[tokio::test(start_paused = true)]
async fn create_device_on_a_free_reservation_is_one_request() {
    let reservation = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, |op, r, _| match op.id {
        "createDevice" => created(op, r),
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    let d = c
        .create_device(Uuid::new_v4(), &create_request(reservation))
        .await
        .unwrap();
    assert_eq!(t.ops(), ["createDevice"]);
    assert!(d.tags.iter().any(|t| t.starts_with("wrapngo-idempotency-")));
}

#[tokio::test(start_paused = true)]
async fn create_device_reads_the_reservation_only_after_an_unknown_outcome() {
    // A 500 (unknown: the server may have acted), a timeout (unknown), a
    // throttling reply (known: it did not act) and a success. The
    // reservation is read before each attempt after the first unknown
    // outcome, never before the first attempt.
    let reservation = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |op, r, n| match (op.id, n) {
        ("createDevice", 0) => Reply::throttled(1),
        ("createDevice", 1) => Reply::rejected(500),
        ("findHardwareReservationById", _) => {
            assert_eq!(r.query("include").as_deref(), Some("device"));
            Reply::ok(op, reservation_with(None))
        }
        ("createDevice", 3) => Reply::Hang,
        ("createDevice", _) => created(op, r),
        other => panic!("{other:?}"),
    });
    let c = client(t.clone())
        .attempt_timeout(Some(Duration::from_secs(5)))
        .build()
        .unwrap();
    c.create_device(Uuid::new_v4(), &create_request(reservation))
        .await
        .unwrap();
    assert_eq!(
        t.ops(),
        [
            "createDevice",
            "createDevice",
            "findHardwareReservationById",
            "createDevice",
            "findHardwareReservationById",
            "createDevice",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn create_device_refused_because_a_competitor_took_the_reservation_is_race_lost() {
    let reservation = Uuid::new_v4();
    let theirs = Uuid::new_v4();
    let taken = Arc::new(Mutex::new(false));
    let tk = taken.clone();
    let t = Script::new(Duration::ZERO, move |op, _, _| match op.id {
        "findHardwareReservationById" => {
            let device = tk.lock().unwrap().then(|| device(theirs, &["not-ours"]));
            Reply::ok(op, reservation_with(device))
        }
        "createDevice" => {
            // The competitor gets there between our read and our create.
            *tk.lock().unwrap() = true;
            Reply::errors(
                422,
                &["Hardware reservation already has a device provisioned on it"],
            )
        }
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    let err = c
        .create_device(Uuid::new_v4(), &create_request(reservation))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::RaceLost { device: Some(d), .. } if d == theirs),
        "{err:?}"
    );
    assert_eq!(t.ops(), ["createDevice", "findHardwareReservationById"]);
}

#[tokio::test(start_paused = true)]
async fn create_device_422_with_the_reservation_still_free_is_rejected() {
    let t = Script::new(Duration::ZERO, |op, _, _| match op.id {
        "findHardwareReservationById" => Reply::ok(op, reservation_with(None)),
        "createDevice" => Reply::rejected(422),
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    let err = c
        .create_device(Uuid::new_v4(), &create_request(Uuid::new_v4()))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Rejected { operation: "createDevice", status: 422, messages } if messages == &["server says 422"]),
        "{err:?}"
    );
    assert_eq!(t.count("createDevice"), 1);
}

// ---------------------------------------------------------------- 5. SSH keys

fn key(label: &str, key: &str) -> types::SshKey {
    types::SshKey {
        id: Some(Uuid::new_v4()),
        label: Some(label.into()),
        key: Some(key.into()),
        ..Default::default()
    }
}

fn key_input(label: &str, k: &str) -> types::SshKeyCreateInput {
    types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some(k.into()),
        label: Some(label.into()),
        tags: vec![],
    }
}

fn key_list(keys: Vec<types::SshKey>) -> types::SshKeyList {
    types::SshKeyList { ssh_keys: keys }
}

#[tokio::test(start_paused = true)]
async fn ssh_key_with_same_label_and_key_is_returned_not_created() {
    let project = Uuid::new_v4();
    let existing = key("deploy", "ssh-ed25519 AAAA");
    let e = existing.clone();
    let t = Script::new(Duration::ZERO, move |op, r, _| match op.id {
        "findProjectSSHKeys" => {
            assert_eq!(r.id(), project);
            Reply::ok(op, key_list(vec![key("other", "x"), e.clone()]))
        }
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    let k = c
        .create_ssh_key(
            KeyOwner::Project(project),
            &key_input("deploy", "ssh-ed25519 AAAA"),
        )
        .await
        .unwrap();
    assert_eq!(k, existing);
    assert_eq!(t.count("createProjectSSHKey"), 0);
}

#[tokio::test(start_paused = true)]
async fn ssh_key_label_conflict_is_permanent() {
    let existing = key("deploy", "ssh-ed25519 OLD");
    let e = existing.clone();
    let t = Script::new(Duration::ZERO, move |op, _, _| {
        Reply::ok(op, key_list(vec![e.clone()]))
    });
    let c = client(t.clone()).build().unwrap();
    let err = c
        .create_ssh_key(KeyOwner::User, &key_input("deploy", "ssh-ed25519 NEW"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::SshKeyLabelConflict { label, existing: Some(id) } if label == "deploy" && Some(*id) == existing.id),
        "{err:?}"
    );
    assert_eq!(t.ops(), ["findSSHKeys"], "not retried, nothing created");
}

#[tokio::test(start_paused = true)]
async fn ssh_key_created_after_lost_reply_is_found_on_retry() {
    let stored: Arc<Mutex<Vec<types::SshKey>>> = Arc::default();
    let s = stored.clone();
    let t = Script::new(Duration::ZERO, move |op, r, _| match op.id {
        "findSSHKeys" => Reply::ok(op, key_list(s.lock().unwrap().clone())),
        "createSSHKey" => {
            let body = r.body.as_ref().unwrap();
            s.lock().unwrap().push(key(
                body["label"].as_str().unwrap(),
                body["key"].as_str().unwrap(),
            ));
            Reply::bad_gateway()
        }
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    let k = c
        .create_ssh_key(KeyOwner::User, &key_input("deploy", "k"))
        .await
        .unwrap();
    assert_eq!(k.label.as_deref(), Some("deploy"));
    assert_eq!(k.id, stored.lock().unwrap()[0].id);
    assert_eq!(t.count("createSSHKey"), 1);
    assert_eq!(stored.lock().unwrap().len(), 1);
}

/// The keys of one API account, as the server keeps them: a create whose
/// key is already there is refused with the API's 422 ("Fingerprint has
/// already been taken"), and so is one whose label is taken.
fn key_server(keys: Arc<Mutex<Vec<types::SshKey>>>) -> Arc<Script> {
    // Every request takes 1 s, so racing clients all list before any of
    // them creates.
    Script::new(Duration::from_secs(1), move |op, r, _| match op.id {
        "findSSHKeys" | "findProjectSSHKeys" => {
            Reply::ok(op, key_list(keys.lock().unwrap().clone()))
        }
        "createSSHKey" | "createProjectSSHKey" => {
            let body = r.body.as_ref().unwrap();
            let (label, k) = (
                body["label"].as_str().unwrap(),
                body["key"].as_str().unwrap(),
            );
            let mut keys = keys.lock().unwrap();
            if keys.iter().any(|x| x.key.as_deref() == Some(k)) {
                return Reply::errors(422, &["Fingerprint has already been taken"]);
            }
            if keys.iter().any(|x| x.label.as_deref() == Some(label)) {
                return Reply::errors(422, &["Label has already been taken"]);
            }
            let created = key(label, k);
            keys.push(created.clone());
            Reply::ok(op, created)
        }
        other => panic!("{other}"),
    })
}

#[tokio::test(start_paused = true)]
async fn clients_racing_to_create_the_same_ssh_key_all_get_it() {
    // Three processes (three clients, each with its own limits) ensure the
    // same key at once against one account.
    let keys: Arc<Mutex<Vec<types::SshKey>>> = Arc::default();
    let server = key_server(keys.clone());
    let clients: Vec<Client> = (0..3)
        .map(|_| client(server.clone()).build().unwrap())
        .collect();
    let input = key_input("provision-example", "ssh-ed25519 AAAA");
    let results = futures::future::join_all(
        clients
            .iter()
            .map(|c| c.create_ssh_key(KeyOwner::User, &input)),
    )
    .await;
    let keys = keys.lock().unwrap().clone();
    assert_eq!(keys.len(), 1, "one key created");
    for r in results {
        let k = r.expect("the losers of the race get the key, not the 422");
        assert_eq!(k.id, keys[0].id);
    }
    // Each listed, found nothing and created; the two refused re-listed.
    assert_eq!(server.count("createSSHKey"), 3);
    assert_eq!(server.count("findSSHKeys"), 5);
}

#[tokio::test(start_paused = true)]
async fn a_race_lost_to_another_key_under_the_label_is_a_label_conflict() {
    let project = Uuid::new_v4();
    let keys: Arc<Mutex<Vec<types::SshKey>>> = Arc::default();
    let server = key_server(keys.clone());
    let ours = client(server.clone()).build().unwrap();
    let theirs = client(server.clone()).build().unwrap();
    let owner = KeyOwner::Project(project);
    let (their_key, our_key) = (
        key_input("deploy", "ssh-ed25519 THEIRS"),
        key_input("deploy", "ssh-ed25519 OURS"),
    );
    // They create first (at 2 s, their list and create taking 1 s each);
    // ours lists at 0.5 s, finds no key, and its create is refused.
    let (theirs, ours) = tokio::join!(theirs.create_ssh_key(owner, &their_key), async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        ours.create_ssh_key(owner, &our_key).await
    });
    let theirs = theirs.unwrap();
    let err = ours.unwrap_err();
    assert!(
        matches!(&err, Error::SshKeyLabelConflict { label, existing } if label == "deploy" && *existing == theirs.id),
        "{err:?}"
    );
    assert_eq!(keys.lock().unwrap().len(), 1);
    assert_eq!(server.count("createProjectSSHKey"), 2);
}

// ---------------------------------------------------------------- 6. delete, power, move

#[tokio::test(start_paused = true)]
async fn delete_device_404_after_unknown_outcome_is_success() {
    let t = Script::new(Duration::ZERO, |_, _, n| {
        if n == 0 {
            Reply::bad_gateway()
        } else {
            Reply::rejected(404)
        }
    });
    let c = client(t.clone()).build().unwrap();
    c.delete_device(Uuid::new_v4()).await.unwrap();
    assert_eq!(t.ops(), ["deleteDevice", "deleteDevice"]);
    assert_eq!(
        t.requests()[0].query("force_delete").as_deref(),
        Some("false")
    );
    // The same rule for SSH keys.
    let t = Script::new(Duration::ZERO, |_, _, n| {
        if n == 0 {
            Reply::Dropped
        } else {
            Reply::rejected(404)
        }
    });
    let c = client(t.clone()).build().unwrap();
    c.delete_ssh_key(Uuid::new_v4()).await.unwrap();
    assert_eq!(t.ops(), ["deleteSSHKey", "deleteSSHKey"]);
}

#[tokio::test(start_paused = true)]
async fn delete_device_404_on_first_attempt_is_rejected() {
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::rejected(404));
    let c = client(t.clone()).build().unwrap();
    let err = c.delete_device(Uuid::new_v4()).await.unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    let err = c.delete_ssh_key(Uuid::new_v4()).await.unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    // Not after an unknown outcome either when the first failure was "not sent".
    let t = Script::new(Duration::ZERO, |_, _, n| {
        if n == 0 {
            Reply::NotSent
        } else {
            Reply::rejected(404)
        }
    });
    let c = client(t.clone()).build().unwrap();
    assert!(c
        .delete_device(Uuid::new_v4())
        .await
        .unwrap_err()
        .is_not_found());
    assert_eq!(t.requests().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn power_off_after_unknown_outcome_checks_the_state_first() {
    let id = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |op, _, _| match op.id {
        "performAction" => Reply::bad_gateway(),
        "findDeviceById" => Reply::ok(op, device_with_state(id, "powering_off")),
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    c.power_off_device(id).await.unwrap();
    assert_eq!(t.count("performAction"), 1, "not sent twice");
    assert_eq!(t.count("findDeviceById"), 1);
}

#[tokio::test(start_paused = true)]
async fn power_on_after_unknown_outcome_repeats_when_still_off() {
    let id = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |op, r, n| match op.id {
        "performAction" => {
            assert_eq!(r.body, Some(serde_json::json!({"type": "power_on"})));
            if n == 0 {
                Reply::bad_gateway()
            } else {
                Reply::done(op)
            }
        }
        "findDeviceById" => Reply::ok(op, device_with_state(id, "inactive")),
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    c.power_on_device(id).await.unwrap();
    assert_eq!(
        t.ops(),
        ["performAction", "findDeviceById", "performAction"]
    );
}

#[tokio::test(start_paused = true)]
async fn power_off_refused_because_already_off_is_success() {
    let id = Uuid::new_v4();
    let state = Arc::new(Mutex::new("inactive"));
    let s = state.clone();
    let t = Script::new(Duration::ZERO, move |op, _, _| match op.id {
        "performAction" => Reply::errors(422, &["Device must be powered on"]),
        "findDeviceById" => Reply::ok(op, device_with_state(id, &s.lock().unwrap())),
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    c.power_off_device(id).await.unwrap();
    assert_eq!(t.count("performAction"), 1);
    // Refused while in another state: the rejection stands.
    *state.lock().unwrap() = "provisioning";
    let err = c.power_off_device(id).await.unwrap_err();
    assert!(
        matches!(&err, Error::Rejected { status: 422, messages, .. } if messages == &["Device must be powered on"]),
        "{err:?}"
    );
    assert_eq!(t.count("performAction"), 2);
}

#[tokio::test(start_paused = true)]
async fn move_reservation_after_unknown_outcome_succeeds_if_already_moved() {
    let id = Uuid::new_v4();
    let target = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |op, r, _| match op.id {
        "moveHardwareReservation" => {
            assert_eq!(
                r.body,
                Some(serde_json::json!({"project_id": target.to_string()}))
            );
            Reply::bad_gateway()
        }
        "findHardwareReservationById" => Reply::ok(
            op,
            types::HardwareReservation {
                id: Some(id),
                project: Some(types::Project {
                    id: Some(target),
                    ..Default::default()
                }),
                ..Default::default()
            },
        ),
        other => panic!("{other}"),
    });
    let c = client(t.clone()).build().unwrap();
    let hr = c.move_reservation(id, target).await.unwrap();
    assert_eq!(hr.id, Some(id));
    assert_eq!(
        t.ops(),
        ["moveHardwareReservation", "findHardwareReservationById"]
    );
}

// ---------------------------------------------------------------- 7. pagination

fn page_of(ids: &[Uuid], page: i64, last: i64) -> types::DeviceList {
    types::DeviceList {
        devices: ids.iter().map(|i| device(*i, &[])).collect(),
        meta: Some(types::Meta {
            current_page: Some(page),
            last_page: Some(last),
            ..Default::default()
        }),
    }
}

#[tokio::test(start_paused = true)]
async fn list_follows_every_page_retries_only_the_failed_page_and_dedupes() {
    let ids: Vec<Uuid> = (0..5).map(|_| Uuid::new_v4()).collect();
    let i = ids.clone();
    let failed = AtomicUsize::new(0);
    let t = Script::new(Duration::ZERO, move |op, r, _| {
        assert_eq!(op.id, "findProjectDevices");
        assert_eq!(r.query("per_page").as_deref(), Some("2"));
        match r.query("page").as_deref() {
            Some("1") => Reply::ok(op, page_of(&i[0..2], 1, 3)),
            Some("2") if failed.fetch_add(1, Ordering::SeqCst) == 0 => Reply::bad_gateway(),
            // An entry of page 1 shows again (the list shifted).
            Some("2") => Reply::ok(op, page_of(&[i[1], i[2], i[3]], 2, 3)),
            Some("3") => Reply::ok(op, page_of(&i[4..5], 3, 3)),
            other => panic!("{other:?}"),
        }
    });
    let c = client(t.clone()).per_page(2).build().unwrap();
    let got: Vec<Uuid> = c
        .list_devices(Uuid::new_v4())
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.id.unwrap())
        .collect();
    assert_eq!(got, ids);
    let pages: Vec<String> = t
        .requests()
        .iter()
        .map(|r| r.query("page").unwrap())
        .collect();
    assert_eq!(pages, ["1", "2", "2", "3"], "page 1 is not fetched again");
}

#[tokio::test(start_paused = true)]
async fn a_list_shares_one_deadline_across_its_pages() {
    // Each page takes 10 s and there are 5 of them; the deadline of 25 s
    // is for the whole list, not for each page.
    let t = Script::new(Duration::from_secs(10), |op, r, _| {
        let page: i64 = r.query("page").unwrap().parse().unwrap();
        Reply::ok(op, page_of(&[Uuid::new_v4()], page, 5))
    });
    let c = client(t.clone())
        .per_page(1)
        .deadline(Some(Duration::from_secs(25)))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = c.list_devices(Uuid::new_v4()).await.unwrap_err();
    assert_eq!(t0.elapsed(), Duration::from_secs(25));
    assert!(
        matches!(
            err,
            Error::DeadlineExceeded {
                operation: "findProjectDevices",
                attempts: 1,
                last: None,
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn device_pages_streams_page_by_page_following_next() {
    let t = Script::new(Duration::ZERO, |op, r, _| {
        assert_eq!(op.id, "findProjectDevices");
        let page: u32 = r.query("page").unwrap().parse().unwrap();
        Reply::ok(
            op,
            types::DeviceList {
                devices: vec![device(Uuid::new_v4(), &[])],
                meta: Some(types::Meta {
                    next: (page < 4).then(|| types::Href {
                        href: format!("/x?page={}", page + 1),
                    }),
                    ..Default::default()
                }),
            },
        )
    });
    let c = client(t.clone()).build().unwrap();
    let mut stream = c.device_pages(Uuid::new_v4());
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(t.requests().len(), 1, "lazily, one page at a time");
    let rest: Vec<_> = stream.collect().await;
    assert_eq!(rest.len(), 3);
    assert!(rest.iter().all(|p| p.as_ref().unwrap().len() == 1));
    assert_eq!(t.requests().len(), 4);
}

#[tokio::test(start_paused = true)]
async fn list_reservations_includes_facility_and_device_on_every_page() {
    let t = Script::new(Duration::ZERO, |op, r, _| {
        assert_eq!(r.query("include").as_deref(), Some("facility,device"));
        let page: i64 = r.query("page").unwrap().parse().unwrap();
        Reply::ok(
            op,
            types::HardwareReservationList {
                hardware_reservations: vec![types::HardwareReservation {
                    id: Some(Uuid::new_v4()),
                    ..Default::default()
                }],
                meta: Some(types::Meta {
                    last_page: Some(2),
                    current_page: Some(page),
                    ..Default::default()
                }),
            },
        )
    });
    let c = client(t.clone()).build().unwrap();
    assert_eq!(c.list_reservations(Uuid::new_v4()).await.unwrap().len(), 2);
    assert_eq!(
        t.ops(),
        [
            "findProjectHardwareReservations",
            "findProjectHardwareReservations"
        ]
    );
}

// ---------------------------------------------------------------- 8. metrics

#[tokio::test(start_paused = true)]
async fn metrics_label_each_request_by_operation_and_outcome() {
    let t = Script::new(Duration::from_millis(300), |op, _, n| match op.id {
        "findDeviceById" if n == 0 => Reply::bad_gateway(),
        "findDeviceById" => ok_device(op),
        "deleteSSHKey" => Reply::done(op),
        _ => Reply::rejected(404),
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .api_rate(Duration::from_secs(2))
        .registry(registry.clone())
        .build()
        .unwrap();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    c.delete_ssh_key(Uuid::new_v4()).await.unwrap();
    let _ = c.get_project(Uuid::new_v4()).await;
    let text = metrics_text(&registry);
    assert_lines(
        &text,
        &[
            r#"equinix_api_latency_count{endpoint="findDeviceById",status_code="502"} 1"#,
            r#"equinix_api_latency_count{endpoint="findDeviceById",status_code="200"} 1"#,
            r#"equinix_api_latency_count{endpoint="deleteSSHKey",status_code="204"} 1"#,
            r#"equinix_api_latency_count{endpoint="findProjectById",status_code="404"} 1"#,
            r#"equinix_api_requests_total{endpoint="findDeviceById",status_code="502"} 1"#,
            r#"equinix_api_requests_total{endpoint="findDeviceById",status_code="200"} 1"#,
            r#"equinix_api_requests_total{endpoint="deleteSSHKey",status_code="204"} 1"#,
            r#"equinix_api_requests_total{endpoint="findProjectById",status_code="404"} 1"#,
            r#"equinix_api_attempts_total{endpoint="findDeviceById",outcome="unknown"} 1"#,
            r#"equinix_api_attempts_total{endpoint="findDeviceById",outcome="ok"} 1"#,
            r#"equinix_api_attempts_total{endpoint="deleteSSHKey",outcome="ok"} 1"#,
            r#"equinix_api_attempts_total{endpoint="findProjectById",outcome="rejected"} 1"#,
            r#"equinix_api_retries_total{endpoint="findDeviceById"} 1"#,
            "equinix_api_rate_limit_wait_seconds_count 4",
            "equinix_api_in_flight 0",
            "equinix_api_waiting 0",
        ],
    );
    assert!(
        !text.to_lowercase().contains("endpoint=\"unknown"),
        "no endpoint is unknown"
    );
    // Requests 2..4 waited for the limiter: the retry after its 0.3 s
    // reply and 1 s of backoff waits 0.7 s, the next two 1.7 s each.
    let waited: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("equinix_api_rate_limit_wait_seconds_sum "))
        .expect("the wait histogram")
        .parse()
        .unwrap();
    assert!((waited - 4.1).abs() < 1e-6, "{waited}");
    // The latency was observed on the paused clock: 0.3 s each.
    assert!(
        text.contains(r#"equinix_api_latency_sum{endpoint="deleteSSHKey",status_code="204"} 0.3"#),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn attempts_and_requests_are_counted_apart_with_every_outcome() {
    let reservation = Uuid::new_v4();
    let theirs = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |op, r, n| match op.id {
        // The refused attempt of create_device makes two requests.
        "findHardwareReservationById" => Reply::ok(op, reservation_with(Some(device(theirs, &[])))),
        "createDevice"
            if r.body.as_ref().unwrap()["hardware_reservation_id"] == reservation.to_string() =>
        {
            Reply::ok(op, device(Uuid::new_v4(), &[]))
        }
        "createDevice" => Reply::rejected(422),
        // Not sent, then throttled, then a body that does not decode.
        "findProjectById" => match n {
            3 => Reply::NotSent,
            4 => Reply::throttled(1),
            _ => Reply::text(200, "{"),
        },
        other => panic!("{other}"),
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .registry(registry.clone())
        .build()
        .unwrap();
    c.create_device(Uuid::new_v4(), &create_request(reservation))
        .await
        .unwrap();
    let err = c
        .create_device(Uuid::new_v4(), &create_request(Uuid::new_v4()))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::RaceLost { .. }), "{err:?}");
    let err = c.get_project(Uuid::new_v4()).await.unwrap_err();
    assert!(matches!(err, Error::Decode { status: 200, .. }), "{err:?}");
    let text = metrics_text(&registry);
    assert_lines(
        &text,
        &[
            r#"equinix_api_requests_total{endpoint="findHardwareReservationById",status_code="200"} 1"#,
            r#"equinix_api_requests_total{endpoint="createDevice",status_code="201"} 1"#,
            r#"equinix_api_requests_total{endpoint="createDevice",status_code="422"} 1"#,
            r#"equinix_api_attempts_total{endpoint="createDevice",outcome="ok"} 1"#,
            r#"equinix_api_attempts_total{endpoint="createDevice",outcome="final"} 1"#,
            r#"equinix_api_requests_total{endpoint="findProjectById",status_code="none"} 1"#,
            r#"equinix_api_requests_total{endpoint="findProjectById",status_code="429"} 1"#,
            r#"equinix_api_requests_total{endpoint="findProjectById",status_code="200"} 1"#,
            r#"equinix_api_attempts_total{endpoint="findProjectById",outcome="not_sent"} 1"#,
            r#"equinix_api_attempts_total{endpoint="findProjectById",outcome="throttled"} 1"#,
            r#"equinix_api_attempts_total{endpoint="findProjectById",outcome="decode"} 1"#,
            r#"equinix_api_retries_total{endpoint="findProjectById"} 2"#,
        ],
    );
    // Attempts are counted per call, under the call's operation: the
    // reservation reads inside create_device are requests, not attempts.
    assert!(
        !text.contains(r#"equinix_api_attempts_total{endpoint="findHardwareReservationById""#),
        "{text}"
    );
}

#[test]
fn registering_twice_in_one_registry_is_a_build_error() {
    let registry = prometheus::Registry::new();
    let t = Script::new(Duration::ZERO, |op, _, _| ok_device(op));
    client(t.clone())
        .registry(registry.clone())
        .build()
        .unwrap();
    assert!(matches!(
        client(t).registry(registry).build(),
        Err(metal_policy::client::BuildError::Metrics(_))
    ));
    assert!(matches!(
        Client::builder().build(),
        Err(metal_policy::client::BuildError::NoApi)
    ));
}

#[test]
fn exponential_default_matches_the_documented_values() {
    let d = ExponentialBackoff::default();
    assert_eq!(d.initial_interval, Duration::from_millis(500));
    assert_eq!(d.multiplier, 1.5);
    assert_eq!(d.randomization_factor, 0.5);
    assert_eq!(d.max_interval, Duration::from_secs(60));
    assert_eq!(d.max_elapsed_time, Some(Duration::from_secs(900)));
}
