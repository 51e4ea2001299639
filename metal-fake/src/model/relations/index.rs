//! The relations' index: for each relation its child keeps, each parent's
//! children, kept as the children change (the journal names every record
//! a table write touched; the world relinks those before a delete reads
//! the index, and on every drain, so what waits stays small), so a delete
//! finds a parent's children without reading whole tables.

use std::collections::{BTreeSet, HashMap};

use uuid::Uuid;

/// Each parent's children, and each child's parents, of every relation
/// kept by its child (by its place in [`super::RELATIONS`]).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct LinkIndex {
    children: Vec<HashMap<Uuid, BTreeSet<Uuid>>>,
    parents: Vec<HashMap<Uuid, Vec<Uuid>>>,
}

impl LinkIndex {
    /// The children of `parent` under the `relation`th relation, in ID
    /// order.
    pub(crate) fn children(
        &self,
        relation: usize,
        parent: Uuid,
    ) -> impl Iterator<Item = Uuid> + '_ {
        self.children
            .get(relation)
            .and_then(|c| c.get(&parent))
            .into_iter()
            .flatten()
            .copied()
    }

    /// `child` names `parents` now under the `relation`th relation.
    pub(super) fn relink(&mut self, relation: usize, child: Uuid, parents: Vec<Uuid>) {
        if self.children.len() <= relation {
            self.children.resize_with(relation + 1, HashMap::new);
            self.parents.resize_with(relation + 1, HashMap::new);
        }
        let (children, by_child) = (&mut self.children[relation], &mut self.parents[relation]);
        // Most records the journal names kept their parents (a device
        // updated, a reservation whose assignment went): nothing to move.
        if by_child
            .get(&child)
            .map_or(parents.is_empty(), |old| *old == parents)
        {
            return;
        }
        for old in by_child.remove(&child).unwrap_or_default() {
            if let Some(set) = children.get_mut(&old) {
                set.remove(&child);
                if set.is_empty() {
                    children.remove(&old);
                }
            }
        }
        if parents.is_empty() {
            return;
        }
        for p in &parents {
            children.entry(*p).or_default().insert(child);
        }
        by_child.insert(child, parents);
    }
}
