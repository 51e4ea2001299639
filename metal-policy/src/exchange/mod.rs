//! The policy's layer at the hook point below the generated client: the
//! steps every request takes, whether it comes from a [`crate::Metal`]
//! method, from [`crate::Client::call`], or from the raw client that
//! [`crate::Client::api`] hands out.
//!
//! Every request belongs to an attempt, and every attempt holds a
//! concurrency slot and a [`Scope`], taken together in one place
//! ([`Layer::begin`]): a call takes them for each of its attempts, a
//! request of the raw client for itself. A scope is the attempt's view of
//! the hook point: the generated client its operation is given, whose
//! requests pass the policy's steps with the attempt's timeout, and the
//! record of what they saw, which the attempt reads back as a value when
//! it ends. Scopes are made once and reused, as many as attempts have been
//! in flight at once.
//!
//! The steps of one request ([`steps`]):
//!
//! 1. a rate-limit turn;
//! 2. one exchange through the next layer (reqwest, or the fake's router),
//!    under the attempt timeout (the exchange only, never the waits before
//!    it); an error reply's body is read there, bounded by the next layer;
//! 3. the reply classified ([`crate::classify::classify`]) and observed:
//!    latency and status in the metrics, under the operationId; its
//!    `X-RateLimit-Remaining`/`-Reset` set the client's pace when learning
//!    is on; a throttling reply pauses the whole client;
//! 4. what it saw recorded in the attempt's scope.

mod scope;
mod steps;

pub(crate) use scope::{Layer, Raw, Scope, Seen};
pub(crate) use steps::Steps;
