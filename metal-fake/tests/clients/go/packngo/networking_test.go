// A networking walk through packngo (github.com/packethost/packngo,
// unmodified), as the Terraform provider's network resources drive it: a
// device, a VLAN of its metro, the device converted to hybrid with
// packngo's own DeviceToNetworkType, the VLAN on its unbonded port (and
// as its native VLAN), a Metal Gateway with a private block made with it,
// a VRF with a block and a static route (packngo has no route calls: the
// route goes through its exported DoRequest, as a packngo user adds what
// the library lacks), the project's BGP turned on, a BGP session and its
// neighbour data. Then everything torn down in the order the API allows,
// each of its refusals met once on the way. Run by `cargo test -p
// metal-fake --all-features --test external_clients -- --ignored`.
package packngo_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/packethost/packngo"

	"metal-fake/tests/clients/harness"
)

// refused checks that err is packngo's ErrorResponse with a 422 whose
// errors mention want.
func refused(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a 422 refusal mentioning %q, the call succeeded", want)
	}
	e := apiError(t, err, 422)
	if !strings.Contains(strings.Join(e.Errors, " "), want) {
		t.Fatalf("want a refusal mentioning %q, got %v", want, e.Errors)
	}
}

// gatewayGone checks that a deleted gateway reads 404 at once, as
// metal-cli's TestGateways_Delete read it from the real API.
func gatewayGone(t *testing.T, c *packngo.Client, id string) {
	t.Helper()
	if _, _, err := c.MetalGateways.Get(id, nil); err == nil {
		t.Fatalf("gateway %s is still there", id)
	} else {
		apiError(t, err, 404)
	}
}

// vrfRoute is a VRF route as the API answers it (packngo has no type).
type vrfRoute struct {
	ID      string `json:"id"`
	Prefix  string `json:"prefix"`
	NextHop string `json:"next_hop"`
	Status  string `json:"status"`
}

func TestNetworking(t *testing.T) {
	env := harness.Start(t)
	c := client(t, env, env.Token)
	steps := harness.NewSteps(t)
	var (
		device     *packngo.Device
		metro      string
		vlan       *packngo.VirtualNetwork
		eth0, eth1 *packngo.Port
		gateway    *packngo.MetalGateway
		block      string
		blockCIDR  string
		vrf        *packngo.VRF
		vrfBlock   *packngo.IPAddressReservation
		route      vrfRoute
		session    *packngo.BGPSession
	)
	port := func(t *testing.T, name string) *packngo.Port {
		t.Helper()
		d, _, err := c.Devices.Get(device.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := d.GetPortByName(name)
		if err != nil {
			t.Fatalf("device %s: %v", d.ID, err)
		}
		return p
	}

	steps.Run("creates a device and reads it until active", nil, func(t *testing.T) {
		all, _, err := c.HardwareReservations.List(env.Project, nil)
		if err != nil || len(all) == 0 || all[0].Facility.Metro == nil {
			t.Fatalf("reservations %+v, %v", all, err)
		}
		device = createOn(t, c, env, all[0], "packngo-networking")
		metro = all[0].Facility.Metro.Code
		waitState(t, c, device.ID, "active")
	})
	steps.Run("creates a VLAN in the device's metro, its vxlan once", []string{"creates a device and reads it until active"}, func(t *testing.T) {
		v, _, err := c.ProjectVirtualNetworks.Create(&packngo.VirtualNetworkCreateRequest{
			ProjectID: env.Project, Metro: metro, Description: "packngo-networking",
		})
		if err != nil {
			t.Fatal(err)
		}
		if v.ID == "" || v.VXLAN < 2 || v.VXLAN > 3999 || v.MetroCode != metro || v.Description != "packngo-networking" {
			t.Fatalf("created VLAN %+v", v)
		}
		vlan = v
		_, _, err = c.ProjectVirtualNetworks.Create(&packngo.VirtualNetworkCreateRequest{
			ProjectID: env.Project, Metro: metro, VXLAN: vlan.VXLAN,
		})
		refused(t, err, "already exists in metro")
		list, _, err := c.ProjectVirtualNetworks.List(env.Project, nil)
		if err != nil || len(list.VirtualNetworks) != 1 || list.VirtualNetworks[0].ID != vlan.ID {
			t.Fatalf("the project's VLANs %+v, %v", list, err)
		}
	})
	steps.Run("converts the device to hybrid", []string{"creates a device and reads it until active"}, func(t *testing.T) {
		d, err := c.DevicePorts.DeviceToNetworkType(device.ID, packngo.NetworkTypeHybrid)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.GetNetworkType(); got != packngo.NetworkTypeHybrid {
			t.Fatalf("network type %s", got)
		}
		bond0 := port(t, "bond0")
		eth0, eth1 = port(t, "eth0"), port(t, "eth1")
		if bond0.NetworkType != packngo.NetworkTypeHybrid || !eth0.Data.Bonded || eth1.Data.Bonded || eth1.Bond == nil || eth1.Bond.Name != "bond0" {
			t.Fatalf("after the conversion: bond0 %+v, eth0 %+v, eth1 %+v", bond0, eth0, eth1)
		}
	})
	steps.Run("assigns the VLAN to the unbonded port, as its native VLAN too", []string{"creates a VLAN in the device's metro, its vxlan once", "converts the device to hybrid"}, func(t *testing.T) {
		_, _, err := c.Ports.Assign(eth0.ID, vlan.ID)
		refused(t, err, "bonded port")
		p, _, err := c.Ports.Assign(eth1.ID, vlan.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.AttachedVirtualNetworks) != 1 {
			t.Fatalf("port %+v", p)
		}
		p, _, err = c.Ports.AssignNative(eth1.ID, vlan.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p.NativeVirtualNetwork == nil || !strings.HasSuffix(p.NativeVirtualNetwork.Href, "/"+vlan.ID) {
			t.Fatalf("native VLAN %+v", p.NativeVirtualNetwork)
		}
		got, _, err := c.ProjectVirtualNetworks.Get(vlan.ID, &packngo.GetOptions{Includes: []string{"instances"}})
		if err != nil || len(got.Instances) != 1 || got.Instances[0].ID != device.ID {
			t.Fatalf("the VLAN's instances %+v, %v", got, err)
		}
	})
	steps.Run("makes a Metal Gateway with a private block", []string{"assigns the VLAN to the unbonded port, as its native VLAN too"}, func(t *testing.T) {
		g, _, err := c.MetalGateways.Create(env.Project, &packngo.MetalGatewayCreateRequest{
			VirtualNetworkID: vlan.ID, PrivateIPv4SubnetSize: 8,
		})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = c.MetalGateways.Create(env.Project, &packngo.MetalGatewayCreateRequest{
			VirtualNetworkID: vlan.ID, PrivateIPv4SubnetSize: 8,
		})
		refused(t, err, "already has a Metal Gateway")
		got, _, err := c.MetalGateways.Get(g.ID, &packngo.GetOptions{Includes: []string{"ip_reservation", "virtual_network"}})
		if err != nil {
			t.Fatal(err)
		}
		r := got.IPReservation
		if r == nil || r.CIDR != 29 || r.Type != packngo.PrivateIPv4 || r.Public || got.VirtualNetwork == nil || got.VirtualNetwork.ID != vlan.ID {
			t.Fatalf("gateway %+v, its block %+v", got, r)
		}
		read, _, err := c.ProjectIPs.Get(r.ID, &packngo.GetOptions{Includes: []string{"metal_gateway"}})
		if err != nil || read.MetalGateway == nil || read.MetalGateway.ID != g.ID {
			t.Fatalf("the block's gateway %+v, %v", read, err)
		}
		gateway, block = g, r.ID
		blockCIDR = fmt.Sprintf("%s/%d", r.Network, r.CIDR)
	})
	steps.Run("makes a VRF with a route", []string{"creates a device and reads it until active"}, func(t *testing.T) {
		v, _, err := c.VRFs.Create(env.Project, &packngo.VRFCreateRequest{
			Metro: metro, Name: "packngo-networking", LocalASN: 65100,
			IPRanges: []string{"10.100.0.0/24"},
		})
		if err != nil {
			t.Fatal(err)
		}
		vrf = v
		b, _, err := c.ProjectIPs.Create(env.Project, &packngo.IPReservationCreateRequest{
			Type: packngo.VRFIPRange, VRFID: vrf.ID, Network: "10.100.0.0", CIDR: 29,
		})
		if err != nil {
			t.Fatal(err)
		}
		vrfBlock = b
		_, err = c.DoRequest("POST", "/vrfs/"+vrf.ID+"/routes",
			map[string]string{"prefix": "0.0.0.0/0", "next_hop": "10.100.0.200"}, nil)
		refused(t, err, "not within an IP reservation of the VRF")
		if _, err := c.DoRequest("POST", "/vrfs/"+vrf.ID+"/routes",
			map[string]string{"prefix": "0.0.0.0/0", "next_hop": "10.100.0.2"}, &route); err != nil {
			t.Fatal(err)
		}
		if route.ID == "" || route.Prefix != "0.0.0.0/0" || route.NextHop != "10.100.0.2" || route.Status != "pending" {
			t.Fatalf("route %+v", route)
		}
		if _, err := env.Fake.Advance(10); err != nil {
			t.Fatal(err)
		}
		var read vrfRoute
		if _, err := c.DoRequest("GET", "/routes/"+route.ID, nil, &read); err != nil || read.Status != "active" {
			t.Fatalf("the route after 10 s: %+v, %v", read, err)
		}
	})
	steps.Run("makes a BGP session and reads its neighbour data", []string{"creates a device and reads it until active"}, func(t *testing.T) {
		_, _, err := c.BGPSessions.Create(device.ID, packngo.CreateBGPSessionRequest{AddressFamily: "ipv4"})
		refused(t, err, "BGP is not enabled")
		if _, err := c.BGPConfig.Create(env.Project, packngo.CreateBGPConfigRequest{
			DeploymentType: "local", Asn: 65000, Md5: "PkSecret12345",
		}); err != nil {
			t.Fatal(err)
		}
		yes := true
		s, _, err := c.BGPSessions.Create(device.ID, packngo.CreateBGPSessionRequest{AddressFamily: "ipv4", DefaultRoute: &yes})
		if err != nil {
			t.Fatal(err)
		}
		if s.ID == "" || s.AddressFamily != "ipv4" {
			t.Fatalf("session %+v", s)
		}
		session = s
		neighbours, _, err := c.Devices.ListBGPNeighbors(device.ID, nil)
		if err != nil || len(neighbours) != 1 {
			t.Fatalf("neighbours %+v, %v", neighbours, err)
		}
		n := neighbours[0]
		if n.AddressFamily != 4 || n.CustomerAs != 65000 || n.PeerAs == 0 || len(n.PeerIps) == 0 ||
			!n.Md5Enabled || n.Md5Password != "PkSecret12345" || n.CustomerIP == "" ||
			len(n.RoutesOut) != 1 || n.RoutesOut[0].Route != "0.0.0.0/0" {
			t.Fatalf("neighbour %+v", n)
		}
		// What a device may announce: the project's blocks and subnets
		// (the device's own private one among them), not the gateway's
		// private block.
		own := false
		for _, r := range n.RoutesIn {
			if blockCIDR != "" && r.Route == blockCIDR {
				t.Fatalf("the gateway's block among the routes in: %+v", n.RoutesIn)
			}
			own = own || strings.HasPrefix(r.Route, "10.")
		}
		if !own {
			t.Fatalf("no private subnet among the routes in: %+v", n.RoutesIn)
		}
	})
	teardown := []string{
		"makes a Metal Gateway with a private block", "makes a VRF with a route",
		"makes a BGP session and reads its neighbour data",
	}
	steps.Run("tears it all down, each refusal once", teardown, func(t *testing.T) {
		if _, err := c.BGPSessions.Delete(session.ID); err != nil {
			t.Fatal(err)
		}
		if neighbours, _, err := c.Devices.ListBGPNeighbors(device.ID, nil); err != nil || len(neighbours) != 0 {
			t.Fatalf("neighbours after the session's delete %+v, %v", neighbours, err)
		}

		_, err := c.VRFs.Delete(vrf.ID)
		refused(t, err, "The VRF is in use")
		// The block goes though the route's next hop is in it, and takes
		// the route (as metal-cli's route tests' cleanups release it).
		if _, err := c.ProjectIPs.Delete(vrfBlock.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DoRequest("GET", "/routes/"+route.ID, nil, nil); err == nil {
			t.Fatal("the route outlived its next hop's block")
		} else {
			apiError(t, err, 404)
		}
		if _, err := c.VRFs.Delete(vrf.ID); err != nil {
			t.Fatal(err)
		}

		_, err = c.ProjectVirtualNetworks.Delete(vlan.ID)
		refused(t, err, "Cannot delete Virtual Network when port is assigned")
		_, _, err = c.Ports.Bond(eth1.ID, false)
		refused(t, err, "has virtual networks")
		_, _, err = c.Ports.Unassign(eth1.ID, vlan.ID)
		refused(t, err, "native VLAN")
		if _, _, err := c.Ports.UnassignNative(eth1.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Ports.Unassign(eth1.ID, vlan.ID); err != nil {
			t.Fatal(err)
		}
		d, err := c.DevicePorts.DeviceToNetworkType(device.ID, packngo.NetworkTypeL3)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.GetNetworkType(); got != packngo.NetworkTypeL3 {
			t.Fatalf("network type back to %s", got)
		}

		// The gateway holds its block while it stands; its delete is done
		// at once, the block made with it gone too.
		_, err = c.ProjectIPs.Delete(block)
		refused(t, err, "Cannot delete with associated metal gateway")
		if _, err := c.MetalGateways.Delete(gateway.ID); err != nil {
			t.Fatal(err)
		}
		gatewayGone(t, c, gateway.ID)
		if _, _, err := c.ProjectIPs.Get(block, nil); err == nil {
			t.Fatal("the gateway's private block outlived it")
		} else {
			apiError(t, err, 404)
		}
		if _, err := c.ProjectVirtualNetworks.Delete(vlan.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Devices.Delete(device.ID, false); err != nil {
			t.Fatal(err)
		}
	})
}
