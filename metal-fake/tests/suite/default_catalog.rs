//! The world a fake starts with is Metal's: the real catalog
//! (`metal-fake/catalog/`) by default, as real clients' own tests look it
//! up (metal-cli's e2e tests, packngo's `TestAccPlansFilter`, the
//! Terraform provider's plan filters), and one availability behind
//! `/plans`, `/capacity`, the capacity checks and `createDevice`. In
//! process.

use crate::http;

use std::collections::BTreeSet;

use http::in_process;
use metal_fake::document::WorldDoc;
use metal_fake::{Fake, DEFAULT_TOKEN};
use serde_json::{json, Value};

async fn get(fake: &Fake, path: &str) -> Value {
    let (status, body) = in_process(fake, DEFAULT_TOKEN, "GET", path, None).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

async fn call(fake: &Fake, method: &str, path: &str, body: Value) -> (u16, Value) {
    in_process(fake, DEFAULT_TOKEN, method, path, Some(body)).await
}

fn strings<'a>(list: &'a Value, key: &str) -> Vec<&'a str> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|v| v[key].as_str().unwrap_or_else(|| panic!("no {key} in {v}")))
        .collect()
}

/// The continent of a metro's country.
fn continent(country: &str) -> &'static str {
    match country {
        "US" | "CA" => "North America",
        "BR" => "South America",
        "NL" | "DE" | "GB" | "FR" | "ES" | "SE" | "FI" | "IT" => "Europe",
        "JP" | "SG" | "HK" | "KR" => "Asia",
        "AU" => "Oceania",
        other => panic!("no continent for {other}"),
    }
}

#[tokio::test]
async fn the_default_world_is_metal_s_catalog_by_its_real_names() {
    let fake = Fake::builder().build();
    let metros = get(&fake, "/locations/metros").await;
    let metros = &metros["metros"];
    assert!(strings(metros, "code").len() >= 25, "{metros}");
    let names = strings(metros, "name");
    for name in ["Seattle", "Tokyo", "Sydney", "Toronto", "Chicago", "Dallas"] {
        assert!(names.contains(&name), "metro {name} in {names:?}");
    }
    let continents: BTreeSet<&str> = strings(metros, "country")
        .into_iter()
        .map(continent)
        .collect();
    assert!(continents.len() >= 4, "{continents:?}");

    // Current facilities and the retired ones older clients name, each in
    // its metro; Singapore's with every feature metal-cli looks for.
    let facilities = get(&fake, "/facilities").await;
    let facilities = facilities["facilities"].as_array().unwrap().clone();
    let metro_of = |code: &str| {
        facilities
            .iter()
            .find(|f| f["code"] == code)
            .unwrap_or_else(|| panic!("no facility {code}"))["metro"]["code"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for (facility, metro) in [
        ("dc10", "dc"),
        ("da11", "da"),
        ("sv15", "sv"),
        ("ny5", "ny"),
        ("dc13", "dc"),
        ("ams1", "am"),
        ("nrt1", "ty"),
        ("dfw1", "da"),
        ("fra1", "fr"),
        ("sjc1", "sv"),
        ("ewr1", "ny"),
    ] {
        assert_eq!(metro_of(facility), metro, "facility {facility}");
    }
    let singapore = facilities
        .iter()
        .find(|f| f["metro"]["name"] == "Singapore")
        .expect("a facility in Singapore");
    let features: Vec<&str> = singapore["features"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        features.join(","),
        "baremetal,backend_transfer,layer_2,global_ipv4,ibx"
    );

    let plans = get(&fake, "/plans").await;
    let plans = &plans["plans"];
    let slugs = strings(plans, "slug");
    assert!(slugs.len() >= 20, "{slugs:?}");
    for slug in [
        "c3.small.x86",
        "c3.medium.x86",
        "m3.small.x86",
        "m3.large.x86",
        "s3.xlarge.x86",
        "n3.xlarge.x86",
        "c3.large.arm64",
        "x3.xlarge.x86",
        "n2.xlarge.x86",
        "t1.small.x86",
        "c1.small.x86",
        "c1.large.arm",
        "m1.xlarge.x86",
        "baremetal_0",
        "baremetal_1",
        "baremetal_2",
        "baremetal_2a",
        "baremetal_3",
    ] {
        assert!(slugs.contains(&slug), "plan {slug}");
    }
    for p in plans.as_array().unwrap() {
        assert!(p["pricing"]["hour"].as_f64().is_some(), "{p}");
        assert!(p["specs"]["cpus"][0]["count"].as_u64().is_some(), "{p}");
        assert!(p["specs"]["memory"]["total"].as_str().is_some(), "{p}");
        let on_demand = p["deployment_types"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d == "on_demand");
        if on_demand {
            assert!(!p["available_in"].as_array().unwrap().is_empty(), "{p}");
            assert!(
                !p["available_in_metros"].as_array().unwrap().is_empty(),
                "{p}"
            );
        }
        let legacy = p["categories"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "legacy_gen");
        // c2.medium.x86 is the one legacy plan still sold on demand (in
        // `am`): terraform-provider-equinix's device tests pick it among
        // their `PreferablePlans` by `deployment_types` `on_demand` or
        // `spot_market` and create it on demand.
        assert!(
            !(legacy && on_demand) || p["slug"] == "c2.medium.x86",
            "a legacy plan is not sold on demand: {p}"
        );
    }
    // The Terraform provider finds a plan by `name`.
    let small = &plans[slugs.iter().position(|s| *s == "c3.small.x86").unwrap()];
    assert_eq!(small["name"], "c3.small.x86");

    let systems = get(&fake, "/operating-systems").await;
    let systems = &systems["operating_systems"];
    let names = strings(systems, "name");
    assert!(names.len() >= 40, "{names:?}");
    for name in [
        "RedHat Enterprise Linux 7",
        "RancherOS",
        "VMware ESXi 8.0",
        "Windows 2022 Standard",
        "Debian 10",
    ] {
        assert!(names.contains(&name), "operating system {name}");
    }
    let slugs = strings(systems, "slug");
    for slug in [
        "ubuntu_18_04",
        "coreos_stable",
        "custom_ipxe",
        "ubuntu_24_04",
    ] {
        assert!(slugs.contains(&slug), "operating system {slug}");
    }
    let ubuntus = systems
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["distro"] == "ubuntu")
        .count();
    assert!(ubuntus >= 3, "distro=ubuntu matches {ubuntus}");
    let windows = systems
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["slug"] == "windows_2022")
        .unwrap();
    assert_eq!(windows["licensed"], true);
}

#[tokio::test]
async fn plan_filters_narrow_the_list_as_clients_expect() {
    let fake = Fake::builder().build();
    let count = |body: Value| body["plans"].as_array().unwrap().len();
    let all = count(get(&fake, "/plans?include=available_in").await);
    // packngo's TestAccPlansFilter: fewer plans are sold on demand.
    let on_demand = get(
        &fake,
        "/plans?include=available_in&deployment_type=on_demand",
    )
    .await;
    assert!(count(on_demand.clone()) < all);
    for p in on_demand["plans"].as_array().unwrap() {
        assert!(p["deployment_types"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d == "on_demand"));
    }
    let legacy = get(&fake, "/plans?categories[]=legacy_gen").await;
    let legacy = strings(&legacy["plans"], "slug")
        .into_iter()
        .map(str::to_string)
        .collect::<Vec<_>>();
    assert!(legacy.contains(&"baremetal_0".to_string()), "{legacy:?}");
    assert!(!legacy.contains(&"c3.small.x86".to_string()), "{legacy:?}");
    let optimized = get(&fake, "/plans?type=workload_optimized").await;
    assert_eq!(
        strings(&optimized["plans"], "slug"),
        ["a3.large.opt-m3a2"],
        "the reserved-only plan"
    );
    let standard = count(get(&fake, "/plans?type=standard").await);
    assert_eq!(standard + 1, all);
    let one = get(&fake, "/plans?slug=m3.small.x86").await;
    assert_eq!(strings(&one["plans"], "slug"), ["m3.small.x86"]);
    let (status, body) = in_process(&fake, DEFAULT_TOKEN, "GET", "/plans?type=huge", None).await;
    assert_eq!(status, 422, "{body}");
    let (status, body) =
        in_process(&fake, DEFAULT_TOKEN, "GET", "/plans?categories[]=gpu", None).await;
    assert_eq!(status, 422, "{body}");
}

/// The codes `list` names (whole places, with `include`).
fn codes(list: &Value) -> BTreeSet<String> {
    strings(list, "code")
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// A device create body for `plan` in the metro `metro` (a spot instance
/// at `bid` when given).
fn create_in(metro: &str, plan: &str, bid: Option<f64>) -> Value {
    let mut body = json!({"metro": metro, "plan": plan, "operating_system": "ubuntu_24_04",
                          "hostname": "walk"});
    if let Some(bid) = bid {
        body["spot_instance"] = json!(true);
        body["spot_price_max"] = json!(bid);
    }
    body
}

/// Every (plan, metro) of the default catalog: listed available in
/// `/plans` ⇔ the metro capacity check says so ⇔ a create as the plan is
/// sold (on demand; a spot instance for a plan sold only on the spot
/// market) succeeds; every (plan, facility): listed ⇔ the facility check.
/// A plan not sold on demand refuses an on-demand create everywhere.
#[tokio::test]
async fn every_plan_and_metro_of_the_catalog_agrees_with_itself() {
    let fake = Fake::builder().build();
    let project = fake.project();
    let plans = get(&fake, "/plans?include=available_in,available_in_metros").await;
    let metros = get(&fake, "/locations/metros").await;
    let facilities = get(&fake, "/facilities").await;
    let mut created = 0;
    for plan in plans["plans"].as_array().unwrap() {
        let slug = plan["slug"].as_str().unwrap();
        let ways: Vec<&str> = plan["deployment_types"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let in_metros = codes(&plan["available_in_metros"]);
        let in_facilities = codes(&plan["available_in"]);
        let price = plan["pricing"]["hour"].as_f64().unwrap();
        let lines: Vec<Value> = metros["metros"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| json!({"metro": m["code"], "plan": slug, "quantity": 1}))
            .collect();
        let (status, checked) =
            call(&fake, "POST", "/capacity/metros", json!({"servers": lines})).await;
        assert_eq!(status, 200, "{checked}");
        for line in checked["servers"].as_array().unwrap() {
            let metro = line["metro"].as_str().unwrap();
            let listed = in_metros.contains(metro);
            let available = line["available"].as_bool().unwrap();
            assert_eq!(
                listed, available,
                "{slug} in {metro}: listed {listed}, check {available}"
            );
            let on_demand = create_in(metro, slug, None);
            let (status, body) = call(
                &fake,
                "POST",
                &format!("/projects/{project}/devices"),
                on_demand,
            )
            .await;
            let sold_on_demand = ways.contains(&"on_demand");
            assert_eq!(
                status == 201,
                listed && sold_on_demand,
                "{slug} in {metro} on demand: {status} {body}"
            );
            if status == 201 {
                created += 1;
            } else {
                assert_eq!(status, 422, "{body}");
            }
            if listed && !sold_on_demand && ways.contains(&"spot_market") {
                let spot = create_in(metro, slug, Some(price));
                let (status, body) =
                    call(&fake, "POST", &format!("/projects/{project}/devices"), spot).await;
                assert_eq!(status, 201, "{slug} in {metro} as a spot instance: {body}");
                created += 1;
            }
        }
        let lines: Vec<Value> = facilities["facilities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| json!({"facility": f["code"], "plan": slug, "quantity": 1}))
            .collect();
        let (_, checked) = call(&fake, "POST", "/capacity", json!({"servers": lines})).await;
        for line in checked["servers"].as_array().unwrap() {
            let facility = line["facility"].as_str().unwrap();
            assert_eq!(
                in_facilities.contains(facility),
                line["available"].as_bool().unwrap(),
                "{slug} in {facility}"
            );
        }
    }
    assert!(created >= 200, "{created} devices made");
}

fn world(doc: Value) -> Fake {
    let doc: WorldDoc = serde_json::from_value(doc).unwrap();
    Fake::builder().world(doc).build()
}

const PROJECT: &str = "0c100000-0000-4000-8000-000000000001";

/// Lists `plan` available in `metro` (with `include`), the metro check
/// for one, and an on-demand create there: each as a bool.
async fn four_say(fake: &Fake, plan: &str, metro: &str) -> [bool; 4] {
    let plans = get(
        fake,
        &format!("/plans?slug={plan}&include=available_in_metros"),
    )
    .await;
    let listed = codes(&plans["plans"][0]["available_in_metros"]).contains(metro);
    let levels = get(fake, "/capacity/metros").await;
    let level = levels["capacity"][metro][plan]["level"]
        .as_str()
        .unwrap_or("unavailable");
    let (_, checked) = call(
        fake,
        "POST",
        "/capacity/metros",
        json!({"servers": [{"metro": metro, "plan": plan, "quantity": 1}]}),
    )
    .await;
    let check = checked["servers"][0]["available"].as_bool().unwrap();
    let (status, _) = call(
        fake,
        "POST",
        &format!("/projects/{PROJECT}/devices"),
        create_in(metro, plan, None),
    )
    .await;
    [listed, level != "unavailable", check, status == 201]
}

#[tokio::test]
async fn a_world_that_lists_a_plan_in_a_metro_creates_there_on_demand() {
    // No capacity, no catalog: the plan listed in the metro has machines.
    let fake = world(json!({
        "catalog": "none",
        "projects": [{"id": PROJECT}],
        "plans": [{"slug": "c3.small.x86", "metros": [{"code": "da"}]}],
        "metros": [{"code": "da"}, {"code": "sv"}],
        "facilities": [{"code": "da11", "metro": "da"}, {"code": "sv15", "metro": "sv"}]
    }));
    assert_eq!(four_say(&fake, "c3.small.x86", "da").await, [true; 4]);
    // Not sold in sv: all four say no there.
    assert_eq!(four_say(&fake, "c3.small.x86", "sv").await, [false; 4]);
    let plans = get(&fake, "/plans").await;
    assert_eq!(strings(&plans["plans"], "slug"), ["c3.small.x86"]);
}

#[tokio::test]
async fn a_world_inherits_the_catalog_and_may_narrow_or_override_an_entry() {
    let fake = world(json!({
        "projects": [{"id": PROJECT}],
        "plans": [
            {"slug": "c3.small.x86", "metros": [{"code": "da"}, {"code": "sv"}], "pricing": {"hour": 0.5}},
            {"slug": "my.custom.plan", "metros": [{"code": "am"}]}
        ],
        "metros": [{"code": "da", "name": "Big D"}],
        "capacity": [
            {"metro": "sv", "plan": "c3.small.x86", "available": 3, "level": "limited"},
            {"metro": "am", "plan": "my.custom.plan", "available": 0}
        ]
    }));
    let metros = get(&fake, "/locations/metros").await;
    assert!(metros["metros"].as_array().unwrap().len() >= 25);
    let da = metros["metros"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["code"] == "da")
        .unwrap();
    assert_eq!(
        (&da["name"], &da["country"]),
        (&json!("Big D"), &json!("US"))
    );
    let plan = get(
        &fake,
        "/plans?slug=c3.small.x86&include=available_in_metros",
    )
    .await;
    let plan = &plan["plans"][0];
    // Overridden price and metros; the catalog's specs kept.
    assert_eq!(plan["pricing"]["hour"], 0.5);
    assert_eq!(plan["specs"]["memory"]["total"], "32GB");
    assert_eq!(
        codes(&plan["available_in_metros"]),
        ["da", "sv"].map(String::from).into()
    );
    assert_eq!(four_say(&fake, "c3.small.x86", "ny").await, [false; 4]);
    assert_eq!(four_say(&fake, "c3.small.x86", "da").await, [true; 4]);
    let levels = get(&fake, "/capacity/metros").await;
    assert_eq!(levels["capacity"]["sv"]["c3.small.x86"]["level"], "limited");
    assert_eq!(four_say(&fake, "c3.small.x86", "sv").await, [true; 4]);
    // A pool of none: all four say no.
    assert_eq!(four_say(&fake, "my.custom.plan", "am").await, [false; 4]);
    // The other plans keep the catalog's metros.
    assert_eq!(four_say(&fake, "m3.small.x86", "ny").await, [true; 4]);
}

#[tokio::test]
async fn a_pool_seeded_unavailable_or_emptied_is_unavailable_to_all_four() {
    let fake = world(json!({
        "projects": [{"id": PROJECT}],
        "capacity": [
            {"metro": "da", "plan": "m3.large.x86", "available": 5, "level": "unavailable"},
            {"facility": "sv15", "plan": "m3.large.x86", "available": 1}
        ]
    }));
    assert_eq!(four_say(&fake, "m3.large.x86", "da").await, [false; 4]);
    // One machine: the create takes it, then all four say no.
    assert_eq!(four_say(&fake, "m3.large.x86", "sv").await, [true; 4]);
    assert_eq!(four_say(&fake, "m3.large.x86", "sv").await, [false; 4]);
    let facilities = get(&fake, "/capacity").await;
    assert_eq!(
        facilities["capacity"]["sv15"]["m3.large.x86"]["level"],
        "unavailable"
    );
}

#[tokio::test]
async fn the_builder_can_keep_the_small_world() {
    let small = Fake::builder()
        .catalog(metal_fake::document::CatalogChoice::None)
        .build();
    let plans = get(&small, "/plans").await;
    assert_eq!(strings(&plans["plans"], "slug"), ["c3.small.x86"]);
    let metros = get(&small, "/locations/metros").await;
    assert_eq!(strings(&metros["metros"], "code"), ["da"]);
    // Its entries still carry the catalog's facts.
    assert_eq!(plans["plans"][0]["pricing"]["hour"], 0.75);
    assert_eq!(metros["metros"][0]["name"], "Dallas");
    // A saved world lists everything and says so.
    let saved = small.world();
    assert_eq!(saved.catalog, metal_fake::document::CatalogChoice::None);
    let again = Fake::builder().world(saved.clone()).build();
    assert_eq!(again.world().plans, saved.plans);
}
