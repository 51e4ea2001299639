//! The backend's two subscriptions, each kept up by one task
//! ([`subscribed`]): the announcements of a schedule another process
//! pulled back ([`ANNOUNCEMENTS`]), and a Sentinel's master switches
//! ([`MASTER_SWITCHES`]).

use std::sync::Weak;

use futures::future::BoxFuture;
use futures::StreamExt;
use redis::aio::PubSub;
use redis::{Msg, RedisError};
use tokio::time::{sleep, timeout};
use tracing::{debug, info};

use super::backend::Shared;

/// What one subscription listens to, and what it does with a message.
pub(super) struct Subscription {
    /// For the logs.
    what: &'static str,
    subscribe: for<'a> fn(&'a Shared) -> BoxFuture<'a, Result<PubSub, RedisError>>,
    on_message: fn(&Shared, Msg),
}

/// The epochs other processes publish when a faster learned pace pulled
/// the shared schedule back: this process's waiting turns of older epochs
/// wake and reserve again.
pub(super) static ANNOUNCEMENTS: Subscription = Subscription {
    what: "the announcements",
    subscribe: |s| {
        Box::pin(async move {
            let mut ps = s.connector.pubsub().await?;
            ps.subscribe(&s.keys.rebuilt).await?;
            Ok(ps)
        })
    },
    on_message: |s, m| {
        if let Ok(epoch) = m.get_payload::<u64>() {
            s.saw_epoch(epoch);
        }
    },
};

/// A Sentinel's `+switch-master` announcements: when the master changes
/// the connection is forgotten, so the next call connects to the new one
/// (a failover asked for leaves the old master answering, as a master,
/// until the sentinel demotes it).
pub(super) static MASTER_SWITCHES: Subscription = Subscription {
    what: "the Sentinel",
    subscribe: |s| Box::pin(s.connector.master_switches()),
    on_message: |s, m| {
        let payload: String = m.get_payload().unwrap_or_default();
        let ours = s
            .connector
            .sentinel_master()
            .is_some_and(|name| payload.split(' ').next() == Some(name));
        if ours {
            info!(prefix = %s.config.prefix, "the Sentinel switched masters: connecting to the new one");
            s.drop_connection();
        }
    },
};

/// Keeps `sub` subscribed while the backend lives, handling each message;
/// after a failure, or the subscription's end, subscribes again every
/// retry interval. Holds the backend weakly (strongly only while it
/// subscribes, within the call timeout); the backend aborts it when
/// dropped.
pub(super) async fn subscribed(shared: Weak<Shared>, sub: &'static Subscription) {
    loop {
        let Some((t, retry)) = shared
            .upgrade()
            .map(|s| (s.config.timeout, s.config.retry_interval))
        else {
            return;
        };
        let made = timeout(t, async {
            let s = shared
                .upgrade()
                .ok_or_else(|| RedisError::from((redis::ErrorKind::Io, "the client is gone")))?;
            (sub.subscribe)(&s).await
        })
        .await;
        match made {
            Ok(Ok(ps)) => {
                let mut messages = ps.into_on_message();
                while let Some(m) = messages.next().await {
                    let Some(s) = shared.upgrade() else {
                        return;
                    };
                    (sub.on_message)(&s, m);
                }
                debug!("shared limits: the subscription to {} ended", sub.what);
            }
            Ok(Err(e)) => debug!(error = %e, "shared limits: cannot subscribe to {}", sub.what),
            Err(_) => debug!("shared limits: subscribing to {} timed out", sub.what),
        }
        sleep(retry).await;
    }
}
