//! A table of the world's records whose every write goes through the
//! journal: the only way to insert, change or remove a row.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use tokio::time::Instant;
use uuid::Uuid;

use super::log::{Change, Journal, Scope};
use super::meta::Meta;
use crate::model::relations::Kind;

/// A record a [`Table`] holds.
pub(crate) trait Record {
    /// Its kind, as the journal and the relations name it.
    const KIND: Kind;
    /// Its bookkeeping.
    fn meta(&self) -> &Meta;
    /// Its bookkeeping, for [`Table`] alone to bump.
    fn meta_mut(&mut self) -> &mut Meta;
    /// What it concerns now.
    fn scope(&self) -> Scope;
    /// How an event's text names it (a device as `"web-1"
    /// (c3.small.x86)`, a project as `"Prod"`), taken at each change;
    /// `None` for a record whose events name nothing. Never a secret.
    fn label(&self) -> Option<String> {
        None
    }
}

/// The records of one kind, by ID. Reads are open; every write takes the
/// journal, bumps the record's [`Meta`] and appends one entry.
#[derive(Debug)]
pub(crate) struct Table<T> {
    rows: BTreeMap<Uuid, T>,
    /// The IDs of the records of each project (by their [`Scope`]'s
    /// project; `None`: of none), kept by every write, so that a rule
    /// reading one project's records (its keys, its VLANs) reads those
    /// alone, not the whole table: a write costs the same in a world of
    /// 100,000 records as in one of 100.
    by_project: HashMap<Option<Uuid>, BTreeSet<Uuid>>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Self {
            rows: BTreeMap::new(),
            by_project: HashMap::new(),
        }
    }
}

impl<T: Record> Table<T> {
    /// The record with this ID.
    pub(crate) fn get(&self, id: &Uuid) -> Option<&T> {
        self.rows.get(id)
    }

    /// Whether it holds this ID.
    pub(crate) fn contains_key(&self, id: &Uuid) -> bool {
        self.rows.contains_key(id)
    }

    /// Every record, by ID.
    pub(crate) fn values(&self) -> impl Iterator<Item = &T> + '_ {
        self.rows.values()
    }

    /// Every `(ID, record)`, by ID.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Uuid, &T)> + '_ {
        self.rows.iter()
    }

    /// Every ID, in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &Uuid> + '_ {
        self.rows.keys()
    }

    /// How many records it holds.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// The records whose [`Scope`]'s project is `project` (`None`: those
    /// of no project), by ID: read through the table's index, not the
    /// whole table.
    pub(crate) fn of_project(&self, project: Option<Uuid>) -> impl Iterator<Item = &T> + '_ {
        self.by_project
            .get(&project)
            .into_iter()
            .flatten()
            .filter_map(|id| self.rows.get(id))
    }

    /// How many records [`Table::of_project`] reads.
    pub(crate) fn count_of_project(&self, project: Option<Uuid>) -> usize {
        self.by_project.get(&project).map_or(0, BTreeSet::len)
    }

    /// `id` is in `project`'s part of the index now (no longer in `was`'s).
    fn index_project(&mut self, id: Uuid, was: Option<Option<Uuid>>, now: Option<Option<Uuid>>) {
        if was == now {
            return;
        }
        if let Some(was) = was
            && let Some(ids) = self.by_project.get_mut(&was)
        {
            ids.remove(&id);
            if ids.is_empty() {
                self.by_project.remove(&was);
            }
        }
        if let Some(now) = now {
            self.by_project.entry(now).or_default().insert(id);
        }
    }

    /// Makes the record `id` at `at` from its fresh [`Meta`] (the next
    /// in creation order, version 1), replacing none: `false` (and no
    /// change) when `id` is taken.
    pub(crate) fn insert(
        &mut self,
        log: &mut Journal,
        id: Uuid,
        at: Instant,
        make: impl FnOnce(Meta) -> T,
    ) -> bool {
        if self.rows.contains_key(&id) {
            return false;
        }
        let row = make(Meta::new(log.next_record(), at));
        let scope = row.scope();
        log.append(T::KIND, id, Change::Created, at, 1, scope, row.label());
        self.rows.insert(id, row);
        self.index_project(id, None, Some(scope.project));
        true
    }

    /// Changes the record `id` at `at` by `f`, naming the change `what`;
    /// `None` (and no change) when there is no such record.
    pub(crate) fn update<R>(
        &mut self,
        log: &mut Journal,
        id: Uuid,
        what: &'static str,
        at: Instant,
        f: impl FnOnce(&mut T) -> R,
    ) -> Option<R> {
        self.try_update(log, id, what, at, |row| {
            Ok::<R, std::convert::Infallible>(f(row))
        })
        .map(|r| match r {
            Ok(r) => r,
            Err(never) => match never {},
        })
    }

    /// As [`Table::update`], for a change that may be refused: `f` must
    /// change nothing when it returns `Err` (nothing is journaled then).
    pub(crate) fn try_update<R, E>(
        &mut self,
        log: &mut Journal,
        id: Uuid,
        what: &'static str,
        at: Instant,
        f: impl FnOnce(&mut T) -> Result<R, E>,
    ) -> Option<Result<R, E>> {
        let row = self.rows.get_mut(&id)?;
        let was = row.scope().project;
        let result = f(row);
        if result.is_ok() {
            row.meta_mut().bump(at);
            let meta = *row.meta();
            let scope = row.scope();
            log.append(
                T::KIND,
                id,
                Change::Updated(what),
                at,
                meta.version,
                scope,
                row.label(),
            );
            self.index_project(id, Some(was), Some(scope.project));
        }
        Some(result)
    }

    /// Removes the record `id` at `at`.
    pub(crate) fn remove(&mut self, log: &mut Journal, id: Uuid, at: Instant) -> Option<T> {
        let row = self.rows.remove(&id)?;
        let scope = row.scope();
        log.append(T::KIND, id, Change::Deleted, at, 0, scope, row.label());
        self.index_project(id, Some(scope.project), None);
        Some(row)
    }
}

impl<'a, T> IntoIterator for &'a Table<T> {
    type Item = (&'a Uuid, &'a T);
    type IntoIter = std::collections::btree_map::Iter<'a, Uuid, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.rows.iter()
    }
}

/// Implements [`Record`] for `$kept`, a struct whose `meta: Meta` field is
/// its bookkeeping: its kind `$kind`, what one concerns now (`|k|
/// scope`, `k` the record), and optionally how its events name it
/// (`label |k| expr`, an `Option<String>`).
macro_rules! record {
    ($kept:ty, $kind:expr, |$k:ident| $scope:expr, label |$l:ident| $label:expr) => {
        $crate::model::journal::record!(@impl $kept, $kind, |$k| $scope,
            fn label(&self) -> Option<String> {
                let $l = self;
                $label
            }
        );
    };
    ($kept:ty, $kind:expr, |$k:ident| $scope:expr) => {
        $crate::model::journal::record!(@impl $kept, $kind, |$k| $scope,);
    };
    (@impl $kept:ty, $kind:expr, |$k:ident| $scope:expr, $($label:item)?) => {
        impl $crate::model::journal::Record for $kept {
            const KIND: $crate::model::relations::Kind = $kind;
            fn meta(&self) -> &$crate::model::journal::Meta {
                &self.meta
            }
            fn meta_mut(&mut self) -> &mut $crate::model::journal::Meta {
                &mut self.meta
            }
            fn scope(&self) -> $crate::model::journal::Scope {
                let $k = self;
                $scope
            }
            $($label)?
        }
    };
}
pub(crate) use record;

/// Declares `$name`: the world's table of `$kept`, which only the module
/// that declares it (a resource's folder, `mod.rs`) and its children can
/// write. Everyone reads it as a [`Table`] (through `Deref`); the folder
/// writes through `rows()`, the only `&mut` to its rows; and the
/// relations' cascade (`model/relations.rs`, where every delete is
/// decided) removes a row through `remove_row`. So no table is written
/// outside its folder, and the compiler says so.
macro_rules! owned_table {
    ($(#[$doc:meta])* $name:ident of $kept:ty) => {
        $(#[$doc])*
        #[derive(Debug, Default)]
        pub(crate) struct $name($crate::model::journal::Table<$kept>);

        impl ::std::ops::Deref for $name {
            type Target = $crate::model::journal::Table<$kept>;
            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl $name {
            /// The rows, to write: for this folder alone.
            #[allow(dead_code)]
            fn rows(&mut self) -> &mut $crate::model::journal::Table<$kept> {
                &mut self.0
            }

            /// Removes `id` at `at`, journaled: for the relations'
            /// cascade alone (`World::delete_record`), which decided it.
            #[allow(dead_code)]
            pub(in crate::model) fn remove_row(
                &mut self,
                log: &mut $crate::model::journal::Journal,
                id: ::uuid::Uuid,
                at: ::tokio::time::Instant,
            ) {
                self.0.remove(log, id, at);
            }
        }
    };
}
pub(crate) use owned_table;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::journal::Cause;

    #[derive(Debug)]
    struct Row {
        meta: Meta,
        n: u32,
    }

    impl Record for Row {
        const KIND: Kind = Kind::SshKey;
        fn meta(&self) -> &Meta {
            &self.meta
        }
        fn meta_mut(&mut self) -> &mut Meta {
            &mut self.meta
        }
        fn scope(&self) -> Scope {
            Scope::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn every_write_bumps_the_meta_and_journals_once() {
        let mut log = Journal::new(100);
        log.set_cause(Cause::Operation("createSSHKey"));
        let mut t: Table<Row> = Table::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let t0 = Instant::now();
        assert!(t.insert(&mut log, a, t0, |meta| Row { meta, n: 0 }));
        assert!(
            !t.insert(&mut log, a, t0, |meta| Row { meta, n: 9 }),
            "taken"
        );
        assert!(t.insert(&mut log, b, t0, |meta| Row { meta, n: 0 }));
        tokio::time::advance(std::time::Duration::from_secs(5)).await;
        let t1 = Instant::now();
        assert_eq!(t.update(&mut log, a, "fields", t1, |r| r.n += 1), Some(()));
        let refused: Option<Result<(), &str>> =
            t.try_update(&mut log, a, "fields", t1, |_| Err("no"));
        assert_eq!(refused, Some(Err("no")));
        assert_eq!(
            t.update(&mut log, Uuid::new_v4(), "fields", t1, |_| ()),
            None
        );
        let row = t.get(&a).unwrap();
        assert_eq!((row.n, row.meta.seq, row.meta.version), (1, 1, 2));
        assert_eq!((row.meta.created, row.meta.updated), (t0, t1));
        assert_eq!(t.get(&b).unwrap().meta.seq, 2);
        assert!(t.remove(&mut log, b, t1).is_some());
        assert!(t.remove(&mut log, b, t1).is_none());
        let changes: Vec<(Uuid, Change, u64)> = log
            .entries()
            .map(|e| (e.record, e.change, e.version))
            .collect();
        assert_eq!(
            changes,
            vec![
                (a, Change::Created, 1),
                (b, Change::Created, 1),
                (a, Change::Updated("fields"), 2),
                (b, Change::Deleted, 0),
            ]
        );
        assert!(log
            .entries()
            .all(|e| e.cause == Cause::Operation("createSSHKey")));
    }
}
