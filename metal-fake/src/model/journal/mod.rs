//! The one write path of the world, and what it leaves behind.
//!
//! - `meta`: [`Meta`], what every record carries: its place in creation
//!   order, its version, when it was made and last changed.
//! - `table`: [`Table`], a table of records whose every write (insert,
//!   update, remove) bumps the record's [`Meta`] and appends one
//!   [`Entry`] to the journal; nothing else can write a row.
//! - `log`: [`Journal`], the bounded ring of changes (what changed, how,
//!   which operation or timed transition, when on the fake's clock), in
//!   one increasing sequence. Events (`model/event/`) are rendered from it.
//! - `due`: [`DueQueue`], the timed transitions of the world (a device
//!   provisioned, powered off, gone; a reservation released).
//! - `drain`: `World::drain`, the queue drained up to now before every
//!   action and read, each transition applied once at its due instant.

mod drain;
mod due;
mod log;
mod meta;
mod table;

pub(crate) use due::{Due, DueQueue};
pub(crate) use log::{Cause, Change, Entry, Journal, Scope, Touched};
pub(crate) use meta::Meta;
pub(crate) use table::{owned_table, record, Record, Table};
