//! How a test of the compute resources reaches the fake: in process, or
//! over HTTP to a server of its own, with the same calls.

use crate::http;

use metal_fake::document::WorldDoc;
use metal_fake::{Fake, ServerConfig, DEFAULT_TOKEN};
use serde_json::Value;

/// One fake, reached in process or over HTTP.
pub enum Via {
    InProcess(Fake),
    Http(Fake, reqwest::Client, metal_fake::ServerHandle),
}

impl Via {
    /// The same world, once in process and once behind a server.
    pub async fn both(world: WorldDoc) -> [Via; 2] {
        let fake = Fake::builder().world(world.clone()).build();
        let served = Fake::builder().world(world).build();
        let server = crate::http::serve(&served, ServerConfig::new(DEFAULT_TOKEN)).await;
        [
            Via::InProcess(fake),
            Via::Http(served, http::client(), server),
        ]
    }

    /// The fake behind it.
    pub fn fake(&self) -> &Fake {
        match self {
            Via::InProcess(fake) | Via::Http(fake, ..) => fake,
        }
    }

    /// One call: its status and JSON body.
    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        match self {
            Via::InProcess(fake) => http::in_process(fake, DEFAULT_TOKEN, method, path, body).await,
            Via::Http(_, client, server) => {
                http::over_http(
                    client,
                    server.base_url(),
                    DEFAULT_TOKEN,
                    method,
                    path.to_string(),
                    body,
                )
                .await
            }
        }
    }
}

/// The `errors` of a refusal, as one string.
pub fn errors(body: &Value) -> String {
    body["errors"].to_string()
}
