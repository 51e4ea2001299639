//! The catalog with names: metros, facilities, plans (specs, prices, where
//! they are available, `include=available_in,available_in_metros`) and
//! operating systems, as the builder's shortcuts and the world document
//! seed them; and the BGP request metal-cli sends.

use crate::http;

use metal_fake::document::{Metro, OperatingSystem, Plan, PlanMetro, Price, WorldDoc};
use metal_fake::Fake;
use serde_json::{json, Value};

const TOKEN: &str = "catalog-token";

async fn get(fake: &Fake, path: &str) -> Value {
    let (status, body) = http::in_process(fake, TOKEN, "GET", path, None).await;
    assert_eq!(status, 200, "{path}: {body}");
    body
}

#[tokio::test]
async fn the_catalog_has_real_names_and_the_document_can_say_otherwise() {
    // The builder's shortcuts: real slugs and codes take their real facts.
    let fake = Fake::builder()
        .token(TOKEN)
        .catalog(metal_fake::document::CatalogChoice::None)
        .plans(["c3.small.x86", "m3.large.x86", "x9.custom"])
        .facilities([("da11", "da"), ("sv15", "sv"), ("am6", "am")])
        .build();
    let metros = get(&fake, "/locations/metros").await;
    let by_code = |code: &str| {
        metros["metros"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["code"] == code)
            .cloned()
            .unwrap()
    };
    assert_eq!(
        (
            by_code("da")["name"].clone(),
            by_code("da")["country"].clone()
        ),
        (json!("Dallas"), json!("US"))
    );
    assert_eq!(by_code("sv")["name"], "Silicon Valley");
    assert_eq!(
        (
            by_code("am")["name"].clone(),
            by_code("am")["country"].clone()
        ),
        (json!("Amsterdam"), json!("NL"))
    );
    let facilities = get(&fake, "/facilities").await;
    // The catalog's name of the facility.
    assert_eq!(facilities["facilities"][0]["name"], "Dallas 11");
    assert_eq!(facilities["facilities"][0]["metro"]["name"], "Dallas");

    let plans = get(&fake, "/plans").await;
    let small = &plans["plans"][0];
    assert_eq!(small["slug"], "c3.small.x86");
    assert_eq!(small["specs"]["memory"]["total"], "32GB");
    assert_eq!(small["specs"]["cpus"][0]["count"], 1);
    assert_eq!(
        small["specs"]["drives"][0],
        json!({"count": 2, "size": "480GB", "type": "SSD", "category": "boot"})
    );
    assert_eq!(
        small["specs"]["nics"][0],
        json!({"count": 2, "type": "10Gbps"})
    );
    assert_eq!(small["pricing"], json!({"hour": 0.75}));
    assert_eq!(
        small["deployment_types"],
        json!(["on_demand", "spot_market"])
    );
    assert_eq!(small["line"], "baremetal");
    // Without include, each place is an href with its price.
    assert_eq!(small["available_in_metros"].as_array().unwrap().len(), 3);
    assert_eq!(
        small["available_in_metros"][0]["price"],
        json!({"hour": 0.75})
    );
    let metro_id = by_code("da")["id"].as_str().unwrap().to_string();
    assert_eq!(
        small["available_in_metros"][0]["href"],
        format!("/metal/v1/locations/metros/{metro_id}")
    );
    assert!(small["available_in_metros"][0].get("code").is_none());
    assert_eq!(small["available_in"].as_array().unwrap().len(), 3);
    let large = &plans["plans"][1];
    assert_eq!(large["specs"]["memory"]["total"], "256GB");
    assert_eq!(large["pricing"]["hour"], 3.1);
    // A slug the fake does not know has neither specs nor a price.
    let custom = &plans["plans"][2];
    assert_eq!(custom["slug"], "x9.custom");
    assert!(custom.get("specs").is_none() && custom.get("pricing").is_none());

    // As the Terraform provider lists them: each place whole.
    let plans = get(&fake, "/plans?include=available_in,available_in_metros").await;
    let small = &plans["plans"][0];
    let codes: Vec<&str> = small["available_in_metros"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["da", "sv", "am"]);
    assert_eq!(small["available_in_metros"][0]["name"], "Dallas");
    assert_eq!(small["available_in_metros"][0]["price"]["hour"], 0.75);
    assert_eq!(small["available_in"][1]["code"], "sv15");
    assert_eq!(small["available_in"][1]["metro"]["code"], "sv");

    let os = get(&fake, "/operating-systems").await;
    let ubuntu = os["operating_systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["slug"] == "ubuntu_24_04")
        .cloned()
        .unwrap();
    assert_eq!(ubuntu["name"], "Ubuntu 24.04 LTS");
    assert_eq!(
        (ubuntu["distro"].clone(), ubuntu["version"].clone()),
        (json!("ubuntu"), json!("24.04"))
    );
    assert_eq!(
        ubuntu["provisionable_on"],
        json!(["c3.small.x86", "m3.large.x86", "x9.custom"])
    );

    // The world document says otherwise, and the saved world keeps it.
    let doc = WorldDoc {
        catalog: metal_fake::document::CatalogChoice::None,
        metros: vec![
            Metro {
                code: "da".into(),
                ..Default::default()
            },
            Metro {
                code: "zz".into(),
                name: Some("Zedville".into()),
                country: Some("ZZ".into()),
                ..Default::default()
            },
        ],
        facilities: vec![metal_fake::document::Facility {
            code: "zz1".into(),
            metro: "zz".into(),
            features: Some(vec!["baremetal".into()]),
            ..Default::default()
        }],
        plans: vec![Plan {
            slug: "c3.small.x86".into(),
            deployment_types: Some(vec!["on_demand".into()]),
            metros: Some(vec![PlanMetro {
                code: "zz".into(),
                price: Some(Price { hour: 2.0 }),
            }]),
            ..Default::default()
        }],
        operating_systems: vec![OperatingSystem {
            slug: "ubuntu_24_04".into(),
            name: Some("Our Ubuntu".into()),
            ..Default::default()
        }],
        ..Default::default()
    };
    let seeded = Fake::builder().token(TOKEN).world(doc).build();
    let metros = get(&seeded, "/locations/metros").await;
    assert_eq!(
        metros["metros"][1],
        json!({
            "id": metros["metros"][1]["id"], "code": "zz", "name": "Zedville", "country": "ZZ"
        })
    );
    let facilities = get(&seeded, "/facilities").await;
    assert_eq!(facilities["facilities"][0]["name"], "Zedville ZZ1");
    assert_eq!(
        facilities["facilities"][0]["features"],
        json!(["baremetal"])
    );
    let plans = get(&seeded, "/plans?include=available_in_metros").await;
    let plan = &plans["plans"][0];
    assert_eq!(plan["deployment_types"], json!(["on_demand"]));
    assert_eq!(plan["available_in_metros"].as_array().unwrap().len(), 1);
    assert_eq!(plan["available_in_metros"][0]["code"], "zz");
    assert_eq!(plan["available_in_metros"][0]["price"]["hour"], 2.0);
    // The plan's own price stays the real one.
    assert_eq!(plan["pricing"]["hour"], 0.75);
    assert_eq!(
        get(&seeded, "/operating-systems").await["operating_systems"][0]["name"],
        "Our Ubuntu"
    );
    let saved = seeded.world();
    assert_eq!(saved.metros[0].name.as_deref(), Some("Dallas"));
    assert_eq!(saved.plans[0].metros.as_ref().unwrap()[0].code, "zz");
    let again = Fake::builder().token(TOKEN).world(saved.clone()).build();
    assert_eq!(again.world().plans, saved.plans);
    assert_eq!(again.world().metros, saved.metros);
}

#[test]
fn a_catalog_that_names_what_the_world_lacks_is_refused() {
    let doc = |plan: Plan| WorldDoc {
        metros: vec![Metro {
            code: "da".into(),
            ..Default::default()
        }],
        plans: vec![plan],
        catalog: metal_fake::document::CatalogChoice::None,
        ..Default::default()
    };
    let unknown_metro = doc(Plan {
        slug: "c3.small.x86".into(),
        metros: Some(vec![PlanMetro {
            code: "sv".into(),
            price: None,
        }]),
        ..Default::default()
    });
    let err = Fake::builder()
        .world(unknown_metro)
        .try_build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("plan c3.small.x86 names metro sv"), "{err}");
    let bad_type = doc(Plan {
        slug: "c3.small.x86".into(),
        deployment_types: Some(vec!["spot_market".into(), "spot_market".into()]),
        ..Default::default()
    });
    let err = Fake::builder()
        .world(bad_type)
        .try_build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("appears twice"), "{err}");
    let long = doc(Plan {
        slug: "c3.small.x86".into(),
        name: Some("x".repeat(300)),
        ..Default::default()
    });
    let err = Fake::builder()
        .world(long)
        .try_build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("longer than 255"), "{err}");
    let mut os = doc(Plan {
        slug: "c3.small.x86".into(),
        ..Default::default()
    });
    os.operating_systems = vec![OperatingSystem {
        slug: "ubuntu_24_04".into(),
        provisionable_on: Some(vec!["m3.large.x86".into()]),
        ..Default::default()
    }];
    let err = Fake::builder()
        .world(os)
        .try_build()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("operating system ubuntu_24_04 names plan m3.large.x86"),
        "{err}"
    );
}

#[tokio::test]
async fn an_empty_md5_is_no_password() {
    let fake = Fake::builder().token(TOKEN).build();
    let p = fake.project();
    let (status, body) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        &format!("/projects/{p}/bgp-configs"),
        Some(json!({"asn": 65000, "deployment_type": "local", "md5": ""})),
    )
    .await;
    assert_eq!(status, 204, "{body}");
    let config = get(&fake, &format!("/projects/{p}/bgp-config")).await;
    assert_eq!(config["asn"], 65000);
    assert!(config["md5"].is_null(), "{config}");
    // A password that is not empty still has to match the spec's pattern.
    let (status, _) = http::in_process(
        &fake,
        TOKEN,
        "POST",
        &format!("/projects/{p}/bgp-configs"),
        Some(json!({"asn": 65000, "deployment_type": "local", "md5": "no"})),
    )
    .await;
    assert_eq!(status, 422);
}

/// The project-scoped lists are the world's catalog; one metro reads by
/// its ID; the operating systems' versions are the operating systems. In
/// process and over HTTP.
#[tokio::test]
async fn project_scoped_catalog_lists_are_the_world_s() {
    use crate::device_reads::{world, Api, PROJECT};
    for api in Api::both(world).await {
        let plans = api.get("/plans").await;
        assert_eq!(api.get(&format!("/projects/{PROJECT}/plans")).await, plans);
        // With whole places (beyond the spec's schema, which the over-HTTP
        // check applies strictly): in process only.
        if api.way() == "in process" {
            assert_eq!(
                api.get(&format!("/projects/{PROJECT}/plans?include=available_in"))
                    .await,
                api.get("/plans?include=available_in").await
            );
        }
        let facilities = api.get("/facilities").await;
        assert_eq!(
            api.get(&format!("/projects/{PROJECT}/facilities")).await,
            facilities
        );
        assert_eq!(facilities["facilities"][0]["code"], "da11");
        let unknown = uuid::Uuid::new_v4();
        for path in [
            format!("/projects/{unknown}/plans"),
            format!("/projects/{unknown}/facilities"),
            format!("/locations/metros/{unknown}"),
        ] {
            let (status, body) = api.call("GET", &path, None).await;
            assert_eq!(status, 404, "{path}: {body}");
        }
        let metros = api.get("/locations/metros").await;
        let da = &metros["metros"][0];
        let one = api
            .get(&format!("/locations/metros/{}", da["id"].as_str().unwrap()))
            .await;
        assert_eq!(&one, da);
        assert_eq!(one["name"], "Dallas");
        assert_eq!(
            api.get("/operating-system-versions").await,
            api.get("/operating-systems").await
        );
        api.finish().await;
    }
}
