//! Rendering: each record as the API's generated type, with
//! `include`/`exclude` applied (what is not included is an href stub), and
//! the device fields a controller waits for (addresses once active, ports,
//! attached keys, progress).

use metal_api::types;
use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

use super::keys::fingerprint;
use super::records::{
    last_change, provisioning_percentage, state_of, DeviceRec, KeyOwner, ReservationRec, SshKeyRec,
};
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
        let state = state_of(d, &self.timings, now);
        types::Device {
            id: Some(d.id),
            href: Some(render::device_href(d.id)),
            short_id: Some(d.id.simple().to_string()[..8].to_string()),
            hostname: Some(d.hostname.clone()),
            description: d.description.clone(),
            state: Some(state.to_string()),
            tags: d.tags.clone(),
            locked: Some(d.locked),
            always_pxe: Some(d.always_pxe),
            ipxe_script_url: d.ipxe_script_url.clone(),
            userdata: Some(d.userdata.clone().unwrap_or_default()),
            customdata: d.customdata.clone(),
            billing_cycle: d.billing_cycle.clone(),
            spot_instance: Some(false),
            created_at: Some(self.wall(d.created)),
            updated_at: Some(self.wall(last_change(d, &self.timings, now))),
            ip_addresses: if has_addresses(state) {
                self.addresses(d)
            } else {
                Vec::new()
            },
            network_ports: network_ports(d),
            ssh_keys: d
                .ssh_keys
                .iter()
                .map(|k| types::Href {
                    href: render::ssh_key_href(*k),
                })
                .collect(),
            provisioning_percentage: provisioning_percentage(d, &self.timings, now),
            user: Some("root".to_string()),
            switch_uuid: d.reservation.map(switch_uuid),
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

impl World {
    /// The device's public IPv4, public IPv6 and private IPv4 assignments,
    /// derived from its creation order (stable, distinct per device).
    pub(super) fn addresses(&self, d: &DeviceRec) -> Vec<types::IpAssignment> {
        // Wraps after 2^24 devices, far beyond any world the fake holds.
        let n = (d.seq & 0x00ff_ffff) as u32;
        let (hi, mid, lo) = ((n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
        let v4 = |a: u32, b: u32, c: u32| {
            let base = (a << 24) | (b << 16) | (c << 8) | ((lo & 0x7f) << 1);
            (
                std::net::Ipv4Addr::from(base + 1).to_string(),
                std::net::Ipv4Addr::from(base).to_string(),
            )
        };
        let public4 = v4(147, 75 + (hi & 0x3f), mid);
        let private4 = v4(10, 64 + hi, mid);
        let net6 = format!("2604:1380:{hi:x}:{:x}", (mid << 8) | lo);
        let public6 = (format!("{net6}::1"), format!("{net6}::"));
        let made = self.wall(d.created);
        [
            (4u8, true, public4, 31, "255.255.255.254"),
            (
                6,
                true,
                public6,
                127,
                "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe",
            ),
            (4, false, private4, 31, "255.255.255.254"),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, (family, public, (address, network), cidr, netmask))| {
            let id = derived_id(d.id, 1 + i as u128);
            types::IpAssignment {
                id: Some(id),
                href: Some(format!("{}/ips/{id}", render::API_PREFIX)),
                address: Some(address),
                gateway: Some(network.clone()),
                network: Some(network),
                netmask: Some(netmask.to_string()),
                address_family: Some(i64::from(family)),
                cidr: Some(cidr),
                public: Some(public),
                management: Some(true),
                manageable: Some(true),
                enabled: Some(true),
                global_ip: Some(false),
                assigned_to: Some(types::Href {
                    href: render::device_href(d.id),
                }),
                created_at: Some(made),
                ..Default::default()
            }
        })
        .collect()
    }
}

/// Whether a device in `state` has its addresses: from the end of a
/// successful provisioning on (none while queued or provisioning, none
/// for a device that failed).
pub(super) fn has_addresses(state: &str) -> bool {
    !matches!(state, "queued" | "provisioning" | "failed")
}

/// An ID derived from `base` (a device's), stable across reads.
fn derived_id(base: Uuid, n: u128) -> Uuid {
    Uuid::from_u128(base.as_u128() ^ (n << 96))
}

/// The switch a reservation's server is cabled to (stable per reservation).
fn switch_uuid(reservation: Uuid) -> String {
    format!("{:08x}", (reservation.as_u128() >> 96) as u32)
}

/// A device's ports: `bond0` over `eth0` and `eth1`, layer 3, as a fresh
/// server shows them.
fn network_ports(d: &DeviceRec) -> Vec<types::Port> {
    let [eth0, eth1] = macs(d);
    let bond_id = derived_id(d.id, 10);
    let port = |i: u128, name: &str, kind: &str, bonded: bool, mac: Option<String>| {
        let id = derived_id(d.id, 10 + i);
        types::Port {
            id: Some(id),
            href: Some(format!("{}/ports/{id}", render::API_PREFIX)),
            name: Some(name.to_string()),
            type_: Some(kind.to_string()),
            network_type: Some("layer3".to_string()),
            data: Some(types::PortData {
                bonded: Some(bonded),
                mac,
            }),
            bond: (kind == "NetworkPort").then(|| types::BondPortData {
                id: Some(bond_id),
                name: Some("bond0".to_string()),
            }),
            disbond_operation_supported: Some(true),
            ..Default::default()
        }
    };
    vec![
        port(0, "bond0", "NetworkBondPort", true, None),
        port(1, "eth0", "NetworkPort", true, Some(eth0)),
        port(2, "eth1", "NetworkPort", true, Some(eth1)),
    ]
}

/// The MAC addresses of a device's `eth0` and `eth1`: made up, stable per
/// device, distinct between devices.
pub(super) fn macs(d: &DeviceRec) -> [String; 2] {
    let n = d.seq & 0xff_ffff;
    [1, 2].map(|i| {
        let v = (n << 2) | i;
        format!(
            "0c:42:a1:{:02x}:{:02x}:{:02x}",
            (v >> 16) & 0xff,
            (v >> 8) & 0xff,
            v & 0xff
        )
    })
}

/// The arrays the API always sends on a device, `[]` when empty (the
/// generated type leaves empty ones out), and `customdata` (`{}`).
const DEVICE_ARRAYS: &[&str] = &[
    "tags",
    "ssh_keys",
    "ip_addresses",
    "network_ports",
    "volumes",
    "provisioning_events",
];

/// A device as the API sends it: its empty arrays as `[]`, an empty
/// `customdata` as `{}`.
pub(super) fn device_json(device: &types::Device) -> Result<Value, ApiError> {
    let mut v = to_value(device)?;
    fill_device(&mut v);
    Ok(v)
}

/// A reservation as the API sends it (an included device filled as
/// [`device_json`] fills it).
pub(super) fn reservation_json(
    reservation: &types::HardwareReservation,
) -> Result<Value, ApiError> {
    let mut v = to_value(reservation)?;
    fill_reservation(&mut v);
    Ok(v)
}

/// Serializes a reply value.
pub(super) fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, ApiError> {
    serde_json::to_value(value)
        .map_err(|e| ApiError::new(500, format!("metal-fake: encoding the reply: {e}")))
}

/// Fills a rendered device (an href stub is left alone).
pub(super) fn fill_device(v: &mut Value) {
    let Some(obj) = v.as_object_mut() else {
        return;
    };
    if !obj.contains_key("hostname") {
        return;
    }
    for key in DEVICE_ARRAYS {
        obj.entry(*key).or_insert_with(|| Value::Array(Vec::new()));
    }
    obj.entry("customdata")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
}

/// Fills a rendered reservation's included device.
pub(super) fn fill_reservation(v: &mut Value) {
    if let Some(device) = v.get_mut("device") {
        fill_device(device);
    }
}
