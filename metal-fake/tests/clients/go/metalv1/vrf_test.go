// A VRF walk through equinix-sdk-go's metalv1 client (unmodified), as the
// Terraform provider's VRF resources use it: a VRF with a range, a VRF IP
// reservation inside it, a VLAN and a VRF Metal Gateway on it, a static
// default route to a next hop in it (pending, then active on the fake's
// clock); one refusal (a route whose next hop is outside the VRF's
// blocks); torn down route first. Run by `cargo test -p metal-fake
// --all-features --test external_clients -- --ignored`.
package metalv1_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/equinix/equinix-sdk-go/services/metalv1"

	"metal-fake/tests/clients/harness"
)

// createdID is the ID of what a create of a oneOf reply made. metalv1
// decodes such a reply (a gateway, an IP reservation) into every
// alternative that takes it, and as each takes unknown properties a reply
// fits both, which it reports as an error: the reply itself is then the
// error's body, and its status the create's.
func createdID(t *testing.T, resp *http.Response, err error, status int, decoded func() string) string {
	t.Helper()
	if resp == nil || resp.StatusCode != status {
		t.Fatalf("want status %d, got %v", status, err)
	}
	if err == nil {
		return decoded()
	}
	var e *metalv1.GenericOpenAPIError
	if !errors.As(err, &e) || !strings.Contains(e.Error(), "oneOf") {
		t.Fatalf("want a oneOf decoding error, got %v", err)
	}
	var body struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(e.Body(), &body) != nil || body.ID == "" {
		t.Fatalf("the reply %s has no id", e.Body())
	}
	return body.ID
}

func TestVrf(t *testing.T) {
	env := harness.Start(t)
	c := client(env)
	ctx := authed(env.Token)
	steps := harness.NewSteps(t)
	var vrf, block, vlan, gateway, route string

	steps.Run("creates a VRF", nil, func(t *testing.T) {
		v, _, err := c.VRFsApi.CreateVrf(ctx, env.Project).VrfCreateInput(metalv1.VrfCreateInput{
			Name: "metalv1-vrf", Metro: "da", LocalAsn: metalv1.PtrInt64(65000),
			IpRanges: []string{"192.168.100.0/25"},
		}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if v.GetLocalAsn() != 65000 || len(v.GetIpRanges()) != 1 {
			t.Fatalf("created VRF %+v", v)
		}
		got, _, err := c.VRFsApi.FindVrfById(ctx, v.GetId()).Include([]string{"project", "metro"}).Execute()
		if err != nil || got.Metro.GetCode() != "da" || got.Project.GetId() != env.Project {
			t.Fatalf("read back %+v, %v", got, err)
		}
		vrf = v.GetId()
	})
	steps.Run("reserves a VRF block", []string{"creates a VRF"}, func(t *testing.T) {
		input := metalv1.VrfIpReservationCreateInput{
			Type: "vrf", VrfId: vrf, Network: "192.168.100.0", Cidr: 29,
		}
		r, resp, err := c.IPAddressesApi.RequestIPReservation(ctx, env.Project).
			RequestIPReservationRequest(metalv1.VrfIpReservationCreateInputAsRequestIPReservationRequest(&input)).
			Execute()
		block = createdID(t, resp, err, 201, func() string { return r.GetActualInstance().(interface{ GetId() string }).GetId() })
		list, _, err := c.VRFsApi.FindVrfIpReservations(ctx, vrf).Execute()
		if err != nil || len(list.GetIpAddresses()) != 1 || list.GetIpAddresses()[0].GetId() != block {
			t.Fatalf("the VRF's blocks %+v, %v", list, err)
		}
		one, _, err := c.VRFsApi.FindVrfIpReservation(ctx, vrf, block).Execute()
		if err != nil || one.GetNetwork() != "192.168.100.0" || one.GetCidr() != 29 {
			t.Fatalf("the block %+v, %v", one, err)
		}
	})
	steps.Run("creates a VRF gateway", []string{"reserves a VRF block"}, func(t *testing.T) {
		v, _, err := c.VLANsApi.CreateVirtualNetwork(ctx, env.Project).
			VirtualNetworkCreateInput(metalv1.VirtualNetworkCreateInput{Metro: metalv1.PtrString("da")}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		vlan = v.GetId()
		input := metalv1.VrfMetalGatewayCreateInput{IpReservationId: block, VirtualNetworkId: vlan}
		g, resp, err := c.MetalGatewaysApi.CreateMetalGateway(ctx, env.Project).
			CreateMetalGatewayRequest(metalv1.VrfMetalGatewayCreateInputAsCreateMetalGatewayRequest(&input)).
			Execute()
		gateway = createdID(t, resp, err, 201, func() string { return g.GetActualInstance().(interface{ GetId() string }).GetId() })
	})
	steps.Run("routes the default route to the gateway's block", []string{"creates a VRF gateway"}, func(t *testing.T) {
		_, resp, err := c.VRFsApi.CreateVrfRoute(ctx, vrf).VrfRouteCreateInput(metalv1.VrfRouteCreateInput{
			Prefix: "0.0.0.0/0", NextHop: "192.168.100.200",
		}).Execute()
		body := apiError(t, resp, err, 422)
		if !strings.Contains(strings.Join(body.GetErrors(), " "), "not within an IP reservation of the VRF") {
			t.Fatalf("refusal %v", body.GetErrors())
		}
		r, _, err := c.VRFsApi.CreateVrfRoute(ctx, vrf).VrfRouteCreateInput(metalv1.VrfRouteCreateInput{
			Prefix: "0.0.0.0/0", NextHop: "192.168.100.2",
		}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if r.GetStatus() != metalv1.VRFROUTESTATUS_PENDING || r.MetalGateway.GetHref() != "/metal/v1/metal-gateways/"+gateway {
			t.Fatalf("route %+v", r)
		}
		route = r.GetId()
		if _, err := env.Fake.Advance(10); err != nil {
			t.Fatal(err)
		}
		got, _, err := c.VRFsApi.FindVrfRouteById(ctx, route).Execute()
		if err != nil || got.GetStatus() != metalv1.VRFROUTESTATUS_ACTIVE {
			t.Fatalf("after 10 s: %+v, %v", got, err)
		}
		list, _, err := c.VRFsApi.GetVrfRoutes(ctx, vrf).Execute()
		if err != nil || len(list.GetRoutes()) != 1 {
			t.Fatalf("routes %+v, %v", list, err)
		}
	})
	steps.Run("tears it down", []string{"routes the default route to the gateway's block"}, func(t *testing.T) {
		// The spec lists no 422 for deleteVrf, so the SDK keeps the
		// refusal's body undecoded: its status and text are what a
		// caller sees.
		resp, err := c.VRFsApi.DeleteVrf(ctx, vrf).Execute()
		var e *metalv1.GenericOpenAPIError
		if resp == nil || resp.StatusCode != 422 || !errors.As(err, &e) || !strings.Contains(string(e.Body()), "in use") {
			t.Fatalf("a VRF in use: want 422, got %v", err)
		}
		if _, _, err := c.VRFsApi.DeleteVrfRouteById(ctx, route).Execute(); err != nil {
			t.Fatal(err)
		}
		// Its block stays bound while the gateway stands (the real API's
		// words, terraform-provider-equinix PR 138's log); the gateway's
		// delete is done at once, the block free right after.
		resp, err = c.IPAddressesApi.DeleteIPAddress(ctx, block).Execute()
		if resp == nil || resp.StatusCode != 422 || !errors.As(err, &e) || !strings.Contains(string(e.Body()), "Cannot delete with associated metal gateway") {
			t.Fatalf("the block of a gateway: want 422, got %v", err)
		}
		if _, resp, err := c.MetalGatewaysApi.DeleteMetalGateway(ctx, gateway).Execute(); resp == nil || resp.StatusCode != 202 {
			t.Fatalf("gateway delete: %v", err)
		}
		if resp, err := c.IPAddressesApi.DeleteIPAddress(ctx, block).Execute(); err != nil {
			t.Fatalf("block delete %v: %v", resp, err)
		}
		if resp, err := c.VLANsApi.DeleteVirtualNetwork(ctx, vlan).Execute(); resp == nil || resp.StatusCode >= 300 {
			t.Fatalf("VLAN delete: %v", err)
		}
		if _, err := c.VRFsApi.DeleteVrf(ctx, vrf).Execute(); err != nil {
			t.Fatal(err)
		}
		_, resp, err = c.VRFsApi.FindVrfById(ctx, vrf).Execute()
		apiError(t, resp, err, 404)
	})
}
