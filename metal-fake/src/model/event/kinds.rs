//! Which changes of the journal are events, and what each event says: its
//! `type` and `body`. A change not listed here (a reservation's device
//! link, say) is in the journal but no event.

use crate::model::journal::{Change, Entry};
use crate::model::relations::Kind;

/// An event's `type` and `body`, for a change that is one.
pub(crate) fn describe(e: &Entry) -> Option<(&'static str, &'static str)> {
    use Change::{Created, Deleted, Updated};
    use Kind as K;
    Some(match (e.kind, e.change) {
        (K::Device, Created) => ("instance.created", "Device created"),
        // The device's own provisioning, as real devices reported it.
        (K::Device, Updated("provisioning")) => {
            ("provisioning.104.01", "Device connected to DHCP system")
        }
        (K::Device, Updated("provisioned")) => (
            "provisioning.109",
            "Installation finished, rebooting server",
        ),
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
        (K::Device, Updated("fields")) => ("instance.updated", "Device updated"),
        (K::Device, Updated("deprovisioning")) => {
            ("instance.deprovisioning", "Deprovisioning started")
        }
        (K::Device, Deleted) => ("instance.deleted", "Device deleted"),
        (K::SshKey, Created) => ("ssh_key.created", "SSH key added"),
        (K::SshKey, Updated("fields")) => ("ssh_key.updated", "SSH key updated"),
        (K::SshKey, Deleted) => ("ssh_key.deleted", "SSH key removed"),
        // Spot market requests, batches and licenses are journaled but
        // are no events: no public client shows events of theirs.
        (K::IpAssignment, Created) => ("ip_assignment.created", "IP address assigned"),
        (K::IpAssignment, Deleted) => ("ip_assignment.deleted", "IP address unassigned"),
        (K::IpReservation, Created) => ("ip_reservation.created", "IP reservation requested"),
        (K::IpReservation, Deleted) => ("ip_reservation.deleted", "IP reservation released"),
        (K::HardwareReservation, Updated("moved")) => {
            ("hardware_reservation.moved", "Hardware reservation moved")
        }
        (K::HardwareReservation, Updated("released")) => (
            "hardware_reservation.released",
            "Hardware reservation provisionable again",
        ),
        (K::Project, Created) => ("project.created", "Project created"),
        (K::Project, Updated("fields")) => ("project.updated", "Project updated"),
        (K::Project, Updated("bgp_config")) => ("bgp.requested", "BGP configuration requested"),
        (K::Project, Deleted) => ("project.deleted", "Project deleted"),
        (K::Organization, Created) => ("organization.created", "Organization created"),
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
