// A layer-2 walk through equinix-sdk-go's metalv1 (unmodified), on a world
// of its own (harness.OwnWorld): a device on demand goes layer 3 -> layer
// 2 bonded -> layer 2 individual -> hybrid -> layer 3 with the port calls
// as metal-cli's `port convert` makes them (layer 2 with an empty
// PortAssignInput; bond and disbond with the spec's bulk query; layer 3
// with request_ips), its ports and addresses read at each step; then a
// spot instance, and the devices deleted with the spec's force_delete
// query. Run by `cargo test -p
// metal-fake --all-features --test external_clients -- --ignored`.
package metalv1_test

import (
	"testing"

	"github.com/equinix/equinix-sdk-go/services/metalv1"

	"metal-fake/tests/clients/harness"
)

func TestLayer2(t *testing.T) {
	env := harness.StartOwn(t)
	c := client(env)
	ctx := authed(env.Token)
	steps := harness.NewSteps(t)
	var device, bond0, eth1 string
	// check reads the device: bond0's network type, each port's bonded
	// flag (bond0, eth0, eth1) and how many addresses it has.
	check := func(t *testing.T, what string, network metalv1.PortNetworkType, bonded [3]bool, addresses int) {
		t.Helper()
		d, _, err := c.DevicesApi.FindDeviceById(ctx, device).Execute()
		if err != nil {
			t.Fatal(err)
		}
		ports := d.GetNetworkPorts()
		if len(ports) != 3 {
			t.Fatalf("%s: ports %+v", what, ports)
		}
		data := func(i int) bool { d := ports[i].GetData(); return d.GetBonded() }
		if ports[0].GetNetworkType() != network || [3]bool{data(0), data(1), data(2)} != bonded {
			t.Fatalf("%s: bond0 %s, bonded %v %v %v", what, ports[0].GetNetworkType(), data(0), data(1), data(2))
		}
		if got := len(d.GetIpAddresses()); got != addresses {
			t.Fatalf("%s: %d addresses, want %d", what, got, addresses)
		}
	}
	ok := func(t *testing.T, what string, _ *metalv1.Port, _ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	steps.Run("creates a device on demand and reads it until active", nil, func(t *testing.T) {
		input := metalv1.NewDeviceCreateInMetroInput("da", harness.OS, "c3.small.x86")
		input.SetHostname("metalv1-layer2")
		d, _, err := c.DevicesApi.CreateDevice(ctx, env.Project).
			CreateDeviceRequest(metalv1.DeviceCreateInMetroInputAsCreateDeviceRequest(input)).
			Execute()
		if err != nil {
			t.Fatal(err)
		}
		device = d.GetId()
		waitState(t, ctx, c, device, metalv1.DEVICESTATE_ACTIVE)
		d, _, err = c.DevicesApi.FindDeviceById(ctx, device).Execute()
		if err != nil {
			t.Fatal(err)
		}
		ports := d.GetNetworkPorts()
		bond0, eth1 = ports[0].GetId(), ports[2].GetId()
		check(t, "new", metalv1.PORTNETWORKTYPE_LAYER3, [3]bool{true, true, true}, 3)
	})
	steps.Run("goes layer 2 bonded, individual, hybrid and back to layer 3", []string{"creates a device on demand and reads it until active"}, func(t *testing.T) {
		p, resp, err := c.PortsApi.ConvertLayer2(ctx, bond0).PortAssignInput(*metalv1.NewPortAssignInput()).Execute()
		ok(t, "layer 2", p, resp, err)
		check(t, "layer 2 bonded", metalv1.PORTNETWORKTYPE_LAYER2_BONDED, [3]bool{true, true, true}, 0)

		p, resp, err = c.PortsApi.DisbondPort(ctx, bond0).BulkDisable(true).Execute()
		ok(t, "disbond", p, resp, err)
		check(t, "layer 2 individual", metalv1.PORTNETWORKTYPE_LAYER2_INDIVIDUAL, [3]bool{false, false, false}, 0)

		p, resp, err = c.PortsApi.BondPort(ctx, bond0).BulkEnable(true).Execute()
		ok(t, "bond", p, resp, err)
		four, six, yes, no := int32(4), int32(6), true, false
		p, resp, err = c.PortsApi.ConvertLayer3(ctx, bond0).PortConvertLayer3Input(metalv1.PortConvertLayer3Input{
			RequestIps: []metalv1.PortConvertLayer3InputRequestIpsInner{
				{AddressFamily: &four, Public: &no},
				{AddressFamily: &four, Public: &yes},
				{AddressFamily: &six, Public: &yes},
			},
		}).Execute()
		ok(t, "layer 3", p, resp, err)
		if p.GetNetworkType() != metalv1.PORTNETWORKTYPE_LAYER3 {
			t.Fatalf("layer 3: %s", p.GetNetworkType())
		}
		p, resp, err = c.PortsApi.DisbondPort(ctx, eth1).Execute()
		ok(t, "disbond eth1", p, resp, err)
		check(t, "hybrid", metalv1.PORTNETWORKTYPE_HYBRID, [3]bool{true, true, false}, 3)
		// A layer-3 bond may lose every port (hybrid), as the Terraform
		// providers' port resource disbonds bond0 before converting it to
		// layer 2.
		p, resp, err = c.PortsApi.DisbondPort(ctx, bond0).BulkDisable(true).Execute()
		ok(t, "disbond bond0", p, resp, err)
		check(t, "hybrid, every port out", metalv1.PORTNETWORKTYPE_HYBRID, [3]bool{false, false, false}, 3)

		p, resp, err = c.PortsApi.BondPort(ctx, bond0).Execute()
		ok(t, "bond again", p, resp, err)
		check(t, "layer 3 again", metalv1.PORTNETWORKTYPE_LAYER3, [3]bool{true, true, true}, 3)
	})
	steps.Run("creates a spot instance and deletes it, force_delete in the query", nil, func(t *testing.T) {
		// metalv1's SpotMarketRequest types `facilities` as one Href where
		// packngo and the Terraform provider read a list, so a request's
		// reply does not decode here: the spot instance is made directly.
		input := metalv1.NewDeviceCreateInMetroInput("da", harness.OS, "c3.small.x86")
		input.SetHostname("metalv1-spot")
		input.SetSpotInstance(true)
		input.SetSpotPriceMax(0.15)
		d, _, err := c.DevicesApi.CreateDevice(ctx, env.Project).
			CreateDeviceRequest(metalv1.DeviceCreateInMetroInputAsCreateDeviceRequest(input)).
			Execute()
		if err != nil {
			t.Fatal(err)
		}
		if !d.GetSpotInstance() || d.GetSpotPriceMax() != 0.15 {
			t.Fatalf("spot instance %v at %v", d.GetSpotInstance(), d.GetSpotPriceMax())
		}
		waitState(t, ctx, c, d.GetId(), metalv1.DEVICESTATE_ACTIVE)
		if _, err := c.DevicesApi.DeleteDevice(ctx, d.GetId()).ForceDelete(true).Execute(); err != nil {
			t.Fatal(err)
		}
		_, resp, err := c.DevicesApi.FindDeviceById(ctx, d.GetId()).Execute()
		apiError(t, resp, err, 404)
	})
	steps.Run("deletes the device, force_delete in the query", []string{"creates a device on demand and reads it until active"}, func(t *testing.T) {
		if _, err := c.DevicesApi.DeleteDevice(ctx, device).ForceDelete(true).Execute(); err != nil {
			t.Fatal(err)
		}
		_, resp, err := c.DevicesApi.FindDeviceById(ctx, device).Execute()
		apiError(t, resp, err, 404)
	})
}
