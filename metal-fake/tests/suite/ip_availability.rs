//! What is free in a reserved block (`findIPAvailabilities`, as packngo's
//! `ProjectIPs.AvailableAddresses` asks), the custom data reads of blocks
//! and assignments, and a device's own blocks among its project's IP
//! reservations (as the Terraform provider's precreated-block data source
//! finds them) until the device goes. In process and over HTTP.

use std::time::Duration;

use crate::device_reads::{active_device, world, Api, OTHER_PROJECT, PROJECT};

use serde_json::{json, Value};

/// Reserves a public block of `quantity` addresses in `da`, with
/// `customdata`; the reply.
async fn reserve(api: &Api, quantity: u32, customdata: Value) -> Value {
    let (status, body) = api
        .call(
            "POST",
            &format!("/projects/{PROJECT}/ips"),
            Some(json!({"type": "public_ipv4", "quantity": quantity, "metro": "da", "customdata": customdata})),
        )
        .await;
    assert_eq!(status, 201, "{}: {body}", api.way());
    body
}

fn device_body(hostname: &str) -> Value {
    json!({"metro": "da", "plan": "c3.small.x86", "operating_system": "ubuntu_24_04", "hostname": hostname})
}

fn texts(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn availabilities_are_the_free_aligned_blocks() {
    for api in Api::both(world).await {
        let block = reserve(&api, 8, json!({})).await;
        let id = block["id"].as_str().unwrap();
        let network: std::net::Ipv4Addr = block["network"].as_str().unwrap().parse().unwrap();
        let at = |n: u32| std::net::Ipv4Addr::from(u32::from(network) + n);
        let all = api.get(&format!("/ips/{id}/available?cidr=32")).await;
        let expected: Vec<String> = (0..8).map(|n| format!("{}/32", at(n))).collect();
        assert_eq!(texts(&all["available"]), expected);
        // One address assigned: it is no longer free, nor the /30 holding it.
        let device = active_device(&api, device_body("avail-1")).await;
        let (status, body) = api
            .call(
                "POST",
                &format!("/devices/{device}/ips"),
                Some(json!({"address": at(5).to_string()})),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        let singles = api.get(&format!("/ips/{id}/available?cidr=32")).await;
        assert_eq!(singles["available"].as_array().unwrap().len(), 7);
        assert!(!texts(&singles["available"]).contains(&format!("{}/32", at(5)).as_str()));
        let quads = api.get(&format!("/ips/{id}/available?cidr=30")).await;
        assert_eq!(texts(&quads["available"]), [format!("{network}/30")]);
        let whole = api.get(&format!("/ips/{id}/available?cidr=29")).await;
        assert_eq!(whole["available"], json!([]));
        // Outside the block's prefix to 32, or missing: 422.
        for bad in ["?cidr=28", "?cidr=33", "?cidr=x", ""] {
            let (status, body) = api
                .call("GET", &format!("/ips/{id}/available{bad}"), None)
                .await;
            assert_eq!(status, 422, "{bad}: {body}");
        }
        // The device gone, its address is free again.
        let (status, _) = api
            .call("DELETE", &format!("/devices/{device}"), None)
            .await;
        assert_eq!(status, 204);
        let singles = api.get(&format!("/ips/{id}/available?cidr=32")).await;
        assert_eq!(singles["available"].as_array().unwrap().len(), 8);
        api.finish().await;
    }
}

#[tokio::test(start_paused = true)]
async fn customdata_reads_of_blocks_and_assignments() {
    for api in Api::both(world).await {
        let block = reserve(&api, 4, json!({"owner": "lb"})).await;
        let id = block["id"].as_str().unwrap();
        assert_eq!(
            api.get(&format!("/ips/{id}/customdata")).await,
            json!({"owner": "lb"})
        );
        assert_eq!(
            api.get(&format!("/projects/{PROJECT}/ips/{id}/customdata"))
                .await,
            json!({"owner": "lb"})
        );
        // Through another project of the token: not its block.
        let (status, _) = api
            .call(
                "GET",
                &format!("/projects/{OTHER_PROJECT}/ips/{id}/customdata"),
                None,
            )
            .await;
        assert_eq!(status, 404);
        // An update changes what is read.
        let (status, _) = api
            .call(
                "PATCH",
                &format!("/ips/{id}"),
                Some(json!({"customdata": {"owner": "db"}})),
            )
            .await;
        assert_eq!(status, 200);
        assert_eq!(
            api.get(&format!("/ips/{id}/customdata")).await,
            json!({"owner": "db"})
        );
        // Assignments: of the block, and the device's own.
        let device = active_device(&api, device_body("cd-1")).await;
        let (_, assigned) = api
            .call(
                "POST",
                &format!("/devices/{device}/ips"),
                Some(json!({"address": block["address"]})),
            )
            .await;
        let a = assigned["id"].as_str().unwrap();
        assert_eq!(
            api.get(&format!("/devices/{device}/ips/{a}/customdata"))
                .await,
            json!({})
        );
        assert_eq!(api.get(&format!("/ips/{a}/customdata")).await, json!({}));
        let own = api.get(&format!("/devices/{device}")).await["ip_addresses"][0]["id"].clone();
        let own = own.as_str().unwrap();
        assert_eq!(
            api.get(&format!("/devices/{device}/ips/{own}/customdata"))
                .await,
            json!({})
        );
        // Another device's assignment through this device: 404.
        let other = active_device(&api, device_body("cd-2")).await;
        let (status, _) = api
            .call("GET", &format!("/devices/{other}/ips/{a}/customdata"), None)
            .await;
        assert_eq!(status, 404);
        api.finish().await;
    }
}

/// The project's IP reservations with `query`.
async fn listed(api: &Api, query: &str) -> Vec<Value> {
    api.get(&format!("/projects/{PROJECT}/ips{query}")).await["ip_addresses"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test(start_paused = true)]
async fn a_device_s_own_blocks_are_project_reservations_until_it_goes() {
    const ALL: &str = "?types=public_ipv4,global_ipv4,private_ipv4,public_ipv6,vrf";
    for api in Api::both(world).await {
        let reserved = reserve(&api, 2, json!({})).await;
        // Provisioning: no blocks of its own yet; the project's pre-created
        // blocks of the facility (a public IPv6 /56) and of the metro (a
        // private IPv4 /25) come with its first device there.
        let (_, made) = api
            .call(
                "POST",
                &format!("/projects/{PROJECT}/devices"),
                Some(device_body("own-1")),
            )
            .await;
        let device = made["id"].as_str().unwrap().to_string();
        assert_eq!(listed(&api, ALL).await.len(), 3);
        api.fake.advance(Duration::from_secs(3600)).unwrap();
        let addresses = api.get(&format!("/devices/{device}")).await["ip_addresses"].clone();
        // Without `types`, the reserved and pre-created blocks only.
        let plain = listed(&api, "").await;
        assert_eq!(plain.len(), 3, "{plain:?}");
        // As the precreated-block data source asks: every type, with
        // facility and metro; it matches on public, address family and the
        // place, the first match winning: the pre-created blocks come
        // first, then the device's private IPv4 and public IPv6 (not its
        // public IPv4 management subnet).
        let asked = listed(&api, &format!("{ALL}&include=facility,metro,project")).await;
        assert_eq!(asked.len(), 5, "{asked:?}");
        assert_eq!(asked[0]["id"], reserved["id"]);
        let v6: Vec<&Value> = asked.iter().filter(|b| b["address_family"] == 6).collect();
        assert_eq!(v6.len(), 2);
        assert_eq!(
            (v6[0]["type"].clone(), v6[0]["cidr"].clone()),
            (json!("public_ipv6"), json!(56))
        );
        assert_eq!(
            (
                v6[1]["type"].clone(),
                v6[1]["public"].clone(),
                v6[1]["cidr"].clone()
            ),
            (json!("public_ipv6"), json!(true), json!(127))
        );
        for b in &v6 {
            assert_eq!(b["metro"]["code"], "da");
            assert_eq!(b["facility"]["code"], "da11");
            assert_eq!(b["project"]["id"], PROJECT);
        }
        assert_eq!(v6[1]["management"], true);
        let private: Vec<&Value> = asked.iter().filter(|b| b["public"] == false).collect();
        assert_eq!(
            (
                private.len(),
                private[0]["type"].clone(),
                private[1]["type"].clone()
            ),
            (2, json!("private_ipv4"), json!("private_ipv4"))
        );
        assert_eq!(
            (&private[0]["cidr"], &private[1]["cidr"]),
            (&json!(25), &json!(31))
        );
        assert_eq!(private[0]["metro"]["code"], "da");
        // `types` filters them.
        assert_eq!(listed(&api, "?types=public_ipv4").await.len(), 1);
        assert_eq!(listed(&api, "?types=public_ipv6").await.len(), 2);
        assert_eq!(listed(&api, "?types=private_ipv4").await.len(), 2);
        assert_eq!(listed(&api, "?types=global_ipv4").await.len(), 0);
        // `include=assignments`: the device's own assignment, as its
        // `ip_addresses` shows it.
        let with = listed(&api, "?types=public_ipv6&include=assignments").await;
        let a = &with[1]["assignments"][0];
        let own6 = addresses
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["address_family"] == 6)
            .unwrap();
        assert_eq!(a["id"], own6["id"]);
        assert_eq!(a["address"], own6["address"]);
        assert_eq!(
            a["assigned_to"]["href"],
            format!("/metal/v1/devices/{device}")
        );
        let stubbed = listed(&api, "?types=public_ipv6").await;
        assert_eq!(stubbed[1]["assignments"][0].as_object().unwrap().len(), 1);
        // One reads by ID.
        let block_id = v6[1]["id"].as_str().unwrap();
        assert_eq!(api.get(&format!("/ips/{block_id}")).await["cidr"], 127);
        // Deleting the device releases its own; the project keeps its
        // pre-created blocks.
        let (status, _) = api
            .call("DELETE", &format!("/devices/{device}"), None)
            .await;
        assert_eq!(status, 204);
        let left = listed(&api, ALL).await;
        assert_eq!(left.len(), 3);
        assert_eq!(left[0]["id"], reserved["id"]);
        assert_eq!(
            (&left[1]["cidr"], &left[2]["cidr"]),
            (&json!(56), &json!(25))
        );
        let (status, _) = api.call("GET", &format!("/ips/{block_id}"), None).await;
        assert_eq!(status, 404);
        api.finish().await;
    }
}
