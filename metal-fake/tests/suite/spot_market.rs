//! The spot market: prices per plan per facility and metro (the catalog's
//! on-demand price times the fake's share, or the world document's), their
//! history on the fake's clock, and spot market requests, which make spot
//! devices through the device create path (none while the bid is below the
//! market price), refused above the on-demand price or beyond capacity, as
//! the Terraform
//! provider's `equinix_metal_spot_market_request` and its data sources use
//! them. In process and over HTTP; time on tokio's paused clock.

use crate::http::call;
use crate::via::{errors, Via};

use std::time::Duration;

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::{json, Value};

const PROJECT: &str = "0c000000-0000-4000-8000-000000000001";
const OTHER: &str = "0c000000-0000-4000-8000-000000000002";
const ORG: &str = "0c000000-0000-4000-8000-0000000000f1";

/// `c3.small.x86` at $0.50 an hour on demand: two machines in `da11`, one
/// in metro `sv` (whose spot price the document sets at $0.20);
/// `m3.large.x86` on demand only.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "catalog": "none",
        "organizations": [{"id": ORG, "name": "acme"}],
        "projects": [
            {"id": PROJECT, "organization": ORG},
            {"id": OTHER, "organization": ORG}
        ],
        "plans": [
            {"slug": "c3.small.x86", "pricing": {"hour": 0.5}},
            {"slug": "m3.large.x86", "pricing": {"hour": 2.0}, "deployment_types": ["on_demand"]}
        ],
        "metros": [{"code": "da"}, {"code": "sv"}],
        "facilities": [
            {"code": "da11", "metro": "da"},
            {"code": "da12", "metro": "da"},
            {"code": "sv15", "metro": "sv"}
        ],
        "capacity": [
            {"facility": "da11", "plan": "c3.small.x86", "available": 2},
            {"metro": "sv", "plan": "c3.small.x86", "available": 1},
            {"facility": "da11", "plan": "m3.large.x86", "available": 2}
        ],
        "spot_prices": [{"plan": "c3.small.x86", "metro": "sv", "price": 0.2}]
    }))
    .unwrap()
}

fn fake() -> Fake {
    Fake::builder().world(world()).build()
}

/// A request body as the Terraform provider sends it.
fn request(metro: &str, min: u32, max: u32, bid: f64) -> Value {
    json!({
        "devices_min": min,
        "devices_max": max,
        "max_bid_price": bid,
        "metro": metro,
        "instance_parameters": {
            "hostname": "testspot",
            "billing_cycle": "hourly",
            "operating_system": "ubuntu_24_04",
            "plan": "c3.small.x86"
        }
    })
}

fn requests() -> String {
    format!("/projects/{PROJECT}/spot-market-requests")
}

#[tokio::test]
async fn prices_follow_the_catalog_or_the_document_by_facility_and_by_metro() {
    for via in Via::both(world).await {
        let (status, by_facility) = via.call("GET", "/market/spot/prices", None).await;
        assert_eq!(status, 200, "{by_facility}");
        let prices = &by_facility["spot_market_prices"];
        // 30% of $0.50 on demand, in both facilities of `da`.
        assert_eq!(prices["da11"]["c3.small.x86"]["price"], 0.15);
        assert_eq!(prices["da12"]["c3.small.x86"]["price"], 0.15);
        assert_eq!(
            prices["sv15"]["c3.small.x86"]["price"], 0.2,
            "the document's"
        );
        // Not on the spot market: not priced.
        assert!(prices["da11"].get("m3.large.x86").is_none(), "{prices}");

        let (status, by_metro) = via.call("GET", "/market/spot/prices/metros", None).await;
        assert_eq!(status, 200);
        assert_eq!(
            by_metro["spot_market_prices"],
            json!({"da": {"c3.small.x86": {"price": 0.15}}, "sv": {"c3.small.x86": {"price": 0.2}}})
        );

        // Filters: one place, one plan (a code in any case, as the
        // Terraform data source lowers metros).
        let (_, one) = via
            .call(
                "GET",
                "/market/spot/prices?facility=SV15&plan=c3.small.x86",
                None,
            )
            .await;
        assert_eq!(
            one["spot_market_prices"],
            json!({"sv15": {"c3.small.x86": {"price": 0.2}}})
        );
        let (_, one) = via
            .call("GET", "/market/spot/prices/metros?metro=da", None)
            .await;
        assert_eq!(one["spot_market_prices"].as_object().unwrap().len(), 1);
        let (status, body) = via
            .call("GET", "/market/spot/prices?plan=x9.huge", None)
            .await;
        assert_eq!(status, 422);
        assert!(
            errors(&body).contains("x9.huge is not a valid plan"),
            "{body}"
        );
        let (status, _) = via
            .call("GET", "/market/spot/prices/metros?metro=zz", None)
            .await;
        assert_eq!(status, 422);
    }
}

#[tokio::test(start_paused = true)]
async fn the_price_history_has_one_point_an_hour_up_to_the_fake_s_clock() {
    let fake = fake();
    let (_, project) = call(&fake, "GET", &format!("/projects/{PROJECT}"), None).await;
    let start = chrono::DateTime::parse_from_rfc3339(project["created_at"].as_str().unwrap())
        .unwrap()
        .timestamp();
    let (from, until) = (start - 3 * 3600, start + 5 * 3600);
    let path = format!(
        "/market/spot/prices/history?facility=da11&plan=c3.small.x86&from={from}&until={until}"
    );
    let points = |body: &Value| {
        body["prices_history"]["datapoints"]
            .as_array()
            .unwrap()
            .clone()
    };
    let (status, before) = call(&fake, "GET", &path, None).await;
    assert_eq!(status, 200, "{before}");
    let before = points(&before);
    // From three hours before now up to now: three or four hours.
    assert!((3..=4).contains(&before.len()), "{before:?}");
    for p in &before {
        let t = p[0].as_f64().unwrap() as i64;
        assert_eq!(t % 3600, 0, "on the hour");
        assert!(
            t >= from && t <= start,
            "{t} beyond the fake's clock {start}"
        );
        assert_eq!(p[1], 0.15);
    }
    fake.advance(Duration::from_secs(2 * 3600)).unwrap();
    let (_, after) = call(&fake, "GET", &path, None).await;
    assert_eq!(points(&after).len(), before.len() + 2, "two hours later");
    // RFC 3339 times are read too; `until` before `from` is refused, and
    // so is a history longer than the fake keeps.
    let rfc = |t: i64| chrono::DateTime::from_timestamp(t, 0).unwrap().to_rfc3339();
    let (status, same) = call(
        &fake,
        "GET",
        &format!(
            "/market/spot/prices/history?facility=da11&plan=c3.small.x86&from={}&until={}",
            rfc(from).replace('+', "%2B"),
            rfc(until).replace('+', "%2B")
        ),
        None,
    )
    .await;
    assert_eq!(status, 200, "{same}");
    assert_eq!(points(&same), points(&after));
    let (status, body) = call(
        &fake,
        "GET",
        &format!(
            "/market/spot/prices/history?facility=da11&plan=c3.small.x86&from={until}&until={from}"
        ),
        None,
    )
    .await;
    assert_eq!(status, 422);
    assert!(
        errors(&body).contains("until must not be before from"),
        "{body}"
    );
    let (status, _) = call(
        &fake,
        "GET",
        &format!(
            "/market/spot/prices/history?facility=da11&plan=c3.small.x86&from=0&until={until}"
        ),
        None,
    )
    .await;
    assert_eq!(status, 422);
    let (status, body) = call(
        &fake,
        "GET",
        "/market/spot/prices/history?plan=c3.small.x86&from=0&until=1",
        None,
    )
    .await;
    assert_eq!(status, 422);
    assert!(errors(&body).contains("facility is required"), "{body}");
}

#[tokio::test]
async fn a_request_makes_spot_devices_through_the_device_create_path_both_ways() {
    for via in Via::both(world).await {
        let (status, made) = via
            .call("POST", &requests(), Some(request("da", 1, 3, 0.15)))
            .await;
        assert_eq!(status, 201, "{made}");
        let id = made["id"].as_str().unwrap().to_string();
        // Two machines free in `da`: two of at most three.
        let devices = made["devices"].as_array().unwrap();
        assert_eq!(devices.len(), 2, "{made}");
        assert_eq!(made["devices_min"], 1);
        assert_eq!(made["devices_max"], 3);
        assert_eq!(made["max_bid_price"], 0.15);
        assert_eq!(made["metro"]["code"], "da");
        assert_eq!(made["plan"]["slug"], "c3.small.x86");
        let codes: Vec<&str> = made["facilities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes, ["da11", "da12"]);
        for d in devices {
            let (status, device) = via
                .call(
                    "GET",
                    &format!("/devices/{}", d["id"].as_str().unwrap()),
                    None,
                )
                .await;
            assert_eq!(status, 200);
            assert_eq!(device["spot_instance"], true);
            assert_eq!(device["spot_price_max"], 0.15);
            assert_eq!(device["hostname"], "testspot");
            assert_eq!(device["facility"]["code"], "da11");
        }
        // The devices list's `type=spot` finds them.
        let (_, spot) = via
            .call(
                "GET",
                &format!("/projects/{PROJECT}/devices?type=spot"),
                None,
            )
            .await;
        assert_eq!(spot["devices"].as_array().unwrap().len(), 2);

        // As the Terraform provider reads it back.
        let (status, read) = via
            .call(
                "GET",
                &format!("/spot-market-requests/{id}?include=project,devices,facilities,metro"),
                None,
            )
            .await;
        assert_eq!(status, 200);
        assert_eq!(read["devices"][0]["hostname"], "testspot", "whole");
        assert_eq!(read["project"]["id"], PROJECT);
        let (_, list) = via.call("GET", &requests(), None).await;
        assert_eq!(list["spot_market_requests"][0]["id"], id.as_str());
        let (_, other) = via
            .call(
                "GET",
                &format!("/projects/{OTHER}/spot-market-requests"),
                None,
            )
            .await;
        assert_eq!(other["spot_market_requests"], json!([]));
        assert_eq!(via.fake().world().spot_market_requests[0].devices.len(), 2);
    }
}

/// packngo's `TestAccSpotMarketRequestBasic` bids half the market price
/// (for more devices than a test project could expect to get) and the
/// real API made the request: a bid below the price waits, running no
/// device, whatever the machines free.
#[tokio::test]
async fn a_bid_below_the_market_is_taken_and_runs_no_device() {
    let fake = fake();
    // Half of the 0.15 market price, for three devices where two are free.
    let (status, made) = call(&fake, "POST", &requests(), Some(request("da", 3, 3, 0.075))).await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["devices"], json!([]));
    assert_eq!(made["max_bid_price"], 0.075);
    let id = made["id"].as_str().unwrap();
    let (status, read) = call(
        &fake,
        "GET",
        &format!("/spot-market-requests/{id}?include=devices"),
        None,
    )
    .await;
    assert_eq!((status, &read["devices"]), (200, &json!([])), "{read}");
    assert!(fake.devices().is_empty());
    assert_eq!(fake.world().spot_market_requests.len(), 1);
}

#[tokio::test]
async fn each_refusal_of_a_request_once_and_nothing_is_made() {
    let fake = fake();
    let cases = [
        (
            request("da", 1, 1, 0.6),
            "above the maximum allowed bid price",
        ),
        (request("da", 3, 2, 0.15), "devices_min and devices_max"),
        (
            request("da", 3, 3, 0.15),
            "No available servers with plan c3.small.x86 in metro da",
        ),
        (request("zz", 1, 1, 0.15), "zz is not a valid metro"),
        (
            json!({"devices_min": 1, "devices_max": 1, "max_bid_price": 0.2, "metro": "da"}),
            "instance_parameters is required",
        ),
        (
            {
                let mut r = request("da", 1, 1, 0.15);
                r.as_object_mut().unwrap().remove("metro");
                r
            },
            "metro or facilities is required",
        ),
        (
            {
                let mut r = request("da", 1, 1, 0.15);
                r["instance_parameters"]["plan"] = json!("m3.large.x86");
                r
            },
            "Plan m3.large.x86 is not on the spot market",
        ),
    ];
    for (body, refusal) in cases {
        let (status, reply) = call(&fake, "POST", &requests(), Some(body)).await;
        assert_eq!(status, 422, "{refusal}: {reply}");
        assert!(errors(&reply).contains(refusal), "{refusal}: {reply}");
    }
    assert!(fake.devices().is_empty());
    assert!(fake.world().spot_market_requests.is_empty());
    // A plain create of a spot instance is checked the same way.
    let (status, reply) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/devices"),
        Some(json!({
            "metro": "sv", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
            "spot_instance": true, "spot_price_max": 0.19
        })),
    )
    .await;
    assert_eq!(status, 422, "{reply}");
    assert!(errors(&reply).contains("below the current spot market price"));
    assert!(fake.devices().is_empty());
    // A request by facility code, as packngo sends `facilities`.
    let mut by_facility = request("da", 1, 1, 0.15);
    by_facility.as_object_mut().unwrap().remove("metro");
    by_facility["facilities"] = json!(["da11"]);
    let (status, made) = call(&fake, "POST", &requests(), Some(by_facility)).await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["devices"].as_array().unwrap().len(), 1);
    assert!(made.get("metro").is_none());
}

#[tokio::test(start_paused = true)]
async fn a_delete_keeps_the_devices_unless_forced_to_terminate_them() {
    let fake = fake();
    let (_, kept) = call(&fake, "POST", &requests(), Some(request("da", 1, 1, 0.15))).await;
    let (_, forced) = call(&fake, "POST", &requests(), Some(request("da", 1, 1, 0.15))).await;
    let device = |r: &Value| r["devices"][0]["id"].as_str().unwrap().to_string();
    let (kept_device, forced_device) = (device(&kept), device(&forced));
    fake.advance(Duration::from_secs(3600)).unwrap();
    let (status, body) = call(
        &fake,
        "DELETE",
        &format!("/spot-market-requests/{}", kept["id"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!(status, 204, "{body}");
    let (status, d) = call(&fake, "GET", &format!("/devices/{kept_device}"), None).await;
    assert_eq!((status, d["state"].as_str()), (200, Some("active")));
    let (status, _) = call(
        &fake,
        "DELETE",
        &format!(
            "/spot-market-requests/{}?force_termination=maybe",
            forced["id"].as_str().unwrap()
        ),
        None,
    )
    .await;
    assert_eq!(status, 422);
    let (status, _) = call(
        &fake,
        "DELETE",
        &format!(
            "/spot-market-requests/{}?force_termination=true",
            forced["id"].as_str().unwrap()
        ),
        None,
    )
    .await;
    assert_eq!(status, 204);
    fake.advance(Duration::from_secs(3600)).unwrap();
    let (status, _) = call(&fake, "GET", &format!("/devices/{forced_device}"), None).await;
    assert_eq!(status, 404, "terminated with its request");
    let (status, _) = call(
        &fake,
        "GET",
        &format!("/spot-market-requests/{}", forced["id"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!(status, 404);
    // The terminated device's machine is free again: a new request takes it.
    let (status, again) = call(&fake, "POST", &requests(), Some(request("da", 1, 1, 0.15))).await;
    assert_eq!(status, 201, "{again}");
}

#[tokio::test(start_paused = true)]
async fn packngo_s_delete_body_forces_the_termination_as_the_query_does() {
    // packngo's `SpotMarketRequests.Delete(id, true)` sends
    // `{"force_termination": true}` as the body; with `false`, `null`.
    let fake = fake();
    let (_, kept) = call(&fake, "POST", &requests(), Some(request("da", 1, 1, 0.15))).await;
    let (_, forced) = call(&fake, "POST", &requests(), Some(request("da", 1, 1, 0.15))).await;
    let device = |r: &Value| format!("/devices/{}", r["devices"][0]["id"].as_str().unwrap());
    let path = |r: &Value| format!("/spot-market-requests/{}", r["id"].as_str().unwrap());
    fake.advance(Duration::from_secs(3600)).unwrap();
    let (status, body) = call(
        &fake,
        "DELETE",
        &path(&forced),
        Some(json!({"force_termination": "yes"})),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    let (status, body) = call(&fake, "DELETE", &path(&kept), Some(Value::Null)).await;
    assert_eq!(status, 204, "{body}");
    let (status, body) = call(
        &fake,
        "DELETE",
        &path(&forced),
        Some(json!({"force_termination": true})),
    )
    .await;
    assert_eq!(status, 204, "{body}");
    fake.advance(Duration::from_secs(3600)).unwrap();
    assert_eq!(call(&fake, "GET", &device(&kept), None).await.0, 200);
    assert_eq!(call(&fake, "GET", &device(&forced), None).await.0, 404);
}

#[tokio::test(start_paused = true)]
async fn a_spot_bid_given_as_text_is_taken_as_the_number() {
    // packngo's `DeviceCreateRequest.SpotPriceMax` has the `,string` tag:
    // the bid goes out as `"0.15"`.
    let fake = fake();
    let body = |bid: Value| {
        json!({
            "metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
            "hostname": "bid", "spot_instance": true, "spot_price_max": bid
        })
    };
    let devices = format!("/projects/{PROJECT}/devices");
    let (status, made) = call(&fake, "POST", &devices, Some(body(json!("0.15")))).await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["spot_price_max"], 0.15);
    assert_eq!(made["spot_instance"], true);
    // Text that is no number is refused, as a number out of bounds is.
    for bad in [json!("cheap"), json!("9.99")] {
        let (status, body) = call(&fake, "POST", &devices, Some(body(bad.clone()))).await;
        assert_eq!(status, 422, "{bad}: {body}");
    }
}

#[tokio::test(start_paused = true)]
async fn end_at_ends_the_spot_instances_at_that_time_on_the_fake_s_clock() {
    let fake = fake();
    // An hour from now on the fake's clock (its wall time starts at the
    // real time, in whole seconds).
    let end = chrono::Utc::now() + chrono::Duration::seconds(3600);
    let mut body = request("da", 2, 2, 0.15);
    body["end_at"] = json!(end.to_rfc3339());
    let (status, made) = call(&fake, "POST", &requests(), Some(body)).await;
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().unwrap();
    let devices: Vec<String> = made["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(devices.len(), 2);
    fake.advance(Duration::from_secs(3590)).unwrap();
    for d in &devices {
        let (status, read) = call(&fake, "GET", &format!("/devices/{d}"), None).await;
        assert_eq!((status, read["state"].as_str()), (200, Some("active")));
    }
    fake.advance(Duration::from_secs(20)).unwrap();
    for d in &devices {
        let (status, _) = call(&fake, "GET", &format!("/devices/{d}"), None).await;
        assert_eq!(status, 404, "ended at end_at");
    }
    let (status, read) = call(&fake, "GET", &format!("/spot-market-requests/{id}"), None).await;
    assert_eq!(status, 200, "the request stays");
    assert_eq!(read["devices"], json!([]), "{read}");
    // Their machines are free again.
    let (status, again) = call(&fake, "POST", &requests(), Some(request("da", 2, 2, 0.15))).await;
    assert_eq!(status, 201, "{again}");
}

#[tokio::test]
async fn requests_and_prices_are_seeded_and_saved_and_refused_when_inconsistent() {
    let fake = fake();
    let (_, made) = call(&fake, "POST", &requests(), Some(request("sv", 1, 1, 0.2))).await;
    assert_eq!(made["devices"].as_array().unwrap().len(), 1);
    let saved = fake.world();
    assert_eq!(saved.spot_prices, world().spot_prices);
    assert_eq!(saved.spot_market_requests.len(), 1);
    // The saved world loads again, the request with its device.
    let again = Fake::builder().world(saved.clone()).build();
    let (status, read) = call(
        &again,
        "GET",
        &format!("/spot-market-requests/{}", made["id"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(read["devices"][0]["id"], made["devices"][0]["id"]);
    // A request naming another project's device, or a price of a plan
    // the catalog lacks, is refused.
    let mut bad = saved.clone();
    bad.spot_market_requests[0].project = OTHER.parse().unwrap();
    assert!(Fake::builder().world(bad).try_build().is_err());
    let mut bad = saved.clone();
    bad.spot_prices[0].plan = "x9.huge".into();
    assert!(Fake::builder().world(bad).try_build().is_err());
    let mut bad = saved;
    bad.spot_market_requests[0].devices_min = 0;
    assert!(Fake::builder().world(bad).try_build().is_err());
}
