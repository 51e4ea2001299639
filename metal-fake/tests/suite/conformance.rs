//! The conformance suite: the scenarios and fault cases of `common`, run
//! against (1) the in-process fake, (2) the policy client over HTTP against
//! the fake server, (3) the real API when `METAL_AUTH_TOKEN`,
//! `METAL_PROJECT_ID` and `METAL_RESERVATION` are set (optionally
//! `METAL_API_URL`, `METAL_OS`). Every target must report the same outcome.

use crate::common;

use common::{FaultOp, Scenario, Target};
use metal_fake::FaultKind;

#[tokio::test(start_paused = true)]
async fn scenarios_in_process() {
    let mut failures = Vec::new();
    for scenario in Scenario::ALL {
        let t = Target::in_process();
        let got = scenario.run(&t, None).await;
        if got.as_deref() != Ok(scenario.expected()) {
            failures.push(format!("{scenario:?}: {got:?}"));
        }
    }
    assert!(failures.is_empty(), "in-process: {failures:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scenarios_over_http() {
    let mut failures = Vec::new();
    for scenario in Scenario::ALL {
        let t = Target::http().await;
        let got = scenario.run(&t, None).await;
        if got.as_deref() != Ok(scenario.expected()) {
            failures.push(format!("{scenario:?}: {got:?}"));
        }
        t.check_replies();
    }
    assert!(failures.is_empty(), "over HTTP: {failures:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real API: METAL_AUTH_TOKEN, METAL_PROJECT_ID and METAL_RESERVATION"]
async fn scenarios_against_the_real_api() {
    let Some((t, reservation)) = Target::real() else {
        panic!(
            "the real-API conformance run needs {}, {} and {}",
            common::ENV_TOKEN,
            common::ENV_PROJECT,
            common::ENV_RESERVATION
        );
    };
    let mut failures = Vec::new();
    for scenario in Scenario::ALL.into_iter().filter(|s| !s.needs_fake()) {
        let got = scenario.run(&t, Some(reservation)).await;
        if got.as_deref() != Ok(scenario.expected()) {
            failures.push(format!("{scenario:?}: {got:?}"));
        }
    }
    assert!(failures.is_empty(), "real API: {failures:#?}");
}

/// Runs every fault case on fresh targets made by `target`; returns the
/// number of cases and the mismatches.
async fn fault_cases<F, Fut>(target: F) -> (usize, Vec<String>)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Target>,
{
    let mut cases = 0;
    let mut failures = Vec::new();
    for op in FaultOp::ALL {
        for kind in FaultKind::all() {
            let t = target().await;
            let got = op.run(&t, &kind).await;
            if got != Ok(op.expected(&kind, t.name)) {
                failures.push(format!("{op:?} with {kind:?}: {got:?}"));
            }
            let injected = t.fake.as_ref().unwrap().snapshot().faults_injected;
            if injected.get(kind.label()) != Some(&1) {
                failures.push(format!("{op:?} with {kind:?}: injected {injected:?}"));
            }
            t.check_replies();
            cases += 1;
        }
    }
    (cases, failures)
}

#[tokio::test(start_paused = true)]
async fn every_fault_kind_in_process() {
    let (cases, failures) = fault_cases(|| async { Target::in_process() }).await;
    assert_eq!(cases, 70);
    assert!(failures.is_empty(), "in-process: {failures:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fault_kind_over_http() {
    let (cases, failures) = fault_cases(Target::http).await;
    assert_eq!(cases, 70);
    assert!(failures.is_empty(), "over HTTP: {failures:#?}");
}

/// Outcomes differ between in-process and HTTP only where the wire cannot
/// express the fault: a request "not sent" on a live listener.
#[test]
fn expected_outcomes_differ_only_for_not_sent_reboots() {
    for op in FaultOp::ALL {
        for kind in FaultKind::all() {
            let same = op.expected(&kind, "in-process") == op.expected(&kind, "http");
            assert_eq!(
                same,
                !(op == FaultOp::Reboot && kind == FaultKind::NotSent),
                "{op:?} {kind:?}"
            );
        }
    }
}
