// A VRF walk through packngo (github.com/packethost/packngo, unmodified),
// as the Terraform provider's VRF acceptance test builds one: a VRF with
// a range, a VRF IP reservation inside it, a VLAN and a VRF Metal Gateway
// on the reservation; one refusal (a block outside the VRF's ranges);
// torn down gateway first. packngo has no VRF routes (metalv1's walk has
// them). Run by `cargo test -p metal-fake --all-features --test
// external_clients -- --ignored`.
package packngo_test

import (
	"strings"
	"testing"

	"github.com/packethost/packngo"

	"metal-fake/tests/clients/harness"
)

func TestVrf(t *testing.T) {
	env := harness.Start(t)
	c := client(t, env, env.Token)
	steps := harness.NewSteps(t)
	var (
		vrf     *packngo.VRF
		block   *packngo.IPAddressReservation
		vlan    *packngo.VirtualNetwork
		gateway *packngo.MetalGateway
	)

	steps.Run("creates a VRF", nil, func(t *testing.T) {
		v, _, err := c.VRFs.Create(env.Project, &packngo.VRFCreateRequest{
			Metro: "da", Name: "packngo-vrf", LocalASN: 65000,
			IPRanges: []string{"192.168.100.0/25"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if v.ID == "" || v.LocalASN != 65000 || len(v.IPRanges) != 1 || v.Metro == nil || v.Metro.Code != "da" {
			t.Fatalf("created VRF %+v", v)
		}
		got, _, err := c.VRFs.Get(v.ID, &packngo.GetOptions{Includes: []string{"project"}})
		if err != nil || got.Project == nil || got.Project.ID != env.Project {
			t.Fatalf("get: %+v, %v", got, err)
		}
		all, _, err := c.VRFs.List(env.Project, nil)
		if err != nil || len(all) != 1 || all[0].ID != v.ID {
			t.Fatalf("list: %+v, %v", all, err)
		}
		vrf = v
	})
	steps.Run("refuses a block outside the VRF's ranges", []string{"creates a VRF"}, func(t *testing.T) {
		_, _, err := c.ProjectIPs.Create(env.Project, &packngo.IPReservationCreateRequest{
			Type: packngo.VRFIPRange, VRFID: vrf.ID, Network: "192.168.100.128", CIDR: 29,
		})
		e := apiError(t, err, 422)
		if len(e.Errors) == 0 || !strings.Contains(e.Errors[0], "not within the VRF's IP ranges") {
			t.Fatalf("refusal %v", e.Errors)
		}
	})
	steps.Run("reserves a VRF block", []string{"creates a VRF"}, func(t *testing.T) {
		b, _, err := c.ProjectIPs.Create(env.Project, &packngo.IPReservationCreateRequest{
			Type: packngo.VRFIPRange, VRFID: vrf.ID, Network: "192.168.100.0", CIDR: 29,
			Description: "packngo",
		})
		if err != nil {
			t.Fatal(err)
		}
		if b.ID == "" || b.Network != "192.168.100.0" || b.CIDR != 29 || b.Type != packngo.VRFIPRange {
			t.Fatalf("block %+v", b)
		}
		ips, _, err := c.VRFs.ListIPs(vrf.ID, nil)
		if err != nil || len(ips) != 1 || ips[0].ID != b.ID {
			t.Fatalf("the VRF's blocks: %+v, %v", ips, err)
		}
		block = b
	})
	steps.Run("creates a VRF gateway", []string{"reserves a VRF block"}, func(t *testing.T) {
		v, _, err := c.ProjectVirtualNetworks.Create(&packngo.VirtualNetworkCreateRequest{
			ProjectID: env.Project, Metro: "da",
		})
		if err != nil {
			t.Fatal(err)
		}
		vlan = v
		g, _, err := c.MetalGateways.Create(env.Project, &packngo.MetalGatewayCreateRequest{
			VirtualNetworkID: vlan.ID, IPReservationID: block.ID,
		})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := c.MetalGateways.Get(g.ID, &packngo.GetOptions{Includes: []string{"ip_reservation", "vrf"}})
		if err != nil {
			t.Fatal(err)
		}
		if got.VRF == nil || got.VRF.ID != vrf.ID || got.IPReservation == nil || got.IPReservation.ID != block.ID {
			t.Fatalf("gateway %+v", got)
		}
		gateway = g
	})
	steps.Run("tears it down", []string{"creates a VRF gateway"}, func(t *testing.T) {
		if _, err := c.VRFs.Delete(vrf.ID); err == nil {
			t.Fatal("a VRF in use was deleted")
		} else {
			apiError(t, err, 422)
		}
		if _, err := c.MetalGateways.Delete(gateway.ID); err != nil {
			t.Fatal(err)
		}
		// Gone at once, its block free (metal-cli's gateway and BGP
		// tests' cleanups release it right after).
		gatewayGone(t, c, gateway.ID)
		if _, err := c.ProjectIPs.Delete(block.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ProjectVirtualNetworks.Delete(vlan.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.VRFs.Delete(vrf.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.VRFs.Get(vrf.ID, nil); err == nil {
			t.Fatal("the VRF is still there")
		} else {
			apiError(t, err, 404)
		}
	})
}
