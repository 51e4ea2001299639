//! The world built: from the builder's shortcuts or from a world
//! document (each resource loading its records, in the order of
//! [`resources`]), and saved as one.

use tokio::time::Instant;
use uuid::Uuid;

use super::{World, WorldSpec};
use crate::clock::Wall;
use crate::document::{WorldDoc, WorldError};
use crate::model::access::load_tokens;
use crate::model::catalog::{Catalog, Facility, Metro, Plan};
use crate::model::timings::Timings;
use crate::model::{hardware_reservation, organization, project, resources, Event};

impl World {
    /// The world of the builder's shortcuts: the catalog (`spec.catalog`),
    /// with the builder's plans and facilities in it; projects with
    /// reservations cycling through those plans and facilities, in one
    /// organisation; `spec.on_demand` machines of every such plan in every
    /// such facility for on-demand devices, and as many in each pool a
    /// plan sold in a metro gets there.
    pub(crate) fn new(spec: &WorldSpec, clock: Wall, now: Instant) -> Self {
        let mut doc = WorldDoc {
            catalog: spec.catalog,
            ..WorldDoc::default()
        };
        let plans = if spec.plans.is_empty() {
            vec!["c3.small.x86".to_string()]
        } else {
            spec.plans.clone()
        };
        doc.plans = plans
            .into_iter()
            .map(|slug| Plan {
                slug,
                ..Plan::default()
            })
            .collect();
        let facilities = if spec.facilities.is_empty() {
            vec![("da11".to_string(), "da".to_string())]
        } else {
            spec.facilities.clone()
        };
        for (code, metro) in facilities {
            if !doc.metros.iter().any(|m| m.code == metro) {
                doc.metros.push(Metro {
                    code: metro.clone(),
                    ..Metro::default()
                });
            }
            doc.facilities.push(Facility {
                code,
                metro,
                ..Facility::default()
            });
        }
        // Every plan can be had on demand in every facility.
        for f in &doc.facilities {
            for p in &doc.plans {
                doc.capacity.push(crate::model::capacity::Capacity {
                    metro: None,
                    facility: Some(f.code.clone()),
                    plan: p.slug.clone(),
                    available: spec.on_demand,
                    level: None,
                });
            }
        }
        let organization = Uuid::new_v4();
        if !spec.projects.is_empty() {
            doc.organizations.push(organization::Organization::named(
                organization,
                "fake organization",
            ));
        }
        for (n, (id, count)) in spec.projects.iter().enumerate() {
            doc.projects.push(project::Project::named(
                *id,
                format!("fake project {}", n + 1),
                organization,
            ));
            for i in 0..*count {
                doc.reservations
                    .push(hardware_reservation::HardwareReservation {
                        id: Uuid::new_v4(),
                        project: *id,
                        plan: doc.plans[i % doc.plans.len()].slug.clone(),
                        facility: doc.facilities[i % doc.facilities.len()].code.clone(),
                        released_in_seconds: None,
                        inactive: false,
                    });
            }
        }
        // What a real account's history holds from its start: its
        // organisation's and projects' creation, by its user (packngo's
        // `TestAccListEvents` finds events on a fresh account).
        let user = Uuid::new_v4();
        doc.user = Some(user);
        let at = clock.wall(now);
        let created = |kind: &str, body: String, organization, project| Event {
            id: Uuid::new_v4(),
            kind: kind.to_string(),
            body,
            interpolated: None,
            state: None,
            created_at: at,
            organization,
            project,
            device: None,
            modified_by: Some(user),
            relationships: Vec::new(),
            ip: None,
        };
        let organizations: Vec<_> = doc
            .organizations
            .iter()
            .map(|o| (o.id, o.name.clone()))
            .collect();
        for (id, name) in organizations {
            doc.events.push(created(
                "organization.created",
                format!("Organization {name} was created by Fake User"),
                Some(id),
                None,
            ));
        }
        let projects: Vec<_> = doc
            .projects
            .iter()
            .map(|p| (p.id, p.name.clone()))
            .collect();
        for (id, name) in projects {
            doc.events.push(created(
                "project.created",
                format!(
                    "Project {} was created by Fake User",
                    name.unwrap_or_default()
                ),
                None,
                Some(id),
            ));
        }
        let mut w = Self::empty(spec.timings, clock);
        w.implicit_machines = spec.on_demand;
        w.main_project = doc.projects.first().map(|p| p.id);
        // A document made here loads: its references are its own, and it
        // holds as many reservations as the builder was asked for.
        if let Err(e) = w.load(&doc, now) {
            tracing::error!("metal-fake: the builder's world does not load: {e}");
        }
        w
    }

    /// The world `doc` describes, on the fake's clock at `now`: each
    /// resource loads its records, in the order of [`resources`] (a record
    /// names only records loaded before it).
    pub(crate) fn from_doc(
        doc: &WorldDoc,
        timings: Timings,
        clock: Wall,
        now: Instant,
    ) -> Result<World, WorldError> {
        doc.check_bounds()?;
        let mut w = Self::empty(timings, clock);
        if let Some(user) = doc.user {
            w.user = user;
        }
        w.main_project = doc.projects.first().map(|p| p.id);
        w.load(doc, now)?;
        // Every link of every declared relation, once more as a whole.
        w.dangling()?;
        Ok(w)
    }

    /// Loads `doc`'s records: the catalog, then each resource in the order
    /// of [`resources`] (a record names only records loaded before it),
    /// then the tokens; then the timed transitions already due by `now`
    /// (a seeded `active` device's provisioning). None of it is journaled:
    /// a loaded world is where its journal starts.
    fn load(&mut self, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
        self.journal.set_recording(false);
        let loaded = self.load_records(doc, now);
        self.drain(now);
        self.journal.set_recording(true);
        self.index_links();
        loaded
    }

    fn load_records(&mut self, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
        self.catalog = Catalog::load(doc)?;
        for resource in resources() {
            (resource.load)(self, doc, now)?;
        }
        // The tokens are checked against the API keys' by index.
        self.index_access();
        self.tokens = load_tokens(self, doc)?;
        Ok(())
    }

    /// The world as a document, at `now`: each resource saves its records,
    /// oldest first.
    pub(crate) fn to_doc(&self, now: Instant) -> WorldDoc {
        let mut doc = WorldDoc {
            user: Some(self.user),
            ..WorldDoc::default()
        };
        self.catalog.save(&mut doc);
        for resource in resources() {
            (resource.save)(self, &mut doc, now);
        }
        doc.tokens = self.tokens.iter().map(|t| t.rec.clone()).collect();
        doc
    }
}
