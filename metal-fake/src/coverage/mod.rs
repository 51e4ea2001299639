//! What the fake does with every part of a request the spec names: each
//! query parameter of each operation, and each request variant (a
//! `oneOf` branch of its body, a value of the body's `type`, an action
//! type). `metal-fake/COVERAGE.md` is the table of it, written from the
//! declarations here and from what the code reads, never by hand: the
//! test `coverage::table::the_coverage_table_is_current` fails when the
//! file is not what the code says, and `METAL_FAKE_WRITE_COVERAGE=1`
//! makes it write the file instead.
//!
//! - **Query parameters.** A parameter is honoured when the operation's
//!   `prepare` reads it: every read goes through [`crate::Call::query`],
//!   which counts it in tests (`crate::call::reads`), and the test calls each operation with
//!   every parameter of the spec's. One it does not read is declared with
//!   the operation ([`crate::model::Modelled::unread`]) as an [`Unread`],
//!   without effect in the fake's world (why); one that other work is to
//!   honour is in
//!   `pending::PENDING`. A parameter neither read nor declared fails
//!   the test, and so does a declared one that is read.
//! - **Variants.** Modelled, unless `variants::VARIANTS` says otherwise
//!   (not yet modelled, or refused as the real API refused it, with its
//!   message). The test `coverage::replies` sends every variant of every
//!   operation and fails on a reply that says the fake does not model
//!   something unless the list says so, and on a listed variant whose
//!   reply does not say it: so the list is right in both directions.

#[cfg(test)]
mod pending;
#[cfg(test)]
mod replies;
#[cfg(test)]
mod spec;
#[cfg(test)]
mod table;
#[cfg(test)]
mod variants;

pub(crate) use crate::call::Unread;
