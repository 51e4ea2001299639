//! On-demand devices and capacity, as the Terraform provider's device tests
//! and metal-cli's device and capacity tests use them: a create by `metro`
//! or `facility` (one, a list, or `any`) with `plan` and
//! `operating_system` and no reservation, taking a machine from the
//! world's capacity and giving it back when gone; the capacity lists and
//! checks; and the refusals the real API gave. In process, on tokio's
//! paused clock.

use crate::http;

use std::time::Duration;

use http::{call, in_process};
use metal_fake::document::WorldDoc;
use metal_fake::{FailProvisioning, Fake, Timings, DEFAULT_TOKEN};
use serde_json::{json, Value};

const PROJECT: &str = "0c000000-0000-4000-8000-000000000001";
const ORG: &str = "0c000000-0000-4000-8000-0000000000f1";

/// Metros `da` (facilities `da11`, `da12`) and `sv` (`sv15`); one
/// `c3.small.x86` free in `da11`, two `limited` in metro `sv`, none of
/// `m3.large.x86` (sold in `da` only) in `da12`, and `n3.xlarge.x86`
/// sold nowhere; nothing of the catalog but these.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "catalog": "none",
        "organizations": [{"id": ORG, "name": "acme"}],
        "projects": [{"id": PROJECT, "organization": ORG}],
        "plans": [
            {"slug": "c3.small.x86"},
            {"slug": "m3.large.x86", "metros": [{"code": "da"}]},
            {"slug": "n3.xlarge.x86", "metros": []}
        ],
        "metros": [{"code": "da"}, {"code": "sv"}],
        "facilities": [
            {"code": "da11", "metro": "da"},
            {"code": "da12", "metro": "da"},
            {"code": "sv15", "metro": "sv"}
        ],
        "capacity": [
            {"facility": "da11", "plan": "c3.small.x86", "available": 1},
            {"metro": "sv", "plan": "c3.small.x86", "available": 2, "level": "limited"},
            {"facility": "da12", "plan": "m3.large.x86", "available": 0}
        ]
    }))
    .unwrap()
}

fn fake() -> Fake {
    Fake::builder().world(world()).build()
}

async fn create(fake: &Fake, body: Value) -> (u16, Value) {
    call(
        fake,
        "POST",
        &format!("/projects/{PROJECT}/devices"),
        Some(body),
    )
    .await
}

fn in_metro(metro: &str, plan: &str) -> Value {
    json!({"metro": metro, "plan": plan, "operating_system": "ubuntu_24_04", "hostname": "od"})
}

fn errors(body: &Value) -> Vec<&str> {
    body["errors"]
        .as_array()
        .map(|e| e.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

async fn metro_level(fake: &Fake, metro: &str, plan: &str) -> Value {
    let (status, body) = call(fake, "GET", "/capacity/metros", None).await;
    assert_eq!(status, 200, "{body}");
    body["capacity"][metro][plan]["level"].clone()
}

#[tokio::test(start_paused = true)]
async fn an_on_demand_device_goes_through_the_lifecycle_and_gives_its_machine_back() {
    let fake = fake();
    assert_eq!(metro_level(&fake, "da", "c3.small.x86").await, "normal");
    let (status, d) = create(&fake, in_metro("da", "c3.small.x86")).await;
    assert_eq!(status, 201, "{d}");
    assert_eq!(d["state"], "queued");
    assert_eq!(d["plan"]["slug"], "c3.small.x86");
    assert_eq!(d["facility"]["code"], "da11");
    assert_eq!(d["metro"]["code"], "da");
    assert!(d["hardware_reservation"].is_null(), "{d}");
    let id = d["id"].as_str().unwrap().to_string();

    // Its machine is taken: the metro has none left.
    assert_eq!(
        metro_level(&fake, "da", "c3.small.x86").await,
        "unavailable"
    );
    let (status, body) = create(&fake, in_metro("da", "c3.small.x86")).await;
    assert_eq!(
        (status, errors(&body)),
        (422, vec!["There aren't available servers in that metro"])
    );

    // The same lifecycle as a reservation's device.
    let (_, d) = call(&fake, "GET", &format!("/devices/{id}"), None).await;
    assert_eq!(d["state"], "queued");
    tokio::time::advance(Duration::from_secs(10)).await;
    let (_, d) = call(&fake, "GET", &format!("/devices/{id}"), None).await;
    assert_eq!(d["state"], "provisioning");
    let (status, _) = call(&fake, "DELETE", &format!("/devices/{id}"), None).await;
    assert_eq!(status, 422, "no delete while provisioning");
    tokio::time::advance(Duration::from_secs(60)).await;
    let (_, d) = call(&fake, "GET", &format!("/devices/{id}"), None).await;
    assert_eq!(d["state"], "active");
    assert_eq!(d["ip_addresses"].as_array().map(Vec::len), Some(3), "{d}");
    let (status, _) = call(
        &fake,
        "POST",
        &format!("/devices/{id}/actions"),
        Some(json!({"type": "power_off"})),
    )
    .await;
    assert_eq!(status, 202);

    // Gone, it gives its machine back.
    let (status, _) = call(&fake, "DELETE", &format!("/devices/{id}"), None).await;
    assert_eq!(status, 204);
    assert_eq!(metro_level(&fake, "da", "c3.small.x86").await, "normal");
    let (status, d) = create(&fake, in_metro("da", "c3.small.x86")).await;
    assert_eq!(status, 201, "{d}");
}

#[tokio::test(start_paused = true)]
async fn refusals_are_the_real_api_s() {
    let fake = fake();
    let cases = [
        (
            json!({"metro": "da", "plan": "c9.huge", "operating_system": "ubuntu_24_04"}),
            "c9.huge is not a valid plan",
        ),
        (
            json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "centos_8_2"}),
            "centos_8_2 is not a valid operating system",
        ),
        (
            json!({"metro": "zz", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"}),
            "zz is not a valid metro",
        ),
        (
            json!({"facility": "ams1", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"}),
            "ams1 is not a valid facility",
        ),
        // The plan is in the catalog but has no machine in the metro.
        (
            json!({"metro": "sv", "plan": "n3.xlarge.x86", "operating_system": "ubuntu_24_04"}),
            "There aren't available servers in that metro",
        ),
        // A pool with none free.
        (
            json!({"metro": "da", "plan": "m3.large.x86", "operating_system": "ubuntu_24_04"}),
            "There aren't available servers in that metro",
        ),
        // None of the facilities has the plan (packngo issue 121).
        (
            json!({"facility": ["da12", "ams1"], "plan": "n3.xlarge.x86", "operating_system": "ubuntu_24_04"}),
            "Facility can't be blank",
        ),
        // A facility shares its metro's capacity, and sv has none of
        // this plan.
        (
            json!({"facility": "sv15", "plan": "n3.xlarge.x86", "operating_system": "ubuntu_24_04"}),
            "Facility can't be blank",
        ),
        (
            json!({"plan": "c3.small.x86", "operating_system": "ubuntu_24_04"}),
            "metro or facility is required",
        ),
    ];
    for (body, message) in cases {
        let (status, reply) = create(&fake, body.clone()).await;
        assert_eq!((status, errors(&reply)), (422, vec![message]), "{body}");
    }
    assert!(fake.devices().is_empty(), "nothing was made");
    assert_eq!(fake.world().capacity, world().capacity, "nothing was taken");
}

#[tokio::test(start_paused = true)]
async fn facilities_are_tried_in_order_and_any_tries_every_one() {
    let fake = fake();
    let (status, d) = create(
        &fake,
        json!({"facility": ["da12", "da11"], "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"}),
    )
    .await;
    assert_eq!(status, 201, "{d}");
    // da12 shares its metro's machine, da11's: the device lands in the
    // first facility asked.
    assert_eq!(d["facility"]["code"], "da12");
    // da's one is taken now; `any` finds a machine in sv15, which shares its
    // metro's pool (and is placed there, as asked).
    let (status, d) = create(
        &fake,
        json!({"facility": "any", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"}),
    )
    .await;
    assert_eq!(status, 201, "{d}");
    assert_eq!(d["facility"]["code"], "sv15");
    // Neither da facility has one left, nor da's metro.
    let (status, reply) = create(
        &fake,
        json!({"facility": ["da11", "da12"], "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"}),
    )
    .await;
    assert_eq!(
        (status, errors(&reply)),
        (422, vec!["Facility can't be blank"])
    );

    // A metro's pool places its devices in the metro's first facility, by
    // the metro's ID, or by code in any case (`any` took one of sv's two).
    let (_, metros) = call(&fake, "GET", "/locations/metros", None).await;
    let sv_id = metros["metros"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["code"] == "sv")
        .map(|m| m["id"].as_str().unwrap().to_string())
        .unwrap();
    let (status, d) = create(&fake, in_metro(&sv_id, "c3.small.x86")).await;
    assert_eq!(status, 201, "{d}");
    assert_eq!(d["facility"]["code"], "sv15");
    let (status, reply) = create(&fake, in_metro("SV", "c3.small.x86")).await;
    assert_eq!(
        (status, errors(&reply)),
        (422, vec!["There aren't available servers in that metro"]),
        "sv had two"
    );
}

#[tokio::test(start_paused = true)]
async fn capacity_lists_show_levels_per_facility_and_per_metro() {
    let fake = fake();
    let (status, facilities) = call(&fake, "GET", "/capacity", None).await;
    assert_eq!(status, 200);
    assert_eq!(
        facilities,
        // A metro's facilities share its capacity: each shows its metro's.
        json!({"capacity": {
            "da11": {"c3.small.x86": {"level": "normal"}, "m3.large.x86": {"level": "unavailable"}},
            "da12": {"c3.small.x86": {"level": "normal"}, "m3.large.x86": {"level": "unavailable"}},
            "sv15": {"c3.small.x86": {"level": "limited"}}
        }})
    );
    let (status, metros) = call(&fake, "GET", "/capacity/metros", None).await;
    assert_eq!(status, 200);
    assert_eq!(
        metros,
        json!({"capacity": {
            "da": {"c3.small.x86": {"level": "normal"}, "m3.large.x86": {"level": "unavailable"}},
            "sv": {"c3.small.x86": {"level": "limited"}}
        }})
    );
    // The organization's twins read the same capacity.
    let (status, body) = call(
        &fake,
        "GET",
        &format!("/organizations/{ORG}/capacity"),
        None,
    )
    .await;
    assert_eq!((status, &body), (200, &facilities));
    let (status, body) = call(
        &fake,
        "GET",
        &format!("/organizations/{ORG}/capacity/metros"),
        None,
    )
    .await;
    assert_eq!((status, &body), (200, &metros));
    let other = "0c000000-0000-4000-8000-0000000000f2";
    let (status, _) = call(
        &fake,
        "GET",
        &format!("/organizations/{other}/capacity"),
        None,
    )
    .await;
    assert_eq!(status, 404);
}

#[tokio::test(start_paused = true)]
async fn capacity_checks_answer_per_line_and_echo_the_quantity_as_sent() {
    let fake = fake();
    let (status, body) = call(
        &fake,
        "POST",
        "/capacity/metros",
        Some(json!({"servers": [
            {"metro": "sv", "plan": "c3.small.x86", "quantity": 2},
            {"metro": "sv", "plan": "c3.small.x86", "quantity": "3"},
            {"metro": "da", "plan": "c3.small.x86", "quantity": "1"},
            {"metro": "da", "plan": "m3.large.x86", "quantity": 1},
            {"metro": "zz", "plan": "c3.small.x86", "quantity": 1},
            {"metro": "da", "plan": "c9.huge", "quantity": 1}
        ]})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let got: Vec<(Value, bool)> = body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["quantity"].clone(), s["available"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        got,
        vec![
            (json!(2), true),
            (json!("3"), false),
            (json!("1"), true),
            (json!(1), false),
            (json!(1), false),
            (json!(1), false),
        ]
    );
    assert_eq!(body["servers"][0]["metro"], "sv");
    assert_eq!(body["servers"][0]["plan"], "c3.small.x86");

    let (status, body) = call(
        &fake,
        "POST",
        "/capacity",
        Some(json!({"servers": [
            {"facility": "da11", "plan": "c3.small.x86", "quantity": 1},
            {"facility": "da11", "plan": "c3.small.x86", "quantity": 2},
            {"facility": "sv15", "plan": "c3.small.x86", "quantity": 1}
        ]})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let available: Vec<bool> = body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["available"].as_bool().unwrap())
        .collect();
    // sv15 shares its metro's two.
    assert_eq!(available, vec![true, false, true]);
    assert_eq!(body["servers"][0]["facility"], "da11");
    // Without a quantity: one, echoed as the spec types it, a string
    // (found by the walk: it was the number 1).
    let (status, body) = call(
        &fake,
        "POST",
        "/capacity",
        Some(json!({"servers": [{"facility": "da11", "plan": "c3.small.x86"}]})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["servers"][0]["quantity"], "1");

    // A check takes nothing; a create does.
    let (status, _) = create(&fake, in_metro("da", "c3.small.x86")).await;
    assert_eq!(status, 201);
    let (_, body) = call(
        &fake,
        "POST",
        "/capacity",
        Some(json!({"servers": [{"facility": "da11", "plan": "c3.small.x86", "quantity": 1}]})),
    )
    .await;
    assert_eq!(body["servers"][0]["available"], false);

    for bad in [
        json!({"servers": [{"metro": "da", "plan": "c3.small.x86", "quantity": "many"}]}),
        json!({"servers": [{"metro": "da", "quantity": 1}]}),
        json!({"servers": "da"}),
    ] {
        let (status, _) = call(&fake, "POST", "/capacity/metros", Some(bad.clone())).await;
        assert_eq!(status, 422, "{bad}");
    }
}

#[tokio::test(start_paused = true)]
async fn reservation_backed_creates_take_no_capacity() {
    let fake = Fake::builder().reservations(1).build();
    let before = fake.world().capacity;
    assert!(
        !before.is_empty(),
        "the builder's world has on-demand capacity"
    );
    let reservation = fake.reservations()[0].id.unwrap();
    let (status, d) = in_process(
        &fake,
        DEFAULT_TOKEN,
        "POST",
        &format!("/projects/{}/devices", fake.project()),
        Some(json!({
            "hardware_reservation_id": reservation,
            "plan": "c3.small.x86",
            "operating_system": "ubuntu_24_04"
        })),
    )
    .await;
    assert_eq!(status, 201, "{d}");
    assert_eq!(
        d["hardware_reservation"]["href"],
        json!(format!("/metal/v1/hardware-reservations/{reservation}"))
    );
    assert_eq!(fake.world().capacity, before);
}

#[tokio::test(start_paused = true)]
async fn the_builder_s_world_creates_on_demand_through_the_generated_client() {
    use metal_api::types;
    let fake = Fake::builder().build();
    let body = types::CreateDeviceRequest::MetroInput(
        types::DeviceCreateInMetroInput::builder()
            .metro("da")
            .plan("c3.small.x86")
            .operating_system("ubuntu_24_04")
            .hostname(Some("tf-acc".to_string()))
            .try_into()
            .unwrap(),
    );
    let api = fake.api_client();
    let mut made = Vec::new();
    for _ in 0..metal_fake_default_on_demand() {
        let d = api
            .create_device()
            .id(fake.project())
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert!(d.hardware_reservation.is_none());
        made.push(d.id);
    }
    let refused = api
        .create_device()
        .id(fake.project())
        .body(body)
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(422));
    assert_eq!(fake.devices().len(), made.len());
}

/// What the builder's world holds of each plan in each facility (the
/// documented default, read back from its world).
fn metal_fake_default_on_demand() -> u32 {
    let fake = Fake::builder().build();
    fake.world().capacity[0].available
}

#[tokio::test(start_paused = true)]
async fn capacity_saves_what_is_left_and_a_bad_pool_is_refused() {
    let fake = fake();
    let (status, _) = create(&fake, in_metro("sv", "c3.small.x86")).await;
    assert_eq!(status, 201);
    let saved = fake.world();
    let sv = saved
        .capacity
        .iter()
        .find(|c| c.metro.as_deref() == Some("sv"))
        .unwrap();
    assert_eq!(sv.available, 1);
    // The saved world loads again, and its device gives its machine back
    // to the pool of its metro when deleted.
    let again = Fake::builder().world(saved.clone()).build();
    let id = again.devices()[0].id.unwrap();
    tokio::time::advance(Duration::from_secs(70)).await;
    let (status, _) = call(&again, "DELETE", &format!("/devices/{id}"), None).await;
    assert_eq!(status, 204);
    let back = again.world();
    let sv = back
        .capacity
        .iter()
        .find(|c| c.metro.as_deref() == Some("sv"))
        .unwrap();
    assert_eq!(sv.available, 2);

    for (pool, why) in [
        (
            json!({"plan": "c3.small.x86", "available": 1}),
            "exactly one",
        ),
        (
            json!({"metro": "da", "facility": "da11", "plan": "c3.small.x86", "available": 1}),
            "exactly one",
        ),
        (
            json!({"facility": "da11", "plan": "c9.huge", "available": 1}),
            "plan c9.huge",
        ),
        (
            json!({"metro": "zz", "plan": "c3.small.x86", "available": 1}),
            "metro zz",
        ),
        (
            json!({"facility": "da11", "plan": "c3.small.x86", "available": 4}),
            "appears twice",
        ),
        (
            json!({"facility": "da12", "plan": "c3.small.x86", "available": 100001}),
            "more than the fake holds",
        ),
    ] {
        let mut doc = world();
        doc.capacity
            .push(serde_json::from_value(pool.clone()).unwrap());
        let err = Fake::builder().world(doc).try_build().unwrap_err();
        assert!(err.to_string().contains(why), "{pool}: {err}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_create_s_ip_addresses_take_the_public_ipv4_from_a_reserved_block() {
    let mut doc = world();
    doc.capacity[0].available = 3;
    let fake = Fake::builder().world(doc).build();
    let (status, block) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "public_ipv4", "quantity": 2, "metro": "da"})),
    )
    .await;
    assert_eq!(status, 201, "{block}");
    let block_id = block["id"].as_str().unwrap().to_string();
    let asking = |hostname: &str| {
        json!({
            "metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
            "hostname": hostname,
            "ip_addresses": [
                {"address_family": 4, "public": true, "cidr": 31, "ip_reservations": [block_id]},
                {"address_family": 4, "public": false}
            ]
        })
    };
    let (status, d) = create(&fake, asking("from-block")).await;
    assert_eq!(status, 201, "{d}");
    let id = d["id"].as_str().unwrap().to_string();
    assert_eq!(d["ip_addresses"], json!([]), "none before provisioning");

    // The block is taken whole: a second device asking for it is refused.
    let (status, reply) = create(&fake, asking("second")).await;
    assert_eq!(
        (status, errors(&reply)),
        (
            422,
            vec!["No free addresses in the IP reservations asked for"]
        )
    );

    tokio::time::advance(Duration::from_secs(70)).await;
    let (_, d) = call(&fake, "GET", &format!("/devices/{id}"), None).await;
    assert_eq!(d["state"], "active");
    let ips = d["ip_addresses"].as_array().unwrap();
    // Its public IPv4 from the block, first, as its management address (the
    // Terraform provider reads `network.0` and the management addresses);
    // its private IPv4; no public IPv6, which it did not ask for.
    assert_eq!(ips.len(), 2, "{ips:?}");
    assert_eq!(ips[0]["address_family"], 4);
    assert_eq!(ips[0]["public"], true);
    assert_eq!(ips[0]["management"], true);
    assert_eq!(ips[0]["cidr"], 31);
    assert_eq!(ips[0]["gateway"], block["gateway"]);
    assert_eq!(ips[0]["network"], block["network"]);
    assert_eq!(ips[1]["public"], false);
    assert!(ips.iter().all(|a| a["address_family"] == 4));

    // Gone, the device frees the block for the next.
    let (status, _) = call(&fake, "DELETE", &format!("/devices/{id}"), None).await;
    assert_eq!(status, 204);
    let (status, d) = create(&fake, asking("next")).await;
    assert_eq!(status, 201, "{d}");

    // Only public IPv4 comes from a block; no private IPv6; a block of
    // another metro is refused.
    for (asked, message) in [
        (
            json!([{"address_family": 4, "public": false, "ip_reservations": [block_id]}]),
            "Only a public IPv4 address can come from an IP reservation",
        ),
        (
            json!([{"address_family": 6, "public": false}]),
            "Private IPv6 addresses are not supported",
        ),
        (
            json!([{"address_family": 4, "public": true, "ip_reservations": ["0c000000-0000-4000-8000-00000000dead"]}]),
            "IP reservation 0c000000-0000-4000-8000-00000000dead is not a reservation of this project",
        ),
    ] {
        let body = json!({
            "metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
            "ip_addresses": asked
        });
        let (status, reply) = create(&fake, body).await;
        assert_eq!((status, errors(&reply)), (422, vec![message]));
    }
    let (_, sv_block) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "public_ipv4", "quantity": 1, "metro": "sv"})),
    )
    .await;
    let body = json!({
        "metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04",
        "ip_addresses": [{"address_family": 4, "public": true, "ip_reservations": [sv_block["id"]]}]
    });
    let (status, reply) = create(&fake, body).await;
    assert_eq!(
        (status, errors(&reply)),
        (
            422,
            vec!["Address is reserved in another metro than the device's"]
        )
    );
}

#[tokio::test(start_paused = true)]
async fn patch_ips_updates_a_reservation_s_details_tags_and_customdata() {
    let fake = fake();
    let (status, block) = call(
        &fake,
        "POST",
        &format!("/projects/{PROJECT}/ips"),
        Some(json!({"type": "public_ipv4", "quantity": 1, "metro": "da", "tags": ["a"]})),
    )
    .await;
    assert_eq!(status, 201, "{block}");
    let path = format!("/ips/{}", block["id"].as_str().unwrap());
    let (status, r) = call(
        &fake,
        "PATCH",
        &path,
        Some(json!({"details": "edge", "customdata": {"k": 1}})),
    )
    .await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["details"], "edge");
    assert_eq!(r["customdata"], json!({"k": 1}));
    assert_eq!(r["tags"], json!(["a"]), "left alone when not named");
    // `description`, as the Terraform provider names it; `tags: []` clears.
    let (status, r) = call(
        &fake,
        "PATCH",
        &path,
        Some(json!({"description": "core", "tags": []})),
    )
    .await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        (r["details"].clone(), r["tags"].clone()),
        (json!("core"), json!([]))
    );
    assert_eq!(r["customdata"], json!({"k": 1}));
    let (_, read) = call(&fake, "GET", &path, None).await;
    assert_eq!(read["details"], "core");

    let (status, _) = call(&fake, "PATCH", &path, Some(json!({"tags": "x"}))).await;
    assert_eq!(status, 422);
    let (status, _) = call(
        &fake,
        "PATCH",
        &path,
        Some(json!({"details": "d".repeat(256 * 1024 + 1)})),
    )
    .await;
    assert_eq!(status, 422);
    let (_, read) = call(&fake, "GET", &path, None).await;
    assert_eq!(read["details"], "core", "nothing changed");
    let (status, _) = call(
        &fake,
        "PATCH",
        "/ips/0c000000-0000-4000-8000-00000000dead",
        Some(json!({"details": "x"})),
    )
    .await;
    assert_eq!(status, 404);
}

/// terraform-provider-equinix issue 188 (Equinix, 2021): "failed on-demand
/// provisions are deleted from the account as soon as the failure is
/// detected. Failed Hardware reservation devices remain as failed
/// instances in the project"; issue 788 (Equinix, 2024): "The Metal API can
/// return an HTTP 403 for a read request on a Metal device that fails
/// during provisioning". Every client tolerates it: Terraform's device read
/// drops a `403` or `404`, metal-cli's `CleanTestDevice` ignores a `403`
/// ("likely failed provision"). The reservation's device that stays is
/// `lifecycle`'s `FailedDeviceBlocksItsReservation`.
#[tokio::test(start_paused = true)]
async fn an_on_demand_device_that_fails_leaves_the_project_at_once() {
    let fake = Fake::builder()
        .world(world())
        .fail_provisioning(FailProvisioning::Hostname("od".into()))
        .build();
    let (status, d) = create(&fake, in_metro("da", "c3.small.x86")).await;
    assert_eq!(status, 201, "{d}");
    let path = format!("/devices/{}", d["id"].as_str().unwrap());
    let list = format!("/projects/{PROJECT}/devices");
    // Provisioning ends at 65 s on the default timings: until then it is
    // the project's.
    tokio::time::advance(Duration::from_secs(64)).await;
    let (_, d) = call(&fake, "GET", &path, None).await;
    assert_eq!(d["state"], "provisioning", "{d}");
    tokio::time::advance(Duration::from_secs(1)).await;
    for method in ["GET", "DELETE"] {
        let (status, body) = call(&fake, method, &path, None).await;
        assert_eq!(
            (status, errors(&body)),
            (403, vec!["You are not authorized to view this device"]),
            "{method}"
        );
    }
    let (_, listed) = call(&fake, "GET", &list, None).await;
    assert_eq!(listed["devices"], json!([]), "{listed}");
    // Ten minutes later it is not found; its machine is back.
    tokio::time::advance(Duration::from_secs(600)).await;
    assert_eq!(call(&fake, "GET", &path, None).await.0, 404);
    assert_eq!(metro_level(&fake, "da", "c3.small.x86").await, "normal");

    // `failed_on_demand_moved_after: None` keeps it in the project, `failed`.
    let fake = Fake::builder()
        .world(world())
        .timings(Timings {
            failed_on_demand_moved_after: None,
            ..Timings::default()
        })
        .fail_provisioning(FailProvisioning::Hostname("od".into()))
        .build();
    let (_, d) = create(&fake, in_metro("da", "c3.small.x86")).await;
    let path = format!("/devices/{}", d["id"].as_str().unwrap());
    tokio::time::advance(Duration::from_secs(3600)).await;
    let (status, d) = call(&fake, "GET", &path, None).await;
    assert_eq!((status, &d["state"]), (200, &json!("failed")), "{d}");
}
