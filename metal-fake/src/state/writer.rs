//! The files of a state file: the snapshot written whole (a temporary
//! file beside it, synced, then renamed), and the log appended to, one
//! record for each lock of the world that changed something.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::StateError;
use super::frame::frame;
use super::policy::SyncPolicy;
use super::replay::{Change, Header, Record, VERSION};
use crate::document::WorldDoc;
use crate::model::saved::Saved;

/// The log is compacted into a new snapshot once it is larger than the
/// snapshot and at least this large (so a small world does not rewrite
/// its snapshot every few changes).
pub(crate) const MIN_COMPACTION: u64 = 4 * 1024 * 1024;

/// An open state file: its snapshot and the log after it.
#[derive(Debug)]
pub(crate) struct Writer {
    snapshot: PathBuf,
    log: PathBuf,
    sync: SyncPolicy,
    /// The log, appended to.
    file: File,
    /// Its length.
    written: u64,
    /// The snapshot's length.
    snapshot_len: u64,
    /// The last record's `seq`.
    seq: u64,
    /// Written since the last sync.
    unsynced: bool,
    /// Why an earlier write failed: nothing more is written (the log
    /// would have a hole).
    failed: Option<String>,
}

/// `path` with `.suffix` added to its name.
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StateError + '_ {
    move |source| StateError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `bytes` to `path` whole or not at all: a temporary file beside
/// it, readable by its owner only (mode 0600 on Unix: the world holds its
/// tokens), synced, then renamed over `path`, the folder synced. Returns
/// the file, open for appending.
fn replace(path: &Path, bytes: &[u8]) -> Result<File, StateError> {
    let tmp = beside(path, ".tmp");
    // A stale temporary file may have been made with other bits.
    let _ = std::fs::remove_file(&tmp);
    let mut options = OpenOptions::new();
    options.append(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp).map_err(io(&tmp))?;
    file.write_all(bytes).map_err(io(&tmp))?;
    file.sync_all().map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))?;
    sync_folder(path)?;
    Ok(file)
}

/// Syncs the folder holding `path`, so that a rename in it survives a
/// power cut (on Unix; elsewhere nothing).
fn sync_folder(path: &Path) -> Result<(), StateError> {
    #[cfg(unix)]
    {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        File::open(folder)
            .and_then(|f| f.sync_all())
            .map_err(io(folder))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The framed line of `value` as compact JSON.
fn line<T: serde::Serialize>(value: &T) -> Vec<u8> {
    // The log's records are strings, numbers and the world's own entries:
    // they always encode.
    frame(&serde_json::to_vec(value).unwrap_or_default())
}

impl Writer {
    /// Starts the state file at `snapshot` with `doc` as its snapshot
    /// (written at `at_ms`) and an empty log after it.
    pub(crate) fn start(
        snapshot: PathBuf,
        log: PathBuf,
        sync: SyncPolicy,
        doc: &WorldDoc,
        at_ms: i64,
    ) -> Result<Self, StateError> {
        let (file, written, snapshot_len) = Self::write_snapshot(&snapshot, &log, doc, at_ms)?;
        Ok(Self {
            snapshot,
            log,
            sync,
            file,
            written,
            snapshot_len,
            seq: 0,
            unsynced: false,
            failed: None,
        })
    }

    /// Writes the snapshot, then the log's header naming it: a crash
    /// between the two leaves the old log, which names the old snapshot
    /// and so is not replayed on the new one (whose world holds it all).
    fn write_snapshot(
        snapshot: &Path,
        log: &Path,
        doc: &WorldDoc,
        at_ms: i64,
    ) -> Result<(File, u64, u64), StateError> {
        let bytes = serde_json::to_vec_pretty(doc).map_err(|e| StateError::World {
            path: snapshot.to_path_buf(),
            source: e.into(),
        })?;
        replace(snapshot, &bytes)?;
        let header = line(&Header {
            metal_fake_log: VERSION,
            snapshot_crc: crc32fast::hash(&bytes),
            at_ms,
        });
        let file = replace(log, &header)?;
        Ok((file, header.len() as u64, bytes.len() as u64))
    }

    /// Why an earlier write failed, if one did.
    pub(crate) fn failed(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    fn fail(&mut self, e: StateError) -> StateError {
        tracing::error!("metal-fake: the state file is no longer written: {e}");
        self.failed = Some(e.to_string());
        e
    }

    fn check(&self) -> Result<(), StateError> {
        match &self.failed {
            Some(why) => Err(StateError::Failed(why.clone())),
            None => Ok(()),
        }
    }

    /// Appends one record of `changes` written at `at_ms`, synced before
    /// it returns with [`SyncPolicy::EveryChange`]; then compacts when the
    /// log has grown past the snapshot (`doc` makes the new one).
    pub(crate) fn append(
        &mut self,
        changes: Vec<Saved>,
        at_ms: i64,
        doc: impl FnOnce() -> WorldDoc,
    ) -> Result<(), StateError> {
        self.check()?;
        self.seq += 1;
        let record = line(&Record {
            seq: self.seq,
            at_ms,
            changes: changes
                .into_iter()
                .map(|s| Change {
                    section: s.section.to_string(),
                    key: s.key,
                    entries: s.entries,
                })
                .collect(),
        });
        let written = self.file.write_all(&record).map_err(io(&self.log));
        if let Err(e) = written {
            return Err(self.fail(e));
        }
        self.written += record.len() as u64;
        self.unsynced = true;
        if self.sync == SyncPolicy::EveryChange {
            if let Err(e) = self.file.sync_data().map_err(io(&self.log)) {
                return Err(self.fail(e));
            }
            self.unsynced = false;
        }
        if self.written > self.snapshot_len.max(MIN_COMPACTION) {
            self.compact(&doc(), at_ms)?;
        }
        Ok(())
    }

    /// Writes `doc` (the world at `at_ms`) as the new snapshot and starts
    /// an empty log after it.
    pub(crate) fn compact(&mut self, doc: &WorldDoc, at_ms: i64) -> Result<(), StateError> {
        self.check()?;
        match Self::write_snapshot(&self.snapshot, &self.log, doc, at_ms) {
            Ok((file, written, snapshot_len)) => {
                self.file = file;
                self.written = written;
                self.snapshot_len = snapshot_len;
                self.seq = 0;
                self.unsynced = false;
                Ok(())
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    /// What a sync has to sync: a second handle on the log when records
    /// were written since the last (synced without holding the writer).
    pub(crate) fn take_sync(&mut self) -> Result<Option<(File, PathBuf)>, StateError> {
        self.check()?;
        if !self.unsynced {
            return Ok(None);
        }
        match self.file.try_clone().map_err(io(&self.log)) {
            Ok(file) => {
                self.unsynced = false;
                Ok(Some((file, self.log.clone())))
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Records that a sync of the log failed.
    pub(crate) fn sync_failed(&mut self, e: StateError) -> StateError {
        self.fail(e)
    }
}
