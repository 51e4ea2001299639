//! The children of a labelled Prometheus collector, resolved once per
//! label set and kept: every request records under its operationId and
//! status, and resolving them anew (hashing the label texts, formatting
//! the status) would cost more than recording.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, RwLock};

/// Resolved children, keyed by a small copyable key.
pub(crate) struct Children<K, V> {
    map: Arc<RwLock<HashMap<K, V, BuildHasherDefault<WordHasher>>>>,
}

impl<K, V> Clone for Children<K, V> {
    fn clone(&self) -> Self {
        Self {
            map: self.map.clone(),
        }
    }
}

impl<K, V> std::fmt::Debug for Children<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Children")
    }
}

impl<K, V> Default for Children<K, V> {
    fn default() -> Self {
        Self {
            map: Arc::default(),
        }
    }
}

impl<K: std::hash::Hash + Eq + Copy, V: Clone> Children<K, V> {
    /// The child of `key`, made by `make` the first time.
    pub(crate) fn get(&self, key: K, make: impl FnOnce() -> V) -> V {
        // Plain maps of collector handles, valid after any panic.
        if let Some(v) = self.map.read().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return v.clone();
        }
        self.map
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .entry(key)
            .or_insert_with(make)
            .clone()
    }
}

/// The key of a `&'static str` label: its address and length.
pub(crate) type LabelKey = (usize, usize);

/// The address of a `&'static str` label: the key of its text, cheaper to
/// hash than the text. Two copies of one text at two addresses resolve to
/// the same child of the collector, so nothing is counted twice.
pub(crate) fn label_key(label: &'static str) -> LabelKey {
    (label.as_ptr() as usize, label.len())
}

/// A hasher for keys made of a few machine words (FxHash's mixing).
#[derive(Default)]
pub(crate) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn write_u16(&mut self, word: u16) {
        self.write_u64(u64::from(word));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_is_made_once_and_kept() {
        let c: Children<LabelKey, u32> = Children::default();
        let mut made = 0;
        for _ in 0..3 {
            assert_eq!(
                c.get(label_key("findProjectById"), || {
                    made += 1;
                    7
                }),
                7
            );
        }
        assert_eq!(made, 1);
        assert_eq!(c.get(label_key("other"), || 8), 8);
    }
}
