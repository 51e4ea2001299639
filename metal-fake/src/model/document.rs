//! The world to and from a [`WorldDoc`]: every reference checked, every
//! record bounded, devices put in the phase that reports the seeded state.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use tokio::time::Instant;
use uuid::Uuid;

use super::keys::check_public_key;
use super::records::{
    state_of, DeviceRec, FacilityRec, KeyOwner, OrganizationRec, Phase, PlanRec, ProjectRec,
    ReservationRec, SshKeyRec, TokenRec,
};
use super::timings::Timings;
use super::world::{World, WorldSpec};
use crate::document::{
    seconds, DeviceDoc, DeviceState, FacilityDoc, MetroDoc, OrganizationDoc, PlanDoc, ProjectDoc,
    ReservationDoc, SshKeyDoc, TokenDoc, WorldDoc, WorldError, MAX_RECORDS,
};

/// Refuses a second record with the same key.
fn unique<K: std::hash::Hash + Eq>(
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

fn duplicate(kind: &'static str, id: Uuid) -> WorldError {
    WorldError::Duplicate {
        kind,
        id: id.to_string(),
    }
}

fn unknown(from: impl ToString, kind: &'static str, id: impl ToString) -> WorldError {
    WorldError::Unknown {
        from: from.to_string(),
        kind,
        id: id.to_string(),
    }
}

fn bounded(doc: &WorldDoc) -> Result<(), WorldError> {
    let counts = [
        ("organizations", doc.organizations.len()),
        ("projects", doc.projects.len()),
        ("tokens", doc.tokens.len()),
        ("metros", doc.metros.len()),
        ("facilities", doc.facilities.len()),
        ("plans", doc.plans.len()),
        ("reservations", doc.reservations.len()),
        ("devices", doc.devices.len()),
        ("ssh_keys", doc.ssh_keys.len()),
    ];
    for (kind, count) in counts {
        if count > MAX_RECORDS {
            return Err(WorldError::TooMany { kind, count });
        }
    }
    Ok(())
}

/// `now` less `d`, refused when the clock cannot go back that far.
fn before(now: Instant, d: Duration, id: Uuid) -> Result<Instant, WorldError> {
    now.checked_sub(d).ok_or_else(|| {
        WorldError::Inconsistent(format!(
            "device {id}: the clock cannot go {} s back",
            d.as_secs_f64()
        ))
    })
}

impl World {
    /// The world `doc` describes, on the fake's clock at `now`.
    pub(crate) fn from_doc(
        doc: &WorldDoc,
        timings: Timings,
        now: Instant,
    ) -> Result<World, WorldError> {
        bounded(doc)?;
        let spec = WorldSpec {
            projects: Vec::new(),
            plans: Vec::new(),
            facilities: Vec::new(),
            timings,
        };
        let mut w = World::new(&spec, now);
        w.plans.clear();
        w.facilities.clear();
        if let Some(user) = doc.user {
            w.user = user;
        }
        w.main_project = doc.projects.first().map(|p| p.id);
        w.organizations_from(doc)?;
        w.projects_from(doc, now)?;
        w.tokens_from(doc)?;
        w.places_from(doc)?;
        w.reservations_from(doc, now)?;
        w.devices_from(doc, now)?;
        w.ssh_keys_from(doc, now)?;
        Ok(w)
    }

    fn organizations_from(&mut self, doc: &WorldDoc) -> Result<(), WorldError> {
        let mut seen = HashSet::new();
        for o in &doc.organizations {
            unique(&mut seen, o.id, "organization", o.id)?;
            let seq = self.next_seq();
            self.organizations.insert(
                o.id,
                OrganizationRec {
                    seq,
                    name: o.name.clone(),
                },
            );
        }
        Ok(())
    }

    fn projects_from(&mut self, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
        let mut seen = HashSet::new();
        let mut default_org = None;
        for (n, p) in doc.projects.iter().enumerate() {
            unique(&mut seen, p.id, "project", p.id)?;
            let organization = match p.organization {
                Some(o) if self.organizations.contains_key(&o) => o,
                Some(o) => return Err(unknown(format!("project {}", p.id), "organization", o)),
                None => *default_org.get_or_insert_with(|| {
                    let id = Uuid::new_v4();
                    let seq = self.next_seq();
                    self.organizations.insert(
                        id,
                        OrganizationRec {
                            seq,
                            name: "fake organization".to_string(),
                        },
                    );
                    id
                }),
            };
            self.projects.insert(
                p.id,
                ProjectRec {
                    name: p
                        .name
                        .clone()
                        .unwrap_or_else(|| format!("fake project {}", n + 1)),
                    organization,
                    created: now,
                },
            );
        }
        Ok(())
    }

    fn tokens_from(&mut self, doc: &WorldDoc) -> Result<(), WorldError> {
        let mut seen = HashSet::new();
        for (index, t) in doc.tokens.iter().enumerate() {
            let valid =
                !t.token.trim().is_empty() && axum::http::HeaderValue::from_str(&t.token).is_ok();
            if !valid {
                return Err(WorldError::Token { index });
            }
            if !seen.insert(t.token.as_str()) {
                return Err(WorldError::Duplicate {
                    kind: "token",
                    id: format!("number {index} (0-based)"),
                });
            }
            let from = || format!("token {index} (0-based)");
            if let Some(o) = t
                .organizations
                .iter()
                .find(|o| !self.organizations.contains_key(*o))
            {
                return Err(unknown(from(), "organization", o));
            }
            if let Some(p) = t.projects.iter().find(|p| !self.projects.contains_key(*p)) {
                return Err(unknown(from(), "project", p));
            }
            self.tokens.push(TokenRec {
                token: t.token.clone(),
                organizations: t.organizations.clone(),
                projects: t.projects.clone(),
            });
        }
        Ok(())
    }

    fn places_from(&mut self, doc: &WorldDoc) -> Result<(), WorldError> {
        let mut metros: HashMap<&str, Uuid> = HashMap::new();
        for m in &doc.metros {
            if metros
                .insert(&m.code, m.id.unwrap_or_else(Uuid::new_v4))
                .is_some()
            {
                return Err(WorldError::Duplicate {
                    kind: "metro",
                    id: m.code.clone(),
                });
            }
        }
        let mut seen = HashSet::new();
        for f in &doc.facilities {
            unique(&mut seen, f.code.as_str(), "facility", &f.code)?;
            let metro_id = *metros
                .get(f.metro.as_str())
                .ok_or_else(|| unknown(format!("facility {}", f.code), "metro", &f.metro))?;
            self.facilities.push(FacilityRec {
                id: f.id.unwrap_or_else(Uuid::new_v4),
                code: f.code.clone(),
                metro_id,
                metro: f.metro.clone(),
            });
        }
        let mut seen = HashSet::new();
        for p in &doc.plans {
            unique(&mut seen, p.slug.as_str(), "plan", &p.slug)?;
            self.plans.push(PlanRec {
                id: p.id.unwrap_or_else(Uuid::new_v4),
                slug: p.slug.clone(),
            });
        }
        Ok(())
    }

    fn plan_index(&self, slug: &str, from: impl Fn() -> String) -> Result<usize, WorldError> {
        self.plans
            .iter()
            .position(|p| p.slug == slug)
            .ok_or_else(|| unknown(from(), "plan", slug))
    }

    fn facility_index(&self, code: &str, from: impl Fn() -> String) -> Result<usize, WorldError> {
        self.facilities
            .iter()
            .position(|f| f.code == code)
            .ok_or_else(|| unknown(from(), "facility", code))
    }

    /// The plan and facility of a record of `project`, each checked.
    fn placement(
        &self,
        from: impl Fn() -> String + Copy,
        project: Uuid,
        plan: &str,
        facility: &str,
    ) -> Result<(usize, usize), WorldError> {
        if !self.projects.contains_key(&project) {
            return Err(unknown(from(), "project", project));
        }
        Ok((
            self.plan_index(plan, from)?,
            self.facility_index(facility, from)?,
        ))
    }

    fn reservations_from(&mut self, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
        for r in &doc.reservations {
            let from = || format!("reservation {}", r.id);
            if self.reservations.contains_key(&r.id) {
                return Err(duplicate("reservation", r.id));
            }
            let (plan, facility) = self.placement(from, r.project, &r.plan, &r.facility)?;
            let released_at = match r.released_in_seconds {
                Some(s) => Some(now + seconds("released_in_seconds", r.id, s)?),
                None => None,
            };
            let seq = self.next_seq();
            self.reservations.insert(
                r.id,
                ReservationRec {
                    id: r.id,
                    seq,
                    project: r.project,
                    plan,
                    facility,
                    device: None,
                    released_at,
                    created: now,
                },
            );
        }
        Ok(())
    }

    fn devices_from(&mut self, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
        for d in &doc.devices {
            let from = || format!("device {}", d.id);
            if self.devices.contains_key(&d.id) {
                return Err(duplicate("device", d.id));
            }
            let (plan, facility) = self.placement(from, d.project, &d.plan, &d.facility)?;
            if let Some(r) = d.reservation {
                let rec = self
                    .reservations
                    .get(&r)
                    .ok_or_else(|| unknown(from(), "reservation", r))?;
                let problem = if rec.project != d.project {
                    Some("is in another project")
                } else if rec.device.is_some() {
                    Some("already holds another device")
                } else if (rec.plan, rec.facility) != (plan, facility) {
                    Some("has another plan or facility")
                } else {
                    None
                };
                if let Some(problem) = problem {
                    return Err(WorldError::Inconsistent(format!(
                        "device {}: its reservation {r} {problem}",
                        d.id
                    )));
                }
            }
            let (phase, since) = self.phase_of(d, now)?;
            let seq = self.next_seq();
            self.devices.insert(
                d.id,
                DeviceRec {
                    id: d.id,
                    seq,
                    project: d.project,
                    reservation: d.reservation,
                    plan,
                    facility,
                    os: d.operating_system.clone(),
                    hostname: d.hostname.clone(),
                    description: d.description.clone(),
                    tags: d.tags.clone(),
                    locked: d.locked,
                    always_pxe: d.always_pxe,
                    ipxe_script_url: d.ipxe_script_url.clone(),
                    userdata: d.userdata.clone(),
                    customdata: d.customdata.clone(),
                    billing_cycle: d.billing_cycle.clone(),
                    phase,
                    since,
                    created: now,
                    updated: now,
                    reboots: d.reboots,
                    competitor: d.competitor,
                    fails: d.state == DeviceState::Failed,
                    // The keys the API attached at create are not part of
                    // the document.
                    ssh_keys: Vec::new(),
                },
            );
            if let Some(r) = d.reservation.and_then(|r| self.reservations.get_mut(&r)) {
                r.device = Some(d.id);
            }
        }
        // A deprovisioning or failed device changes on its own: `settle`
        // looks at the loaded world on the next call and schedules itself.
        self.next_settle = Some(now);
        Ok(())
    }

    /// The phase, and when it began, that reports `d.state` at `now`.
    fn phase_of(&self, d: &DeviceDoc, now: Instant) -> Result<(Phase, Instant), WorldError> {
        let t = &self.timings;
        let elapsed = match d.state_elapsed_seconds {
            Some(s) => Some(seconds("state_elapsed_seconds", d.id, s)?),
            None => None,
        };
        let (phase, at_least) = match d.state {
            DeviceState::Queued => (Phase::Provisioning, Duration::ZERO),
            DeviceState::Provisioning => (Phase::Provisioning, t.queued),
            DeviceState::Active => (Phase::Provisioning, t.queued + t.provisioning),
            DeviceState::PoweringOn => (Phase::PoweringOn, Duration::ZERO),
            DeviceState::PoweringOff => (Phase::PoweringOff, Duration::ZERO),
            DeviceState::Inactive => (Phase::PoweringOff, t.power),
            DeviceState::Reinstalling => (Phase::Reinstalling, Duration::ZERO),
            DeviceState::Failed => (Phase::Provisioning, t.queued + t.provisioning),
            DeviceState::Deprovisioning => (Phase::Deprovisioning, Duration::ZERO),
        };
        let settled = matches!(
            d.state,
            DeviceState::Active | DeviceState::Inactive | DeviceState::Failed
        );
        let elapsed = match elapsed {
            // A settled state stays settled whatever the timings say.
            Some(e) if settled => e.max(at_least),
            Some(e) => e,
            None => at_least,
        };
        Ok((phase, before(now, elapsed, d.id)?))
    }

    fn ssh_keys_from(&mut self, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
        let mut seen = HashSet::new();
        for k in &doc.ssh_keys {
            if self.ssh_keys.contains_key(&k.id) {
                return Err(duplicate("ssh key", k.id));
            }
            let owner = match k.project {
                Some(p) if self.projects.contains_key(&p) => KeyOwner::Project(p),
                Some(p) => return Err(unknown(format!("ssh key {}", k.id), "project", p)),
                None => KeyOwner::User,
            };
            check_public_key(&k.key).map_err(|e| WorldError::SshKey {
                id: k.id,
                reason: e.messages.join("; "),
            })?;
            if !seen.insert((k.project, k.key.as_str())) {
                return Err(WorldError::SshKey {
                    id: k.id,
                    reason: "Fingerprint has already been taken".to_string(),
                });
            }
            let seq = self.next_seq();
            self.ssh_keys.insert(
                k.id,
                SshKeyRec {
                    id: k.id,
                    seq,
                    owner,
                    label: k.label.clone(),
                    key: k.key.clone(),
                    tags: k.tags.clone(),
                    created: now,
                    updated: now,
                },
            );
        }
        Ok(())
    }

    /// The world as a document, at `now`.
    pub(crate) fn to_doc(&self, now: Instant) -> WorldDoc {
        let mut organizations: Vec<(&Uuid, &OrganizationRec)> = self.organizations.iter().collect();
        organizations.sort_by_key(|(_, o)| o.seq);
        let mut projects: Vec<ProjectDoc> = self
            .projects
            .iter()
            .map(|(id, p)| ProjectDoc {
                id: *id,
                name: Some(p.name.clone()),
                organization: Some(p.organization),
            })
            .collect();
        // The main project first, so that it stays the main one.
        projects.sort_by_key(|p| Some(p.id) != self.main_project);
        let mut metros: BTreeMap<&str, Uuid> = BTreeMap::new();
        for f in &self.facilities {
            metros.entry(&f.metro).or_insert(f.metro_id);
        }
        let mut reservations: Vec<&ReservationRec> = self.reservations.values().collect();
        reservations.sort_by_key(|r| r.seq);
        let mut devices: Vec<&DeviceRec> = self.devices.values().collect();
        devices.sort_by_key(|d| d.seq);
        let mut keys: Vec<&SshKeyRec> = self.ssh_keys.values().collect();
        keys.sort_by_key(|k| k.seq);
        WorldDoc {
            user: Some(self.user),
            organizations: organizations
                .into_iter()
                .map(|(id, o)| OrganizationDoc {
                    id: *id,
                    name: o.name.clone(),
                })
                .collect(),
            projects,
            tokens: self
                .tokens
                .iter()
                .map(|t| TokenDoc {
                    token: t.token.clone(),
                    organizations: t.organizations.clone(),
                    projects: t.projects.clone(),
                })
                .collect(),
            metros: metros
                .into_iter()
                .map(|(code, id)| MetroDoc {
                    id: Some(id),
                    code: code.to_string(),
                })
                .collect(),
            facilities: self
                .facilities
                .iter()
                .map(|f| FacilityDoc {
                    id: Some(f.id),
                    code: f.code.clone(),
                    metro: f.metro.clone(),
                })
                .collect(),
            plans: self
                .plans
                .iter()
                .map(|p| PlanDoc {
                    id: Some(p.id),
                    slug: p.slug.clone(),
                })
                .collect(),
            reservations: reservations
                .into_iter()
                .map(|r| ReservationDoc {
                    id: r.id,
                    project: r.project,
                    plan: self.plans[r.plan].slug.clone(),
                    facility: self.facilities[r.facility].code.clone(),
                    released_in_seconds: r
                        .released_at
                        .filter(|t| *t > now)
                        .map(|t| (t - now).as_secs_f64()),
                })
                .collect(),
            devices: devices
                .into_iter()
                .map(|d| self.device_doc(d, now))
                .collect(),
            ssh_keys: keys
                .into_iter()
                .map(|k| SshKeyDoc {
                    id: k.id,
                    project: match k.owner {
                        KeyOwner::User => None,
                        KeyOwner::Project(p) => Some(p),
                    },
                    label: k.label.clone(),
                    key: k.key.clone(),
                    tags: k.tags.clone(),
                })
                .collect(),
        }
    }

    fn device_doc(&self, d: &DeviceRec, now: Instant) -> DeviceDoc {
        let state = match state_of(d, &self.timings, now) {
            "queued" => DeviceState::Queued,
            "provisioning" => DeviceState::Provisioning,
            "powering_on" => DeviceState::PoweringOn,
            "powering_off" => DeviceState::PoweringOff,
            "inactive" => DeviceState::Inactive,
            "reinstalling" => DeviceState::Reinstalling,
            "failed" => DeviceState::Failed,
            "deprovisioning" => DeviceState::Deprovisioning,
            _ => DeviceState::Active,
        };
        DeviceDoc {
            id: d.id,
            project: d.project,
            reservation: d.reservation,
            plan: self.plans[d.plan].slug.clone(),
            facility: self.facilities[d.facility].code.clone(),
            hostname: d.hostname.clone(),
            operating_system: d.os.clone(),
            state,
            state_elapsed_seconds: Some(now.saturating_duration_since(d.since).as_secs_f64()),
            description: d.description.clone(),
            tags: d.tags.clone(),
            locked: d.locked,
            always_pxe: d.always_pxe,
            ipxe_script_url: d.ipxe_script_url.clone(),
            billing_cycle: d.billing_cycle.clone(),
            userdata: d.userdata.clone(),
            customdata: d.customdata.clone(),
            reboots: d.reboots,
            competitor: d.competitor,
        }
    }
}
