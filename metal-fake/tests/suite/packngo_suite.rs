//! What packngo's own acceptance suite (v0.31.0, run unmodified against
//! the binary by `tests/client_suites.rs`) found the fake doing otherwise
//! than the real API did, one test a behaviour, each on the default world
//! (the catalog, an organisation, a project), as the suite runs: a create
//! naming an older facility, the capacity check there, a spot bid as low
//! as its test bids, a list's last page, a fresh account's events.
//! The other behaviours it needed are tested beside their resources
//! (`include.rs`, `api_keys.rs`, `bgp_sessions.rs`, `virtual_networks.rs`,
//! `metal_gateways.rs`, `interconnections.rs`).

use crate::http;
use crate::network;

use metal_fake::Fake;
use serde_json::{json, Value};

const TOKEN: &str = "packngo-token";

async fn call(fake: &Fake, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    http::in_process(fake, TOKEN, method, path, body).await
}

/// The default world's project.
async fn project(fake: &Fake) -> String {
    let (_, p) = call(fake, "GET", "/projects", None).await;
    p["projects"][0]["id"].as_str().unwrap().to_string()
}

fn device(facilities: &[&str]) -> Value {
    json!({"facility": facilities, "plan": "c3.small.x86", "operating_system": "ubuntu_18_04",
           "hostname": "packngo", "billing_cycle": "hourly"})
}

/// A create in a facility draws on its metro's machines and lands in the
/// facility asked, older facilities too (`TestAccDeviceCreateFacilities`
/// asks `nrt1`, `dfw1`, `fra1` and reads one of them back; the port tests
/// ask `ny5`); the metro gives one less. A facility the catalog lacks is
/// refused as before.
#[tokio::test(start_paused = true)]
async fn a_create_in_an_older_facility_takes_a_machine_of_its_metro_and_lands_there() {
    let fake = Fake::builder().token(TOKEN).build();
    let project = project(&fake).await;
    let devices = format!("/projects/{project}/devices");
    let level = |capacity: &Value, place: &str| {
        capacity["capacity"][place]["c3.small.x86"]["level"].clone()
    };
    for (asked, lands) in [
        (vec!["nrt1", "dfw1", "fra1"], "nrt1"),
        (vec!["ny5"], "ny5"),
        (vec!["ewr1"], "ewr1"),
        (vec!["sjc1"], "sjc1"),
        (vec!["dc13"], "dc13"),
    ] {
        let (status, d) = call(&fake, "POST", &devices, Some(device(&asked))).await;
        assert_eq!(status, 201, "{asked:?}: {d}");
        assert_eq!(d["facility"]["code"], lands);
        assert_eq!(d["metro"]["code"], d["facility"]["metro"]["code"]);
    }
    let (_, facilities) = call(&fake, "GET", "/capacity", None).await;
    let (_, metros) = call(&fake, "GET", "/capacity/metros", None).await;
    for (facility, metro) in [("ams1", "am"), ("ewr1", "ny"), ("ny5", "ny")] {
        assert_eq!(
            level(&facilities, facility),
            level(&metros, metro),
            "{facility}"
        );
    }
    let (status, reply) = call(&fake, "POST", &devices, Some(device(&["zz9"]))).await;
    assert_eq!(
        (status, &reply["errors"][0]),
        (422, &json!("zz9 is not a valid facility"))
    );
}

/// `TestAccCheckCapacity` checks one `c3.small.x86` in `ams1` and wants
/// it available; the check agrees with the create.
#[tokio::test(start_paused = true)]
async fn a_capacity_check_in_an_older_facility_answers_for_its_metro() {
    let fake = Fake::builder().token(TOKEN).build();
    let (status, body) = call(
        &fake,
        "POST",
        "/capacity",
        Some(
            json!({"servers": [{"facility": "ams1", "plan": "c3.small.x86", "quantity": 1},
                                {"facility": "ams1", "plan": "c3.small.x86", "quantity": 1000}]}),
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["servers"][0]["available"], true);
    assert_eq!(body["servers"][1]["available"], false);
    let project = project(&fake).await;
    let (status, d) = call(
        &fake,
        "POST",
        &format!("/projects/{project}/devices"),
        Some(device(&["ams1"])),
    )
    .await;
    assert_eq!((status, &d["facility"]["code"]), (201, &json!("ams1")));
    // Then it looks for a facility whose list says the legacy
    // `baremetal_2a2` is unavailable, and checks one there: not available.
    let (_, list) = call(&fake, "GET", "/capacity", None).await;
    let unavailable: Vec<&String> = list["capacity"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, plans)| plans["baremetal_2a2"]["level"] == "unavailable")
        .map(|(f, _)| f)
        .collect();
    assert!(unavailable.iter().any(|f| *f == "ams1"), "{unavailable:?}");
    let (_, body) = call(
        &fake,
        "POST",
        "/capacity",
        Some(json!({"servers": [{"facility": unavailable[0], "plan": "baremetal_2a2", "quantity": 1}]})),
    )
    .await;
    assert_eq!(body["servers"][0]["available"], false, "{body}");
}

/// `TestAccDeviceSpotInstance` bids 0.04 for a `c3.small.x86` spot
/// instance in `ny5` and waits for it to be active; pulumi-equinix's
/// example bids 0.03 in `ny`. The catalog's price there is 0.03.
#[tokio::test(start_paused = true)]
async fn a_spot_bid_as_low_as_packngo_s_runs_in_new_york() {
    let fake = Fake::builder().token(TOKEN).build();
    let (_, prices) = call(
        &fake,
        "GET",
        "/market/spot/prices/metros?metro=ny&plan=c3.small.x86",
        None,
    )
    .await;
    assert_eq!(
        prices["spot_market_prices"]["ny"]["c3.small.x86"]["price"], 0.03,
        "{prices}"
    );
    let project = project(&fake).await;
    let mut body = device(&["ny5"]);
    body["operating_system"] = json!("coreos_stable");
    body["spot_instance"] = json!(true);
    body["spot_price_max"] = json!(0.04);
    let (status, d) = call(
        &fake,
        "POST",
        &format!("/projects/{project}/devices"),
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, 201, "{d}");
    assert_eq!(
        (&d["spot_instance"], &d["spot_price_max"]),
        (&json!(true), &json!(0.04))
    );
    // Below the price is still refused.
    body["spot_price_max"] = json!(0.02);
    let (status, _) = call(
        &fake,
        "POST",
        &format!("/projects/{project}/devices"),
        Some(body),
    )
    .await;
    assert_eq!(status, 422);
}

/// The last page's `meta.next` (and the first's `previous`) is `null`, as
/// the real API sent it: packngo's list loops decode every page into one
/// struct, and a `next` left out kept the previous page's, paging forever
/// (`TestAccOrgList` lists organisations one a page).
#[tokio::test(start_paused = true)]
async fn a_list_s_last_page_says_next_null() {
    let fake = Fake::builder().token(TOKEN).build();
    for name in ["a", "b"] {
        let (status, _) = call(&fake, "POST", "/organizations", Some(json!({"name": name}))).await;
        assert_eq!(status, 201);
    }
    let (_, first) = call(&fake, "GET", "/organizations?per_page=1", None).await;
    let meta = &first["meta"];
    assert!(
        meta["previous"].is_null() && meta.get("previous").is_some(),
        "{meta}"
    );
    assert!(meta["next"]["href"].is_string(), "{meta}");
    let last = meta["last_page"].as_u64().unwrap();
    let (_, end) = call(
        &fake,
        "GET",
        &format!("/organizations?per_page=1&page={last}"),
        None,
    )
    .await;
    assert!(
        end["meta"].get("next").is_some_and(Value::is_null),
        "{}",
        end["meta"]
    );
}

/// A fresh account's `/events` are not empty (`TestAccListEvents` reads
/// the first page and one event by ID): the default world's history
/// holds its organisation's and project's creation.
#[tokio::test(start_paused = true)]
async fn a_fresh_world_lists_its_organisation_s_and_project_s_creation() {
    let fake = Fake::builder().token(TOKEN).build();
    let (status, events) = call(&fake, "GET", "/events?page=1&per_page=9", None).await;
    assert_eq!(status, 200, "{events}");
    let types = network::event_types(&events);
    assert!(
        types.contains(&"project.created") && types.contains(&"organization.created"),
        "{types:?}"
    );
    let id = events["events"][0]["id"].as_str().unwrap();
    let (status, one) = call(&fake, "GET", &format!("/events/{id}"), None).await;
    assert_eq!((status, &one["id"]), (200, &json!(id)));
    let project = project(&fake).await;
    let (_, of_project) = call(&fake, "GET", &format!("/projects/{project}/events"), None).await;
    assert!(
        of_project["events"][0]["body"]
            .as_str()
            .is_some_and(|b| b.starts_with("Project fake project 1 was created")),
        "{of_project}"
    );
}
