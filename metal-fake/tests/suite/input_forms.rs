//! Input as the real API took it, where clients send it otherwise than
//! the spec types it (`metal_fake::fidelity`, "Input as the real API
//! took it"): `customdata` as the text of a JSON object, and `""` to
//! clear it (packngo's `CustomData` strings); `force_delete` in a device
//! delete's body (packngo) as well as its query (the spec, metalv1). The
//! spot bid as text and `force_termination` in a body are in
//! `spot_market.rs`, a BGP dynamic neighbour's bare address in `vrfs.rs`.

use serde_json::{json, Value};

use crate::network::{self, call, DEVICE, OTHER_DEVICE, PROJECT};

#[tokio::test(start_paused = true)]
async fn customdata_as_text_is_the_object_it_encodes_and_empty_text_clears_it() {
    let fake = network::fake_of(network::world(&[PROJECT], &[(DEVICE, "c3.small.x86")]));
    let path = format!("/devices/{DEVICE}");
    let customdata = || {
        let (fake, path) = (fake.clone(), format!("{path}/customdata"));
        async move { call(&fake, "GET", &path, None).await.1 }
    };
    // packngo's `DeviceUpdateRequest.CustomData` is a `*string`.
    let (status, d) = call(
        &fake,
        "PUT",
        &path,
        Some(json!({"customdata": "{\"role\": \"db\", \"n\": [1, null]}"})),
    )
    .await;
    assert_eq!(status, 200, "{d}");
    assert_eq!(d["customdata"], json!({"role": "db", "n": [1, null]}));
    assert_eq!(customdata().await, json!({"role": "db", "n": [1, null]}));
    // Text of something else than an object is refused, nothing changed.
    let (status, _) = call(&fake, "PUT", &path, Some(json!({"customdata": "[1]"}))).await;
    assert_eq!(status, 422);
    assert_eq!(customdata().await["role"], "db");
    // `""` clears it.
    let (status, d) = call(&fake, "PUT", &path, Some(json!({"customdata": ""}))).await;
    assert_eq!((status, &d["customdata"]), (200, &json!({})));
    assert_eq!(customdata().await, json!({}));
    assert!(fake.world().devices[0].customdata.is_empty());
}

#[tokio::test(start_paused = true)]
async fn force_delete_is_taken_in_the_body_and_in_the_query() {
    let fake = network::fake_of(network::world(
        &[PROJECT],
        &[(DEVICE, "c3.small.x86"), (OTHER_DEVICE, "c3.small.x86")],
    ));
    let delete = |id: &str, query: &str, body: Option<Value>| {
        let (fake, path) = (fake.clone(), format!("/devices/{id}{query}"));
        async move { call(&fake, "DELETE", &path, body).await }
    };
    // Not a boolean: refused, the device stays.
    for (query, body) in [
        ("?force_delete=maybe", None),
        ("", Some(json!({"force_delete": "yes"}))),
    ] {
        let (status, reply) = delete(DEVICE, query, body).await;
        assert_eq!(status, 422, "{query}: {reply}");
        assert!(reply["errors"][0]
            .as_str()
            .unwrap()
            .contains("force_delete"));
    }
    assert_eq!(
        call(&fake, "GET", &format!("/devices/{DEVICE}"), None)
            .await
            .0,
        200
    );
    // packngo's `Devices.Delete(id, true)`: `{"force_delete": true}`.
    assert_eq!(
        delete(DEVICE, "", Some(json!({"force_delete": true})))
            .await
            .0,
        204
    );
    // metalv1's `DeleteDevice(...).ForceDelete(true)`: the query.
    assert_eq!(
        delete(OTHER_DEVICE, "?force_delete=true", None).await.0,
        204
    );
    for id in [DEVICE, OTHER_DEVICE] {
        assert_eq!(
            call(&fake, "GET", &format!("/devices/{id}"), None).await.0,
            404
        );
    }
}
