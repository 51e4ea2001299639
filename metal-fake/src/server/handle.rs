//! [`ServerHandle`]: a running server, its base URL, its recorded replies,
//! the panics of its connections, and how to stop it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::oneshot;
use tokio::task::{JoinError, JoinHandle};

use crate::pipeline::Recorded;
use crate::pipeline::RecordedReply;

/// A running server. Dropping it stops the server.
#[derive(Debug)]
pub struct ServerHandle {
    base_url: String,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
    recorded: Recorded,
    connection_panics: Arc<AtomicU64>,
}

impl ServerHandle {
    pub(super) fn new(
        base_url: String,
        shutdown: oneshot::Sender<()>,
        task: JoinHandle<()>,
        recorded: Recorded,
        connection_panics: Arc<AtomicU64>,
    ) -> Self {
        Self {
            base_url,
            shutdown: Some(shutdown),
            task,
            recorded,
            connection_panics,
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

    /// How many of this server's connection tasks have panicked (a handler
    /// that panics, say). Each is also logged with `tracing::error!` and
    /// counted in `connection_panics` of `GET /_fake/state`; the server goes
    /// on serving other connections. The count includes a panic as soon as
    /// the server has noticed the task's end.
    pub fn connection_panics(&self) -> u64 {
        self.connection_panics.load(Ordering::Relaxed)
    }

    /// Stops accepting, closes every connection and waits for the server
    /// task to end; `Err` when that task did not end normally (it panicked:
    /// see [`JoinError::is_panic`] and [`JoinError::into_panic`]).
    pub async fn try_shutdown(mut self) -> Result<(), JoinError> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        (&mut self.task).await
    }

    /// [`ServerHandle::try_shutdown`], for callers that treat a failed
    /// server as a bug: a server task that ended abnormally is logged with
    /// `tracing::error!`, and its panic is resumed here.
    ///
    /// # Panics
    ///
    /// With the server task's own panic, if it panicked.
    pub async fn shutdown(self) {
        if let Err(e) = self.try_shutdown().await {
            tracing::error!("metal-fake: the server task failed: {e}");
            if let Ok(panic) = e.try_into_panic() {
                std::panic::resume_unwind(panic);
            }
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handle(task: JoinHandle<()>) -> (ServerHandle, oneshot::Receiver<()>) {
        let (tx, rx) = oneshot::channel();
        let handle = ServerHandle::new(
            "http://127.0.0.1:1/metal/v1".into(),
            tx,
            task,
            Recorded::default(),
            Arc::default(),
        );
        (handle, rx)
    }

    #[tokio::test]
    async fn a_server_task_that_panicked_is_an_error_at_shutdown() {
        let (server, _rx) = handle(tokio::spawn(async { panic!("accept loop broke") }));
        let err = server.try_shutdown().await.unwrap_err();
        assert!(err.is_panic());
        let panic = err.into_panic();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"accept loop broke"));
    }

    #[tokio::test]
    async fn shutdown_resumes_the_server_task_s_panic() {
        let (server, _rx) = handle(tokio::spawn(async { panic!("accept loop broke") }));
        let stopped = tokio::spawn(server.shutdown()).await.unwrap_err();
        assert!(stopped.is_panic());
        let panic = stopped.into_panic();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"accept loop broke"));
    }

    #[tokio::test]
    async fn a_server_task_that_ends_is_ok_at_shutdown() {
        let (server, rx) = handle(tokio::spawn(async {}));
        drop(rx);
        server.try_shutdown().await.unwrap();
    }
}
