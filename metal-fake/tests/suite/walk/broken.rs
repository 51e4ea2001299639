//! Whole walks on fakes broken on purpose (an operation's handler replaced
//! through `FakeBuilder::handler`, or unmodelled): each broken invariant is
//! reported, and a random walk's failure names its seed and its failing
//! sequence.

use metal_fake::{ApiError, Call};
use serde_json::json;
use uuid::Uuid;

use super::{run, specs, walk_from, walk_once, Step};

/// The SSH key operations the scripted walks call.
const KEYS: &[&str] = &[
    "createProjectSSHKey",
    "findProjectSSHKeys",
    "findSSHKeyById",
    "deleteSSHKey",
];

/// Five key creates in the walk's project (a path drawn from each seed
/// names the live project most of the time), then `then`.
fn keys_then(then: &[Step]) -> Vec<Step> {
    let mut steps: Vec<Step> = (1..=5)
        .map(|seed| Step::Named {
            op: "createProjectSSHKey",
            seed,
        })
        .collect();
    steps.extend_from_slice(then);
    steps
}

fn violations(fake: metal_fake::FakeBuilder, steps: &[Step]) -> Vec<String> {
    let (spec, docs) = specs(&[]);
    walk_once(&spec, &docs, fake, steps).0
}

fn has(violations: &[String], text: &str) -> bool {
    violations.iter().any(|v| v.contains(text))
}

#[test]
fn the_walk_has_teeth_the_unbroken_scripted_walk_is_clean() {
    let deletes: Vec<Step> = (1..=10)
        .map(|seed| Step::Named {
            op: "deleteSSHKey",
            seed,
        })
        .collect();
    let v = violations(run::fake(), &keys_then(&deletes));
    assert!(v.is_empty(), "{v:#?}");
}

#[test]
fn the_walk_has_teeth_a_5xx_is_reported() {
    let fake = run::fake().unmodelled("findProjectSSHKeys");
    let steps = [Step::Named {
        op: "findProjectSSHKeys",
        seed: 1,
    }];
    let v = violations(fake, &steps);
    assert!(has(&v, "501 without an injected fault"), "{v:#?}");
}

#[test]
fn the_walk_has_teeth_a_created_thing_that_reads_404_is_reported() {
    let fake = run::fake().handler("findSSHKeyById", |_: &Call| -> Result<(), ApiError> {
        Err(ApiError::not_found())
    });
    let v = violations(fake, &keys_then(&[]));
    assert!(has(&v, "but it was created and not deleted"), "{v:#?}");
}

#[test]
fn the_walk_has_teeth_a_delete_that_leaves_the_thing_is_reported() {
    // Answers 204 and deletes nothing.
    let fake = run::fake().handler("deleteSSHKey", |_: &Call| -> Result<(), ApiError> {
        Ok(())
    });
    let deletes: Vec<Step> = (1..=10)
        .map(|seed| Step::Named {
            op: "deleteSSHKey",
            seed,
        })
        .collect();
    let v = violations(fake, &keys_then(&deletes));
    assert!(has(&v, "but it was deleted"), "{v:#?}");
    assert!(has(&v, "which was deleted"), "{v:#?}");
}

#[test]
fn the_walk_has_teeth_a_list_that_miscounts_is_reported() {
    let fake = run::fake().handler("findProjectSSHKeys", |_: &Call| -> Result<_, ApiError> {
        Ok(json!({"ssh_keys": [], "meta": {"total": 3, "current_page": 1, "last_page": 1}}))
    });
    let v = violations(fake, &keys_then(&[]));
    assert!(has(&v, "does not list"), "{v:#?}");
    assert!(has(&v, "meta.total 3, but 0 listed"), "{v:#?}");
}

#[test]
fn the_walk_has_teeth_a_reservation_naming_a_missing_device_is_reported() {
    let fake = run::fake().handler(
        "findProjectHardwareReservations",
        |_: &Call| -> Result<_, ApiError> {
            let r = Uuid::from_u128(7);
            let d = Uuid::from_u128(8);
            Ok(json!({"hardware_reservations": [{
                "id": r, "href": format!("/metal/v1/hardware-reservations/{r}"),
                "device": {"href": format!("/metal/v1/devices/{d}")}
            }]}))
        },
    );
    let v = violations(fake, &[]);
    assert!(has(&v, "holds device"), "{v:#?}");
}

#[test]
fn the_walk_has_teeth_a_random_walk_names_its_seed_and_sequence() {
    let broken = || {
        run::fake().handler("findSSHKeyById", |_: &Call| -> Result<(), ApiError> {
            Err(ApiError::not_found())
        })
    };
    // No shrinking here (each try is a whole walk): the report's form.
    let e = walk_from(1, 30, 34, KEYS, 0, broken).unwrap_err();
    assert!(e.contains("seed 34"), "{e}");
    assert!(e.contains("minimal failing input"), "{e}");
    assert!(e.contains("but it was created and not deleted"), "{e}");
}
