//! How a test reaches the fake: in process, or over HTTP to a server of
//! its own (replies recorded, and checked against the spec when the test
//! finishes), with the same calls as the fake's default token.

use crate::common::schema;
use crate::http;

use metal_fake::document::WorldDoc;
use metal_fake::{Fake, ServerConfig, ServerHandle, DEFAULT_TOKEN};
use serde_json::Value;

/// The operations whose success the spec gives no JSON schema (custom
/// data, bandwidth, traffic) or another content type (a screenshot): their
/// replies are checked by the tests themselves.
const UNSCHEMED: &[&str] = &[
    "findDeviceCustomdata",
    "findIPAddressCustomdata",
    "findIPReservationCustomdata",
    "findIPAssignmentCustomdata",
    "findInstanceBandwidth",
    "findTraffic",
    "captureScreenshot",
    "findOrganizationHardwareReservations",
];

/// One fake, reached in process or over HTTP.
pub struct Via {
    /// The fake behind it.
    pub fake: Fake,
    /// Its server, over HTTP.
    pub server: Option<ServerHandle>,
    /// The plain client of the calls.
    pub client: reqwest::Client,
}

impl Via {
    /// A fake of `world`, called in process, or over HTTP when `over_http`.
    pub async fn new(world: WorldDoc, over_http: bool) -> Self {
        let fake = Fake::builder().world(world).build();
        let server = if over_http {
            let config = ServerConfig::new(DEFAULT_TOKEN).record_replies(true);
            Some(http::serve(&fake, config).await)
        } else {
            None
        };
        Self {
            fake,
            server,
            client: http::client(),
        }
    }

    /// The same world both ways, in process first.
    pub async fn both(world: impl Fn() -> WorldDoc) -> [Self; 2] {
        [
            Self::new(world(), false).await,
            Self::new(world(), true).await,
        ]
    }

    /// The fake behind it.
    pub fn fake(&self) -> &Fake {
        &self.fake
    }

    /// The way, for messages.
    pub fn way(&self) -> &'static str {
        if self.server.is_some() {
            "over HTTP"
        } else {
            "in process"
        }
    }

    /// One call: its status and JSON body.
    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        match &self.server {
            None => http::in_process(&self.fake, DEFAULT_TOKEN, method, path, body).await,
            Some(s) => {
                http::over_http(
                    &self.client,
                    s.base_url(),
                    DEFAULT_TOKEN,
                    method,
                    path.to_string(),
                    body,
                )
                .await
            }
        }
    }

    /// A `GET` that must answer `200`; its body.
    pub async fn get(&self, path: &str) -> Value {
        let (status, body) = self.call("GET", path, None).await;
        assert_eq!(status, 200, "{} GET {path}: {body}", self.way());
        body
    }

    /// Over HTTP, every recorded reply with a JSON schema checked against
    /// the spec; then the server stops.
    pub async fn finish(self) {
        if let Some(s) = self.server {
            let replies: Vec<_> = s
                .recorded_replies()
                .into_iter()
                .filter(|r| !(r.status < 300 && UNSCHEMED.contains(&r.operation.as_str())))
                .collect();
            schema::check_all(&replies);
            s.shutdown().await;
        }
    }
}

/// The `errors` of a refusal, as one string.
pub fn errors(body: &Value) -> String {
    body["errors"].to_string()
}
