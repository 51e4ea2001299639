//! Rendering: each record as the API's generated type, with
//! `include`/`exclude` applied (what is not included is an href stub).

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::keys::fingerprint;
use super::records::{state_of, DeviceRec, KeyOwner, ReservationRec, SshKeyRec};
use super::world::World;
use crate::call::ApiError;
use crate::render::{self, Expand};

impl World {
    pub(super) fn plan(&self, i: usize) -> types::Plan {
        let p = &self.plans[i];
        types::Plan {
            id: Some(p.id),
            slug: Some(p.slug.clone()),
            name: Some(p.slug.clone()),
            class: Some(p.slug.clone()),
            line: Some("baremetal".to_string()),
            type_: Some("standard".to_string()),
            ..Default::default()
        }
    }

    pub(super) fn metro(&self, i: usize) -> types::DeviceMetro {
        let f = &self.facilities[i];
        types::DeviceMetro(types::Metro {
            id: Some(f.metro_id),
            code: Some(f.metro.clone()),
            name: Some(f.metro.to_uppercase()),
            country: Some("US".to_string()),
        })
    }

    pub(super) fn facility(&self, i: usize) -> types::Facility {
        let f = &self.facilities[i];
        types::Facility {
            id: Some(f.id),
            code: Some(f.code.clone()),
            name: Some(format!("Facility {}", f.code)),
            features: vec!["baremetal".to_string()],
            metro: Some(self.metro(i)),
            ..Default::default()
        }
    }

    pub(super) fn project(&self, id: Uuid, _now: Instant) -> Result<types::Project, ApiError> {
        let p = self.projects.get(&id).ok_or_else(ApiError::not_found)?;
        Ok(types::Project {
            id: Some(id),
            href: Some(render::project_href(id)),
            // The spec subset may or may not keep `name`'s length limits (a
            // checked newtype or a plain String): this converts to either.
            #[allow(clippy::useless_conversion)]
            name: p.name.clone().try_into().ok(),
            created_at: Some(self.wall(p.created)),
            updated_at: Some(self.wall(p.created)),
            type_: Some("default".to_string()),
            ..Default::default()
        })
    }

    pub(super) fn project_field(&self, id: Uuid, include: bool, now: Instant) -> types::Project {
        if include {
            if let Ok(p) = self.project(id, now) {
                return p;
            }
        }
        types::Project {
            href: Some(render::project_href(id)),
            ..Default::default()
        }
    }

    pub(super) fn device(&self, d: &DeviceRec, expand: &Expand, now: Instant) -> types::Device {
        let reservation = d.reservation.map(|r| {
            let nested = expand.nested("hardware_reservation");
            match self.reservations.get(&r) {
                Some(rec) if expand.includes("hardware_reservation") => {
                    // The reservation's own device is this one: keep it a stub.
                    let mut res = self.reservation(rec, &nested, now);
                    res.device = Some(Box::new(types::Device {
                        href: Some(render::device_href(d.id)),
                        ..Default::default()
                    }));
                    res
                }
                _ => types::HardwareReservation {
                    href: Some(render::reservation_href(r)),
                    ..Default::default()
                },
            }
        });
        types::Device {
            id: Some(d.id),
            href: Some(render::device_href(d.id)),
            short_id: Some(d.id.simple().to_string()[..8].to_string()),
            hostname: Some(d.hostname.clone()),
            description: d.description.clone(),
            state: Some(state_of(d, &self.timings, now).to_string()),
            tags: d.tags.clone(),
            locked: Some(d.locked),
            always_pxe: Some(d.always_pxe),
            ipxe_script_url: d.ipxe_script_url.clone(),
            userdata: d.userdata.clone(),
            customdata: d.customdata.clone(),
            billing_cycle: d.billing_cycle.clone(),
            spot_instance: Some(false),
            created_at: Some(self.wall(d.created)),
            updated_at: Some(self.wall(d.updated)),
            plan: (!expand.excludes("plan")).then(|| self.plan(d.plan)),
            facility: (!expand.excludes("facility")).then(|| self.facility(d.facility)),
            metro: (!expand.excludes("metro")).then(|| self.metro(d.facility)),
            operating_system: Some(types::OperatingSystem {
                slug: Some(d.os.clone()),
                name: Some(d.os.clone()),
                ..Default::default()
            }),
            project: Some(self.project_field(d.project, expand.includes("project"), now)),
            project_lite: Some(types::DeviceProjectLite(types::Href {
                href: render::project_href(d.project),
            })),
            hardware_reservation: reservation,
            ..Default::default()
        }
    }

    pub(super) fn reservation(
        &self,
        r: &ReservationRec,
        expand: &Expand,
        now: Instant,
    ) -> types::HardwareReservation {
        let device = r.device.map(|id| {
            Box::new(match self.devices.get(&id) {
                Some(d) if expand.includes("device") => {
                    let mut device = self.device(d, &expand.nested("device"), now);
                    device.hardware_reservation = Some(types::HardwareReservation {
                        href: Some(render::reservation_href(r.id)),
                        ..Default::default()
                    });
                    device
                }
                _ => types::Device {
                    href: Some(render::device_href(id)),
                    ..Default::default()
                },
            })
        });
        types::HardwareReservation {
            id: Some(r.id),
            href: Some(render::reservation_href(r.id)),
            short_id: Some(r.id.simple().to_string()[..8].to_string()),
            created_at: Some(self.wall(r.created)),
            provisionable: Some(self.provisionable(r, now)),
            spare: Some(false),
            need_of_service: Some(false),
            plan: (!expand.excludes("plan")).then(|| self.plan(r.plan)),
            facility: (!expand.excludes("facility")).then(|| self.facility(r.facility)),
            project: Some(self.project_field(r.project, expand.includes("project"), now)),
            device,
            ..Default::default()
        }
    }

    pub(super) fn ssh_key(&self, k: &SshKeyRec) -> types::SshKey {
        let entity = match k.owner {
            KeyOwner::User => render::user_href(self.user),
            KeyOwner::Project(p) => render::project_href(p),
        };
        types::SshKey {
            id: Some(k.id),
            href: Some(render::ssh_key_href(k.id)),
            label: Some(k.label.clone()),
            key: Some(k.key.clone()),
            fingerprint: Some(fingerprint(&k.key)),
            tags: k.tags.clone(),
            created_at: Some(self.wall(k.created)),
            updated_at: Some(self.wall(k.updated)),
            entity: Some(types::Href { href: entity }),
        }
    }
}
