//! What every resource's loading shares: the refusals of a world document
//! (a record twice, a record naming one the world does not have).

use std::collections::HashSet;

use crate::document::WorldError;

/// Refuses a second record with the same key.
pub(crate) fn unique<K: std::hash::Hash + Eq>(
    seen: &mut HashSet<K>,
    key: K,
    kind: &'static str,
    shown: impl ToString,
) -> Result<(), WorldError> {
    if seen.insert(key) {
        Ok(())
    } else {
        Err(WorldError::Duplicate {
            kind,
            id: shown.to_string(),
        })
    }
}

/// `from` names a `kind` the world does not have.
pub(crate) fn unknown(from: impl ToString, kind: &'static str, id: impl ToString) -> WorldError {
    WorldError::Unknown {
        from: from.to_string(),
        kind,
        id: id.to_string(),
    }
}
