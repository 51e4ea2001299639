//! A controller's ledger: what it meant to do and what it knows it did,
//! kept in a file so that the process that replaces a killed one goes on
//! from it.
//!
//! Every intent is written *before* the call that carries it out (a create
//! with its witness tag, a reboot), and every result after, each write a
//! whole file renamed into place: a SIGKILL at any point leaves either the
//! old or the new ledger, never half of one. Entries that are over (a
//! device deleted, a race lost) are dropped, so the ledger stays as small
//! as the controller's share of the pool.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The prefix of the tag that witnesses one logical create.
pub const WITNESS_PREFIX: &str = "soak-witness-";

/// Where one logical create stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    /// Sent, or about to be: the reply has not told us the device.
    Pending,
    /// The device exists and is ours.
    Live,
    /// A delete was sent, or is about to be.
    Deleting,
}

/// One logical create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Create {
    /// The reservation it asked for (the only one it may ever land on),
    /// or `None` for `next-available` (the API picks one).
    pub reservation: Option<Uuid>,
    /// Its hostname.
    pub hostname: String,
    /// The device, once known.
    pub device: Option<Uuid>,
    /// Where it stands.
    pub stage: Stage,
    /// Creates sent for it that were refused outright (a 4xx other than a
    /// lost race); after a few, it is given up.
    pub refusals: u32,
}

/// What one controller slot knows, across its processes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// How many processes have run on this ledger.
    pub incarnation: u32,
    /// The generation of the slot's SSH key.
    pub key_generation: u32,
    /// Logical creates not over yet, by witness tag.
    pub creates: BTreeMap<String, Create>,
    /// Logical reboots sent (or about to be), by device.
    pub reboots: BTreeMap<Uuid, u32>,
}

/// Why a ledger could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// Reading or writing the file.
    #[error("ledger {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a ledger.
    #[error("ledger {path} is not a ledger: {source}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

impl Ledger {
    /// Reads the ledger at `path`; a missing file is an empty ledger.
    pub fn load(path: &Path) -> Result<Self, LedgerError> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| LedgerError::Format {
                path: path.to_owned(),
                source,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(LedgerError::Io {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Writes the ledger to `path` atomically (a temporary file renamed
    /// over it).
    pub fn save(&self, path: &Path) -> Result<(), LedgerError> {
        let io = |source| LedgerError::Io {
            path: path.to_owned(),
            source,
        };
        let bytes = serde_json::to_vec(self).map_err(|source| LedgerError::Format {
            path: path.to_owned(),
            source,
        })?;
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, bytes).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// The witness tag of a device's tags, if it has one.
    pub fn witness_of(tags: &[String]) -> Option<&str> {
        tags.iter()
            .map(String::as_str)
            .find(|t| t.starts_with(WITNESS_PREFIX))
    }

    /// Devices known live (or being deleted), with their witness.
    pub fn devices(&self) -> impl Iterator<Item = (&str, Uuid, Stage)> + '_ {
        self.creates
            .iter()
            .filter_map(|(w, c)| c.device.map(|d| (w.as_str(), d, c.stage)))
    }

    /// Forgets a device that is gone: its create and its reboots.
    pub fn forget(&mut self, witness: &str) {
        if let Some(c) = self.creates.remove(witness)
            && let Some(d) = c.device
        {
            self.reboots.remove(&d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ledger_survives_a_save_and_a_load() {
        let dir = std::env::temp_dir().join(format!("soak-ledger-{}", Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c0.json");
        assert_eq!(Ledger::load(&path).unwrap(), Ledger::default());
        let mut l = Ledger::default();
        let d = Uuid::new_v4();
        l.creates.insert(
            format!("{WITNESS_PREFIX}a"),
            Create {
                reservation: Some(Uuid::new_v4()),
                hostname: "h".into(),
                device: Some(d),
                stage: Stage::Live,
                refusals: 0,
            },
        );
        l.reboots.insert(d, 2);
        l.save(&path).unwrap();
        assert_eq!(Ledger::load(&path).unwrap(), l);
        l.forget(&format!("{WITNESS_PREFIX}a"));
        assert!(l.creates.is_empty() && l.reboots.is_empty());
        std::fs::write(&path, b"{").unwrap();
        assert!(matches!(
            Ledger::load(&path),
            Err(LedgerError::Format { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
