//! Filtered device listing, `next-available` creates and the "no hardware
//! reservation available" 503, against a scripted server on the paused
//! clock (the stateful cases, with lost replies and racing clients, run
//! against `metal-fake` in its `tests/next_available.rs`).

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{client, device, Reply, Script};
use metal_api::types;
use metal_policy::client::{NEXT_AVAILABLE, WITNESS_TAG_PREFIX};
use metal_policy::{DeviceFilter, Error, Metal};
use uuid::Uuid;

const NONE_AVAILABLE: &str =
    "There are no available hardware reservations for selected plan and facility";

fn request() -> types::CreateDeviceRequest {
    types::CreateDeviceRequest::MetroInput(
        types::DeviceCreateInMetroInput::builder()
            .metro("da")
            .plan("c3.small.x86")
            .operating_system("ubuntu_24_04")
            .hardware_reservation_id(NEXT_AVAILABLE.to_string())
            .try_into()
            .unwrap(),
    )
}

/// The rate-limit headers the API sends with every reply.
fn with_rate_headers(reply: Reply) -> Reply {
    reply
        .header("x-ratelimit-limit", "100")
        .header("x-ratelimit-remaining", "99")
        .header("x-ratelimit-reset", "4102444800")
}

#[tokio::test(start_paused = true)]
async fn a_filtered_list_sends_its_filter_on_every_page() {
    let t = Script::new(std::time::Duration::ZERO, |op, r, _| {
        let page: i64 = r.query("page").map_or(1, |p| p.parse().unwrap());
        Reply::ok(
            op,
            types::DeviceList {
                devices: vec![device(Uuid::new_v4(), &["role=web"])],
                meta: Some(types::Meta {
                    current_page: Some(page),
                    last_page: Some(3),
                    ..Default::default()
                }),
            },
        )
    });
    let c = client(t.clone()).build().unwrap();
    let filter = DeviceFilter::tag("role=web").and_hostname("web");
    let got = c
        .list_devices_matching(Uuid::new_v4(), &filter)
        .await
        .unwrap();
    assert_eq!(got.len(), 3);
    let seen = t.requests();
    assert_eq!(seen.len(), 3);
    for (i, r) in seen.iter().enumerate() {
        assert_eq!(r.query("tag").as_deref(), Some("role%3Dweb"), "{r:?}");
        assert_eq!(r.query("hostname").as_deref(), Some("web"), "{r:?}");
        assert_eq!(r.query("page"), Some((i + 1).to_string()));
    }
    // No filter: no filter parameters.
    let t = Script::new(std::time::Duration::ZERO, |op, _, _| {
        Reply::ok(op, types::DeviceList::default())
    });
    let c = client(t.clone()).build().unwrap();
    c.list_devices(Uuid::new_v4()).await.unwrap();
    assert!(t.requests()[0].query("tag").is_none());
}

/// The decision of the crate docs: "none available" is returned at once,
/// with the rate-limit headers every reply has, and nothing is retried.
#[tokio::test(start_paused = true)]
async fn none_available_is_a_typed_error_not_retried() {
    let t = Script::new(std::time::Duration::ZERO, |_, _, _| {
        with_rate_headers(Reply::errors(503, &[NONE_AVAILABLE]))
    });
    let c = client(t.clone()).build().unwrap();
    match c.create_device(Uuid::new_v4(), &request()).await {
        Err(Error::NoReservationAvailable { messages }) => assert_eq!(messages, [NONE_AVAILABLE]),
        other => panic!("{other:?}"),
    }
    assert_eq!(t.ops(), ["createDevice"]);
    // The same refusal through the generic call path is permanent too.
    let r = c
        .call(|api| {
            api.create_device()
                .id(Uuid::new_v4())
                .body(request())
                .send()
        })
        .await;
    assert!(
        matches!(r, Err(Error::Rejected { status: 503, .. })),
        "{r:?}"
    );
    assert_eq!(t.count("createDevice"), 2);
}

/// Another 503 without `Retry-After` is an unknown outcome: the next
/// attempt looks for the witness with one filtered list, then creates.
#[tokio::test(start_paused = true)]
async fn another_503_is_recovered_through_the_witness_list() {
    let creates = Arc::new(AtomicUsize::new(0));
    let n = creates.clone();
    let t = Script::new(std::time::Duration::ZERO, move |op, r, _| match op.id {
        "createDevice" if n.fetch_add(1, Ordering::SeqCst) == 0 => {
            with_rate_headers(Reply::errors(503, &["Service Unavailable"]))
        }
        "createDevice" => Reply::ok(op, device(Uuid::new_v4(), &[])),
        "findProjectDevices" => {
            assert!(
                r.query("tag")
                    .is_some_and(|t| t.starts_with(WITNESS_TAG_PREFIX)),
                "{r:?}"
            );
            Reply::ok(op, types::DeviceList::default())
        }
        _ => Reply::rejected(404),
    });
    let c = client(t.clone()).build().unwrap();
    c.create_device(Uuid::new_v4(), &request()).await.unwrap();
    assert_eq!(
        t.ops(),
        ["createDevice", "findProjectDevices", "createDevice"]
    );
    // The witness was sent on both creates, the same one.
    let tags: Vec<Vec<String>> = t
        .requests()
        .iter()
        .filter(|r| r.op == "createDevice")
        .map(|r| r.tags())
        .collect();
    assert_eq!(tags[0], tags[1]);
    assert!(tags[0].iter().any(|t| t.starts_with(WITNESS_TAG_PREFIX)));
}
