//! Which changes of the journal are events, and what each event says: its
//! `type` and its `body`, a template whose `{label}` (how the change names
//! its record), `{project}` and `{user}` are filled in when it is read
//! (`view`). A change not listed here (a reservation's device link, say)
//! is in the journal but no event. The evidence for each is in
//! [`crate::fidelity`] ("Events and the journal").

use uuid::Uuid;

use crate::model::device::provisioning;
use crate::model::journal::{Cause, Change, Entry};
use crate::model::relations::Kind;

/// The user the real API named as the maker of a device's provisioning
/// events (a recorded `/devices/{id}/events` reply's `modified_by`).
pub(crate) const BOT: Uuid = Uuid::from_u128(0x0ff7f54a_8999_4102_8c74_f64813ebc57c);

/// Its name.
pub(crate) const BOT_NAME: &str = "Packet Bot";

/// An event's `type` and body template, for a change that is one.
pub(crate) fn describe(e: &Entry) -> Option<(&'static str, &'static str)> {
    use Change::{Created, Deleted, Updated};
    use Kind as K;
    Some(match (e.kind, e.change) {
        // As a recorded provisioning log shows the first event
        // ("%device%" (Type 0) was deployed to project "%project%" by
        // %user%), its names filled in.
        (K::Device, Created) => (
            "instance.created",
            "{label} was deployed to project {project} by {user}",
        ),
        // The device's own provisioning, as real devices reported it.
        (K::Device, Updated("provisioning")) => {
            (provisioning::STARTED.kind, provisioning::STARTED.body)
        }
        (K::Device, Updated("provisioned")) => (provisioning::DONE.kind, provisioning::DONE.body),
        (K::Device, Updated(step)) if step.starts_with("provisioning.") => {
            let r = provisioning::by_kind(step)?;
            (r.kind, r.body)
        }
        (K::Device, Updated("provisioning_failed")) => {
            ("provisioning.failed", "Provisioning failed")
        }
        (K::Device, Updated("power_on")) => ("instance.power_on", "Power on requested"),
        (K::Device, Updated("powered_on")) => ("instance.powered_on", "Device powered on"),
        (K::Device, Updated("power_off")) => ("instance.power_off", "Power off requested"),
        (K::Device, Updated("powered_off")) => ("instance.powered_off", "Device powered off"),
        (K::Device, Updated("reboot")) => ("instance.reboot", "Reboot requested"),
        (K::Device, Updated("rescue")) => ("instance.rescue", "Rescue mode requested"),
        (K::Device, Updated("reinstall")) => ("instance.reinstall", "Reinstall requested"),
        (K::Device, Updated("reinstalled")) => ("instance.reinstalled", "Device reinstalled"),
        (K::Device, Updated("fields")) => ("instance.updated", "{label} was updated by {user}"),
        (K::Device, Updated("deprovisioning")) => {
            ("instance.deprovisioning", "Deprovisioning started")
        }
        (K::Device, Deleted) => ("instance.deleted", "{label} was deleted by {user}"),
        (K::SshKey, Created) => ("ssh_key.created", "SSH key {label} was added by {user}"),
        (K::SshKey, Updated("fields")) => {
            ("ssh_key.updated", "SSH key {label} was updated by {user}")
        }
        (K::SshKey, Deleted) => ("ssh_key.deleted", "SSH key {label} was removed by {user}"),
        (K::ApiKey, Created) => ("api_key.created", "API key {label} was created by {user}"),
        (K::ApiKey, Deleted) => ("api_key.deleted", "API key {label} was deleted by {user}"),
        // Spot market requests, batches and licenses are journaled but
        // are no events: no public client shows events of theirs.
        (K::IpAssignment, Created) => (
            "ip_assignment.created",
            "IP address {label} was assigned by {user}",
        ),
        (K::IpAssignment, Deleted) => (
            "ip_assignment.deleted",
            "IP address {label} was unassigned by {user}",
        ),
        // A block the API made itself (a project's pre-created blocks,
        // made as the fake's own change) is no event: the recorded event
        // list of a new project's provisioned device holds none.
        (K::IpReservation, Created) if e.cause == Cause::Fake => return None,
        (K::IpReservation, Created) => (
            "ip_reservation.created",
            "IP reservation {label} was requested by {user}",
        ),
        (K::IpReservation, Deleted) => (
            "ip_reservation.deleted",
            "IP reservation {label} was released by {user}",
        ),
        (K::HardwareReservation, Updated("moved")) => {
            ("hardware_reservation.moved", "Hardware reservation moved")
        }
        (K::HardwareReservation, Updated("released")) => (
            "hardware_reservation.released",
            "Hardware reservation provisionable again",
        ),
        // metal-cli's e2e test finds a new project's name in its events.
        (K::Project, Created) => ("project.created", "Project {label} was created by {user}"),
        (K::Project, Updated("fields")) => {
            ("project.updated", "Project {label} was updated by {user}")
        }
        (K::Project, Updated("bgp_config")) => (
            "bgp.requested",
            "BGP was requested for project {label} by {user}",
        ),
        (K::Project, Deleted) => ("project.deleted", "Project {label} was deleted by {user}"),
        (K::Membership, Created) => (
            "membership.created",
            "A member was added to project {project} by {user}",
        ),
        (K::Membership, Updated("roles")) => (
            "membership.updated",
            "A member's roles in project {project} were changed by {user}",
        ),
        (K::Membership, Deleted) => (
            "membership.deleted",
            "A member was removed from project {project} by {user}",
        ),
        (K::VirtualNetwork, Created) => (
            "virtual_network.created",
            "VLAN {label} was created in project {project} by {user}",
        ),
        (K::VirtualNetwork, Updated("fields")) => (
            "virtual_network.updated",
            "VLAN {label} was updated by {user}",
        ),
        (K::VirtualNetwork, Deleted) => (
            "virtual_network.deleted",
            "VLAN {label} was deleted by {user}",
        ),
        (K::Organization, Created) => (
            "organization.created",
            "Organization {label} was created by {user}",
        ),
        (K::Vrf, Created) => ("vrf.created", "VRF created"),
        (K::Vrf, Updated("fields")) => ("vrf.updated", "VRF updated"),
        (K::Vrf, Deleted) => ("vrf.deleted", "VRF deleted"),
        (K::VrfRoute, Created) => ("vrf_route.created", "VRF route created"),
        (K::VrfRoute, Updated("fields")) => ("vrf_route.updated", "VRF route updated"),
        (K::VrfRoute, Updated("active")) => ("vrf_route.active", "VRF route active"),
        (K::VrfRoute, Deleted) => ("vrf_route.deleted", "VRF route deleted"),
        (K::BgpDynamicNeighbor, Created) => (
            "bgp_dynamic_neighbor.created",
            "BGP dynamic neighbor created",
        ),
        (K::BgpDynamicNeighbor, Deleted) => (
            "bgp_dynamic_neighbor.deleted",
            "BGP dynamic neighbor deleted",
        ),
        (K::Interconnection, Created) => ("interconnection.created", "Connection requested"),
        (K::Interconnection, Updated("active")) => ("interconnection.active", "Connection active"),
        (K::Interconnection, Updated("fields")) => {
            ("interconnection.updated", "Connection updated")
        }
        (K::Interconnection, Deleted) => ("interconnection.deleted", "Connection deleted"),
        (K::VirtualCircuit, Created) => ("virtual_circuit.created", "Virtual circuit requested"),
        (K::VirtualCircuit, Updated("active")) => {
            ("virtual_circuit.active", "Virtual circuit active")
        }
        (K::VirtualCircuit, Updated("fields")) => {
            ("virtual_circuit.updated", "Virtual circuit updated")
        }
        (K::VirtualCircuit, Updated("deleting")) => (
            "virtual_circuit.deleting",
            "Virtual circuit deletion started",
        ),
        (K::VirtualCircuit, Deleted) => ("virtual_circuit.deleted", "Virtual circuit deleted"),
        _ => return None,
    })
}
