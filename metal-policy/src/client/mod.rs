//! [`Client`], the policy client, and its [`ClientBuilder`].
//!
//! - `handle`: [`Client`] itself and [`Client::api`].
//! - `builder`: the settings ([`Client::builder`]), and where limits,
//!   metrics and the layer at the hook point are put together.
//! - `call`: the one call path (slot, attempts, classification, backoff,
//!   deadline) and the generic [`Client::call`] with its [`CallOptions`].
//! - `pages`: complete pagination, page by page.
//! - `typed`: the [`crate::Metal`] methods, thin callers of the generated
//!   builders with their own recovery rules.

mod builder;
mod call;
mod handle;
mod pages;
mod typed;

pub use builder::{
    BuildError, ClientBuilder, DEFAULT_API_RATE, DEFAULT_MAX_LIST_ENTRIES, DEFAULT_PARALLELISM,
    DEFAULT_PER_PAGE,
};
pub use call::CallOptions;
pub use handle::Client;
pub use typed::{NEXT_AVAILABLE, WITNESS_TAG_PREFIX};

use handle::Inner;
