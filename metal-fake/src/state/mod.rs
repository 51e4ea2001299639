//! The fake's state on disk, kept through a crash: a snapshot of the
//! world and an append-only log of every change after it, as SQLite's
//! write-ahead log and Redis's append-only file keep theirs.
//!
//! A state file `FILE` ([`StateFile::open`], the binary's `--state-file
//! FILE`) is two files:
//!
//! - `FILE`, the snapshot: a world document ([`crate::document`]), written
//!   whole or not at all (a temporary file beside it, synced, then
//!   renamed), readable by its owner only (mode 0600: it holds the
//!   world's tokens).
//! - `FILE.log`, the log: one line a record, each the CRC-32 of its JSON as
//!   8 hex digits, a space, the JSON, a newline. The first record names
//!   the snapshot it follows (its CRC-32) and when it was written; each
//!   other record is what one lock of the world changed (an API call, a
//!   control call, the lifecycle steps that fell due), written before the
//!   lock is let go, so before the call's reply is sent:
//!   `{"seq": 7, "at_ms": 1718000000123, "changes": [{"section":
//!   "devices", "key": "<id>", "entries": [<the device's entry now>]}]}`.
//!   A change is the new state of the record's entry in the world
//!   document, keyed by its section and ID (`entries: []` when it is
//!   gone), never the request that made it, so a replay is the document
//!   the world would have saved: a device's ports are keyed by the
//!   device, a capacity pool by its place and plan, the tokens are their
//!   whole section.
//!
//! At start ([`StateFile::open`]) the snapshot is read and the log
//! replayed onto it: each change replaces its entries in place (a new
//! one goes after the others), and the entries that count time (a
//! device's time in its phase, a reservation's time to its release) move
//! on to the last record's instant. Then the world is written as a new
//! snapshot with an empty log after it; and again whenever the log grows
//! past the snapshot (and past 4 MiB), and on a clean stop.
//!
//! A crash while a record is written leaves it torn (cut short, or with a
//! checksum that does not match, at the end of the log): it is dropped
//! with a warning, never loaded half, and so is its change (the call it
//! belongs to got no reply). A damaged record before the last is not a
//! crash: the start is refused with [`StateError::Corrupt`], naming the
//! byte offset. A log whose first record names another snapshot was left
//! by a crash between writing a snapshot and starting its log: the
//! snapshot holds all it says, and it is not replayed.
//!
//! # What a crash can lose
//!
//! Every record is written to the operating system before its reply is
//! sent, so a crash of the fake alone (`kill -9`, out of memory, a panic)
//! loses nothing that was answered. When the records reach the disk is
//! the [`SyncPolicy`]: with [`SyncPolicy::EveryChange`] (`--sync-interval
//! 0`) each is synced (`fdatasync`) before its reply, as Redis's
//! `appendfsync always`, and a power cut or a crash of the operating
//! system loses nothing answered either; with [`SyncPolicy::Interval`]
//! (the binary's default, one second, as Redis's `appendfsync everysec`)
//! the log is synced every interval, and such a crash loses at most the
//! changes of the last interval. The interval is the default because a
//! sync of every change costs a disk flush on every call, which bounds
//! the fake to the disk's flushes a second (`cargo bench -p metal-fake
//! --bench durability` measures the three), while the crashes the fake
//! meets in tests and development are its own process's.
//!
//! If a write fails (a full disk), nothing more is written and every
//! later API call is answered `503`; the binary exits with code 1.

mod error;
mod frame;
mod policy;
mod replay;
mod writer;

use std::path::{Path, PathBuf};

use crate::document::{WorldDoc, WorldError};

pub use error::StateError;
pub use policy::SyncPolicy;
pub(crate) use writer::Writer;

/// A state file, read and ready to be written by the fake it seeds
/// ([`crate::FakeBuilder::state_file`]).
#[derive(Clone, Debug)]
pub struct StateFile {
    snapshot: PathBuf,
    log: PathBuf,
    sync: SyncPolicy,
}

impl StateFile {
    /// Opens the state file at `path` (its log is `path` with `.log`
    /// added): the world it holds, with the log replayed, or `None` when
    /// there is no snapshot yet. A torn last record is dropped with a
    /// warning.
    ///
    /// ```
    /// use metal_fake::state::{StateFile, SyncPolicy};
    ///
    /// let dir = std::env::temp_dir().join(format!("metal-fake-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("state.json");
    /// let (state, world) = StateFile::open(&path, SyncPolicy::EveryChange).unwrap();
    /// assert!(world.is_none(), "nothing there yet");
    /// let fake = metal_fake::Fake::builder().state_file(state).try_build().unwrap();
    /// drop(fake);
    /// let (_, world) = StateFile::open(&path, SyncPolicy::EveryChange).unwrap();
    /// assert_eq!(world.unwrap().projects.len(), 1, "the world it started with");
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn open(
        path: impl AsRef<Path>,
        sync: SyncPolicy,
    ) -> Result<(Self, Option<WorldDoc>), StateError> {
        let snapshot = path.as_ref().to_path_buf();
        let log = writer::beside(&snapshot, ".log");
        let world = recover(&snapshot, &log)?;
        Ok((
            Self {
                snapshot,
                log,
                sync,
            },
            world,
        ))
    }

    /// Starts writing: `doc` (the world at `at_ms`) as the snapshot, with
    /// an empty log after it.
    pub(crate) fn start(self, doc: &WorldDoc, at_ms: i64) -> Result<Writer, StateError> {
        Writer::start(self.snapshot, self.log, self.sync, doc, at_ms)
    }

    /// The sync policy.
    pub(crate) fn sync(&self) -> SyncPolicy {
        self.sync
    }
}

/// Reads a file, `None` when there is none.
fn read(path: &Path) -> Result<Option<Vec<u8>>, StateError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StateError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The world of the snapshot at `snapshot` with the log at `log` replayed.
fn recover(snapshot: &Path, log: &Path) -> Result<Option<WorldDoc>, StateError> {
    let world_error = |source: WorldError| StateError::World {
        path: snapshot.to_path_buf(),
        source,
    };
    let Some(bytes) = read(snapshot)? else {
        if log.exists() {
            return Err(StateError::Orphan {
                path: snapshot.to_path_buf(),
                log: log.to_path_buf(),
            });
        }
        return Ok(None);
    };
    let doc: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| world_error(e.into()))?;
    if !doc.is_object() {
        return Err(world_error(WorldError::Inconsistent(
            "the snapshot is not a JSON object".into(),
        )));
    }
    let doc = match read(log)? {
        Some(text) => replayed(doc, crc32fast::hash(&bytes), log, &text)?,
        None => doc,
    };
    let doc = serde_json::from_value(doc).map_err(|e| world_error(e.into()))?;
    Ok(Some(doc))
}

/// `doc` (the snapshot whose bytes have CRC-32 `crc`) with the log `text`
/// (read from `path`) replayed.
fn replayed(
    doc: serde_json::Value,
    crc: u32,
    path: &Path,
    text: &[u8],
) -> Result<serde_json::Value, StateError> {
    let corrupt = |offset: u64, reason: String| StateError::Corrupt {
        path: path.to_path_buf(),
        offset,
        reason,
    };
    let (records, torn) = frame::read(text).map_err(|d| corrupt(d.offset, d.why.into()))?;
    if let Some(t) = torn {
        tracing::warn!(
            log = %path.display(),
            offset = t.offset,
            bytes = t.len,
            "metal-fake: the log's last record is torn (a crash while it was written): dropped"
        );
    }
    let mut records = records.into_iter();
    let Some(first) = records.next() else {
        return Err(corrupt(0, "is missing: the log has no header".into()));
    };
    let header: replay::Header = serde_json::from_slice(first.json)
        .map_err(|e| corrupt(first.offset, format!("is not the log's header: {e}")))?;
    if header.metal_fake_log != replay::VERSION {
        return Err(corrupt(
            first.offset,
            format!(
                "is a header of log version {}, not {}",
                header.metal_fake_log,
                replay::VERSION
            ),
        ));
    }
    if header.snapshot_crc != crc {
        tracing::warn!(
            log = %path.display(),
            "metal-fake: the log follows an earlier snapshot (a crash while the snapshot was \
             replaced): its changes are in the snapshot, not replayed"
        );
        return Ok(doc);
    }
    let mut decoded = Vec::new();
    for (n, f) in records.enumerate() {
        let record: replay::Record = serde_json::from_slice(f.json)
            .map_err(|e| corrupt(f.offset, format!("is not a record: {e}")))?;
        let due = n as u64 + 1;
        if record.seq != due {
            return Err(corrupt(
                f.offset,
                format!("is number {} where {due} was due", record.seq),
            ));
        }
        decoded.push(record);
    }
    Ok(replay::replay(doc, header.at_ms, &decoded))
}
