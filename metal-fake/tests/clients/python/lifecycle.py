"""A full device lifecycle, and a networking walk on its on-demand device,
through the Equinix Python SDK (`equinix` 0.19.0, metalv1, unmodified)
against the metal-fake binary; then a layer-2 walk on a fake of its own
world (`OWN_WORLD`: the default world's catalog does not matter).

Run by `cargo test -p metal-fake --features cli --test external_clients`, which makes the
virtualenv and sets METAL_FAKE to the binary it built and PYTHONPATH to the
`metal_fake` package's sources; the script starts the fake itself with
`metal_fake.MetalFake`. Each step is a function; a step that needs one that
did not pass is skipped, saying so, so that a run fails at exactly the steps
that are wrong. Exit code 0 when every step passed, 1 when one failed or was
skipped (then the fake's stderr follows).
"""

import json
import sys
import time
import traceback

from equinix.services import metalv1
from equinix.services.metalv1.exceptions import ApiException

from metal_fake import MetalFake

# A valid ed25519 public key made for these tests (its private half was not
# kept); the same as the Go tests' harness.PublicKey.
PUBLIC_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOVjFzMYflwcJIRqu3RsfO+ZD/Kfa7XSjW5O0gNcTh++"
    " external-clients"
)
# A second one, for a project's key; the same as harness.ProjectKey.
PROJECT_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMJQ8x4ZofZgvfC/27rI+MqdzBlsJ18MGi4GffRCqMQe"
    " external-clients-project"
)
OS = "ubuntu_24_04"
# The operating system a reinstall installs.
OTHER_OS = "debian_12"
# Bounds every wait for a state: the fake provisions in a second or two.
PATIENCE = 30.0
INTERVAL = 0.1


class StepFailed(Exception):
    """A step saw something other than what the real API gives."""


def check(condition, message):
    if not condition:
        raise StepFailed(message)


def api_error(call, status):
    """Runs call, expecting it to fail with status; returns the SDK's
    ApiException (its .data is the decoded Error body)."""
    try:
        result = call()
    except ApiException as e:
        check(e.status == status, f"want status {status}, got {e.status}: {e.body}")
        return e
    raise StepFailed(f"want status {status}, the call succeeded: {result!r}")


def refused(call, want):
    """Runs call, expecting the API's 422 refusal whose body mentions want."""
    e = api_error(call, 422)
    check(want in (e.body or ""), f"want a refusal mentioning {want!r}, got {e.body}")


def raw(response, status):
    """The decoded body of a *_without_preload_content call answered with
    status: for the replies whose oneOf the SDK cannot pick (a gateway, a
    VRF block fit both alternatives)."""
    body = response.data.decode()
    check(response.status == status, f"want status {status}, got {response.status}: {body}")
    return json.loads(body) if body else None


def until(what, probe):
    """Polls probe() -> (done, saw) until done, for at most PATIENCE."""
    deadline = time.monotonic() + PATIENCE
    while True:
        done, saw = probe()
        if done:
            return
        if time.monotonic() > deadline:
            raise StepFailed(f"{what}: not after {PATIENCE} s; last saw {saw}")
        time.sleep(INTERVAL)


class Lifecycle:
    def __init__(self, url, token, project, fake=None):
        self.url, self.token, self.project, self.fake = url, token, project, fake
        self.api = self.client(token)
        self.devices = metalv1.DevicesApi(self.api)
        self.keys = metalv1.SSHKeysApi(self.api)
        self.reservations = metalv1.HardwareReservationsApi(self.api)
        self.projects = metalv1.ProjectsApi(self.api)
        self.bgp = metalv1.BGPApi(self.api)
        self.key = None
        self.project_key = None
        self.free = []
        self.device = None
        self.metro = None
        self.plan = None
        self.block = None
        self.on_demand = None
        # Devices to delete once active at the end (the refused delete's).
        self.leftovers = []
        # The networking walk's: its IDs by name.
        self.net = {}

    def client(self, token):
        config = metalv1.Configuration(host=self.url, api_key={"x_auth_token": token})
        return metalv1.ApiClient(config)

    def wait_state(self, device_id, want):
        def probe():
            try:
                state = self.devices.find_device_by_id(device_id).state
            except ApiException as e:
                return False, f"status {e.status}"
            return state == want, f"state {state}"

        until(f"device {device_id} {want}", probe)

    def create_on(self, reservation, hostname):
        request = metalv1.CreateDeviceRequest(
            metalv1.DeviceCreateInMetroInput(
                metro=metalv1.MetroInputMetro(reservation.facility.metro.code),
                plan=reservation.plan.slug,
                operating_system=OS,
                hardware_reservation_id=reservation.id,
                hostname=hostname,
                tags=["external-clients", "python"],
            )
        )
        device = self.devices.create_device(self.project, request)
        check(
            device.id and device.hostname == hostname,
            f"create returned id {device.id!r} hostname {device.hostname!r}",
        )
        return device

    def update(self, **fields):
        return self.devices.update_device(self.device.id, metalv1.DeviceUpdateInput(**fields))

    def action(self, kind):
        self.devices.perform_action(self.device.id, metalv1.DeviceActionInput(type=kind))

    # ------------------------------------------------------------ steps

    def creates_a_user_ssh_key(self):
        key = self.keys.create_ssh_key(metalv1.SSHKeyCreateInput(label="python", key=PUBLIC_KEY))
        check(
            key.id and key.label == "python" and key.key == PUBLIC_KEY and key.fingerprint,
            f"created key {key!r}",
        )
        self.key = key

    def creates_a_project_ssh_key_whose_entity_is_the_project(self):
        key = self.keys.create_project_ssh_key(
            self.project, metalv1.SSHKeyCreateInput(label="python-project", key=PROJECT_KEY)
        )
        want = f"/metal/v1/projects/{self.project}"
        check(key.entity and key.entity.href == want, f"the project's key has entity {key.entity!r}")
        self.project_key = key

    def lists_ssh_keys(self):
        keys = self.keys.find_ssh_keys().ssh_keys or []
        check(
            any(k.id == self.key.id for k in keys),
            f"key {self.key.id} not in the list of {len(keys)} keys",
        )

    def lists_provisionable_reservations(self):
        found = self.reservations.find_project_hardware_reservations_all_pages(self.project)
        every = found.hardware_reservations or []
        self.free = [r for r in every if r.provisionable and r.plan and r.plan.slug]
        check(
            len(self.free) >= 3,
            f"want at least 3 provisionable reservations, got {len(self.free)} of {len(every)}",
        )

    def creates_a_device_with_one_project_key(self):
        # Only the project key named goes on the device, not the user's.
        reservation = self.free[2]
        request = metalv1.CreateDeviceRequest(
            metalv1.DeviceCreateInMetroInput(
                metro=metalv1.MetroInputMetro(reservation.facility.metro.code),
                plan=reservation.plan.slug,
                operating_system=OS,
                hardware_reservation_id=reservation.id,
                hostname="python-one-key",
                project_ssh_keys=[self.project_key.id],
            )
        )
        device = self.devices.create_device(self.project, request)
        self.leftovers.append(device.id)
        keys = [k.href for k in device.ssh_keys or []]
        check(
            keys == [f"/metal/v1/ssh-keys/{self.project_key.id}"],
            f"device's keys {keys!r}, want only {self.project_key.id}",
        )

    def creates_a_device_on_a_reservation(self):
        self.device = self.create_on(self.free[0], "python-1")
        # The API renders the reservation as an {href} stub unless asked to
        # include it.
        reservation, want = self.device.hardware_reservation, self.free[0].id
        check(
            reservation is not None
            and (reservation.id == want or (reservation.href or "").endswith("/" + want)),
            f"device's reservation {reservation!r}, want {want}",
        )

    def refuses_delete_while_provisioning(self):
        # A second device, so that a fake that deletes anyway fails here only.
        other = self.create_on(self.free[1], "python-2")
        e = api_error(lambda: self.devices.delete_device(other.id), 422)
        self.leftovers.append(other.id)
        errors = (e.data.errors if e.data else None) or []
        check(
            "Cannot delete a device while it is provisioning" in errors,
            f"errors {errors!r}",
        )

    def reads_the_device_until_active(self):
        self.wait_state(self.device.id, "active")

    def reads_what_it_includes_and_excludes(self):
        # The SDK sends include and exclude as lists, comma-joined; what
        # it types as an Href keeps the whole thing's fields only in the
        # raw reply, which is read here.
        def device(**options):
            return raw(self.devices.find_device_by_id_without_preload_content(self.device.id, **options), 200)

        plain = device()
        check(set(plain["project"]) == {"href"}, f"not included: project {plain['project']!r}")
        check(all(set(k) == {"href"} for k in plain["ssh_keys"]), f"not included: keys {plain['ssh_keys']!r}")
        got = device(include=["project", "ssh_keys"], exclude=["plan"])
        check(
            got["project"]["id"] == self.project and got["project"]["name"],
            f"included: project {got['project']!r}",
        )
        check(
            got["ssh_keys"] and all(k.get("fingerprint") for k in got["ssh_keys"]),
            f"included: keys {got['ssh_keys']!r}",
        )
        check(set(got["plan"]) == {"href"}, f"excluded: plan {got['plan']!r}")
        dotted = device(include=["project.organization"])["project"]
        check(
            dotted["id"] == self.project and dotted["organization"].get("name"),
            f"dotted: project {dotted!r}",
        )
        # The SDK's own types read what they model of it.
        typed = self.devices.find_device_by_id(self.device.id, include=["project"])
        check(typed.project.id == self.project and typed.project.name, f"typed: project {typed.project!r}")
        me = raw(metalv1.UsersApi(self.api).find_current_user_without_preload_content(include=["emails"]), 200)
        check(me["emails"] and me["emails"][0].get("address") == me["email"], f"emails {me['emails']!r}")

    def lists_the_projects_devices_and_finds_it(self):
        listed = self.devices.find_project_devices_all_pages(self.project).devices or []
        mine = [d for d in listed if d.id == self.device.id]
        check(mine, f"device {self.device.id} not among the project's {len(listed)} devices")
        got = mine[0]
        check(
            got.hostname == "python-1" and got.state == "active" and "python" in (got.tags or []),
            f"listed as {got.hostname} {got.state} {got.tags}",
        )

    def updates_description_and_tags(self):
        tags = ["external-clients", "updated"]
        updated = self.update(description="updated by python", tags=tags)
        check(
            updated.description == "updated by python" and updated.tags == tags,
            f"update returned description {updated.description!r} tags {updated.tags!r}",
        )
        read = self.devices.find_device_by_id(self.device.id)
        check(
            read.description == "updated by python" and read.tags == tags,
            f"read back description {read.description!r} tags {read.tags!r}",
        )

    def reboots(self):
        self.action("reboot")
        self.wait_state(self.device.id, "active")

    def reinstalls_with_another_operating_system(self):
        # What metal-cli's `device reinstall -O ... --preserve-data` sends.
        self.devices.perform_action(
            self.device.id,
            metalv1.DeviceActionInput(type="reinstall", operating_system=OTHER_OS, preserve_data=True),
        )
        self.wait_state(self.device.id, "active")
        slug = self.devices.find_device_by_id(self.device.id).operating_system.slug
        check(slug == OTHER_OS, f"operating system after the reinstall {slug!r}, want {OTHER_OS}")

    def powers_off_and_on(self):
        self.action("power_off")
        self.wait_state(self.device.id, "inactive")
        self.action("power_on")
        self.wait_state(self.device.id, "active")

    def refuses_delete_while_locked(self):
        check(self.update(locked=True).locked is True, "the update's reply does not show the device locked")
        e = api_error(lambda: self.devices.delete_device(self.device.id), 422)
        errors = (e.data.errors if e.data else None) or []
        check(
            "locked" in " ".join(errors).lower(),
            f"errors {errors!r} do not say the device is locked",
        )

    def unlocks(self):
        check(self.update(locked=False).locked is False, "the update's reply still shows the device locked")

    def deletes_the_device(self):
        self.devices.delete_device(self.device.id)

    def reads_404_right_after_delete(self):
        # As Monogon's wrapngo live test and the Terraform provider's
        # destroy check read.
        api_error(lambda: self.devices.find_device_by_id(self.device.id), 404)

    def deletes_the_ssh_key(self):
        self.keys.delete_ssh_key(self.key.id)
        api_error(lambda: self.keys.find_ssh_key_by_id(self.key.id), 404)

    def a_bad_token_gets_401_invalid_authentication_token(self):
        bad = metalv1.SSHKeysApi(self.client("not-" + self.token))
        e = api_error(lambda: bad.find_ssh_keys(), 401)
        # The real API's single-string shape: {"error": "..."}.
        error = e.data.error if e.data else None
        check(
            error == "Invalid authentication token",
            f'"error" is {error!r} (body {e.body}); want "Invalid authentication token"',
        )

    def reads_the_project_with_its_organization_and_bgp_off(self):
        project = self.projects.find_project_by_id(self.project)
        href = project.organization.href if project.organization else None
        check(
            href and href.startswith("/metal/v1/organizations/"),
            f"project {project.id} has organization {href!r}",
        )
        bgp = self.bgp.find_bgp_config_by_project(self.project)
        check(bgp.id is None and bgp.asn is None, f"BGP off reads {bgp!r}")

    def creates_updates_and_deletes_a_project_with_bgp(self):
        made = self.projects.create_project(
            metalv1.ProjectCreateFromRootInput(name="python-project", tags=["python"])
        )
        check(made.name == "python-project" and made.tags == ["python"], f"created {made!r}")
        listed = self.projects.find_projects().projects
        check(any(p.id == made.id for p in listed), f"project {made.id} not listed")
        updated = self.projects.update_project(
            made.id, metalv1.ProjectUpdateInput(name="python-renamed")
        )
        check(
            updated.name == "python-renamed" and updated.tags == ["python"],
            f"updated {updated!r}",
        )
        self.bgp.request_bgp_config(
            made.id, metalv1.BgpConfigRequestInput(asn=65200, deployment_type="local")
        )
        bgp = self.bgp.find_bgp_config_by_project(made.id)
        check(bgp.status == "enabled" and bgp.asn == 65200, f"BGP requested reads {bgp!r}")
        self.projects.delete_project(made.id)
        api_error(lambda: self.projects.find_project_by_id(made.id), 404)

    def lists_plans_and_operating_systems(self):
        plans = metalv1.PlansApi(self.api).find_plans().plans
        check(plans and plans[0].slug, f"plans {plans!r}")
        systems = metalv1.OperatingSystemsApi(self.api).find_operating_systems().operating_systems
        slugs = {o.slug for o in systems}
        check({OS, OTHER_OS} <= slugs, f"operating systems {sorted(slugs)}")

    # The catalog's names, as metal-cli and the Terraform provider's data
    # sources read them; the metro and plan of the on-demand device below.
    def reads_the_catalogs_names(self):
        metros = metalv1.MetrosApi(self.api).find_metros().metros
        check(metros, "no metros")
        first = metros[0]
        check(first.name and first.country, f"metro {first!r} has no name or country")
        one = metalv1.MetrosApi(self.api).get_metro(first.id)
        check(one.code == first.code and one.name == first.name, f"metro {first.id} reads {one!r}")
        self.metro = first.code
        self.metro_name = first.name
        plans = metalv1.PlansApi(self.api).find_plans_by_project(self.project).plans
        check(plans and plans[0].name, f"the project's plans {plans!r}")
        self.plan = plans[0].slug

    def checks_capacity_for_an_on_demand_device(self):
        server = metalv1.ServerInfo(metro=self.metro, plan=self.plan, quantity="1")
        got = metalv1.CapacityApi(self.api).check_capacity_for_metro(metalv1.CapacityInput(servers=[server]))
        check(
            len(got.servers) == 1 and got.servers[0].available,
            f"capacity check {got.servers!r}, want one server available",
        )

    # An on-demand device whose public IPv4 comes from a reserved block, as
    # the Terraform provider's ip_address { reservation_ids } asks.
    def creates_an_on_demand_device_with_an_address_of_a_reserved_block(self):
        ips = metalv1.IPAddressesApi(self.api)
        made = ips.request_ip_reservation(
            self.project,
            metalv1.RequestIPReservationRequest(
                metalv1.IPReservationRequestInput(type="public_ipv4", quantity=2, metro=self.metro)
            ),
        )
        self.block = made.actual_instance
        check(isinstance(self.block, metalv1.IPReservation), f"the block decoded as {made!r}")
        request = metalv1.CreateDeviceRequest(
            metalv1.DeviceCreateInMetroInput(
                metro=metalv1.MetroInputMetro(self.metro),
                plan=self.plan,
                operating_system=OS,
                hostname="python-on-demand",
                ip_addresses=[
                    metalv1.IPAddress(
                        address_family=4, public=True, cidr=32, ip_reservations=[self.block.id]
                    ),
                    metalv1.IPAddress(address_family=4, public=False),
                ],
            )
        )
        device = self.devices.create_device(self.project, request)
        self.on_demand = device.id
        self.wait_state(device.id, "active")
        read = self.devices.find_device_by_id(device.id)
        # The SDK has no facilities API: the device's facility carries the
        # catalog's name, which starts with its metro's ("Amsterdam 6" in
        # Amsterdam), and the metro it is in.
        check(
            read.facility.metro.code == self.metro
            and read.facility.code
            and read.facility.name.startswith(self.metro_name),
            f"facility {read.facility!r}, want one in {self.metro_name}",
        )
        addresses = read.ip_addresses
        check(
            len(addresses) == 2
            and addresses[0].address == self.block.address
            and addresses[0].management
            and not addresses[1].public,
            f"addresses {addresses!r}, want the block's {self.block.address} first and a private one",
        )
        free = ips.find_ip_availabilities(self.block.id, "32").available
        check(len(free) == 1, f"free in the block after the create: {free!r}")

    def reads_the_devices_metadata(self):
        m = self.devices.find_device_metadata_by_id(self.on_demand)
        check(
            m.hostname == "python-on-demand"
            and m.metro == self.metro
            and m.plan == self.plan
            and f"{self.block.address}/32" in m.network.addresses,
            f"metadata {m!r}",
        )

    def reads_the_devices_events(self):
        events = metalv1.EventsApi(self.api).find_device_events(self.on_demand).events
        types = [e.type for e in events]
        # The first page (10, newest first): the end of provisioning.
        for want in ("provisioning.110", "provisioning.104"):
            check(want in types, f"events {types!r} lack {want}")

    # The networking walk, on the on-demand device: a VLAN of its metro,
    # the device hybrid (its second port out of the bond), the VLAN on
    # that port and as its native VLAN, a Metal Gateway with a private
    # block, a VRF with a block and a route, the project's BGP and a
    # session with its neighbour data; torn down in the order the API
    # allows, each of its refusals met once.
    def port(self, name):
        ports = self.devices.find_device_by_id(self.on_demand).network_ports
        found = [p for p in ports if p.name == name]
        check(found, f"the device has no port {name}: {[p.name for p in ports]}")
        return found[0]

    def creates_a_vlan_in_the_devices_metro_its_vxlan_once(self):
        vlans = metalv1.VLANsApi(self.api)
        v = vlans.create_virtual_network(
            self.project, metalv1.VirtualNetworkCreateInput(metro=self.metro, description="python-networking")
        )
        check(2 <= v.vxlan <= 3999 and v.description == "python-networking", f"created VLAN {v!r}")
        refused(
            lambda: vlans.create_virtual_network(
                self.project, metalv1.VirtualNetworkCreateInput(metro=self.metro, vxlan=v.vxlan)
            ),
            "already exists in metro",
        )
        listed = vlans.find_virtual_networks(self.project, metro=self.metro).virtual_networks
        check([x.id for x in listed] == [v.id], f"the VLANs of {self.metro}: {listed!r}")
        self.net.update(vlan=v.id)

    def makes_the_device_hybrid(self):
        eth1 = self.port("eth1")
        p = metalv1.PortsApi(self.api).disbond_port(eth1.id, bulk_disable=False)
        check(not p.data.bonded, f"eth1 after the disbond {p!r}")
        bond0 = self.port("bond0")
        check(bond0.network_type == "hybrid", f"bond0 is {bond0.network_type}")
        self.net.update(eth0=self.port("eth0").id, eth1=eth1.id)

    def assigns_the_vlan_to_the_unbonded_port_as_its_native_vlan_too(self):
        ports, n = metalv1.PortsApi(self.api), self.net
        refused(lambda: ports.assign_port(n["eth0"], metalv1.PortAssignInput(vnid=n["vlan"])), "bonded port")
        p = ports.assign_port(n["eth1"], metalv1.PortAssignInput(vnid=n["vlan"]))
        check(len(p.virtual_networks) == 1, f"port {p!r}")
        p = ports.assign_native_vlan(n["eth1"], vnid=n["vlan"])
        check(p.native_virtual_network.href.endswith("/" + n["vlan"]), f"native VLAN {p.native_virtual_network!r}")

    def makes_a_metal_gateway_with_a_private_block(self):
        gateways = metalv1.MetalGatewaysApi(self.api)

        def create():
            request = metalv1.CreateMetalGatewayRequest(
                metalv1.MetalGatewayCreateInput(virtual_network_id=self.net["vlan"], private_ipv4_subnet_size=8)
            )
            return gateways.create_metal_gateway_without_preload_content(self.project, request)

        made = raw(create(), 201)
        refusal = raw(create(), 422)
        check("already has a Metal Gateway" in " ".join(refusal["errors"]), f"refusal {refusal!r}")
        blocks = metalv1.IPAddressesApi(self.api).find_ip_reservations(
            self.project, types=["private_ipv4"], include=["metal_gateway"]
        ).ip_addresses
        mine = [
            b.actual_instance
            for b in blocks
            if getattr(b.actual_instance, "metal_gateway", None) and b.actual_instance.metal_gateway.id == made["id"]
        ]
        check(
            len(mine) == 1 and mine[0].cidr == 29 and mine[0].type == "private_ipv4",
            f"the gateway's block among {blocks!r}",
        )
        self.net.update(gateway=made["id"], gateway_block=f"{mine[0].network}/{mine[0].cidr}")

    def makes_a_vrf_with_a_route(self):
        vrfs = metalv1.VRFsApi(self.api)
        vrf = vrfs.create_vrf(
            self.project,
            metalv1.VrfCreateInput(name="python-networking", metro=self.metro, local_asn=65100, ip_ranges=["10.100.0.0/24"]),
        )
        request = metalv1.RequestIPReservationRequest(
            metalv1.VrfIpReservationCreateInput(type="vrf", vrf_id=vrf.id, network="10.100.0.0", cidr=29)
        )
        block = raw(
            metalv1.IPAddressesApi(self.api).request_ip_reservation_without_preload_content(self.project, request), 201
        )
        route = vrfs.create_vrf_route(vrf.id, metalv1.VrfRouteCreateInput(prefix="0.0.0.0/0", next_hop="10.100.0.2"))
        check(route.status == "pending" and route.next_hop == "10.100.0.2", f"route {route!r}")
        self.fake.advance(10)
        read = vrfs.find_vrf_route_by_id(route.id)
        check(read.status == "active", f"the route after 10 s: {read!r}")
        self.net.update(vrf=vrf.id, vrf_block=block["id"], route=route.id)

    def makes_a_bgp_session_and_reads_its_neighbour_data(self):
        session = metalv1.BGPSessionInput(address_family="ipv4", default_route=True)
        refused(lambda: self.devices.create_bgp_session(self.on_demand, session), "BGP is not enabled")
        self.bgp.request_bgp_config(
            self.project, metalv1.BgpConfigRequestInput(asn=65000, deployment_type="local", md5="PySecret12345")
        )
        made = self.devices.create_bgp_session(self.on_demand, session)
        neighbours = self.devices.get_bgp_neighbor_data(self.on_demand).bgp_neighbors
        check(len(neighbours) == 1, f"neighbours {neighbours!r}")
        n = neighbours[0]
        check(
            n.address_family == 4
            and n.customer_as == 65000
            and n.peer_as
            and n.peer_ips
            and n.md5_enabled
            and n.md5_password == "PySecret12345"
            and n.customer_ip
            and [(r.route, r.exact) for r in n.routes_out] == [("0.0.0.0/0", True)],
            f"neighbour {n!r}",
        )
        # The project's blocks and subnets (the device's own private one
        # among them), not the gateway's private block.
        routes = [r.route for r in n.routes_in or []]
        held = self.net.get("gateway_block")
        check(held not in routes, f"the gateway's block among the routes in: {routes!r}")
        check(any(r.startswith("10.") for r in routes), f"no private subnet among the routes in: {routes!r}")
        self.net.update(session=made.id)

    def tears_the_network_down_each_refusal_once(self):
        n, vrfs, ips = self.net, metalv1.VRFsApi(self.api), metalv1.IPAddressesApi(self.api)
        ports, vlans = metalv1.PortsApi(self.api), metalv1.VLANsApi(self.api)
        self.bgp.delete_bgp_session(n["session"])
        refused(lambda: vrfs.delete_vrf(n["vrf"]), "The VRF is in use")
        # The block goes though the route's next hop is in it, and takes
        # the route (as metal-cli's route tests' cleanups release it).
        ips.delete_ip_address(n["vrf_block"])
        raw(vrfs.find_vrf_route_by_id_without_preload_content(n["route"]), 404)
        vrfs.delete_vrf(n["vrf"])
        refused(lambda: vlans.delete_virtual_network(n["vlan"]), "Cannot delete Virtual Network when port is assigned")
        refused(lambda: ports.bond_port(n["eth1"], bulk_enable=False), "has virtual networks")
        refused(lambda: ports.unassign_port(n["eth1"], metalv1.PortAssignInput(vnid=n["vlan"])), "native VLAN")
        ports.delete_native_vlan(n["eth1"])
        ports.unassign_port(n["eth1"], metalv1.PortAssignInput(vnid=n["vlan"]))
        ports.bond_port(n["eth1"], bulk_enable=False)
        bond0 = self.port("bond0")
        check(bond0.network_type == "layer3", f"bond0 back to {bond0.network_type}")
        # The gateway's delete is done at once: 404 right after (as
        # metal-cli's TestGateways_Delete read it); then the VLAN.
        gateways = metalv1.MetalGatewaysApi(self.api)
        raw(gateways.delete_metal_gateway_without_preload_content(n["gateway"]), 202)
        raw(gateways.find_metal_gateway_by_id_without_preload_content(n["gateway"]), 404)
        vlans.delete_virtual_network(n["vlan"])

    def deletes_the_on_demand_device_and_releases_the_block(self):
        self.devices.delete_device(self.on_demand)
        ips = metalv1.IPAddressesApi(self.api)
        free = ips.find_ip_availabilities(self.block.id, "32").available
        check(len(free) == 2, f"free in the block after the delete: {free!r}")
        ips.delete_ip_address(self.block.id)

    def cleanup(self):
        """Deletes the devices whose delete was refused, once active."""
        for device_id in self.leftovers:
            self.wait_state(device_id, "active")
            self.devices.delete_device(device_id)


# The layer-2 walk's world, the same as the Go harness's OwnWorld: one
# plan at $0.50 an hour (a spot bid of $0.15 is the market price) with four
# machines free in da11.
OWN_PROJECT = "0b000000-0000-4000-8000-0000000000c1"
OWN_WORLD = {
    "organizations": [{"id": "0a000000-0000-4000-8000-0000000000c1", "name": "external clients"}],
    "projects": [{"id": OWN_PROJECT, "organization": "0a000000-0000-4000-8000-0000000000c1", "name": "walks"}],
    "plans": [{"slug": "c3.small.x86", "pricing": {"hour": 0.5}}],
    "metros": [{"code": "da"}],
    "facilities": [{"code": "da11", "metro": "da"}],
    "capacity": [{"facility": "da11", "plan": "c3.small.x86", "available": 4}],
}


class Layer2:
    """A device on demand goes layer 3, layer 2 bonded, layer 2
    individual, hybrid and layer 3 with the port calls as metal-cli makes
    them; its ports and addresses are read at each step. Then a spot market
    request and the device deleted with the force in the query."""

    def __init__(self, url, token):
        config = metalv1.Configuration(host=url, api_key={"x_auth_token": token})
        self.api = metalv1.ApiClient(config)
        self.devices = metalv1.DevicesApi(self.api)
        self.ports = metalv1.PortsApi(self.api)
        self.device = None

    def check(self, what, network_type, bonded, addresses):
        d = self.devices.find_device_by_id(self.device)
        ports = d.network_ports
        seen = (ports[0].network_type, [p.data.bonded for p in ports], len(d.ip_addresses or []))
        check(seen == (network_type, bonded, addresses), f"{what}: {seen}")

    def creates_a_device_on_demand_and_reads_it_until_active(self):
        request = metalv1.CreateDeviceRequest(
            metalv1.DeviceCreateInMetroInput(
                metro=metalv1.MetroInputMetro("da"), plan="c3.small.x86",
                operating_system=OS, hostname="python-layer2",
            )
        )
        self.device = self.devices.create_device(OWN_PROJECT, request).id

        def probe():
            state = self.devices.find_device_by_id(self.device).state
            return state == "active", f"state {state}"

        until(f"device {self.device} active", probe)
        self.check("new", "layer3", [True, True, True], 3)

    def goes_layer_2_bonded_individual_hybrid_and_back_to_layer_3(self):
        ports = self.devices.find_device_by_id(self.device).network_ports
        bond0, eth1 = ports[0].id, ports[2].id
        self.ports.convert_layer2(bond0, port_assign_input=metalv1.PortAssignInput())
        self.check("layer 2 bonded", "layer2-bonded", [True, True, True], 0)
        self.ports.disbond_port(bond0, bulk_disable=True)
        self.check("layer 2 individual", "layer2-individual", [False, False, False], 0)
        self.ports.bond_port(bond0, bulk_enable=True)
        asked = [
            metalv1.PortConvertLayer3InputRequestIpsInner(address_family=family, public=public)
            for family, public in [(4, True), (4, False), (6, True)]
        ]
        p = self.ports.convert_layer3(
            bond0, port_convert_layer3_input=metalv1.PortConvertLayer3Input(request_ips=asked)
        )
        check(p.network_type == "layer3", f"layer 3: {p.network_type}")
        self.ports.disbond_port(eth1, bulk_disable=False)
        self.check("hybrid", "hybrid", [True, True, False], 3)
        # A layer-3 bond may lose every port (hybrid), as the Terraform
        # providers' port resource disbonds bond0 before converting it.
        self.ports.disbond_port(bond0, bulk_disable=True)
        self.check("hybrid, every port out", "hybrid", [False, False, False], 3)
        self.ports.bond_port(bond0, bulk_enable=False)
        self.check("layer 3 again", "layer3", [True, True, True], 3)

    def deletes_a_spot_market_request_with_its_devices_forced_in_the_query(self):
        spot = metalv1.SpotMarketApi(self.api)
        request = metalv1.SpotMarketRequestCreateInput(
            devices_min=1, devices_max=1, max_bid_price=0.15, metro="da",
            instance_parameters=metalv1.SpotMarketRequestCreateInputInstanceParameters(
                hostname="python-spot-request", plan="c3.small.x86",
                operating_system=OS, billing_cycle="hourly",
            ),
        )
        # The spec types the reply's `facilities` as one Href, where the
        # API (and packngo, and Terraform) have a list: read it raw.
        made = raw(spot.create_spot_market_request_without_preload_content(OWN_PROJECT, request), 201)
        devices = made["devices"]
        check(len(devices) == 1, f"the request's devices {devices!r}")
        spot.delete_spot_market_request(made["id"], force_termination=True)
        api_error(lambda: self.devices.find_device_by_id(devices[0]["id"]), 404)

    def deletes_the_device_forced_in_the_query(self):
        self.devices.delete_device(self.device, force_delete=True)
        api_error(lambda: self.devices.find_device_by_id(self.device), 404)


LAYER2_PLAN = [
    ("creates_a_device_on_demand_and_reads_it_until_active", []),
    (
        "goes_layer_2_bonded_individual_hybrid_and_back_to_layer_3",
        ["creates_a_device_on_demand_and_reads_it_until_active"],
    ),
    ("deletes_a_spot_market_request_with_its_devices_forced_in_the_query", []),
    ("deletes_the_device_forced_in_the_query", ["creates_a_device_on_demand_and_reads_it_until_active"]),
]


def main():
    # Devices active two seconds after create, power transitions of half a
    # second, reservations free a second after a delete, and a rate limit
    # the SDK (which retries no 429) does not reach.
    timings = dict(provision_seconds=2, power_seconds=0.5, release_seconds=1, rate_limit=1000)
    with MetalFake(token="external-clients-token", reservations=4, **timings) as fake:
        code = run(Lifecycle(fake.url, fake.token, fake.project, fake))
        if code != 0:
            print(f"--- metal-fake stderr ---\n{fake.stderr()}")
    with MetalFake(token="external-clients-token", world=OWN_WORLD, **timings) as fake:
        layer2 = run_steps(Layer2(fake.url, fake.token), LAYER2_PLAN, "python layer-2 steps")
        if layer2 != 0:
            print(f"--- metal-fake stderr ---\n{fake.stderr()}")
    return code or layer2


def run(life):
    key = ["creates_a_user_ssh_key"]
    reservations = ["lists_provisionable_reservations"]
    active = ["reads_the_device_until_active"]
    on_demand = ["creates_an_on_demand_device_with_an_address_of_a_reserved_block"]
    vlans = ["creates_a_vlan_in_the_devices_metro_its_vxlan_once"]
    hybrid = ["makes_the_device_hybrid"]
    assigned = ["assigns_the_vlan_to_the_unbonded_port_as_its_native_vlan_too"]
    # Each step and the steps it needs, in order.
    plan = [
        ("creates_a_user_ssh_key", []),
        ("creates_a_project_ssh_key_whose_entity_is_the_project", []),
        ("lists_ssh_keys", key),
        ("lists_provisionable_reservations", []),
        (
            "creates_a_device_with_one_project_key",
            reservations + ["creates_a_project_ssh_key_whose_entity_is_the_project"],
        ),
        ("creates_a_device_on_a_reservation", reservations),
        ("refuses_delete_while_provisioning", reservations),
        ("reads_the_device_until_active", ["creates_a_device_on_a_reservation"]),
        ("reads_what_it_includes_and_excludes", active + key),
        ("lists_the_projects_devices_and_finds_it", active),
        ("updates_description_and_tags", active),
        ("reboots", active),
        ("reinstalls_with_another_operating_system", active),
        ("powers_off_and_on", active),
        ("refuses_delete_while_locked", active),
        ("unlocks", ["refuses_delete_while_locked"]),
        ("deletes_the_device", ["unlocks"]),
        ("reads_404_right_after_delete", ["deletes_the_device"]),
        ("deletes_the_ssh_key", key),
        ("a_bad_token_gets_401_invalid_authentication_token", []),
        ("reads_the_project_with_its_organization_and_bgp_off", []),
        ("creates_updates_and_deletes_a_project_with_bgp", []),
        ("lists_plans_and_operating_systems", []),
        ("reads_the_catalogs_names", []),
        ("checks_capacity_for_an_on_demand_device", ["reads_the_catalogs_names"]),
        ("creates_an_on_demand_device_with_an_address_of_a_reserved_block", ["reads_the_catalogs_names"]),
        ("reads_the_devices_metadata", on_demand),
        ("reads_the_devices_events", on_demand),
        ("creates_a_vlan_in_the_devices_metro_its_vxlan_once", on_demand),
        ("makes_the_device_hybrid", on_demand),
        ("assigns_the_vlan_to_the_unbonded_port_as_its_native_vlan_too", vlans + hybrid),
        ("makes_a_metal_gateway_with_a_private_block", assigned),
        ("makes_a_vrf_with_a_route", on_demand),
        ("makes_a_bgp_session_and_reads_its_neighbour_data", on_demand),
        (
            "tears_the_network_down_each_refusal_once",
            [
                "makes_a_metal_gateway_with_a_private_block",
                "makes_a_vrf_with_a_route",
                "makes_a_bgp_session_and_reads_its_neighbour_data",
            ],
        ),
        ("deletes_the_on_demand_device_and_releases_the_block", on_demand),
        ("cleanup", []),
    ]
    return run_steps(life, plan, "python lifecycle steps")


def run_steps(life, plan, what):
    """Runs each step of plan whose needs passed; 0 when all passed."""
    passed, failed, skipped = set(), [], []
    for name, needs in plan:
        missing = [n for n in needs if n not in passed]
        if missing:
            skipped.append(name)
            print(f"SKIP {name}: needs {', '.join(missing)}, which did not pass")
            continue
        try:
            getattr(life, name)()
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failed.append(name)
            detail = str(e) if isinstance(e, StepFailed) else traceback.format_exc()
            print(f"FAIL {name}: {detail}")
        else:
            passed.add(name)
            print(f"ok   {name}")
    print(f"{what}: {len(passed)} ok, {len(failed)} failing, {len(skipped)} skipped")
    return 0 if not failed and not skipped else 1


if __name__ == "__main__":
    sys.exit(main())
