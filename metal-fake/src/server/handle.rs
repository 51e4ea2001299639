//! [`ServerHandle`]: a running server, its base URL, its recorded replies,
//! and how to stop it.

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::router::{Recorded, RecordedReply};

/// A running server. Dropping it stops the server.
#[derive(Debug)]
pub struct ServerHandle {
    base_url: String,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
    recorded: Recorded,
}

impl ServerHandle {
    pub(super) fn new(
        base_url: String,
        shutdown: oneshot::Sender<()>,
        task: JoinHandle<()>,
        recorded: Recorded,
    ) -> Self {
        Self {
            base_url,
            shutdown: Some(shutdown),
            task,
            recorded,
        }
    }

    /// The API's base URL, `http://HOST:PORT/metal/v1`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The replies recorded so far.
    pub fn recorded_replies(&self) -> Vec<RecordedReply> {
        self.recorded
            .lock()
            .map(|r| r.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Stops accepting, closes every connection and waits for the server
    /// task to end.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.task).await;
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}
