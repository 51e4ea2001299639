//! The client-wide retry budget, on a scripted exchange
//! and tokio's paused clock: it drains during an outage, then refuses with
//! a typed error carrying the last attempt's error, it refills on success,
//! it never blocks a first attempt, and a throttling reply does not spend.

use crate::common;

use std::error::Error as _;
use std::sync::Arc;
use std::time::Duration;

use common::{assert_lines, client, gauge, metrics_text, Reply, Script};
use metal_api::types;
use metal_policy::{AttemptError, CallOptions, Client, Error, RetryBudget};
use tokio::time::Instant;
use uuid::Uuid;

const TOKENS: &str = "equinix_api_retry_budget_tokens";

/// A client over `t` with `budget`, its metrics in `registry`.
fn budgeted(
    t: &Arc<Script>,
    budget: Option<RetryBudget>,
    registry: &prometheus::Registry,
) -> Client {
    client(t.clone())
        .retry_budget(budget)
        .registry(registry.clone())
        .build()
        .unwrap()
}

async fn get(c: &Client) -> Result<types::Project, Error> {
    c.call(|api| api.find_project_by_id().id(Uuid::nil()).send())
        .await
}

#[tokio::test(start_paused = true)]
async fn an_outage_drains_the_budget_then_calls_end_at_once_with_the_last_error() {
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::bad_gateway());
    let registry = prometheus::Registry::new();
    // Three retries after an unknown outcome (10 tokens each).
    let c = budgeted(&t, Some(RetryBudget::new(30)), &registry);
    assert_eq!(gauge(&registry, TOKENS), 30.0);

    let t0 = Instant::now();
    let err = get(&c).await.unwrap_err();
    // Attempts at 0, 1, 2 and 3 s (the fixed 1 s backoff); the fourth
    // failure finds the budget empty and the call ends without sleeping.
    assert_eq!(t0.elapsed(), Duration::from_secs(3));
    assert_eq!(t.requests().len(), 4);
    match &err {
        Error::RetryBudgetExhausted {
            operation: "findProjectById",
            attempts: 4,
            last: AttemptError::Unknown {
                status: Some(502), ..
            },
        } => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(err.status(), Some(502));
    assert!(
        err.to_string()
            .contains("retry budget exhausted after 4 attempt(s)"),
        "{err}"
    );
    let source = err.source().expect("the last attempt's error");
    assert!(source.to_string().contains("bad gateway"), "{source}");
    assert_eq!(gauge(&registry, TOKENS), 0.0);

    // The next call's first attempt is sent, and its failure ends it at
    // once: no 15 minutes of backoff.
    let t1 = Instant::now();
    let err = get(&c).await.unwrap_err();
    assert_eq!(t1.elapsed(), Duration::ZERO);
    assert!(
        matches!(err, Error::RetryBudgetExhausted { attempts: 1, .. }),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 5);
    assert_lines(
        &metrics_text(&registry),
        &[
            "equinix_api_retry_budget_tokens 0",
            r#"equinix_api_retry_budget_refused_total{endpoint="findProjectById"} 2"#,
            r#"equinix_api_retries_total{endpoint="findProjectById"} 3"#,
        ],
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_never_sent_costs_less_than_an_unknown_outcome() {
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::NotSent);
    let registry = prometheus::Registry::new();
    // 5 tokens a retry: four retries out of 20.
    let c = budgeted(&t, Some(RetryBudget::new(20)), &registry);
    let err = get(&c).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::RetryBudgetExhausted {
                attempts: 5,
                last: AttemptError::NotSent { .. },
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(t.requests().len(), 5);
}

#[tokio::test(start_paused = true)]
async fn successes_refill_the_budget() {
    // Requests 0-2 fail, so do 13 and 14; the others succeed.
    let t = Script::new(Duration::ZERO, |op, _, n| match n {
        0..=2 | 13 | 14 => Reply::bad_gateway(),
        _ => Reply::ok(op, types::Project::default()),
    });
    let registry = prometheus::Registry::new();
    let c = budgeted(&t, Some(RetryBudget::new(20)), &registry);
    // Two retries drain it; the third failure is refused.
    assert!(matches!(
        get(&c).await,
        Err(Error::RetryBudgetExhausted { attempts: 3, .. })
    ));
    assert_eq!(gauge(&registry, TOKENS), 0.0);
    // Each call that succeeds at once gives one token back.
    for n in 1..=10 {
        get(&c).await.unwrap();
        assert_eq!(gauge(&registry, TOKENS), f64::from(n));
    }
    // Ten tokens pay for one retry again: request 13 fails, 14 (the retry)
    // fails, and the budget is empty again.
    assert!(matches!(
        get(&c).await,
        Err(Error::RetryBudgetExhausted { attempts: 2, .. })
    ));
    assert_eq!(gauge(&registry, TOKENS), 0.0);
    assert_eq!(t.requests().len(), 15);
}

#[tokio::test(start_paused = true)]
async fn a_retry_that_succeeds_gives_its_cost_back() {
    // Every other request fails: each call fails once, then succeeds.
    let t = Script::new(Duration::ZERO, |op, _, n| {
        if n % 2 == 0 {
            Reply::bad_gateway()
        } else {
            Reply::ok(op, types::Project::default())
        }
    });
    let registry = prometheus::Registry::new();
    let c = budgeted(&t, Some(RetryBudget::new(10)), &registry);
    // With one retry's worth of tokens, a hundred calls that each need one
    // retry all succeed: the budget drains only while retries keep failing.
    for _ in 0..100 {
        get(&c).await.unwrap();
        assert_eq!(gauge(&registry, TOKENS), 10.0);
    }
    assert_eq!(t.requests().len(), 200);
}

#[tokio::test(start_paused = true)]
async fn the_budget_never_blocks_a_first_attempt() {
    let t = Script::new(Duration::from_millis(100), |op, _, n| {
        if n % 2 == 0 {
            Reply::bad_gateway()
        } else {
            Reply::ok(op, types::Project::default())
        }
    });
    let registry = prometheus::Registry::new();
    // An empty budget: no retry at all, but every call is sent once.
    let c = Client::builder()
        .api(t.api())
        .api_rate(Duration::ZERO)
        .parallelism(10)
        .retry_budget(Some(RetryBudget::new(0)))
        .registry(registry.clone())
        .build()
        .unwrap();
    let t0 = Instant::now();
    let results = futures::future::join_all((0..10).map(|_| get(&c))).await;
    assert_eq!(t0.elapsed(), Duration::from_millis(100), "all at once");
    assert_eq!(t.requests().len(), 10);
    let refused = results
        .iter()
        .filter(|r| matches!(r, Err(Error::RetryBudgetExhausted { attempts: 1, .. })))
        .count();
    let ok = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!((ok, refused), (5, 5));
    // A success of an empty zero-capacity bucket stays at zero.
    assert_eq!(gauge(&registry, TOKENS), 0.0);
}

#[tokio::test(start_paused = true)]
async fn a_throttling_reply_does_not_spend_the_budget() {
    // Three 429s asking for 7 s each, then success.
    let t = Script::new(Duration::ZERO, |op, _, n| match n {
        0..=2 => Reply::throttled(7),
        _ => Reply::ok(op, types::Project::default()),
    });
    let registry = prometheus::Registry::new();
    // Not even one retry's worth of tokens.
    let c = budgeted(&t, Some(RetryBudget::new(9)), &registry);
    let t0 = Instant::now();
    get(&c).await.unwrap();
    assert_eq!(t0.elapsed(), Duration::from_secs(21));
    assert_eq!(t.requests().len(), 4);
    // Not spent, and the success after the throttled retries refilled
    // nothing beyond the capacity.
    assert_eq!(gauge(&registry, TOKENS), 9.0);
    let text = metrics_text(&registry);
    assert!(
        !text.contains("equinix_api_retry_budget_refused_total{"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn without_a_budget_retries_are_bounded_by_the_backoff_only() {
    // Two hundred failures, then success: far beyond the default budget's
    // 50 retries after an unknown outcome.
    let t = Script::new(Duration::ZERO, |op, _, n| {
        if n < 200 {
            Reply::bad_gateway()
        } else {
            Reply::ok(op, types::Project::default())
        }
    });
    let registry = prometheus::Registry::new();
    let c = budgeted(&t, None, &registry);
    get(&c).await.unwrap();
    assert_eq!(t.requests().len(), 201);
    assert!(
        gauge(&registry, TOKENS).is_nan(),
        "no budget, no gauge of its level"
    );
}

#[tokio::test(start_paused = true)]
async fn the_default_budget_is_smithys_retry_quota() {
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::bad_gateway());
    let registry = prometheus::Registry::new();
    let c = client(t.clone())
        .registry(registry.clone())
        .build()
        .unwrap();
    assert_eq!(gauge(&registry, TOKENS), 500.0);
    // 500 tokens at 10 a retry after an unknown outcome: 50 retries.
    let err = get(&c).await.unwrap_err();
    assert!(
        matches!(err, Error::RetryBudgetExhausted { attempts: 51, .. }),
        "{err:?}"
    );
    assert_eq!(RetryBudget::default(), RetryBudget::new(500));
}

#[tokio::test(start_paused = true)]
async fn a_call_may_leave_the_budget_out() {
    // Five failures, then success.
    let t = Script::new(Duration::ZERO, |op, _, n| {
        if n < 5 {
            Reply::bad_gateway()
        } else {
            Reply::ok(op, types::Project::default())
        }
    });
    let registry = prometheus::Registry::new();
    // One retry's worth of tokens.
    let c = budgeted(&t, Some(RetryBudget::new(10)), &registry);
    let options = CallOptions::new().retry_budget(false);
    let project = c
        .call_with(options, |api| {
            api.find_project_by_id().id(Uuid::nil()).send()
        })
        .await;
    // Five retries, none paid, none refused; the success gives nothing.
    project.unwrap();
    assert_eq!(t.requests().len(), 6);
    assert_eq!(gauge(&registry, TOKENS), 10.0);
    let text = metrics_text(&registry);
    assert!(
        !text.contains("equinix_api_retry_budget_refused_total{"),
        "{text}"
    );

    // The same failures for a call that uses the budget (the default, or
    // said explicitly): the second retry is refused.
    let t = Script::new(Duration::ZERO, |_, _, _| Reply::bad_gateway());
    let c = budgeted(&t, Some(RetryBudget::new(10)), &prometheus::Registry::new());
    let err = c
        .call_with(CallOptions::new().retry_budget(true), |api| {
            api.find_project_by_id().id(Uuid::nil()).send()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::RetryBudgetExhausted { attempts: 2, .. }),
        "{err:?}"
    );
}
