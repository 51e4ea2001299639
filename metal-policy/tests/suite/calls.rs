//! The generic call, the raw client the policy hands out, and the waits
//! before a request (slot, turn) against the attempt timeout and
//! cancellation; a scripted exchange on tokio's paused clock.

use crate::common;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use common::{assert_lines, client, device, gauge, metrics_text, Fixed, Reply, Script};
use metal_api::{types, ExchangeError};
use metal_policy::{AttemptError, CallOptions, Client, Error, Fields, Metal};
use tokio::time::Instant;
use uuid::Uuid;

const SPACING: Duration = Duration::from_secs(10);
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(5);

/// Every operation succeeds at once (a 404 for deletes: nothing exists).
fn healthy() -> Arc<Script> {
    Script::new(Duration::ZERO, |op, r, _| match op.id {
        "performAction" => Reply::done(op),
        "deleteDevice" | "deleteSSHKey" => Reply::errors(404, &["Not found"]),
        "findDeviceById" => Reply::ok(op, device(r.id(), &[])),
        "findProjectById" => Reply::ok(op, types::Project::default()),
        "findSSHKeys" => Reply::ok(op, types::SshKeyList::default()),
        "createSSHKey" => Reply::ok(op, types::SshKey::default()),
        other => panic!("{other}"),
    })
}

/// A client whose requests are 10 s apart, each exchange limited to 5 s,
/// with the default backoff: the waits before an exchange must not count
/// against its timeout.
fn slow_limiter(t: &Arc<Script>) -> Client {
    slow_limiter_of(t, 1)
}

/// [`slow_limiter`] with `parallelism` attempts in flight at once.
fn slow_limiter_of(t: &Arc<Script>, parallelism: usize) -> Client {
    Client::builder()
        .api(t.api())
        .parallelism(parallelism)
        .api_rate(SPACING)
        .attempt_timeout(Some(ATTEMPT_TIMEOUT))
        .build()
        .unwrap()
}

fn since(t0: Instant, t: &Script) -> Vec<Duration> {
    t.times().into_iter().map(|t| t - t0).collect()
}

fn secs(s: &[u64]) -> Vec<Duration> {
    s.iter().map(|s| Duration::from_secs(*s)).collect()
}

fn key_input() -> types::SshKeyCreateInput {
    types::SshKeyCreateInput {
        instances_ids: vec![],
        key: Some("ssh-ed25519 AAAA".into()),
        label: Some("deploy".into()),
        tags: vec![],
    }
}

// ------------------------------------------------ the attempt timeout covers the exchange only

#[tokio::test(start_paused = true)]
async fn a_second_reboot_waiting_for_its_turn_is_not_an_unknown_outcome() {
    let t = healthy();
    let c = slow_limiter(&t);
    let t0 = Instant::now();
    c.reboot_device(Uuid::new_v4()).await.unwrap();
    // Nothing was sent for 10 s: waiting for the turn is not the exchange.
    c.reboot_device(Uuid::new_v4()).await.unwrap();
    assert_eq!(t.ops(), ["performAction", "performAction"]);
    assert_eq!(since(t0, &t), secs(&[0, 10]));
}

#[tokio::test(start_paused = true)]
async fn deleting_a_device_that_never_existed_behind_a_slow_limiter_is_rejected() {
    let t = healthy();
    let c = slow_limiter(&t);
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    // Its first attempt waits 10 s for its turn, then gets the 404: the
    // first-attempt rule applies, the device was never there.
    let err = c.delete_device(Uuid::new_v4()).await.unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Rejected {
                operation: "deleteDevice",
                status: 404,
                messages,
            } if messages == &["Not found"]
        ),
        "{err:?}"
    );
    assert_eq!(t.count("deleteDevice"), 1);
}

#[tokio::test(start_paused = true)]
async fn a_healthy_read_behind_a_slow_limiter_takes_one_spacing() {
    let t = healthy();
    let c = slow_limiter(&t);
    c.get_project(Uuid::new_v4()).await.unwrap();
    let t1 = Instant::now();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    assert_eq!(t1.elapsed(), SPACING, "not ~118 s of abandoned turns");
    assert_eq!(t.ops(), ["findProjectById", "findDeviceById"]);
}

#[tokio::test(start_paused = true)]
async fn calls_queued_behind_a_slow_limiter_all_succeed() {
    // Each waits up to 30 s, six times the attempt timeout; none is an
    // unknown outcome (a reboot would not be repeated), none is retried.
    let t = healthy();
    let c = slow_limiter_of(&t, 4);
    let t0 = Instant::now();
    let reboots: Vec<_> = (0..4).map(|_| c.reboot_device(Uuid::new_v4())).collect();
    for r in futures::future::join_all(reboots).await {
        r.unwrap();
    }
    assert_eq!(since(t0, &t), secs(&[0, 10, 20, 30]));
    // One slot: the waits for the slot do not count either.
    let c = slow_limiter_of(&t, 1);
    let fields = Fields::default();
    let reads: Vec<_> = (0..3)
        .map(|_| c.get_device(Uuid::new_v4(), &fields))
        .collect();
    for r in futures::future::join_all(reads).await {
        r.unwrap();
    }
    assert_eq!(t.requests().len(), 7, "nothing retried");
    assert_eq!(since(t0, &t)[4..], secs(&[30, 40, 50]));
}

// ------------------------------------------------ the generic call

#[tokio::test(start_paused = true)]
async fn call_retries_a_get_after_an_unknown_outcome() {
    let t = Script::new(Duration::ZERO, |op, _, n| {
        assert_eq!(op.id, "findSSHKeys");
        if n == 0 {
            Reply::bad_gateway()
        } else {
            Reply::ok(
                op,
                types::SshKeyList {
                    ssh_keys: vec![types::SshKey {
                        label: Some("deploy".into()),
                        ..Default::default()
                    }],
                },
            )
        }
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .registry(registry.clone())
        .build()
        .unwrap();
    let keys = c.call(|api| api.find_ssh_keys().send()).await.unwrap();
    assert_eq!(keys.ssh_keys[0].label.as_deref(), Some("deploy"));
    assert_eq!(t.ops(), ["findSSHKeys", "findSSHKeys"]);
    assert_lines(
        &metrics_text(&registry),
        &[
            r#"equinix_api_attempts_total{endpoint="findSSHKeys",outcome="unknown"} 1"#,
            r#"equinix_api_attempts_total{endpoint="findSSHKeys",outcome="ok"} 1"#,
            r#"equinix_api_retries_total{endpoint="findSSHKeys"} 1"#,
            r#"equinix_api_requests_total{endpoint="findSSHKeys",status_code="502"} 1"#,
            r#"equinix_api_requests_total{endpoint="findSSHKeys",status_code="200"} 1"#,
        ],
    );
}

#[tokio::test(start_paused = true)]
async fn call_does_not_repeat_a_post_after_an_unknown_outcome() {
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::bad_gateway());
    let c = client(t.clone()).build().unwrap();
    let input = key_input();
    let err = c
        .call(|api| api.create_ssh_key().body(input.clone()).send())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutcomeUnknown {
                operation: "createSSHKey",
                attempts: 1,
                source: AttemptError::Unknown {
                    status: Some(502),
                    ..
                },
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.ops(), ["createSSHKey"]);
    assert_eq!(
        t.requests()[0].body,
        Some(serde_json::json!({"key": "ssh-ed25519 AAAA", "label": "deploy"}))
    );
}

#[tokio::test(start_paused = true)]
async fn call_options_override_idempotency_both_ways() {
    // A POST the caller knows is safe to repeat.
    let t = Script::new(Duration::ZERO, |op, _, n| {
        if n == 0 {
            Reply::bad_gateway()
        } else {
            Reply::ok(op, types::SshKey::default())
        }
    });
    let c = client(t.clone()).build().unwrap();
    let input = key_input();
    c.call_with(CallOptions::new().idempotent(true), |api| {
        api.create_ssh_key().body(input.clone()).send()
    })
    .await
    .unwrap();
    assert_eq!(t.ops(), ["createSSHKey", "createSSHKey"]);
    // A GET the caller says must not be repeated.
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::bad_gateway());
    let c = client(t.clone()).build().unwrap();
    let err = c
        .call_with(CallOptions::new().idempotent(false), |api| {
            api.find_ssh_keys().send()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::OutcomeUnknown {
                operation: "findSSHKeys",
                attempts: 1,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn call_deadline_overrides_the_clients() {
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::NotSent);
    // The client's deadline is long; the call's is 25 s.
    let c = client(t.clone())
        .backoff(Arc::new(Fixed(Duration::from_secs(10), None)))
        .deadline(Some(Duration::from_secs(1000)))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = c
        .call_with(
            CallOptions::new().deadline(Some(Duration::from_secs(25))),
            |api| api.find_ssh_keys().send(),
        )
        .await
        .unwrap_err();
    assert_eq!(t0.elapsed(), Duration::from_secs(25));
    assert!(
        matches!(
            err,
            Error::DeadlineExceeded {
                operation: "findSSHKeys",
                attempts: 3,
                last: Some(AttemptError::NotSent { .. }),
            }
        ),
        "{err:?}"
    );
    // The client's deadline is 25 s; the call has none, and runs until
    // its backoff gives up (4 retries, 10 s apart).
    let c = client(t.clone())
        .backoff(Arc::new(Fixed(Duration::from_secs(10), Some(4))))
        .deadline(Some(Duration::from_secs(25)))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = c
        .call_with(CallOptions::new().deadline(None), |api| {
            api.find_ssh_keys().send()
        })
        .await
        .unwrap_err();
    assert_eq!(t0.elapsed(), Duration::from_secs(40));
    assert!(matches!(err, Error::GaveUp { attempts: 5, .. }), "{err:?}");
    // Without options, the client's 25 s holds.
    let t0 = Instant::now();
    let err = c.call(|api| api.find_ssh_keys().send()).await.unwrap_err();
    assert!(matches!(err, Error::DeadlineExceeded { .. }), "{err:?}");
    assert_eq!(t0.elapsed(), Duration::from_secs(25));
}

#[tokio::test(start_paused = true)]
async fn call_attempt_timeout_overrides_the_clients() {
    let t = Script::new(Duration::from_secs(60), |op, _, _| {
        Reply::ok(op, types::SshKey::default())
    });
    let input = key_input();
    // The client has none; the call's 5 s ends the exchange.
    let c = client(t.clone()).build().unwrap();
    let t0 = Instant::now();
    let err = c
        .call_with(
            CallOptions::new().attempt_timeout(Some(ATTEMPT_TIMEOUT)),
            |api| api.create_ssh_key().body(input.clone()).send(),
        )
        .await
        .unwrap_err();
    assert_eq!(t0.elapsed(), ATTEMPT_TIMEOUT);
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
    // The client's 5 s, lifted for one call that takes 60 s.
    let c = client(t.clone())
        .attempt_timeout(Some(ATTEMPT_TIMEOUT))
        .build()
        .unwrap();
    let t0 = Instant::now();
    c.call_with(CallOptions::new().attempt_timeout(None), |api| {
        api.create_ssh_key().body(input.clone()).send()
    })
    .await
    .unwrap();
    assert_eq!(t0.elapsed(), Duration::from_secs(60));
    assert_eq!(t.requests().len(), 2);
}

// ------------------------------------------------ the raw client: no request bypasses the limits

#[tokio::test(start_paused = true)]
async fn raw_requests_take_turns_and_count_in_the_metrics() {
    let t = healthy();
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .api_rate(SPACING)
        .registry(registry.clone())
        .build()
        .unwrap();
    let t0 = Instant::now();
    c.api().find_ssh_keys().send().await.unwrap();
    c.api().find_ssh_keys().send().await.unwrap();
    // A policy call waits its turn behind them, and they behind it.
    c.call(|api| api.find_ssh_keys().send()).await.unwrap();
    c.api()
        .find_project_by_id()
        .id(Uuid::new_v4())
        .send()
        .await
        .unwrap();
    assert_eq!(since(t0, &t), secs(&[0, 10, 20, 30]));
    let text = metrics_text(&registry);
    assert_lines(
        &text,
        &[
            r#"equinix_api_requests_total{endpoint="findSSHKeys",status_code="200"} 3"#,
            r#"equinix_api_requests_total{endpoint="findProjectById",status_code="200"} 1"#,
            r#"equinix_api_latency_count{endpoint="findProjectById",status_code="200"} 1"#,
            "equinix_api_rate_limit_wait_seconds_count 4",
            // Raw requests are no attempts of a call: only the call's one.
            r#"equinix_api_attempts_total{endpoint="findSSHKeys",outcome="ok"} 1"#,
            "equinix_api_in_flight 0",
            "equinix_api_waiting 0",
        ],
    );
    assert!(
        !text.contains(r#"equinix_api_attempts_total{endpoint="findProjectById""#),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_429_to_a_raw_request_pauses_the_whole_client_and_is_not_retried() {
    let t = Script::new(Duration::ZERO, |op, _, n| {
        if n == 0 {
            Reply::throttled(30)
        } else {
            Reply::ok(op, types::SshKeyList::default())
        }
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .registry(registry.clone())
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = c.api().find_ssh_keys().send().await.unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(429), "{err:?}");
    assert_eq!(t0.elapsed(), Duration::ZERO, "one attempt, no retry");
    assert_eq!(t.requests().len(), 1);
    // A policy call waits for the pause.
    c.call(|api| api.find_ssh_keys().send()).await.unwrap();
    assert_eq!(since(t0, &t), secs(&[0, 30]));
    assert_lines(
        &metrics_text(&registry),
        &[
            r#"equinix_api_throttled_total{endpoint="findSSHKeys"} 1"#,
            r#"equinix_api_requests_total{endpoint="findSSHKeys",status_code="429"} 1"#,
        ],
    );
}

/// SSH key lists that take 10 s each, and a client with one slot and a
/// registry.
fn one_slot_of_slow_key_lists() -> (Arc<Script>, Client, prometheus::Registry) {
    let t = Script::new(SPACING, |op, _, _| {
        Reply::ok(op, types::SshKeyList::default())
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .parallelism(1)
        .registry(registry.clone())
        .build()
        .unwrap();
    (t, c, registry)
}

#[tokio::test(start_paused = true)]
async fn a_raw_request_holds_a_concurrency_slot_while_in_flight() {
    let (t, c, registry) = one_slot_of_slow_key_lists();
    let t0 = Instant::now();
    let raw = {
        let c = c.clone();
        tokio::spawn(async move { c.api().find_ssh_keys().send().await.map(|_| ()) })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    let call = {
        let c = c.clone();
        tokio::spawn(async move { c.call(|api| api.find_ssh_keys().send()).await.map(|_| ()) })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 1.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 1.0);
    raw.await.unwrap().unwrap();
    call.await.unwrap().unwrap();
    assert_eq!(t.max_in_flight.load(Ordering::SeqCst), 1);
    assert_eq!(since(t0, &t), secs(&[0, 10]));
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
}

#[tokio::test(start_paused = true)]
async fn a_raw_request_gets_the_attempt_timeout_and_no_retry() {
    let t = Script::new(Duration::from_secs(60), |op, _, _| {
        Reply::ok(op, types::SshKeyList::default())
    });
    let c = client(t.clone())
        .attempt_timeout(Some(ATTEMPT_TIMEOUT))
        .build()
        .unwrap();
    let t0 = Instant::now();
    let err = c.api().find_ssh_keys().send().await.unwrap_err();
    assert_eq!(t0.elapsed(), ATTEMPT_TIMEOUT);
    match &err {
        metal_api::Error::CommunicationError(e) => assert!(
            matches!(ExchangeError::find(e), Some(ExchangeError::NoReply(_))),
            "{e:?}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(t.requests().len(), 1);
    assert_eq!(t.in_flight.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn a_client_kept_past_its_attempt_sends_under_the_limits_as_a_raw_request() {
    // Each exchange takes 10 s. The client a call's attempt was given is
    // kept and used after the call: its request takes a slot of its own
    // (so it waits for the call in flight) and records into no attempt.
    let (t, c, registry) = one_slot_of_slow_key_lists();
    let mut kept = None;
    c.call(|api| {
        kept = Some(api);
        api.find_ssh_keys().send()
    })
    .await
    .unwrap();
    let kept = kept.unwrap();
    let t0 = Instant::now();
    let busy = {
        let c = c.clone();
        tokio::spawn(async move { c.call(|api| api.find_ssh_keys().send()).await.map(|_| ()) })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    kept.find_ssh_keys().send().await.unwrap();
    busy.await.unwrap().unwrap();
    assert_eq!(t.max_in_flight.load(Ordering::SeqCst), 1);
    assert_eq!(
        t0.elapsed(),
        Duration::from_secs(20),
        "it waited for the slot"
    );
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    assert_lines(
        &metrics_text(&registry),
        &[r#"equinix_api_requests_total{endpoint="findSSHKeys",status_code="200"} 3"#],
    );
}

// ------------------------------------------------ cancellation

#[tokio::test(start_paused = true)]
async fn dropping_a_call_waiting_for_its_turn_gives_the_turn_back_and_clears_gauges() {
    let t = healthy();
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .parallelism(2)
        .api_rate(SPACING)
        .registry(registry.clone())
        .build()
        .unwrap();
    let t0 = Instant::now();
    c.get_project(Uuid::new_v4()).await.unwrap(); // the turn at 0
    let waiting = {
        let c = c.clone();
        tokio::spawn(async move { c.get_device(Uuid::new_v4(), &Fields::default()).await })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    // It holds its attempt's slot while it waits for the turn at 10 s.
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 1.0);
    waiting.abort();
    let _ = waiting.await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 0.0);
    // A raw request dropped while waiting for its turn, likewise.
    let raw = {
        let c = c.clone();
        tokio::spawn(async move { c.api().find_ssh_keys().send().await.map(|_| ()) })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 1.0);
    raw.abort();
    let _ = raw.await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 0.0);
    // Neither burnt a turn: the next request goes at 10 s, not 30 s.
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    assert_eq!(since(t0, &t), secs(&[0, 10]));
}

#[tokio::test(start_paused = true)]
async fn a_deadline_passing_while_waiting_for_the_turn_sends_nothing_and_burns_no_turn() {
    let t = healthy();
    let c = client(t.clone()).api_rate(SPACING).build().unwrap();
    let t0 = Instant::now();
    c.get_project(Uuid::new_v4()).await.unwrap();
    let err = c
        .call_with(
            CallOptions::new().deadline(Some(Duration::from_secs(3))),
            |api| api.find_ssh_keys().send(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::DeadlineExceeded {
                operation: "findSSHKeys",
                attempts: 1,
                last: None,
            }
        ),
        "{err:?}"
    );
    assert_eq!(t0.elapsed(), Duration::from_secs(3));
    c.get_project(Uuid::new_v4()).await.unwrap();
    assert_eq!(t.ops(), ["findProjectById", "findProjectById"]);
    assert_eq!(since(t0, &t), secs(&[0, 10]));
}

#[tokio::test(start_paused = true)]
async fn dropping_a_call_in_flight_or_in_backoff_clears_gauges() {
    let hang = Uuid::new_v4();
    let t = Script::new(Duration::ZERO, move |op, r, _| match op.id {
        "findDeviceById" if r.id() == hang => Reply::Hang,
        "findDeviceById" => Reply::ok(op, device(r.id(), &[])),
        _ => Reply::NotSent,
    });
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .parallelism(1)
        .backoff(Arc::new(Fixed(Duration::from_secs(3600), None)))
        .registry(registry.clone())
        .build()
        .unwrap();
    // In flight, never answered.
    let in_flight = {
        let c = c.clone();
        tokio::spawn(async move { c.get_device(hang, &Fields::default()).await })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 1.0);
    assert_eq!(t.in_flight.load(Ordering::SeqCst), 1);
    in_flight.abort();
    let _ = in_flight.await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    assert_eq!(t.in_flight.load(Ordering::SeqCst), 0);
    // Sleeping in backoff after a request that was never sent.
    let backing_off = {
        let c = c.clone();
        tokio::spawn(async move { c.call(|api| api.find_ssh_keys().send()).await })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(t.count("findSSHKeys"), 1);
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    backing_off.abort();
    let _ = backing_off.await;
    assert_eq!(gauge(&registry, "equinix_api_in_flight"), 0.0);
    assert_eq!(gauge(&registry, "equinix_api_waiting"), 0.0);
    // The one slot is free.
    let t1 = Instant::now();
    c.get_device(Uuid::new_v4(), &Fields::default())
        .await
        .unwrap();
    assert_eq!(t1.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn a_dropped_turn_is_never_handed_to_two_requests() {
    // Burst 1: no two requests closer than the spacing, whichever waits
    // are dropped.
    let t = healthy();
    let c = client(t.clone())
        .parallelism(4)
        .api_rate(SPACING)
        .build()
        .unwrap();
    let t0 = Instant::now();
    c.get_project(Uuid::new_v4()).await.unwrap(); // the turn at 0
    let spawn = |c: &Client| {
        let c = c.clone();
        tokio::spawn(async move { c.get_project(Uuid::new_v4()).await.map(|_| ()) })
    };
    let b = spawn(&c); // its turn at 10 s
    tokio::task::yield_now().await;
    let second = spawn(&c); // its turn at 20 s
    tokio::time::sleep(Duration::from_secs(1)).await;
    b.abort(); // gives back the turn at 10 s
    let _ = b.await;
    let third = spawn(&c);
    second.await.unwrap().unwrap();
    third.await.unwrap().unwrap();
    let mut times = since(t0, &t);
    times.sort();
    assert_eq!(times.len(), 3);
    assert!(
        times.windows(2).all(|w| w[1] - w[0] >= SPACING),
        "two requests within one spacing: {times:?}"
    );
}
