//! Serving the fake's router on a TCP listener. Connections are served with
//! hyper directly rather than `axum::serve`, so a handler can drop its own
//! connection (the "dropped connection" faults) through the connection's
//! kill signal.

use std::time::Duration;

use axum::extract::Extension;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use super::handle::ServerHandle;
use crate::fake::Fake;
use crate::render::API_PREFIX;
use crate::router::{self, ConnKill, ServerConfig};

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
    let (router, recorded) = router::router(fake.shared().clone(), config);
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(accept_loop(listener, router, rx));
    Ok(ServerHandle::new(
        format!("http://{addr}{API_PREFIX}"),
        tx,
        task,
        recorded,
    ))
}

async fn accept_loop(listener: TcpListener, router: Router, mut shutdown: oneshot::Receiver<()>) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!("metal-fake: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let kill = ConnKill::default();
                let svc = TowerToHyperService::new(
                    router.clone().layer(Extension(kill.clone())),
                );
                conns.spawn(async move {
                    let conn = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .serve_connection(TokioIo::new(stream), svc);
                    // Over HTTP, "not sent" and "no reply" are both a
                    // connection closed without a reply.
                    tokio::select! {
                        _ = conn => {}
                        _ = kill.fired() => {}
                    }
                });
                while conns.try_join_next().is_some() {}
            }
        }
    }
    conns.shutdown().await;
}
