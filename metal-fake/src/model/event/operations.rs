//! The event operations the fake models, and who owns an event. Each list
//! is newest first (as clients that read the first page for the latest
//! events expect), paged like the fake's other lists, cut to the events
//! of what the caller's token sees.

use metal_api::operation as op;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Event, MAX_EVENT_TEXT, MAX_RELATIONSHIPS};
use super::view::{is_event, owner_of};
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::access::Owner;
use crate::model::bounds::MAX_JOURNAL;
use crate::model::journal::{Entry, Scope};
use crate::model::list::{self, Listing};
use crate::model::relations::Kind;
use crate::model::render::{reply, Href, API_PREFIX};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::{
    device, interconnection, organization, project, virtual_circuit, vrf_route, World,
};

/// Events (a world document's `events` load into the journal, and the
/// journal's events save as them).
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_EVENTS, find_events),
        Modelled::new(&op::FIND_EVENT_BY_ID, find_event_by_id).names("id", &RESOURCE),
        Modelled::new(&op::FIND_ORGANIZATION_EVENTS, find_organization_events)
            .names("id", &organization::RESOURCE),
        Modelled::new(&op::FIND_PROJECT_EVENTS, find_project_events)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::FIND_DEVICE_EVENTS, find_device_events).names("id", &device::RESOURCE),
        Modelled::new(&op::FIND_VRF_ROUTE_EVENTS, find_vrf_route_events)
            .names("id", &vrf_route::RESOURCE),
        Modelled::new(
            &op::FIND_INTERCONNECTION_EVENTS,
            find_interconnection_events,
        )
        .names("connection_id", &interconnection::RESOURCE),
        Modelled::new(
            &op::FIND_INTERCONNECTION_PORT_EVENTS,
            find_interconnection_port_events,
        )
        .names("connection_id", &interconnection::RESOURCE),
        Modelled::new(
            &op::FIND_VIRTUAL_CIRCUIT_EVENTS,
            find_virtual_circuit_events,
        )
        .names("id", &virtual_circuit::RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.journal.get(id).map(owner_of)
}

/// Which of the journal's events a list shows.
#[derive(Clone, Copy)]
enum Of {
    All,
    Organization(Uuid),
    Project(Uuid),
    Device(Uuid),
    /// One record's own events.
    Record(Kind, Uuid),
}

impl Of {
    fn holds(self, e: &Entry) -> bool {
        match self {
            Self::All => true,
            Self::Organization(o) => e.scope.organization == Some(o),
            Self::Project(p) => e.scope.project == Some(p),
            Self::Device(d) => e.scope.device == Some(d),
            Self::Record(kind, id) => e.kind == kind && e.record == id,
        }
    }
}

/// One page of the events `of` holds that the caller sees, newest
/// first, at `path`, among them those of the circuits `also` names.
fn events_page_of(
    call: &Call,
    of: Of,
    path: String,
    also: fn(&World, &Entry, Uuid) -> bool,
    exists: fn(&World, Uuid) -> Result<(), ApiError>,
    id: Uuid,
) -> Result<Prepared, ApiError> {
    let listing = Listing::of(call, &[])?;
    acts(move |w, caller, _| {
        exists(w, id)?;
        let listed = w
            .journal
            .entries()
            .filter(|e| is_event(e) && (of.holds(e) || also(w, e, id)) && w.sees_event(e, caller));
        let page = list::page(
            "events",
            &path,
            listed,
            |e| u64::MAX - e.seq,
            &listing,
            |e| w.event_view(e),
        );
        reply(&page)
    })
}

fn find_interconnection_events(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("connection_id")?;
    let path = format!(
        "{}/{COLLECTION}",
        Href::new(interconnection::COLLECTION, id)
    );
    events_page_of(
        call,
        Of::Record(Kind::Interconnection, id),
        path,
        |_, _, _| false,
        |w, id| w.interconnection(id).map(|_| ()),
        id,
    )
}

/// A port's events: its connection's, and those of the circuits on it
/// now.
fn find_interconnection_port_events(call: &Call) -> Result<Prepared, ApiError> {
    let connection = call.id("connection_id")?;
    let port = call.id("id")?;
    let path = format!(
        "{}/{COLLECTION}",
        interconnection::port_href(connection, port)
    );
    let _ = connection;
    events_page_of(
        call,
        Of::Record(Kind::Interconnection, connection),
        path,
        |w, e, port| {
            e.kind == Kind::VirtualCircuit
                && w.virtual_circuits
                    .get(&e.record)
                    .is_some_and(|vc| vc.rec.port == port)
        },
        |w, port| {
            w.interconnection_of_port(port)
                .map(|_| ())
                .ok_or_else(ApiError::not_found)
        },
        port,
    )
}

fn find_virtual_circuit_events(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let path = format!("{API_PREFIX}/virtual-circuits/{id}/{COLLECTION}");
    events_page_of(
        call,
        Of::Record(Kind::VirtualCircuit, id),
        path,
        |_, _, _| false,
        |w, id| w.virtual_circuit(id).map(|_| ()),
        id,
    )
}

/// One page of the events `of` holds that the caller sees, newest first,
/// at `path`.
fn events_page(
    call: &Call,
    of: Of,
    path: String,
    exists: fn(&World, Uuid) -> Result<(), ApiError>,
    id: Uuid,
) -> Result<Prepared, ApiError> {
    let listing = Listing::of(call, &[])?;
    acts(move |w, caller, _| {
        exists(w, id)?;
        let listed = w
            .journal
            .entries()
            .filter(|e| is_event(e) && of.holds(e) && w.sees_event(e, caller));
        let page = list::page(
            "events",
            &path,
            listed,
            |e| u64::MAX - e.seq,
            &listing,
            |e| w.event_view(e),
        );
        reply(&page)
    })
}

fn find_events(call: &Call) -> Result<Prepared, ApiError> {
    let path = format!("{API_PREFIX}/{COLLECTION}");
    events_page(call, Of::All, path, |_, _| Ok(()), Uuid::nil())
}

fn find_organization_events(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let path = format!("{}/{COLLECTION}", Href::new(organization::COLLECTION, id));
    events_page(
        call,
        Of::Organization(id),
        path,
        |w, id| {
            w.organizations.get(&id).ok_or_else(ApiError::not_found)?;
            Ok(())
        },
        id,
    )
}

fn find_project_events(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let path = format!("{}/{COLLECTION}", Href::new(project::COLLECTION, id));
    events_page(
        call,
        Of::Project(id),
        path,
        |w, id| {
            w.projects.get(&id).ok_or_else(ApiError::not_found)?;
            Ok(())
        },
        id,
    )
}

fn find_device_events(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let path = format!("{}/{COLLECTION}", Href::new(device::COLLECTION, id));
    events_page(
        call,
        Of::Device(id),
        path,
        |w, id| {
            w.check_device_access(id)?;
            w.devices.get(&id).ok_or_else(ApiError::not_found)?;
            Ok(())
        },
        id,
    )
}

/// A route's events, from the journal (its create, updates, settling).
fn find_vrf_route_events(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let path = format!("{}/{COLLECTION}", Href::new(vrf_route::COLLECTION, id));
    events_page(
        call,
        Of::Record(Kind::VrfRoute, id),
        path,
        |w, id| {
            w.vrf_routes.get(&id).ok_or_else(ApiError::not_found)?;
            Ok(())
        },
        id,
    )
}

fn find_event_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, caller, _| {
        let view = w
            .journal
            .get(id)
            .filter(|e| is_event(e) && w.sees_event(e, caller))
            .map(|e| w.event_view(e))
            .ok_or_else(ApiError::not_found)?;
        reply(&view)
    })
}

// The events of a world document: each loaded into the journal as it is
// written (listed before any change the world makes after), and each
// event the journal holds saved as one, so that a saved world lists the
// same events when it is loaded again.

/// Refuses an event out of bounds. Its time is taken as given: a world
/// saved from a fake whose clock ran ahead holds events "after" the wall
/// clock of the one it is loaded into.
fn check(e: &Event) -> Result<(), WorldError> {
    let bad = |why: String| Err(WorldError::Inconsistent(format!("event {}: {why}", e.id)));
    if e.kind.trim().is_empty() || e.kind.len() > MAX_NAME {
        return bad(format!("its type must be 1 to {MAX_NAME} bytes"));
    }
    let texts = [Some(&e.body), e.interpolated.as_ref()];
    if texts
        .into_iter()
        .flatten()
        .any(|t| t.len() > MAX_EVENT_TEXT)
    {
        return bad(format!("its body is longer than {MAX_EVENT_TEXT} bytes"));
    }
    if e.state.as_ref().is_some_and(|s| s.len() > MAX_NAME) {
        return bad(format!("its state is longer than {MAX_NAME} bytes"));
    }
    if e.relationships.len() > MAX_RELATIONSHIPS
        || e.relationships.iter().any(|h| h.len() > MAX_NAME)
    {
        return bad(format!(
            "it names more than {MAX_RELATIONSHIPS} relationships, or one longer than {MAX_NAME} bytes"
        ));
    }
    Ok(())
}

/// Loads the document's events into the journal, oldest first (by
/// `created_at`, then as listed); at most as many as the journal keeps.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    if doc.events.len() > MAX_JOURNAL {
        return Err(WorldError::TooMany {
            kind: "events",
            count: doc.events.len(),
        });
    }
    let mut seen = std::collections::HashSet::new();
    for e in &doc.events {
        check(e)?;
        if !seen.insert(e.id) {
            return Err(WorldError::Duplicate {
                kind: "event",
                id: e.id.to_string(),
            });
        }
    }
    let mut events: Vec<&Event> = doc.events.iter().collect();
    events.sort_by_key(|e| e.created_at);
    for e in events {
        let scope = Scope {
            project: e.project,
            organization: e.organization,
            device: e.device,
        };
        w.journal.seed(e.id, now, scope, e.modified_by, e.clone());
    }
    Ok(())
}

/// Saves every event the journal holds, oldest first: a seeded one as it
/// was loaded, one of the world's changes as its reply shows it.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _: Instant) {
    doc.events = w
        .journal
        .entries()
        .filter(|e| is_event(e))
        .map(|e| saved(w, e))
        .collect();
}

/// The event of journal entry `e` as a world document holds it.
pub(crate) fn saved(w: &World, e: &Entry) -> Event {
    match &e.seeded {
        Some(s) => (**s).clone(),
        None => {
            let view = w.event_view(e);
            let (kind, body, relationships) = view.parts();
            Event {
                id: e.id,
                kind,
                body,
                interpolated: None,
                state: None,
                created_at: w.clock.wall(e.at),
                organization: e.scope.organization,
                project: e.scope.project,
                device: e.scope.device,
                modified_by: e.by,
                relationships,
                ip: None,
            }
        }
    }
}
