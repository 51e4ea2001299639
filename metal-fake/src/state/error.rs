//! [`StateError`]: why a state file cannot be read or written.

use std::path::PathBuf;

use crate::document::WorldError;

/// Why a state file cannot be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// A file cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A record of the log before its last is damaged.
    #[error("{}: the record at byte {offset} {reason}", path.display())]
    Corrupt {
        /// The log.
        path: PathBuf,
        /// Where the record starts.
        offset: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// The snapshot, with the log replayed, is not a world the fake loads.
    #[error("{}: {source}", path.display())]
    World {
        /// The snapshot.
        path: PathBuf,
        /// Why the world is refused.
        #[source]
        source: WorldError,
    },
    /// A log is there without its snapshot.
    #[error("{} is there without its snapshot {}", log.display(), path.display())]
    Orphan {
        /// The snapshot that is missing.
        path: PathBuf,
        /// The log.
        log: PathBuf,
    },
    /// An earlier write failed, so nothing more is written.
    #[error("the state file is no longer written: {0}")]
    Failed(String),
}
