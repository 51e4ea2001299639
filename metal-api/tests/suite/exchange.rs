//! The exchange's errors: a failed exchange carries its cause, and a body
//! past the bound fails with a typed error, announced or streamed.

use bytes::Bytes;
use metal_api::exchange::{fail, limit_body};
use metal_api::ExchangeError;

#[tokio::test]
async fn a_failed_exchange_carries_its_cause() {
    let cause = ExchangeError::NotSent("refused".into());
    let err = fail(cause.clone()).await.expect_err("always an error");
    assert_eq!(ExchangeError::find(&err), Some(&cause));
}

#[tokio::test]
async fn bodies_past_the_limit_fail_with_a_typed_error() {
    let reply = |body: &'static str, length: bool| {
        let mut r = http::Response::new(reqwest::Body::wrap_stream(futures::stream::iter(
            body.as_bytes()
                .chunks(3)
                .map(|c| Ok::<_, std::io::Error>(Bytes::copy_from_slice(c)))
                .collect::<Vec<_>>(),
        )));
        if length {
            r.headers_mut()
                .insert("content-length", body.len().to_string().parse().unwrap());
        }
        reqwest::Response::from(r)
    };
    // Streamed without a length: fails once the bound is passed.
    let limited = limit_body(reply("0123456789", false), 5).await.unwrap();
    let err = limited.bytes().await.expect_err("over the limit");
    assert_eq!(
        ExchangeError::find(&err),
        Some(&ExchangeError::BodyTooLarge {
            status: 200,
            limit: 5
        })
    );
    // Announced: fails before reading.
    let err = limit_body(reply("0123456789", true), 5)
        .await
        .expect_err("announced too large");
    assert!(matches!(
        ExchangeError::find(&err),
        Some(ExchangeError::BodyTooLarge { limit: 5, .. })
    ));
    // Within the bound: unchanged.
    let ok = limit_body(reply("0123456789", false), 10).await.unwrap();
    assert_eq!(ok.bytes().await.unwrap(), Bytes::from_static(b"0123456789"));
}
