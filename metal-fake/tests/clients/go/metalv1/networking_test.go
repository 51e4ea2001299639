// A networking walk through equinix-sdk-go's metalv1 client (unmodified),
// as the Terraform provider's network resources use it: a device, a VLAN
// of its metro, the device made hybrid (its second port out of the bond,
// as the provider's equinix_metal_port does), the VLAN on that port and as
// its native VLAN, a Metal Gateway with a private block made with it, a
// VRF with a block and a static route (pending, then active on the fake's
// clock), the project's BGP turned on, a BGP session and its neighbour
// data. Then everything torn down in the order the API allows, each of its
// refusals met once on the way. Run by `cargo test -p metal-fake
// --all-features --test external_clients -- --ignored`.
package metalv1_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/equinix/equinix-sdk-go/services/metalv1"

	"metal-fake/tests/clients/harness"
)

// refused checks that a call was refused with a 422 whose body mentions
// want. The body is read raw: where the spec lists no 422 for an
// operation the SDK leaves it undecoded.
func refused(t *testing.T, resp *http.Response, err error, want string) {
	t.Helper()
	var e *metalv1.GenericOpenAPIError
	if !errors.As(err, &e) || resp == nil || resp.StatusCode != 422 {
		t.Fatalf("want a 422 refusal mentioning %q, got %v", want, err)
	}
	if !strings.Contains(string(e.Body()), want) {
		t.Fatalf("want a refusal mentioning %q, got %s", want, e.Body())
	}
}

func TestNetworking(t *testing.T) {
	env := harness.Start(t)
	c := client(env)
	ctx := authed(env.Token)
	steps := harness.NewSteps(t)
	var (
		device, metro, vlan, eth0, eth1        string
		gateway, vrf, vrfBlock, route, session string
		gatewayBlock                           string
	)
	// The device's port called name, as it reads now.
	port := func(t *testing.T, name string) *metalv1.Port {
		t.Helper()
		d, _, err := c.DevicesApi.FindDeviceById(ctx, device).Execute()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range d.GetNetworkPorts() {
			if p.GetName() == name {
				return &p
			}
		}
		t.Fatalf("device %s has no port %s", device, name)
		return nil
	}

	steps.Run("creates a device and reads it until active", nil, func(t *testing.T) {
		list, _, err := c.HardwareReservationsApi.FindProjectHardwareReservations(ctx, env.Project).Execute()
		if err != nil || len(list.GetHardwareReservations()) == 0 {
			t.Fatalf("reservations %+v, %v", list, err)
		}
		r := list.GetHardwareReservations()[0]
		d := createOn(t, ctx, c, env, r, "metalv1-networking")
		facility := r.GetFacility()
		m := facility.GetMetro()
		device, metro = d.GetId(), m.GetCode()
		waitState(t, ctx, c, device, metalv1.DEVICESTATE_ACTIVE)
	})
	active := []string{"creates a device and reads it until active"}
	steps.Run("creates a VLAN in the device's metro, its vxlan once", active, func(t *testing.T) {
		v, _, err := c.VLANsApi.CreateVirtualNetwork(ctx, env.Project).VirtualNetworkCreateInput(metalv1.VirtualNetworkCreateInput{
			Metro: metalv1.PtrString(metro), Description: metalv1.PtrString("metalv1-networking"), Tags: []string{"metalv1"},
		}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if v.GetVxlan() < 2 || v.GetVxlan() > 3999 || v.GetDescription() != "metalv1-networking" {
			t.Fatalf("created VLAN %+v", v)
		}
		vlan = v.GetId()
		_, resp, err := c.VLANsApi.CreateVirtualNetwork(ctx, env.Project).VirtualNetworkCreateInput(metalv1.VirtualNetworkCreateInput{
			Metro: metalv1.PtrString(metro), Vxlan: metalv1.PtrInt32(v.GetVxlan()),
		}).Execute()
		refused(t, resp, err, "already exists in metro")
		list, _, err := c.VLANsApi.FindVirtualNetworks(ctx, env.Project).Metro(metro).Execute()
		if err != nil || len(list.GetVirtualNetworks()) != 1 || list.GetVirtualNetworks()[0].GetId() != vlan {
			t.Fatalf("the project's VLANs of %s: %+v, %v", metro, list, err)
		}
	})
	steps.Run("makes the device hybrid", active, func(t *testing.T) {
		eth1 = port(t, "eth1").GetId()
		p, _, err := c.PortsApi.DisbondPort(ctx, eth1).BulkDisable(false).Execute()
		if err != nil {
			t.Fatal(err)
		}
		data := p.GetData()
		if data.GetBonded() {
			t.Fatalf("eth1 after the disbond %+v", p)
		}
		bond0 := port(t, "bond0")
		if bond0.GetNetworkType() != metalv1.PORTNETWORKTYPE_HYBRID {
			t.Fatalf("bond0 is %s", bond0.GetNetworkType())
		}
		eth0 = port(t, "eth0").GetId()
	})
	steps.Run("assigns the VLAN to the unbonded port, as its native VLAN too",
		[]string{"creates a VLAN in the device's metro, its vxlan once", "makes the device hybrid"}, func(t *testing.T) {
			_, resp, err := c.PortsApi.AssignPort(ctx, eth0).PortAssignInput(metalv1.PortAssignInput{Vnid: &vlan}).Execute()
			refused(t, resp, err, "bonded port")
			p, _, err := c.PortsApi.AssignPort(ctx, eth1).PortAssignInput(metalv1.PortAssignInput{Vnid: &vlan}).Execute()
			if err != nil {
				t.Fatal(err)
			}
			if len(p.GetVirtualNetworks()) != 1 {
				t.Fatalf("port %+v", p)
			}
			p, _, err = c.PortsApi.AssignNativeVlan(ctx, eth1).Vnid(vlan).Execute()
			if err != nil {
				t.Fatal(err)
			}
			native := p.GetNativeVirtualNetwork()
			if !strings.HasSuffix(native.GetHref(), "/"+vlan) {
				t.Fatalf("native VLAN %+v", native)
			}
		})
	steps.Run("makes a Metal Gateway with a private block", []string{"assigns the VLAN to the unbonded port, as its native VLAN too"}, func(t *testing.T) {
		input := metalv1.MetalGatewayCreateInput{VirtualNetworkId: vlan, PrivateIpv4SubnetSize: metalv1.PtrInt32(8)}
		g, resp, err := c.MetalGatewaysApi.CreateMetalGateway(ctx, env.Project).
			CreateMetalGatewayRequest(metalv1.MetalGatewayCreateInputAsCreateMetalGatewayRequest(&input)).
			Execute()
		gateway = createdID(t, resp, err, 201, func() string { return g.GetActualInstance().(interface{ GetId() string }).GetId() })
		_, resp, err = c.MetalGatewaysApi.CreateMetalGateway(ctx, env.Project).
			CreateMetalGatewayRequest(metalv1.MetalGatewayCreateInputAsCreateMetalGatewayRequest(&input)).
			Execute()
		refused(t, resp, err, "already has a Metal Gateway")
		blocks, _, err := c.IPAddressesApi.FindIPReservations(ctx, env.Project).
			Types([]metalv1.FindIPReservationsTypesParameterInner{metalv1.FINDIPRESERVATIONSTYPESPARAMETERINNER_PRIVATE_IPV4}).
			Include([]string{"metal_gateway"}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(blocks.GetIpAddresses(), func(r metalv1.IPReservationListIpAddressesInner) bool {
			if r.IPReservation == nil {
				return false
			}
			g := r.IPReservation.GetMetalGateway()
			return g.GetId() == gateway
		})
		if i < 0 {
			t.Fatalf("no private block of gateway %s among %d", gateway, len(blocks.GetIpAddresses()))
		}
		b := blocks.GetIpAddresses()[i].IPReservation
		if b.GetCidr() != 29 || b.GetType() != metalv1.IPRESERVATIONTYPE_PRIVATE_IPV4 {
			t.Fatalf("the gateway's block %+v", b)
		}
		gatewayBlock = fmt.Sprintf("%s/%d", b.GetNetwork(), b.GetCidr())
	})
	steps.Run("makes a VRF with a route", active, func(t *testing.T) {
		v, _, err := c.VRFsApi.CreateVrf(ctx, env.Project).VrfCreateInput(metalv1.VrfCreateInput{
			Name: "metalv1-networking", Metro: metro, LocalAsn: metalv1.PtrInt64(65100),
			IpRanges: []string{"10.100.0.0/24"},
		}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		vrf = v.GetId()
		input := metalv1.VrfIpReservationCreateInput{Type: "vrf", VrfId: vrf, Network: "10.100.0.0", Cidr: 29}
		r, resp, err := c.IPAddressesApi.RequestIPReservation(ctx, env.Project).
			RequestIPReservationRequest(metalv1.VrfIpReservationCreateInputAsRequestIPReservationRequest(&input)).
			Execute()
		vrfBlock = createdID(t, resp, err, 201, func() string { return r.GetActualInstance().(interface{ GetId() string }).GetId() })
		made, _, err := c.VRFsApi.CreateVrfRoute(ctx, vrf).VrfRouteCreateInput(metalv1.VrfRouteCreateInput{
			Prefix: "0.0.0.0/0", NextHop: "10.100.0.2",
		}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if made.GetStatus() != metalv1.VRFROUTESTATUS_PENDING || made.GetNextHop() != "10.100.0.2" {
			t.Fatalf("route %+v", made)
		}
		route = made.GetId()
		if _, err := env.Fake.Advance(10); err != nil {
			t.Fatal(err)
		}
		got, _, err := c.VRFsApi.FindVrfRouteById(ctx, route).Execute()
		if err != nil || got.GetStatus() != metalv1.VRFROUTESTATUS_ACTIVE {
			t.Fatalf("the route after 10 s: %+v, %v", got, err)
		}
	})
	steps.Run("makes a BGP session and reads its neighbour data", active, func(t *testing.T) {
		ipv4 := metalv1.BGPSESSIONINPUTADDRESSFAMILY_IPV4
		input := metalv1.BGPSessionInput{AddressFamily: &ipv4, DefaultRoute: metalv1.PtrBool(true)}
		_, resp, err := c.DevicesApi.CreateBgpSession(ctx, device).BGPSessionInput(input).Execute()
		refused(t, resp, err, "BGP is not enabled")
		if _, err := c.BGPApi.RequestBgpConfig(ctx, env.Project).BgpConfigRequestInput(metalv1.BgpConfigRequestInput{
			Asn: 65000, DeploymentType: metalv1.BGPCONFIGREQUESTINPUTDEPLOYMENTTYPE_LOCAL, Md5: metalv1.PtrString("GoSecret12345"),
		}).Execute(); err != nil {
			t.Fatal(err)
		}
		s, _, err := c.DevicesApi.CreateBgpSession(ctx, device).BGPSessionInput(input).Execute()
		if err != nil {
			t.Fatal(err)
		}
		session = s.GetId()
		data, _, err := c.DevicesApi.GetBgpNeighborData(ctx, device).Execute()
		if err != nil || len(data.GetBgpNeighbors()) != 1 {
			t.Fatalf("neighbours %+v, %v", data, err)
		}
		n := data.GetBgpNeighbors()[0]
		out := n.GetRoutesOut()
		if n.GetAddressFamily() != 4 || n.GetCustomerAs() != 65000 || n.GetPeerAs() == 0 || len(n.GetPeerIps()) == 0 ||
			!n.GetMd5Enabled() || n.GetMd5Password() != "GoSecret12345" || n.GetCustomerIp() == "" ||
			len(out) != 1 || out[0].GetRoute() != "0.0.0.0/0" || !out[0].GetExact() {
			t.Fatalf("neighbour %+v", n)
		}
		// The project's blocks and subnets (the device's own private one
		// among them), not the gateway's private block.
		own := false
		for _, r := range n.GetRoutesIn() {
			if gatewayBlock != "" && r.GetRoute() == gatewayBlock {
				t.Fatalf("the gateway's block among the routes in: %+v", n.GetRoutesIn())
			}
			own = own || strings.HasPrefix(r.GetRoute(), "10.")
		}
		if !own {
			t.Fatalf("no private subnet among the routes in: %+v", n.GetRoutesIn())
		}
	})
	teardown := []string{
		"makes a Metal Gateway with a private block", "makes a VRF with a route",
		"makes a BGP session and reads its neighbour data",
	}
	steps.Run("tears it all down, each refusal once", teardown, func(t *testing.T) {
		if _, err := c.BGPApi.DeleteBgpSession(ctx, session).Execute(); err != nil {
			t.Fatal(err)
		}

		resp, err := c.VRFsApi.DeleteVrf(ctx, vrf).Execute()
		refused(t, resp, err, "The VRF is in use")
		// The block goes though the route's next hop is in it, and takes
		// the route (as metal-cli's route tests' cleanups release it).
		if _, err := c.IPAddressesApi.DeleteIPAddress(ctx, vrfBlock).Execute(); err != nil {
			t.Fatal(err)
		}
		if _, resp, _ := c.VRFsApi.FindVrfRouteById(ctx, route).Execute(); resp == nil || resp.StatusCode != 404 {
			t.Fatalf("the route after its next hop's block: %v", resp)
		}
		if _, err := c.VRFsApi.DeleteVrf(ctx, vrf).Execute(); err != nil {
			t.Fatal(err)
		}

		resp, err = c.VLANsApi.DeleteVirtualNetwork(ctx, vlan).Execute()
		refused(t, resp, err, "Cannot delete Virtual Network when port is assigned")
		_, resp, err = c.PortsApi.BondPort(ctx, eth1).BulkEnable(false).Execute()
		refused(t, resp, err, "has virtual networks")
		_, resp, err = c.PortsApi.UnassignPort(ctx, eth1).PortAssignInput(metalv1.PortAssignInput{Vnid: &vlan}).Execute()
		refused(t, resp, err, "native VLAN")
		if _, _, err := c.PortsApi.DeleteNativeVlan(ctx, eth1).Execute(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.PortsApi.UnassignPort(ctx, eth1).PortAssignInput(metalv1.PortAssignInput{Vnid: &vlan}).Execute(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.PortsApi.BondPort(ctx, eth1).BulkEnable(false).Execute(); err != nil {
			t.Fatal(err)
		}
		if bond0 := port(t, "bond0"); bond0.GetNetworkType() != metalv1.PORTNETWORKTYPE_LAYER3 {
			t.Fatalf("bond0 back to %s", bond0.GetNetworkType())
		}

		// The gateway's delete is done at once: it reads 404 right after
		// (as metal-cli's TestGateways_Delete read it); then the VLAN.
		if _, resp, err := c.MetalGatewaysApi.DeleteMetalGateway(ctx, gateway).Execute(); resp == nil || resp.StatusCode != 202 {
			t.Fatalf("gateway delete: %v", err)
		}
		if _, resp, _ := c.MetalGatewaysApi.FindMetalGatewayById(ctx, gateway).Execute(); resp == nil || resp.StatusCode != 404 {
			t.Fatalf("the gateway after its delete: %v", resp)
		}
		if resp, err := c.VLANsApi.DeleteVirtualNetwork(ctx, vlan).Execute(); resp == nil || resp.StatusCode >= 300 {
			t.Fatalf("VLAN delete: %v", err)
		}
		if _, err := c.DevicesApi.DeleteDevice(ctx, device).Execute(); err != nil {
			t.Fatal(err)
		}
	})
}
