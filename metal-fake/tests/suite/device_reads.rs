//! What a device knows of itself and what it used: its metadata, custom
//! data, user data, SSH keys, usage (hours on the fake's clock at its
//! plan's price), bandwidth and traffic (zero series), health, firmware
//! sets and a screenshot; the user-data check; and an organisation's
//! hardware reservations, the one path beyond the spec. Each in process
//! and over HTTP (replies with a schema checked against the spec), on
//! tokio's paused clock.

use crate::via::Via;

use std::time::Duration;

use metal_fake::document::WorldDoc;
use metal_fake::DEFAULT_TOKEN;
use serde_json::{json, Value};

pub(crate) const PROJECT: &str = "0c000000-0000-4000-8000-000000000001";
pub(crate) const OTHER_PROJECT: &str = "0c000000-0000-4000-8000-000000000002";
pub(crate) const ORG: &str = "0c000000-0000-4000-8000-0000000000f1";
const USER_KEY: &str = "0e000000-0000-4000-8000-000000000001";
const PROJECT_KEY: &str = "0e000000-0000-4000-8000-000000000002";
const RESERVATION: &str = "0c000000-0000-4000-8000-0000000000c1";

/// One organisation with two projects; metro `da` (`da11`) with
/// `c3.small.x86` at its real price and two machines on demand; a user
/// key and a project key; one hardware reservation in each project.
pub(crate) fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "catalog": "none",
        "organizations": [{"id": ORG, "name": "acme"}],
        "projects": [
            {"id": PROJECT, "organization": ORG},
            {"id": OTHER_PROJECT, "organization": ORG}
        ],
        "plans": [{"slug": "c3.small.x86", "pricing": {"hour": 0.75}}],
        "metros": [{"code": "da"}],
        "facilities": [{"code": "da11", "metro": "da"}],
        "capacity": [{"facility": "da11", "plan": "c3.small.x86", "available": 4}],
        "reservations": [
            {"id": RESERVATION, "project": PROJECT, "plan": "c3.small.x86", "facility": "da11"},
            {"id": "0c000000-0000-4000-8000-0000000000c2", "project": OTHER_PROJECT, "plan": "c3.small.x86", "facility": "da11"}
        ],
        "ssh_keys": [
            {"id": USER_KEY, "label": "me", "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9eB me@laptop"},
            {"id": PROJECT_KEY, "label": "deploy", "project": PROJECT, "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9eB deploy"}
        ]
    }))
    .unwrap()
}

/// Where a test's calls go (see [`Via`]).
pub(crate) type Api = Via;

/// Creates an on-demand device in `da` and waits (on the fake's clock)
/// until it is active; its ID.
pub(crate) async fn active_device(api: &Api, body: Value) -> String {
    let (status, made) = api
        .call("POST", &format!("/projects/{PROJECT}/devices"), Some(body))
        .await;
    assert_eq!(status, 201, "{}: {made}", api.way());
    let id = made["id"].as_str().unwrap().to_string();
    api.fake.advance(Duration::from_secs(3600)).unwrap();
    assert_eq!(api.get(&format!("/devices/{id}")).await["state"], "active");
    id
}

fn on_demand(hostname: &str) -> Value {
    json!({
        "metro": "da",
        "plan": "c3.small.x86",
        "operating_system": "ubuntu_24_04",
        "hostname": hostname,
        "tags": ["web"],
        "userdata": "#cloud-config\npackages: [nginx]\n",
        "customdata": {"role": "web", "tier": 1}
    })
}

#[tokio::test(start_paused = true)]
async fn metadata_shows_the_device_from_its_record_keys_and_addresses() {
    for api in Api::both(world).await {
        let id = active_device(&api, on_demand("meta-1")).await;
        let device = api.get(&format!("/devices/{id}")).await;
        let m = api.get(&format!("/devices/{id}/metadata")).await;
        assert_eq!(m["id"], id.as_str());
        assert_eq!(m["hostname"], "meta-1");
        assert_eq!(
            (m["plan"].clone(), m["class"].clone()),
            (json!("c3.small.x86"), json!("c3.small.x86"))
        );
        assert_eq!(
            (m["facility"].clone(), m["metro"].clone()),
            (json!("da11"), json!("da"))
        );
        assert_eq!(m["state"], "active");
        assert_eq!(m["tags"], json!(["web"]));
        assert_eq!(m["customdata"], json!({"role": "web", "tier": 1}));
        assert_eq!(m["operating_system"]["slug"], "ubuntu_24_04");
        assert_eq!(m["iqn"], device["iqn"]);
        assert_eq!(m["reserved"], false);
        // The keys it got at create: the project's and the user's.
        let keys: Vec<&str> = m["ssh_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        assert_eq!(keys.len(), 2, "{keys:?}");
        assert!(
            keys.iter().any(|k| k.ends_with(" deploy"))
                && keys.iter().any(|k| k.ends_with(" me@laptop"))
        );
        // Its addresses, as the device shows them.
        let addresses: Vec<String> = device["ip_addresses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| format!("{}/{}", a["address"].as_str().unwrap(), a["cidr"]))
            .collect();
        assert_eq!(addresses.len(), 3);
        assert_eq!(m["network"]["addresses"], json!(addresses));
        assert_eq!(m["network"]["interfaces"].as_array().unwrap().len(), 2);
        assert_eq!(m["network"]["network"]["bonding"]["mode"], 4);
        // A device provisioning has no addresses yet.
        let (_, young) = api
            .call(
                "POST",
                &format!("/projects/{PROJECT}/devices"),
                Some(on_demand("meta-2")),
            )
            .await;
        let young = api
            .get(&format!(
                "/devices/{}/metadata",
                young["id"].as_str().unwrap()
            ))
            .await;
        assert_eq!(young["network"]["addresses"], json!([]));
        assert_eq!(young["state"], "queued");
        // Not there: 404.
        let (status, _) = api
            .call(
                "GET",
                &format!("/devices/{}/metadata", uuid::Uuid::new_v4()),
                None,
            )
            .await;
        assert_eq!(status, 404);
        api.finish().await;
    }
}

#[tokio::test(start_paused = true)]
async fn customdata_and_userdata_read_what_the_create_and_update_set() {
    for api in Api::both(world).await {
        let id = active_device(&api, on_demand("data-1")).await;
        assert_eq!(
            api.get(&format!("/devices/{id}/customdata")).await,
            json!({"role": "web", "tier": 1})
        );
        assert_eq!(
            api.get(&format!("/devices/{id}/userdata")).await,
            json!({"userdata": "#cloud-config\npackages: [nginx]\n"})
        );
        let (status, body) = api
            .call(
                "PUT",
                &format!("/devices/{id}"),
                Some(json!({"customdata": {"role": "db"}, "userdata": "#!/bin/sh\ntrue\n"})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            api.get(&format!("/devices/{id}/customdata")).await,
            json!({"role": "db"})
        );
        assert_eq!(
            api.get(&format!("/devices/{id}/userdata")).await["userdata"],
            "#!/bin/sh\ntrue\n"
        );
        // A device created without either reads `{}` and `""`.
        let bare = active_device(
            &api,
            json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04", "hostname": "bare"}),
        )
        .await;
        assert_eq!(
            api.get(&format!("/devices/{bare}/customdata")).await,
            json!({})
        );
        assert_eq!(
            api.get(&format!("/devices/{bare}/userdata")).await,
            json!({"userdata": ""})
        );
        api.finish().await;
    }
}

#[tokio::test(start_paused = true)]
async fn validate_userdata_takes_cloud_init_formats_only() {
    for api in Api::both(world).await {
        for good in [
            "#cloud-config\nhostname: x\n",
            "#!/bin/bash\necho hi\n",
            "Content-Type: multipart/mixed; boundary=x\n",
        ] {
            let path = format!("/userdata/validate?userdata={}", urlencode(good));
            let (status, body) = api.call("POST", &path, None).await;
            assert_eq!(status, 204, "{} {good:?}: {body}", api.way());
        }
        for bad in ["", "hello world", "cloud-config: no hash"] {
            let path = format!("/userdata/validate?userdata={}", urlencode(bad));
            let (status, body) = api.call("POST", &path, None).await;
            assert_eq!(status, 422, "{} {bad:?}: {body}", api.way());
            assert!(
                body["errors"][0].as_str().unwrap().contains("cloud-init"),
                "{body}"
            );
        }
        api.finish().await;
    }
}

/// `text` percent-encoded for a query.
pub(crate) fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn ssh_keys_are_those_the_create_chose() {
    for api in Api::both(world).await {
        let all = active_device(&api, on_demand("keys-1")).await;
        let listed = api.get(&format!("/devices/{all}/ssh-keys")).await;
        let mut ids: Vec<&str> = listed["ssh_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["id"].as_str().unwrap())
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, [USER_KEY, PROJECT_KEY]);
        // Named keys: only those.
        let mut named = on_demand("keys-2");
        named["project_ssh_keys"] = json!([PROJECT_KEY]);
        let one = active_device(&api, named).await;
        let listed = api.get(&format!("/devices/{one}/ssh-keys")).await;
        assert_eq!(listed["ssh_keys"].as_array().unwrap().len(), 1);
        assert_eq!(listed["ssh_keys"][0]["label"], "deploy");
        // `Search string` matches the label.
        let found = api
            .get(&format!("/devices/{all}/ssh-keys?Search%20string=DEPLOY"))
            .await;
        assert_eq!(found["ssh_keys"].as_array().unwrap().len(), 1);
        // A key deleted since is gone from the list.
        let (status, _) = api
            .call("DELETE", &format!("/ssh-keys/{USER_KEY}"), None)
            .await;
        assert_eq!(status, 204);
        let listed = api.get(&format!("/devices/{all}/ssh-keys")).await;
        assert_eq!(listed["ssh_keys"][0]["id"], PROJECT_KEY);
        assert_eq!(listed["ssh_keys"].as_array().unwrap().len(), 1);
        api.finish().await;
    }
}

#[tokio::test(start_paused = true)]
async fn usage_counts_hours_on_the_fake_s_clock_at_the_plan_s_price() {
    for api in Api::both(world).await {
        let (_, made) = api
            .call(
                "POST",
                &format!("/projects/{PROJECT}/devices"),
                Some(on_demand("use-1")),
            )
            .await;
        let id = made["id"].as_str().unwrap().to_string();
        api.fake.advance(Duration::from_secs(2 * 3600)).unwrap();
        let usages = api.get(&format!("/devices/{id}/usages")).await;
        assert_eq!(usages["usages"][0]["unit"], "hour");
        assert_eq!(usages["usages"][0]["quantity"], "2.00", "{usages}");
        assert_eq!(usages["usages"][0]["total"], "1.50", "{usages}");
        // The window cuts the hours: from an hour after the create.
        let created = made["created_at"].as_str().unwrap();
        let after =
            chrono::DateTime::parse_from_rfc3339(created).unwrap() + chrono::Duration::hours(1);
        let path = format!(
            "/devices/{id}/usages?created%5Bafter%5D={}",
            urlencode(&after.to_rfc3339())
        );
        assert_eq!(api.get(&path).await["usages"][0]["quantity"], "1.00");
        // The project's: one row a device.
        let project = api.get(&format!("/projects/{PROJECT}/usages")).await;
        let rows = project["usages"].as_array().unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["name"], "use-1");
        assert_eq!(rows[0]["plan"], "c3.small.x86");
        assert_eq!(rows[0]["price"], "0.75");
        assert_eq!(rows[0]["total"], "1.50");
        assert_eq!(rows[0]["facility"], "da11");
        let (status, body) = api
            .call(
                "GET",
                &format!("/devices/{id}/usages?created%5Bafter%5D=yesterday"),
                None,
            )
            .await;
        assert_eq!(status, 422, "{body}");
        api.finish().await;
    }
}

#[tokio::test(start_paused = true)]
async fn bandwidth_and_traffic_are_zero_series_over_the_window() {
    for api in Api::both(world).await {
        let id = active_device(&api, on_demand("bw-1")).await;
        let bw = api
            .get(&format!(
                "/devices/{id}/bandwidth?from=1700000000&until=1700003600"
            ))
            .await;
        let series = bw["bandwidth"].as_array().unwrap();
        assert_eq!(series.len(), 2);
        assert_eq!(
            (series[0]["target"].clone(), series[1]["target"].clone()),
            (json!("inbound"), json!("outbound"))
        );
        let points = series[0]["datapoints"].as_array().unwrap();
        // Every 5 minutes over the hour, both ends.
        assert_eq!(points.len(), 13);
        assert_eq!(points[0], json!([0.0, 1_700_000_000]));
        assert_eq!(points[12], json!([0.0, 1_700_003_600]));
        let (status, _) = api
            .call(
                "GET",
                &format!("/devices/{id}/bandwidth?from=1700000000"),
                None,
            )
            .await;
        assert_eq!(status, 422);

        let t = api
            .get(&format!("/devices/{id}/traffic?direction=inbound&timeframe%5Bstarted_at%5D=2024-01-01T00:00:00Z&timeframe%5Bended_at%5D=2024-01-01T01:00:00Z"))
            .await;
        assert_eq!(t["direction"], "inbound");
        assert_eq!(t["traffic"].as_array().unwrap().len(), 13);
        assert!(t["traffic"].as_array().unwrap().iter().all(|p| p[0] == 0.0));
        let (status, _) = api
            .call(
                "GET",
                &format!("/devices/{id}/traffic?direction=sideways"),
                None,
            )
            .await;
        assert_eq!(status, 422);
        let (status, _) = api
            .call("GET", &format!("/devices/{id}/traffic"), None)
            .await;
        assert_eq!(status, 422);
        api.finish().await;
    }
}

#[tokio::test(start_paused = true)]
async fn health_follows_the_device_state() {
    for api in Api::both(world).await {
        let id = active_device(&api, on_demand("health-1")).await;
        let h = api
            .get(&format!("/devices/{id}/diagnostics/health/rollup"))
            .await;
        assert_eq!(h["health_rollup"], "ok");
        let (status, _) = api
            .call(
                "POST",
                &format!("/devices/{id}/actions"),
                Some(json!({"type": "power_off"})),
            )
            .await;
        assert_eq!(status, 202);
        assert_eq!(
            api.get(&format!("/devices/{id}/diagnostics/health/rollup"))
                .await["health_rollup"],
            "warning"
        );
        api.fake.advance(Duration::from_secs(600)).unwrap();
        assert_eq!(
            api.get(&format!("/devices/{id}")).await["state"],
            "inactive"
        );
        assert_eq!(
            api.get(&format!("/devices/{id}/diagnostics/health/rollup"))
                .await["health_rollup"],
            "warning"
        );
        api.finish().await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_screenshot_is_a_small_jpeg_while_the_device_is_on() {
    for over_http in [false, true] {
        let api = Api::new(world(), over_http).await;
        let id = active_device(&api, on_demand("shot-1")).await;
        let path = format!("/devices/{id}/diagnostics/screenshot");
        let (status, content_type, body) = match &api.server {
            Some(s) => {
                let r = api
                    .client
                    .get(format!("{}{path}", s.base_url()))
                    .header("x-auth-token", DEFAULT_TOKEN)
                    .send()
                    .await
                    .unwrap();
                let ct = r
                    .headers()
                    .get("content-type")
                    .map(|v| v.to_str().unwrap().to_string());
                (r.status().as_u16(), ct, r.bytes().await.unwrap().to_vec())
            }
            None => {
                use metal_api::Exchange;
                let req = api
                    .client
                    .get(format!("http://metal-fake.invalid/metal/v1{path}"))
                    .header("x-auth-token", DEFAULT_TOKEN)
                    .build()
                    .unwrap();
                let r = api
                    .fake
                    .exchange(&metal_api::operation::CAPTURE_SCREENSHOT, req)
                    .await
                    .unwrap();
                let ct = r
                    .headers()
                    .get("content-type")
                    .map(|v| v.to_str().unwrap().to_string());
                (r.status().as_u16(), ct, r.bytes().await.unwrap().to_vec())
            }
        };
        assert_eq!(status, 200);
        assert_eq!(content_type.as_deref(), Some("application/jpeg"));
        // A JPEG: its start and end markers.
        assert_eq!(&body[..2], &[0xff, 0xd8]);
        assert_eq!(&body[body.len() - 2..], &[0xff, 0xd9]);
        assert!(body.len() < 1024);
        // Off: refused.
        api.call(
            "POST",
            &format!("/devices/{id}/actions"),
            Some(json!({"type": "power_off"})),
        )
        .await;
        api.fake.advance(Duration::from_secs(600)).unwrap();
        let (status, body) = api.call("GET", &path, None).await;
        assert_eq!(status, 422, "{body}");
        api.finish().await;
    }
}

#[tokio::test(start_paused = true)]
async fn firmware_sets_are_empty() {
    for api in Api::both(world).await {
        let id = active_device(&api, on_demand("fw-1")).await;
        let (status, body) = api
            .call("GET", &format!("/devices/{id}/firmware-sets"), None)
            .await;
        assert_eq!(status, 404, "{body}");
        for path in [
            format!("/organizations/{ORG}/firmware-sets?per_page=5"),
            format!("/projects/{PROJECT}/firmware-sets?per_page=5"),
        ] {
            let list = api.get(&path).await;
            assert_eq!(list["records"], json!([]));
            assert_eq!(
                (
                    list["total_record_count"].clone(),
                    list["page_size"].clone()
                ),
                (json!(0), json!(5))
            );
        }
        let (status, _) = api
            .call(
                "GET",
                &format!("/projects/{}/firmware-sets", uuid::Uuid::new_v4()),
                None,
            )
            .await;
        assert!(status == 404 || status == 403, "{status}");
        api.finish().await;
    }
}

#[tokio::test(start_paused = true)]
async fn an_organisation_lists_its_projects_reservations() {
    for api in Api::both(world).await {
        let list = api
            .get(&format!("/organizations/{ORG}/hardware-reservations"))
            .await;
        let rows = list["hardware_reservations"].as_array().unwrap();
        assert_eq!(rows.len(), 2, "{list}");
        assert_eq!(rows[0]["id"], RESERVATION);
        assert_eq!(list["meta"]["total"], 2);
        // The project list's filters apply.
        let one = api
            .get(&format!(
                "/organizations/{ORG}/hardware-reservations?per_page=1"
            ))
            .await;
        assert_eq!(one["hardware_reservations"].as_array().unwrap().len(), 1);
        assert_eq!(one["meta"]["total"], 2);
        let (status, _) = api
            .call(
                "GET",
                &format!(
                    "/organizations/{}/hardware-reservations",
                    uuid::Uuid::new_v4()
                ),
                None,
            )
            .await;
        assert!(status == 404 || status == 403, "{status}");
        api.finish().await;
    }
}
