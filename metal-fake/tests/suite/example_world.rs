//! The example world (`metal-fake/examples/world.json`) as the tests of
//! accounts, API keys and ownership use it: its tokens and IDs, the
//! document, the fake on it, and calls in process as one of its tokens.

use metal_fake::document::WorldDoc;
use metal_fake::Fake;
use serde_json::Value;

use crate::http;

/// The token of organisation acme.
pub const ACME: &str = "acme-token";
/// The token of organisation globex.
pub const GLOBEX: &str = "globex-token";
/// Organisation acme.
pub const ACME_ORG: &str = "0a000000-0000-4000-8000-000000000001";
/// Organisation globex.
pub const GLOBEX_ORG: &str = "0a000000-0000-4000-8000-000000000002";
/// acme's project `acme-prod`.
pub const ACME_PROJECT: &str = "0b000000-0000-4000-8000-000000000001";
/// acme's project `acme-staging`.
pub const ACME_STAGING: &str = "0b000000-0000-4000-8000-000000000002";
/// globex's project `globex-prod`.
pub const GLOBEX_PROJECT: &str = "0b000000-0000-4000-8000-000000000003";

/// The example document, as JSON (for a test that changes it as text).
pub fn json() -> Value {
    serde_json::from_str(include_str!("../../examples/world.json")).unwrap()
}

/// The example document.
pub fn doc() -> WorldDoc {
    serde_json::from_str(include_str!("../../examples/world.json")).unwrap()
}

/// The fake on the example world.
pub fn fake() -> Fake {
    Fake::builder().world(doc()).build()
}

/// One call in process as `token`: its status and reply. `body` goes as
/// JSON but for a `GET` or a `DELETE`.
pub async fn call(fake: &Fake, token: &str, method: &str, path: &str, body: Value) -> (u16, Value) {
    let body = (method != "GET" && method != "DELETE").then_some(body);
    http::in_process(fake, token, method, path, body).await
}
