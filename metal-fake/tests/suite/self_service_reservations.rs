//! Self-service reservations (items of a plan in a metro, by ID, with a
//! quantity and a term, for a period of 12 or 36 months, priced from the
//! catalog) and the activation of an inactive hardware reservation. In
//! process and over HTTP.

use crate::via::{errors, Via};

use metal_fake::document::WorldDoc;
use serde_json::{json, Value};

const PROJECT: &str = "0c000000-0000-4000-8000-000000000001";
const OTHER: &str = "0c000000-0000-4000-8000-000000000002";
const ORG: &str = "0c000000-0000-4000-8000-0000000000f1";
const PLAN: &str = "0c000000-0000-4000-8000-0000000000a1";
const DA: &str = "0c000000-0000-4000-8000-0000000000b1";
const SV: &str = "0c000000-0000-4000-8000-0000000000b2";
const INACTIVE: &str = "0c000000-0000-4000-8000-0000000000c1";
const ACTIVE: &str = "0c000000-0000-4000-8000-0000000000c2";

/// `c3.small.x86` at $0.50 an hour, offered in `da` only; one inactive
/// and one active hardware reservation.
fn world() -> WorldDoc {
    serde_json::from_value(json!({
        "organizations": [{"id": ORG, "name": "acme"}],
        "projects": [
            {"id": PROJECT, "name": "prod", "organization": ORG},
            {"id": OTHER, "organization": ORG}
        ],
        "plans": [{"id": PLAN, "slug": "c3.small.x86", "pricing": {"hour": 0.5}, "metros": [{"code": "da"}]}],
        "metros": [{"id": DA, "code": "da"}, {"id": SV, "code": "sv"}],
        "facilities": [{"code": "da11", "metro": "da"}, {"code": "sv15", "metro": "sv"}],
        "reservations": [
            {"id": INACTIVE, "project": PROJECT, "plan": "c3.small.x86", "facility": "da11", "inactive": true},
            {"id": ACTIVE, "project": PROJECT, "plan": "c3.small.x86", "facility": "da11"}
        ]
    }))
    .unwrap()
}

fn reservations(project: &str) -> String {
    format!("/projects/{project}/self-service/reservations")
}

fn order(metro: &str, quantity: i64, count: i64) -> Value {
    json!({
        "item": [{"plan_id": PLAN, "metro_id": metro, "quantity": quantity, "term": "1 year"}],
        "period": {"count": count, "unit": "monthly"},
        "notes": "for the cluster"
    })
}

#[tokio::test]
async fn a_reservation_is_made_priced_listed_and_read_both_ways() {
    for via in Via::both(world).await {
        let (status, made) = via
            .call("POST", &reservations(PROJECT), Some(order(DA, 2, 12)))
            .await;
        assert_eq!(status, 201, "{made}");
        let item = &made["item"][0];
        assert_eq!(item["plan"]["slug"], "c3.small.x86");
        assert_eq!(item["plan_id"], PLAN);
        assert_eq!(item["metro_code"], "da");
        assert_eq!(item["metro_id"], DA);
        assert_eq!(item["quantity"], 2);
        assert_eq!(item["term"], "1 year");
        // $0.50 an hour, 730 hours a month, two servers; twelve months.
        assert_eq!(item["amount"], 730.0);
        assert_eq!(made["total_cost"], 8760);
        assert_eq!(made["period"], json!({"count": 12, "unit": "monthly"}));
        assert_eq!(made["project_id"], PROJECT);
        assert_eq!(made["project"], "prod");
        assert_eq!(made["organization_id"], ORG);
        assert_eq!(made["organization"], "acme");
        assert_eq!(made["notes"], "for the cluster");
        let id = made["id"].as_str().unwrap();

        let (status, read) = via
            .call("GET", &format!("{}/{id}", reservations(PROJECT)), None)
            .await;
        assert_eq!(status, 200);
        assert_eq!(read, made);
        // Another project's path does not find it.
        let (status, _) = via
            .call("GET", &format!("{}/{id}", reservations(OTHER)), None)
            .await;
        assert_eq!(status, 404);
        let (_, list) = via.call("GET", &reservations(PROJECT), None).await;
        assert_eq!(list["reservations"][0]["id"], id);
        let (_, storage) = via
            .call(
                "GET",
                &format!("{}?categories=storage", reservations(PROJECT)),
                None,
            )
            .await;
        assert_eq!(
            storage["reservations"],
            json!([]),
            "the fake's plans are compute plans"
        );
        let (_, other) = via.call("GET", &reservations(OTHER), None).await;
        assert_eq!(other["reservations"], json!([]));
        assert_eq!(via.fake().world().self_service_reservations.len(), 1);
    }
}

#[tokio::test]
async fn each_refusal_of_a_reservation_once_and_nothing_is_made() {
    let [via, _] = Via::both(world).await;
    let unknown = "0c000000-0000-4000-8000-0000000000ee";
    let mut no_period = order(DA, 1, 12);
    no_period.as_object_mut().unwrap().remove("period");
    let cases = [
        (order(DA, 1, 24), "period must be 12 or 36 monthly units"),
        (no_period, "period is required"),
        (
            json!({"item": [], "period": {"count": 12, "unit": "monthly"}}),
            "item must hold 1 to 100 items",
        ),
        (
            order(SV, 1, 12),
            "plan c3.small.x86 is not offered in metro sv",
        ),
        (order(unknown, 1, 12), "metro_id is not a valid metro"),
        (order(DA, 0, 36), "quantity must be 1 to 100"),
    ];
    for (body, refusal) in cases {
        let (status, reply) = via.call("POST", &reservations(PROJECT), Some(body)).await;
        assert_eq!(status, 422, "{refusal}: {reply}");
        assert!(errors(&reply).contains(refusal), "{refusal}: {reply}");
    }
    assert!(via.fake().world().self_service_reservations.is_empty());
    assert_eq!(
        via.fake().world().reservations.len(),
        2,
        "no hardware ordered"
    );
    let (status, _) = via
        .call("POST", &reservations(unknown), Some(order(DA, 1, 12)))
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_reservation_makes_its_hardware_reservations_and_a_device_goes_on_one_both_ways() {
    for via in Via::both(world).await {
        let (status, made) = via
            .call("POST", &reservations(PROJECT), Some(order(DA, 2, 12)))
            .await;
        assert_eq!(status, 201, "{made}");
        let seeded = [INACTIVE, ACTIVE];
        let (_, list) = via
            .call(
                "GET",
                &format!("/projects/{PROJECT}/hardware-reservations?per_page=100"),
                None,
            )
            .await;
        let ordered: Vec<&Value> = list["hardware_reservations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| !seeded.contains(&r["id"].as_str().unwrap()))
            .collect();
        assert_eq!(ordered.len(), 2, "one a server: {list}");
        for r in &ordered {
            assert_eq!(r["provisionable"], true, "{r}");
            assert_eq!(r["plan"]["slug"], "c3.small.x86", "{r}");
            assert_eq!(r["facility"]["code"], "da11", "in its metro: {r}");
        }
        let on = ordered[0]["id"].as_str().unwrap();
        let (status, device) = via
            .call(
                "POST",
                &format!("/projects/{PROJECT}/devices"),
                Some(
                    json!({"hardware_reservation_id": on, "plan": "c3.small.x86",
                    "operating_system": "ubuntu_24_04", "hostname": "on-ordered"}),
                ),
            )
            .await;
        assert_eq!(status, 201, "{device}");
        assert_eq!(
            device["hardware_reservation"]["href"],
            format!("/metal/v1/hardware-reservations/{on}"),
            "{device}"
        );
        let (_, r) = via
            .call("GET", &format!("/hardware-reservations/{on}"), None)
            .await;
        assert_eq!(r["provisionable"], false, "it holds the device: {r}");
        let saved = via.fake().world();
        assert_eq!(saved.reservations.len(), 4, "saved with the world");
    }
}

#[tokio::test]
async fn an_inactive_reservation_is_activated_once_then_provisionable_both_ways() {
    for via in Via::both(world).await {
        let path = format!("/hardware-reservations/{INACTIVE}");
        let (_, before) = via.call("GET", &path, None).await;
        assert_eq!(before["provisionable"], false, "inactive");
        let (status, refused) = via
            .call(
                "POST",
                &format!("/projects/{PROJECT}/devices"),
                Some(json!({"hardware_reservation_id": INACTIVE, "plan": "c3.small.x86", "operating_system": "ubuntu_24_04"})),
            )
            .await;
        assert_eq!(status, 422, "{refused}");
        let (status, active) = via
            .call(
                "POST",
                &format!("{path}/activate"),
                Some(json!({"description": "go"})),
            )
            .await;
        assert_eq!(status, 201, "{active}");
        assert_eq!(active["provisionable"], true);
        let (status, again) = via.call("POST", &format!("{path}/activate"), None).await;
        assert_eq!(status, 422);
        assert!(errors(&again).contains("already active"), "{again}");
        let (status, _) = via
            .call(
                "POST",
                &format!("/hardware-reservations/{ACTIVE}/activate"),
                None,
            )
            .await;
        assert_eq!(status, 422);
        assert!(!via.fake().world().reservations[0].inactive, "saved active");
    }
}
