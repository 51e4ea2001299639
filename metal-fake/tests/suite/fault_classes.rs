//! The fake's faults and the policy client's classification speak the same
//! terms: each fault kind says which `metal_policy::Class` its reply is
//! ([`FaultKind::class`]), and the policy client, calling the fake in
//! process, classifies what it gets exactly so. A fault that applies the
//! change is never one the client may take for "not acted".

use std::sync::Arc;
use std::time::Duration;

use metal_fake::{Fake, Fault, FaultKind};
use metal_policy::{AttemptError, Backoff, BackoffFactory, Error, Metal};

/// A backoff that gives up at once: one attempt per call.
struct Never;

impl BackoffFactory for Never {
    fn start(&self) -> Box<dyn Backoff> {
        struct S;
        impl Backoff for S {
            fn next_delay(&mut self) -> Option<Duration> {
                None
            }
        }
        Box::new(S)
    }
}

/// The attempt error a call ended with.
fn attempt_error(e: &Error) -> Option<&AttemptError> {
    match e {
        Error::GaveUp { source, .. } | Error::OutcomeUnknown { source, .. } => Some(source),
        Error::RetryBudgetExhausted { last, .. } => Some(last),
        Error::DeadlineExceeded { last, .. } => last.as_ref(),
        _ => None,
    }
}

#[tokio::test(start_paused = true)]
async fn every_fault_is_classified_by_the_client_as_the_fake_says() {
    for kind in FaultKind::all() {
        let fake = Fake::builder().reservations(1).build();
        let project = fake.project();
        let client = fake
            .client_with(|c| {
                c.backoff(Arc::new(Never))
                    .attempt_timeout(Some(Duration::from_secs(5)))
            })
            .unwrap();
        fake.inject(Fault::on("findProjectById", kind.clone()).times(1))
            .unwrap();
        let result = client.get_project(project).await;
        match kind.class() {
            None => assert!(result.is_ok(), "{kind:?}: {result:?}"),
            Some(class) => {
                let err = result.expect_err("a failure");
                let got = attempt_error(&err).map(AttemptError::class);
                assert_eq!(got, Some(class), "{kind:?}: {err:?}");
            }
        }
    }
}

#[test]
fn a_fault_that_applies_the_change_is_one_the_server_may_have_acted_on() {
    // The other way round need not hold: a 5xx before acting is an
    // unknown outcome to the client, which cannot tell.
    for kind in FaultKind::all().into_iter().chain(FaultKind::recoverable()) {
        if kind.applies_change() {
            let class = kind.class().expect("a failure of the exchange");
            assert!(class.server_may_have_acted(), "{kind:?}: {class:?}");
        }
    }
}
