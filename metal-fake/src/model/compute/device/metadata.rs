//! What a device knows of itself: its metadata (the metadata service's
//! shape, from the device's record, plan, place, keys and addresses), its
//! custom data and its user data; and the check of user data before a
//! create sends it.

use serde::Serialize;
use uuid::Uuid;

use super::own_addresses::own_blocks;
use super::record::Kept;
use super::rules::Fields;
use super::view::Iqn;
use crate::call::{ApiError, Call};
use crate::model::catalog::OperatingSystemView;
use crate::model::render::{reply, ShortId};
use crate::model::resource::{acts, Prepared};
use crate::model::World;

/// `GET /devices/{id}/metadata`.
#[derive(Serialize)]
struct MetadataView<'a> {
    id: Uuid,
    hostname: &'a str,
    iqn: String,
    class: &'a str,
    plan: &'a str,
    facility: &'a str,
    metro: &'a str,
    state: &'static str,
    tags: &'a [String],
    customdata: &'a serde_json::Map<String, serde_json::Value>,
    operating_system: OperatingSystemView<'a>,
    specs: Specs<'a>,
    ssh_keys: Vec<&'a str>,
    network: Network,
    private_subnets: [&'static str; 1],
    reserved: bool,
    switch_short_id: String,
    volumes: [(); 0],
}

/// The plan's hardware (`{}` for a plan the catalog gives none).
#[derive(Serialize)]
#[serde(untagged)]
enum Specs<'a> {
    Known(&'a crate::model::PlanSpecs),
    None {},
}

#[derive(Serialize)]
struct Network {
    addresses: Vec<String>,
    interfaces: Vec<Interface>,
    network: Bonded,
}

#[derive(Serialize)]
struct Interface {
    name: &'static str,
    mac: String,
}

#[derive(Serialize)]
struct Bonded {
    bonding: Bonding,
}

#[derive(Serialize)]
struct Bonding {
    link_aggregation: &'static str,
    mac: String,
    mode: u8,
}

/// `{"userdata": "..."}`.
#[derive(Serialize)]
struct UserdataView<'a> {
    userdata: &'a str,
}

/// A stable MAC address for the `n`th interface of `device`, in the
/// locally administered range.
fn mac(device: Uuid, n: u8) -> String {
    let b = device.as_bytes();
    format!(
        "02:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
        b[12], b[13], b[14], b[15], n
    )
}

impl World {
    /// The device `id` a sub-read names: `404` when it is not there, `403`
    /// when it moved away after a failed provisioning.
    pub(crate) fn device_for_read(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.check_device_access(id)?;
        self.devices.get(&id).ok_or_else(ApiError::not_found)
    }

    fn metadata_view<'a>(&'a self, d: &'a Kept) -> MetadataView<'a> {
        let rec = &d.rec;
        let metro = self
            .catalog
            .facility(&rec.facility)
            .map_or("", |f| f.metro.as_str());
        let specs = match self.catalog.plan(&rec.plan).and_then(|p| p.specs.as_ref()) {
            Some(s) => Specs::Known(s),
            None => Specs::None {},
        };
        let addresses = own_blocks(d)
            .into_iter()
            .map(|b| format!("{}/{}", b.address, b.cidr))
            .chain(self.elastic_cidrs_of(rec.id))
            .collect();
        MetadataView {
            id: rec.id,
            hostname: &rec.hostname,
            iqn: Iqn {
                year: self.clock.wall(d.meta.created),
                device: rec.id,
            }
            .to_string(),
            class: &rec.plan,
            plan: &rec.plan,
            facility: &rec.facility,
            metro,
            state: d.state().as_str(),
            tags: &rec.tags,
            customdata: &rec.customdata,
            operating_system: self.catalog.operating_system_view(&rec.operating_system),
            specs,
            ssh_keys: d
                .live
                .ssh_keys
                .iter()
                .filter_map(|k| self.ssh_keys.get(k))
                .map(|k| k.rec.key.as_str())
                .collect(),
            network: Network {
                addresses,
                interfaces: vec![
                    Interface {
                        name: "eth0",
                        mac: mac(rec.id, 0),
                    },
                    Interface {
                        name: "eth1",
                        mac: mac(rec.id, 1),
                    },
                ],
                network: Bonded {
                    bonding: Bonding {
                        link_aggregation: "bonded",
                        mac: mac(rec.id, 0),
                        // 802.3ad, as packngo's metadata names mode 4.
                        mode: 4,
                    },
                },
            },
            private_subnets: ["10.0.0.0/8"],
            reserved: rec.reservation.is_some(),
            switch_short_id: ShortId(rec.reservation.unwrap_or(rec.id)).to_string(),
            volumes: [],
        }
    }
}

/// `findDeviceMetadataByID`.
pub(super) fn find_device_metadata(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let d = w.device_for_read(id)?;
        reply(&w.metadata_view(d))
    })
}

/// `findDeviceCustomdata`: the device's custom data, as set.
pub(super) fn find_device_customdata(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| reply(&w.device_for_read(id)?.rec.customdata))
}

/// `findDeviceUserdataByID`: `{"userdata": ...}`, empty when none.
pub(super) fn find_device_userdata(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let d = w.device_for_read(id)?;
        reply(&UserdataView {
            userdata: d.rec.userdata.as_deref().unwrap_or_default(),
        })
    })
}

/// The first lines cloud-init recognises a user-data format by.
const CLOUD_INIT_STARTS: &[&str] = &[
    "#!",
    "#cloud-config",
    "#include",
    "#cloud-boothook",
    "#part-handler",
    "#upstart-job",
    "## template: jinja",
    "Content-Type:",
];

/// Why `userdata` would be refused: over the device's bound, or not a
/// format cloud-init recognises by its first line.
pub(crate) fn userdata_problem(userdata: &str) -> Option<String> {
    let fields = Fields {
        userdata: Some(userdata),
        ..Fields::default()
    };
    if let Some(problem) = fields.problem() {
        return Some(problem);
    }
    let first = userdata.trim_start();
    (!CLOUD_INIT_STARTS.iter().any(|s| first.starts_with(s))).then(|| {
        "userdata is not in a format cloud-init recognises (#!, #cloud-config, #include, ...)"
            .to_string()
    })
}

/// `validateUserdata`: `204` for user data the fake would take, `422`
/// with why otherwise.
pub(super) fn validate_userdata(call: &Call) -> Result<Prepared, ApiError> {
    let userdata = call.text("userdata").unwrap_or_default();
    if let Some(problem) = userdata_problem(&userdata) {
        return Err(ApiError::unprocessable(problem));
    }
    acts(|_, _, _| Ok(crate::call::Reply::Empty))
}
