// A layer-2 walk through packngo (unmodified), on a world of its own
// (harness.OwnWorld): a device on demand goes layer 3 -> layer 2 bonded
// -> layer 2 individual -> hybrid -> layer 3 with packngo's own
// DevicePorts.DeviceToNetworkType (which checks the type packngo computes
// after each conversion), then through the rest of packngo's own
// TestAccDevicePortNetworkStateTransitions; at each step the ports and the
// device's addresses agree (a layer-2 device has none). Then the input
// forms packngo sends: custom data as text and cleared with "", a spot
// instance with its bid as text (the `,string` tag), a spot market request
// deleted with force_termination in the body, devices deleted with
// force_delete in the body. Run by `cargo test -p metal-fake
// --all-features --test external_clients -- --ignored`.
package packngo_test

import (
	"testing"

	"github.com/packethost/packngo"

	"metal-fake/tests/clients/harness"
)

// bond0Type is what packngo's caller sees of each network type: the bond's
// network_type, whether the device has addresses.
var bond0Type = map[string]struct {
	bond      string
	addresses bool
}{
	packngo.NetworkTypeL3:           {"layer3", true},
	packngo.NetworkTypeHybrid:       {"hybrid", true},
	packngo.NetworkTypeL2Bonded:     {"layer2-bonded", false},
	packngo.NetworkTypeL2Individual: {"layer2-individual", false},
}

func TestLayer2(t *testing.T) {
	env := harness.StartOwn(t)
	c := client(t, env, env.Token)
	steps := harness.NewSteps(t)
	var device, spot *packngo.Device
	onDemand := func(t *testing.T, hostname string, spot bool) *packngo.Device {
		t.Helper()
		req := &packngo.DeviceCreateRequest{
			Hostname: hostname, Plan: "c3.small.x86", Metro: "da", OS: harness.OS,
			ProjectID: env.Project, BillingCycle: "hourly", Tags: []string{"layer2"},
		}
		if spot {
			req.SpotInstance, req.SpotPriceMax = true, 0.15
		}
		d, _, err := c.Devices.Create(req)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	convert := func(t *testing.T, to string) {
		t.Helper()
		d, err := c.DevicePorts.DeviceToNetworkType(device.ID, to)
		if err != nil {
			t.Fatalf("to %s: %v", to, err)
		}
		want := bond0Type[to]
		bond0, err := d.GetPortByName("bond0")
		if err != nil {
			t.Fatal(err)
		}
		if got := d.GetNetworkType(); got != to || bond0.NetworkType != want.bond {
			t.Fatalf("to %s: packngo reads %s, bond0 %s", to, got, bond0.NetworkType)
		}
		if d.HasManagementIPs() != want.addresses || (len(d.Network) == 3) != want.addresses {
			t.Fatalf("to %s: the device's addresses %d", to, len(d.Network))
		}
	}

	steps.Run("creates a device on demand and reads it until active", nil, func(t *testing.T) {
		device = onDemand(t, "packngo-layer2", false)
		waitState(t, c, device.ID, "active")
		d, _, err := c.Devices.Get(device.ID, nil)
		if err != nil || d.GetNetworkType() != packngo.NetworkTypeL3 || len(d.Network) != 3 {
			t.Fatalf("the new device %+v, %v", d, err)
		}
	})
	active := []string{"creates a device on demand and reads it until active"}
	steps.Run("goes layer 2 bonded, individual, hybrid and back to layer 3", active, func(t *testing.T) {
		for _, to := range []string{
			packngo.NetworkTypeL2Bonded, packngo.NetworkTypeL2Individual,
			packngo.NetworkTypeHybrid, packngo.NetworkTypeL3,
		} {
			convert(t, to)
		}
	})
	steps.Run("goes through packngo's own network state transitions", []string{"goes layer 2 bonded, individual, hybrid and back to layer 3"}, func(t *testing.T) {
		// TestAccDevicePortNetworkStateTransitions' sequence, from layer 3.
		for _, to := range []string{
			packngo.NetworkTypeL2Bonded, packngo.NetworkTypeL2Individual, packngo.NetworkTypeL3,
			packngo.NetworkTypeHybrid, packngo.NetworkTypeL2Bonded, packngo.NetworkTypeL3,
			packngo.NetworkTypeL2Bonded, packngo.NetworkTypeHybrid, packngo.NetworkTypeL2Individual,
			packngo.NetworkTypeHybrid, packngo.NetworkTypeL3, packngo.NetworkTypeL2Individual,
			packngo.NetworkTypeL2Bonded, packngo.NetworkTypeL3,
		} {
			convert(t, to)
		}
	})
	steps.Run("keeps custom data given as text and clears it with an empty string", active, func(t *testing.T) {
		data, none := `{"role": "layer2"}`, ""
		d, _, err := c.Devices.Update(device.ID, &packngo.DeviceUpdateRequest{CustomData: &data})
		if err != nil || d.CustomData["role"] != "layer2" {
			t.Fatalf("custom data %+v, %v", d, err)
		}
		d, _, err = c.Devices.Update(device.ID, &packngo.DeviceUpdateRequest{CustomData: &none})
		if err != nil || len(d.CustomData) != 0 {
			t.Fatalf("custom data after clearing %+v, %v", d, err)
		}
	})
	steps.Run("creates a spot instance with its bid as text", nil, func(t *testing.T) {
		spot = onDemand(t, "packngo-spot", true)
		if !spot.SpotInstance || spot.SpotPriceMax != 0.15 {
			t.Fatalf("spot instance %v at %v", spot.SpotInstance, spot.SpotPriceMax)
		}
	})
	steps.Run("deletes a spot market request with its devices, forced in the body", nil, func(t *testing.T) {
		r, _, err := c.SpotMarketRequests.Create(&packngo.SpotMarketRequestCreateRequest{
			DevicesMin: 1, DevicesMax: 1, MaxBidPrice: 0.15, Metro: "da",
			Parameters: packngo.SpotMarketRequestInstanceParameters{
				Hostname: "packngo-spot-request", Plan: "c3.small.x86",
				OperatingSystem: harness.OS, BillingCycle: "hourly",
			},
		}, env.Project)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Devices) != 1 {
			t.Fatalf("the request's devices %+v", r.Devices)
		}
		if _, err := c.SpotMarketRequests.Delete(r.ID, true); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Devices.Get(r.Devices[0].ID, nil); err == nil {
			t.Fatal("the request's device outlived its forced delete")
		} else {
			apiError(t, err, 404)
		}
	})
	steps.Run("deletes the devices, force_delete in the body", append(active, "creates a spot instance with its bid as text"), func(t *testing.T) {
		waitState(t, c, spot.ID, "active")
		for _, d := range []*packngo.Device{device, spot} {
			if _, err := c.Devices.Delete(d.ID, true); err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Devices.Get(d.ID, nil); err == nil {
				t.Fatalf("device %s is still there", d.ID)
			} else {
				apiError(t, err, 404)
			}
		}
	})
}
