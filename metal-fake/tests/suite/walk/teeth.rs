//! The walk's checker fails what it should: fabricated reply sequences
//! that break each invariant, each reported, and the same sequences kept
//! whole reported clean.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use uuid::Uuid;

use super::checker::{Call, Checker};

const PROJECT: &str = "0b000000-0000-4000-8000-000000000001";
const DEVICE: &str = "0d000000-0000-4000-8000-0000000000aa";

fn call(op: &'static str, method: &'static str, path: &str, status: u16, body: Value) -> Call {
    Call {
        op,
        method,
        path: path.to_string(),
        status: Some(status),
        fault: None,
        named: path.split('/').filter_map(|s| s.parse().ok()).collect(),
        body,
    }
}

fn feed(checker: &mut Checker, c: &Call) {
    checker.reply(c, |_| true, |_| true);
}

/// A device created in the project: followed, at its href and the list.
fn created() -> (Checker, Uuid) {
    let mut c = Checker::default();
    let create = call(
        "createDevice",
        "POST",
        &format!("/projects/{PROJECT}/devices"),
        201,
        json!({"id": DEVICE, "href": format!("/metal/v1/devices/{DEVICE}"),
               "project": {"href": format!("/metal/v1/projects/{PROJECT}")}}),
    );
    feed(&mut c, &create);
    (c, DEVICE.parse().unwrap())
}

#[test]
fn the_walk_has_teeth_for_a_5xx_without_a_fault() {
    let mut c = Checker::default();
    let mut failed = call(
        "findProjects",
        "GET",
        "/projects",
        500,
        json!({"errors": ["x"]}),
    );
    feed(&mut c, &failed);
    assert_eq!(c.violations.len(), 1, "{:?}", c.violations);
    assert!(c.violations[0].contains("500 without an injected fault"));
    // The same reply, marked by the call log as an injected fault: fine.
    let mut clean = Checker::default();
    failed.fault = Some("fail_before".into());
    feed(&mut clean, &failed);
    assert!(clean.violations.is_empty(), "{:?}", clean.violations);
    // No reply at all without a fault.
    failed.status = None;
    failed.fault = None;
    feed(&mut clean, &failed);
    assert_eq!(clean.violations.len(), 1);
}

#[test]
fn the_walk_has_teeth_for_a_created_thing_that_is_gone() {
    let (mut c, id) = created();
    c.got(id, 200);
    let list = format!("/projects/{PROJECT}/devices");
    c.listed(&list, &BTreeSet::from([id]), Some(1));
    assert!(c.violations.is_empty(), "{:?}", c.violations);
    c.got(id, 404);
    c.listed(&list, &BTreeSet::new(), Some(0));
    assert_eq!(c.violations.len(), 2, "{:?}", c.violations);
    assert!(c.violations[0].contains("created and not deleted"));
    assert!(c.violations[1].contains("does not list"));
}

#[test]
fn the_walk_has_teeth_for_a_deleted_thing_that_stays() {
    let (mut c, id) = created();
    feed(
        &mut c,
        &call(
            "deleteDevice",
            "DELETE",
            &format!("/devices/{DEVICE}"),
            204,
            Value::Null,
        ),
    );
    c.got(id, 404);
    let list = format!("/projects/{PROJECT}/devices");
    c.listed(&list, &BTreeSet::new(), Some(0));
    assert!(c.violations.is_empty(), "{:?}", c.violations);
    c.got(id, 200);
    c.listed(&list, &BTreeSet::from([id]), Some(1));
    assert_eq!(c.violations.len(), 2, "{:?}", c.violations);
    assert!(c.violations[0].contains("but it was deleted"));
    assert!(c.violations[1].contains("which was deleted"));
}

#[test]
fn a_thing_whose_parent_went_is_no_longer_checked() {
    let (mut c, id) = created();
    feed(
        &mut c,
        &call(
            "deleteProject",
            "DELETE",
            &format!("/projects/{PROJECT}"),
            204,
            Value::Null,
        ),
    );
    c.got(id, 404);
    assert!(c.violations.is_empty(), "{:?}", c.violations);
    // A fault on a delete leaves its outcome unknown: not checked either.
    let (mut c, id) = created();
    let mut lost = call(
        "deleteDevice",
        "DELETE",
        &format!("/devices/{DEVICE}"),
        502,
        Value::Null,
    );
    lost.fault = Some("fail_after".into());
    feed(&mut c, &lost);
    c.got(id, 404);
    assert!(c.violations.is_empty(), "{:?}", c.violations);
}

#[test]
fn the_walk_has_teeth_for_a_miscount() {
    let mut c = Checker::default();
    let a = Uuid::from_u128(1);
    c.listed("/projects", &BTreeSet::from([a]), Some(1));
    assert!(c.violations.is_empty());
    c.listed("/projects", &BTreeSet::from([a]), Some(2));
    assert_eq!(c.violations.len(), 1);
    assert!(c.violations[0].contains("meta.total 2, but 1 listed"));
}

#[test]
fn the_walk_has_teeth_for_a_world_that_does_not_load_back() {
    let mut c = Checker::default();
    let saved = json!({"devices": [{"id": DEVICE}], "projects": []});
    c.round_trip(&saved, &saved.clone());
    assert!(c.violations.is_empty());
    c.round_trip(&saved, &json!({"devices": [], "projects": []}));
    assert_eq!(c.violations.len(), 1);
    assert!(
        c.violations[0].contains("[\"devices\"]"),
        "{:?}",
        c.violations
    );
}

#[test]
fn the_walk_has_teeth_for_a_broken_link() {
    let mut c = Checker::default();
    c.link("port names a VLAN that reads 404".into(), false);
    c.link("fine".into(), true);
    assert_eq!(c.violations, ["port names a VLAN that reads 404"]);
}
