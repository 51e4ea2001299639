//! Serving the fake's router on a TCP listener. Connections are served with
//! hyper directly rather than `axum::serve`, so a handler can drop its own
//! connection (the "dropped connection" faults) through the connection's
//! kill signal.
//!
//! The accept loop bounds what a client can hold: at most
//! [`ServerConfig::max_connections`] connections are served at once (the
//! loop accepts the next one only when a permit is free; the others wait
//! in the listener's backlog), and hyper closes a connection that does not
//! send a request's head within [`ServerConfig::header_timeout`]. A failed
//! accept is logged (`tracing::warn!`); a connection task that panics is
//! logged (`tracing::error!`) and counted
//! ([`ServerHandle::connection_panics`], and `connection_panics` in
//! `GET /_fake/state`), and the server goes on serving.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Extension;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::{oneshot, Semaphore};
use tokio::task::{JoinError, JoinSet};

use super::handle::ServerHandle;
use crate::fake::Fake;
use crate::model::render::API_PREFIX;
use crate::pipeline::{ConnKill, Pipeline, ServerConfig};
use crate::router;
use crate::store::Store;

/// Binds `addr` (port 0 picks a free port) and serves `fake` on it.
pub async fn bind(
    fake: Fake,
    addr: impl ToSocketAddrs,
    config: ServerConfig,
) -> std::io::Result<ServerHandle> {
    serve(fake, TcpListener::bind(addr).await?, config)
}

/// Serves `fake` on `listener`, in a background task.
pub fn serve(
    fake: Fake,
    listener: TcpListener,
    config: ServerConfig,
) -> std::io::Result<ServerHandle> {
    let addr = listener.local_addr()?;
    let bounds = Bounds {
        header_timeout: config.header_timeout,
        write_timeout: config.write_timeout,
        max_connections: config.max_connections.clamp(1, Semaphore::MAX_PERMITS),
    };
    let shared = fake.store().clone();
    let pipeline = Pipeline::new(shared.clone(), config);
    let recorded = pipeline.recorded().clone();
    let router = router::router(pipeline);
    let panics = Arc::new(AtomicU64::new(0));
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(accept_loop(
        listener,
        router,
        bounds,
        Panics {
            count: panics.clone(),
            shared,
        },
        rx,
    ));
    Ok(ServerHandle::new(
        format!("http://{addr}{API_PREFIX}"),
        tx,
        task,
        recorded,
        panics,
    ))
}

/// The accept loop's share of [`ServerConfig`].
struct Bounds {
    header_timeout: Duration,
    write_timeout: Duration,
    max_connections: usize,
}

/// Where connection-task panics are counted: this server's count (the
/// handle's) and the fake's (`GET /_fake/state`).
struct Panics {
    count: Arc<AtomicU64>,
    shared: Arc<Store>,
}

impl Panics {
    /// Logs and counts a connection task that panicked; a task that ended
    /// or was cancelled (at shutdown) is nothing to report.
    fn reap(&self, done: Result<(), JoinError>) {
        let Err(e) = done else { return };
        if e.is_panic() {
            let n = self.count.fetch_add(1, Ordering::Relaxed) + 1;
            self.shared.connection_panicked();
            tracing::error!(
                connection_panics = n,
                "metal-fake: a connection's task panicked (the server goes on): {e}"
            );
        }
    }
}

async fn accept_loop(
    listener: TcpListener,
    router: Router,
    bounds: Bounds,
    panics: Panics,
    mut shutdown: oneshot::Receiver<()>,
) {
    let permits = Arc::new(Semaphore::new(bounds.max_connections));
    let mut conns = JoinSet::new();
    loop {
        // A permit first: beyond the limit, connections stay unaccepted in
        // the backlog until one closes.
        let next = async {
            let permit = permits.clone().acquire_owned().await;
            (permit, listener.accept().await)
        };
        tokio::select! {
            _ = &mut shutdown => break,
            Some(done) = conns.join_next(), if !conns.is_empty() => panics.reap(done),
            (permit, accepted) = next => {
                let Ok(permit) = permit else { break };
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!("metal-fake: accept failed: {e}");
                        drop(permit);
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let kill = ConnKill::default();
                let svc = TowerToHyperService::new(
                    router.clone().layer(Extension(kill.clone())),
                );
                let header_timeout = bounds.header_timeout;
                let stream = super::timed::WriteTimeout::new(stream, bounds.write_timeout);
                conns.spawn(async move {
                    let _permit = permit;
                    let conn = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(header_timeout)
                        .serve_connection(TokioIo::new(stream), svc);
                    // Over HTTP, "not sent" and "no reply" are both a
                    // connection closed without a reply.
                    tokio::select! {
                        _ = conn => {}
                        _ = kill.fired() => {}
                    }
                });
            }
        }
    }
    conns.abort_all();
    while let Some(done) = conns.join_next().await {
        panics.reap(done);
    }
}
