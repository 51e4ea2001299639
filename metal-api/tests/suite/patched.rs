//! The operations `cargo xtask spec`'s patches made generable, and what
//! each patch puts on the wire: the request as the server sees it (exact
//! query string and body) and the reply as the client reads it.

use crate::common;

use common::*;
use httpmock::{Method, MockServer};
use metal_api::types;
use serde_json::json;

const SESSION: &str = "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e";
const NEIGHBOR: &str = "6e5d4c3b-2a1f-4e0d-9c8b-7a6f5e4d3c2b";

#[tokio::test]
async fn find_traffic_sends_the_deep_object_as_bracketed_keys() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/devices/{DEVICE}/traffic"),
                // `timeframe` is a deepObject: `timeframe[ended_at]=...`,
                // brackets percent-encoded as any form encoder does.
                Some(
                    "direction=inbound&timeframe%5Bended_at%5D=2024-03-02T00%3A00%3A00Z\
                     &timeframe%5Bstarted_at%5D=2024-03-01T00%3A00%3A00Z",
                ),
            )
            // The server reads the keys back with their brackets.
            .query_param("timeframe[started_at]", "2024-03-01T00:00:00Z");
            then.status(200);
        })
        .await;
    let at = |text: &str| text.parse::<chrono::DateTime<chrono::Utc>>().unwrap();
    client(&server)
        .find_traffic()
        .id(uuid(DEVICE))
        .direction(types::FindTrafficDirection::Inbound)
        .timeframe_started_at(at("2024-03-01T00:00:00Z"))
        .timeframe_ended_at(at("2024-03-02T00:00:00Z"))
        .send()
        .await
        .unwrap();
    mock.assert_async().await;
}

#[tokio::test]
async fn update_bgp_session_sends_a_bare_boolean() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(when, Method::PUT, &format!("/bgp/sessions/{SESSION}"), None)
                .header("content-type", "application/json")
                .body("true");
            then.status(200);
        })
        .await;
    client(&server)
        .update_bgp_session()
        .id(uuid(SESSION))
        .body(true)
        .send()
        .await
        .unwrap();
    mock.assert_async().await;
}

#[tokio::test]
async fn firmware_sets_read_a_bodiless_401_error_as_the_api_s_error_body() {
    let server = MockServer::start_async().await;
    server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/devices/{DEVICE}/firmware-sets"),
                None,
            );
            then.status(401)
                .header("content-type", "application/json")
                .json_body(json!({"error": "Invalid authentication token"}));
        })
        .await;
    match client(&server)
        .get_device_firmware_sets()
        .id(uuid(DEVICE))
        .send()
        .await
    {
        Err(metal_api::Error::ErrorResponse(reply)) => {
            assert_eq!(reply.status(), 401);
            assert_eq!(
                reply.into_inner().error.as_deref(),
                Some("Invalid authentication token")
            );
        }
        other => panic!("expected a 401 ErrorResponse, got {other:?}"),
    }
}

#[tokio::test]
async fn the_bgp_dynamic_neighbor_read_upstream_leaves_unnamed_is_generated() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                &format!("/bgp-dynamic-neighbors/{NEIGHBOR}"),
                Some("include=created_by"),
            );
            then.status(200).json_body(json!({
                "id": NEIGHBOR, "bgp_neighbor_asn": 65000, "bgp_neighbor_range": "10.70.43.226/29",
                "state": "active"
            }));
        })
        .await;
    let neighbor = client(&server)
        .find_bgp_dynamic_neighbor_by_id()
        .id(uuid(NEIGHBOR))
        .include("created_by")
        .send()
        .await
        .unwrap()
        .into_inner();
    mock.assert_async().await;
    assert_eq!(neighbor.bgp_neighbor_asn, Some(65000));
    assert_eq!(
        metal_api::operation::find("findBgpDynamicNeighborById").map(|o| o.path),
        Some("/bgp-dynamic-neighbors/{id}")
    );
}

#[tokio::test]
async fn find_facilities_joins_exclude_although_the_spec_leaves_it_exploded() {
    let server = MockServer::start_async().await;
    let mock = server
        .mock_async(|when, then| {
            api(
                when,
                Method::GET,
                "/facilities",
                Some("exclude=address%2Clabels"),
            );
            then.status(200).json_body(json!({"facilities": []}));
        })
        .await;
    client(&server)
        .find_facilities()
        .exclude(metal_api::csv(["address", "labels"]))
        .send()
        .await
        .unwrap();
    mock.assert_async().await;
}
