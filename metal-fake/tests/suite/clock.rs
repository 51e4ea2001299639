//! The fake's one clock: every lifecycle change, scheduled or computed when
//! read, happens on it. A device deleted and then carried past its
//! deprovisioning time by an advance of the clock (in-process, over HTTP
//! through `POST /_fake/clock`) or by a scaled clock (`--time-scale`, here
//! on tokio's paused clock and through the binary) is gone, not left
//! `deprovisioning` for ever.

use crate::http;

#[cfg(feature = "cli")] // the binary's own test below
use crate::binary;

use std::time::Duration;

use metal_api::types;
use metal_fake::{Fake, ServerConfig, Timings};
use serde_json::{json, Value};
use uuid::Uuid;

const HOUR: Duration = Duration::from_secs(3600);

/// A fake whose deleted devices read `deprovisioning` for 30 s (off by
/// default: gone at once), so that the clock has a change to make.
fn lagging() -> metal_fake::FakeBuilder {
    Fake::builder().reservations(1).timings(Timings {
        deprovisioning: Duration::from_secs(30),
        ..Timings::default()
    })
}

fn create_body(reservation: Uuid) -> Value {
    json!({
        "metro": "da",
        "plan": "c3.small.x86",
        "operating_system": "ubuntu_24_04",
        "hardware_reservation_id": reservation.to_string(),
        "hostname": "clocked",
    })
}

async fn create(fake: &Fake) -> Uuid {
    let reservation = fake.provisionable_reservations()[0];
    let body: types::CreateDeviceRequest =
        serde_json::from_value(create_body(reservation)).unwrap();
    fake.api_client()
        .create_device()
        .id(fake.project())
        .body(body)
        .send()
        .await
        .unwrap()
        .into_inner()
        .id
        .unwrap()
}

async fn state(fake: &Fake, id: Uuid) -> Result<String, u16> {
    match fake.api_client().find_device_by_id().id(id).send().await {
        Ok(d) => Ok(d.into_inner().state.unwrap_or_default()),
        Err(e) => Err(e.status().map_or(0, |s| s.as_u16())),
    }
}

#[tokio::test(start_paused = true)]
async fn a_delete_finishes_after_an_advance_in_process() {
    let fake = lagging().build();
    let id = create(&fake).await;
    fake.advance(HOUR).unwrap();
    assert_eq!(state(&fake, id).await.as_deref(), Ok("active"));
    fake.api_client()
        .delete_device()
        .id(id)
        .send()
        .await
        .unwrap();
    assert_eq!(state(&fake, id).await.as_deref(), Ok("deprovisioning"));
    fake.advance(HOUR).unwrap();
    assert_eq!(state(&fake, id).await, Err(404));
    assert!(fake.devices().is_empty());
    assert_eq!(fake.provisionable_reservations().len(), 1, "released too");
}

#[tokio::test(start_paused = true)]
async fn a_delete_finishes_on_a_scaled_clock() {
    // 30 s of deprovisioning are 3 ms of tokio's time at 10000 times.
    let fake = lagging().time_scale(10_000.0).build();
    let id = create(&fake).await;
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(state(&fake, id).await.as_deref(), Ok("active"));
    fake.api_client()
        .delete_device()
        .id(id)
        .send()
        .await
        .unwrap();
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(state(&fake, id).await, Err(404));
    assert!(fake.devices().is_empty());
}

/// `POST /_fake/clock` with `seconds`.
async fn advance_over_http(http: &reqwest::Client, base: &str, seconds: u64) {
    let resp = http
        .post(format!("{base}/_fake/clock"))
        .json(&json!({ "advance_seconds": seconds }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

/// Creates a device over HTTP, advances, deletes, advances; the device
/// must then be gone (`404`).
async fn delete_then_advance_over_http(
    base_url: &str,
    token: &str,
    project: Uuid,
    reservation: Uuid,
) {
    let http = http::client();
    let base = base_url.trim_end_matches("/metal/v1");
    let created: Value = http
        .post(format!("{base_url}/projects/{project}/devices"))
        .header("x-auth-token", token)
        .json(&create_body(reservation))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let device = format!("{base_url}/devices/{id}");
    let get = |http: &reqwest::Client| http.get(&device).header("x-auth-token", token).send();
    advance_over_http(&http, base, 3600).await;
    let read: Value = get(&http).await.unwrap().json().await.unwrap();
    assert_eq!(read["state"], "active");
    let deleted = http
        .delete(&device)
        .header("x-auth-token", token)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    advance_over_http(&http, base, 3600).await;
    assert_eq!(get(&http).await.unwrap().status(), 404);
}

#[tokio::test]
async fn a_delete_finishes_after_an_advance_over_http() {
    let fake = lagging().build();
    let server = crate::http::serve(&fake, ServerConfig::new("clock")).await;
    let reservation = fake.provisionable_reservations()[0];
    delete_then_advance_over_http(server.base_url(), "clock", fake.project(), reservation).await;
    assert!(fake.devices().is_empty());
    server.shutdown().await;
}

#[cfg(feature = "cli")]
#[tokio::test]
async fn a_delete_finishes_after_an_advance_of_the_binary_at_a_time_scale() {
    let token = "clock-binary";
    let mut child = binary::command(
        token,
        &[
            "--time-scale",
            "2",
            "--reservations",
            "1",
            "--deprovision-seconds",
            "30",
        ],
    )
    .spawn()
    .unwrap();
    let line = binary::first_line(&mut child);
    let base_url = line.trim().rsplit(' ').next().unwrap().to_string();
    let world: Value = reqwest::get(format!(
        "{}/_fake/world",
        base_url.trim_end_matches("/metal/v1")
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let project: Uuid = world["projects"][0]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let reservation: Uuid = world["reservations"][0]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    delete_then_advance_over_http(&base_url, token, project, reservation).await;
    let stderr = binary::stop(child);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
