//! The journal: every change the world's tables went through, in order,
//! in a bounded ring.

use std::collections::{BTreeMap, HashMap, VecDeque};

use tokio::time::Instant;
use uuid::Uuid;

use crate::model::event::Seeded;
use crate::model::relations::Kind;

/// What a change concerned, for who may see it (events, watches).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Scope {
    /// The project it was in (a project's own ID for a project).
    pub(crate) project: Option<Uuid>,
    /// The organisation (filled in from the project when not given).
    pub(crate) organization: Option<Uuid>,
    /// The device it concerned (a device's own ID, an assignment's device).
    pub(crate) device: Option<Uuid>,
}

impl Scope {
    /// A change in `project` (its organisation filled in later).
    pub(crate) fn project(project: Uuid) -> Self {
        Scope {
            project: Some(project),
            ..Scope::default()
        }
    }
}

/// How a record changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// It was made.
    Created,
    /// It changed; what changed, as its writer names it (`powered_off`,
    /// `provisioned`, `fields`).
    Updated(&'static str),
    /// It was removed from its table.
    Deleted,
    /// No change of the world's: an event a world document seeded (its
    /// text is the entry's [`Entry::seeded`]).
    Seeded,
}

/// What made a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cause {
    /// A call of the API operation with this operationId.
    Operation(&'static str),
    /// A timed transition of the due-queue, at its due instant.
    Due,
    /// The fake itself: a competitor, the control API, a test's arrangement.
    Fake,
}

/// What changed, for the durable log (`crate::state`): a record of a
/// table, or a part of the world kept outside the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Touched {
    /// A record was made, changed or removed.
    Record {
        /// Its kind.
        kind: Kind,
        /// Its ID.
        id: Uuid,
        /// Whether it was removed.
        deleted: bool,
        /// The device it concerned (a port's device).
        device: Option<Uuid>,
    },
    /// The pool of machines at this place in the world's capacity took
    /// or gave back a machine.
    Pool(usize),
    /// The journal kept an entry with this ID (an event, if its kind is
    /// one: the document's `events` hold it).
    Entry(Uuid),
}

/// One change of one record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Its place in the journal: 1 for the world's first change, one more
    /// for each (never reused, also after the ring drops old entries).
    pub(crate) seq: u64,
    /// Its ID (what `GET /events/{id}` names).
    pub(crate) id: Uuid,
    /// The kind of record that changed.
    pub(crate) kind: Kind,
    /// The record's ID.
    pub(crate) record: Uuid,
    /// How it changed.
    pub(crate) change: Change,
    /// What made the change.
    pub(crate) cause: Cause,
    /// When, on the fake's clock.
    pub(crate) at: Instant,
    /// The record's version after the change (0 for a removal).
    pub(crate) version: u64,
    /// What the record concerned when it changed (its project, that
    /// project's organisation, its device): who may see the change.
    pub(crate) scope: Scope,
    /// The user who made it: the caller's, for a call (`None` for the
    /// fake's own transitions, and for a project's API key, which is no
    /// user).
    pub(crate) by: Option<Uuid>,
    /// How its event names the record, taken at the change
    /// ([`super::Record::label`]): the record may be gone when it is read.
    pub(crate) label: Option<Box<str>>,
    /// A seeded event's own text.
    pub(crate) seeded: Option<Box<Seeded>>,
}

/// The bounded journal of the world's changes.
#[derive(Debug)]
pub(crate) struct Journal {
    entries: VecDeque<Entry>,
    capacity: usize,
    /// The last entry's `seq`.
    last: u64,
    /// The last record `seq` handed out ([`super::Meta::seq`]).
    records: u64,
    /// What makes the changes now.
    cause: Cause,
    /// The user who makes them now.
    actor: Option<Uuid>,
    /// The ID the next entry takes ([`Journal::name_next`]).
    next_id: Option<Uuid>,
    /// Off while a world document loads: a loaded world is where the
    /// journal starts, not a change.
    recording: bool,
    /// Each live project's organisation, so that a change of a device
    /// names the organisation it concerned.
    organizations: HashMap<Uuid, Uuid>,
    /// Each live device's project, so that a change of what a device has
    /// (a port, a BGP session) names the project it concerned.
    projects: HashMap<Uuid, Uuid>,
    /// How many records of each kind the tables hold: every insert and
    /// removal of every table passes here (also while a document loads),
    /// so a new table is counted without an edit.
    live: BTreeMap<&'static str, u64>,
    /// What changed since the durable log last took it, in order; `None`
    /// while nothing takes it (no state file).
    feed: Option<Vec<Touched>>,
    /// The records written since the relations' index last took them
    /// (`World::sync_links`), each with whether that write removed it.
    relinks: Vec<(Kind, Uuid, bool)>,
}

impl Journal {
    /// An empty journal keeping at most `capacity` entries (at least one).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            entries: VecDeque::new(),
            capacity: capacity.max(1),
            last: 0,
            records: 0,
            cause: Cause::Fake,
            actor: None,
            next_id: None,
            recording: true,
            organizations: HashMap::new(),
            projects: HashMap::new(),
            live: BTreeMap::new(),
            feed: None,
            relinks: Vec::new(),
        }
    }

    /// The records written since the last take, in order, each with
    /// whether that write removed it (the relations' index relinks them).
    pub(crate) fn take_relinks(&mut self) -> Vec<(Kind, Uuid, bool)> {
        std::mem::take(&mut self.relinks)
    }

    /// The records written since the relations' index last took them, in
    /// order: what a read of the index (without taking them) must read
    /// itself.
    pub(crate) fn pending_relinks(&self) -> impl Iterator<Item = (Kind, Uuid)> + '_ {
        self.relinks.iter().map(|&(kind, id, _)| (kind, id))
    }

    /// Whether what changes is kept for the durable log
    /// ([`Journal::take_feed`]); off, nothing is kept.
    pub(crate) fn set_feeding(&mut self, on: bool) {
        self.feed = on.then(Vec::new);
    }

    /// Whether what changes is kept for the durable log.
    pub(crate) fn is_feeding(&self) -> bool {
        self.feed.is_some()
    }

    /// Notes a change outside the tables for the durable log.
    pub(crate) fn touch(&mut self, touched: Touched) {
        if self.recording
            && let Some(feed) = &mut self.feed
        {
            feed.push(touched);
        }
    }

    /// What changed since the last take, in order (empty while not
    /// feeding).
    pub(crate) fn take_feed(&mut self) -> Vec<Touched> {
        self.feed.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// How many records of each kind the tables hold now, by
    /// [`Kind::name`] (a kind with none is absent).
    pub(crate) fn live(&self) -> &BTreeMap<&'static str, u64> {
        &self.live
    }

    /// The next record sequence number (creation order across all
    /// records).
    pub(crate) fn next_record(&mut self) -> u64 {
        self.records += 1;
        self.records
    }

    /// From now on, changes are made by `cause`.
    pub(crate) fn set_cause(&mut self, cause: Cause) {
        self.cause = cause;
    }

    /// What makes the changes now.
    pub(crate) fn cause(&self) -> Cause {
        self.cause
    }

    /// From now on, changes are made by `user` (`None`: by no user).
    pub(crate) fn set_actor(&mut self, user: Option<Uuid>) {
        self.actor = user;
    }

    /// The user who makes the changes now.
    pub(crate) fn actor(&self) -> Option<Uuid> {
        self.actor
    }

    /// Whether changes are journaled (`false` while a document loads).
    pub(crate) fn set_recording(&mut self, on: bool) {
        self.recording = on;
    }

    /// Whether changes are journaled now.
    pub(crate) fn recording(&self) -> bool {
        self.recording
    }

    /// The next change journaled takes `id` as its ID (what a record that
    /// keeps the IDs of its own events, a device its provisioning steps,
    /// names it by), if it is journaled.
    pub(crate) fn name_next(&mut self, id: Uuid) {
        self.next_id = Some(id);
    }

    /// Forgets the name [`Journal::name_next`] gave, if no change took it.
    pub(crate) fn unname(&mut self) {
        self.next_id = None;
    }

    /// Appends one change (dropping the oldest entry when full); `label`
    /// is how its event names the record.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn append(
        &mut self,
        kind: Kind,
        record: Uuid,
        change: Change,
        at: Instant,
        version: u64,
        mut scope: Scope,
        label: Option<String>,
    ) {
        match change {
            Change::Created => *self.live.entry(kind.name()).or_default() += 1,
            Change::Deleted => {
                if let Some(n) = self.live.get_mut(kind.name()) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        self.live.remove(kind.name());
                    }
                }
            }
            Change::Updated(_) | Change::Seeded => {}
        }
        if kind == Kind::Project {
            match (change, scope.organization) {
                (Change::Deleted, _) => {
                    self.organizations.remove(&record);
                }
                (_, Some(o)) => {
                    self.organizations.insert(record, o);
                }
                _ => {}
            }
        }
        if kind == Kind::Device {
            match (change, scope.project) {
                (Change::Deleted, _) => {
                    self.projects.remove(&record);
                }
                (_, Some(p)) => {
                    self.projects.insert(record, p);
                }
                _ => {}
            }
        }
        scope = self.filled(scope);
        let named = self.next_id.take();
        if !self.recording {
            return;
        }
        self.relinks.push((kind, record, change == Change::Deleted));
        self.touch(Touched::Record {
            kind,
            id: record,
            deleted: change == Change::Deleted,
            device: scope.device,
        });
        let (cause, by) = (self.cause, self.actor);
        self.push(Entry {
            seq: 0,
            id: named.unwrap_or_else(Uuid::new_v4),
            kind,
            record,
            change,
            cause,
            at,
            version,
            scope,
            by,
            label: label.map(String::into_boxed_str),
            seeded: None,
        });
    }

    /// `scope` with its device's project and its project's organisation
    /// filled in, while they live.
    fn filled(&self, mut scope: Scope) -> Scope {
        if scope.project.is_none() {
            scope.project = scope.device.and_then(|d| self.projects.get(&d).copied());
        }
        if scope.organization.is_none() {
            scope.organization = scope
                .project
                .and_then(|p| self.organizations.get(&p).copied());
        }
        scope
    }

    /// Appends an event a world document seeded, as the next entry (also
    /// while a document loads: it is the document's own).
    pub(crate) fn seed(
        &mut self,
        id: Uuid,
        at: Instant,
        scope: Scope,
        by: Option<Uuid>,
        seeded: Seeded,
    ) {
        let scope = self.filled(scope);
        let (kind, record) = match (scope.device, scope.project, scope.organization) {
            (Some(d), _, _) => (Kind::Device, d),
            (None, Some(p), _) => (Kind::Project, p),
            (None, None, Some(o)) => (Kind::Organization, o),
            (None, None, None) => (Kind::User, by.unwrap_or_default()),
        };
        self.push(Entry {
            seq: 0,
            id,
            kind,
            record,
            change: Change::Seeded,
            cause: Cause::Fake,
            at,
            version: 0,
            scope,
            by,
            label: None,
            seeded: Some(Box::new(seeded)),
        });
    }

    /// Numbers `entry` as the next and keeps it (dropping the oldest when
    /// full).
    fn push(&mut self, mut entry: Entry) {
        self.last += 1;
        entry.seq = self.last;
        self.touch(Touched::Entry(entry.id));
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    /// The entries kept, oldest first.
    pub(crate) fn entries(&self) -> impl DoubleEndedIterator<Item = &Entry> + '_ {
        self.entries.iter()
    }

    /// The entries after `seq`, oldest first (what a watcher that saw
    /// `seq` has not seen, as far as the ring still holds it).
    #[cfg(test)]
    pub(crate) fn since(&self, seq: u64) -> impl Iterator<Item = &Entry> + '_ {
        let start = self.entries.partition_point(|e| e.seq <= seq);
        self.entries.range(start..)
    }

    /// The entry with this ID, if the ring still holds it.
    pub(crate) fn get(&self, id: Uuid) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// The last entry's `seq` (0 before any change).
    #[cfg(test)]
    pub(crate) fn last_seq(&self) -> u64 {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(project: Uuid) -> Scope {
        Scope {
            project: Some(project),
            ..Scope::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_ring_keeps_the_newest_entries_in_order_and_never_reuses_a_seq() {
        let mut j = Journal::new(3);
        let at = Instant::now();
        let ids: Vec<Uuid> = (0..5).map(|_| Uuid::new_v4()).collect();
        for id in &ids {
            j.append(
                Kind::Device,
                *id,
                Change::Created,
                at,
                1,
                Scope::default(),
                None,
            );
        }
        let kept: Vec<(u64, Uuid)> = j.entries().map(|e| (e.seq, e.record)).collect();
        assert_eq!(kept, vec![(3, ids[2]), (4, ids[3]), (5, ids[4])]);
        assert_eq!(j.last_seq(), 5);
        assert_eq!(j.since(4).map(|e| e.seq).collect::<Vec<_>>(), vec![5]);
        assert_eq!(j.since(0).count(), 3, "what the ring dropped is gone");
    }

    #[tokio::test(start_paused = true)]
    async fn a_change_names_its_project_s_organisation_while_the_project_lives() {
        let mut j = Journal::new(10);
        let at = Instant::now();
        let (org, project, device) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let of_project = Scope {
            project: Some(project),
            organization: Some(org),
            device: None,
        };
        j.append(
            Kind::Project,
            project,
            Change::Created,
            at,
            1,
            of_project,
            None,
        );
        j.append(
            Kind::Device,
            device,
            Change::Created,
            at,
            1,
            scope(project),
            None,
        );
        assert_eq!(j.entries().last().unwrap().scope.organization, Some(org));
        j.append(
            Kind::Project,
            project,
            Change::Deleted,
            at,
            0,
            of_project,
            None,
        );
        j.append(
            Kind::Device,
            device,
            Change::Deleted,
            at,
            0,
            scope(project),
            None,
        );
        assert_eq!(j.entries().last().unwrap().scope.organization, None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_change_of_what_a_device_has_names_the_device_s_project_while_it_lives() {
        let mut j = Journal::new(10);
        let at = Instant::now();
        let (org, project, device, port) = (
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
        );
        let of_project = Scope {
            project: Some(project),
            organization: Some(org),
            device: None,
        };
        let of_device = Scope {
            device: Some(device),
            ..Scope::default()
        };
        j.append(
            Kind::Project,
            project,
            Change::Created,
            at,
            1,
            of_project,
            None,
        );
        j.append(
            Kind::Device,
            device,
            Change::Created,
            at,
            1,
            scope(project),
            None,
        );
        j.append(
            Kind::Port,
            port,
            Change::Updated("vlan_assigned"),
            at,
            2,
            of_device,
            None,
        );
        let e = j.entries().last().unwrap().scope;
        assert_eq!((e.project, e.organization), (Some(project), Some(org)));
        j.append(
            Kind::Device,
            device,
            Change::Deleted,
            at,
            0,
            scope(project),
            None,
        );
        j.append(Kind::Port, port, Change::Deleted, at, 0, of_device, None);
        let e = j.entries().last().unwrap().scope;
        assert_eq!(
            (e.project, e.organization),
            (None, None),
            "the device is gone"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn nothing_is_journaled_while_not_recording_and_the_cause_is_kept() {
        let mut j = Journal::new(10);
        let at = Instant::now();
        j.set_recording(false);
        j.append(
            Kind::Device,
            Uuid::new_v4(),
            Change::Created,
            at,
            1,
            Scope::default(),
            None,
        );
        j.set_recording(true);
        j.set_cause(Cause::Operation("createDevice"));
        j.append(
            Kind::Device,
            Uuid::new_v4(),
            Change::Created,
            at,
            1,
            Scope::default(),
            None,
        );
        let e: Vec<&Entry> = j.entries().collect();
        assert_eq!(e.len(), 1);
        assert_eq!(
            (e[0].seq, e[0].cause),
            (1, Cause::Operation("createDevice"))
        );
    }
}
