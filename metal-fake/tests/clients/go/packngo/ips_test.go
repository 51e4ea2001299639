// IP reservations and assignments through packngo, as
// cloud-provider-equinix-metal uses them for a control-plane address:
// reserve one public address tagged for the cluster, find it by tag in
// the project's list, assign it to a device, move it, and release it.
// Run by `cargo test -p metal-fake --features cli --test external_ip_reservations`.
package packngo_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/packethost/packngo"

	"metal-fake/go/metalfake"
	"metal-fake/tests/clients/harness"
)

func TestIPReservations(t *testing.T) {
	env := harness.Start(t, metalfake.Reservations(2))
	c := client(t, env, env.Token)
	steps := harness.NewSteps(t)
	const tag = "cloud-provider-equinix-metal:eip:demo"
	var (
		devices    []*packngo.Device
		block      *packngo.IPAddressReservation
		assignment *packngo.IPAddressAssignment
	)

	steps.Run("creates two devices", nil, func(t *testing.T) {
		all, _, err := c.HardwareReservations.List(env.Project, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range all {
			if r.Provisionable && len(devices) < 2 {
				devices = append(devices, createOn(t, c, env, r, "cp-"+r.ID[:8]))
			}
		}
		if len(devices) < 2 {
			t.Fatalf("want 2 devices, made %d", len(devices))
		}
		for _, d := range devices {
			waitState(t, c, d.ID, "active")
		}
	})
	steps.Run("reserves a public address", []string{"creates two devices"}, func(t *testing.T) {
		metro := devices[0].Metro.Code
		r, _, err := c.ProjectIPs.Create(env.Project, &packngo.IPReservationCreateRequest{
			Type:                   packngo.PublicIPv4,
			Quantity:               1,
			Metro:                  &metro,
			Tags:                   []string{tag},
			FailOnApprovalRequired: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.ID == "" || r.State != packngo.IPReservationStateCreated || r.CIDR != 32 || r.Address == "" ||
			r.Type != packngo.PublicIPv4 || r.Metro == nil || r.Metro.Code != metro ||
			!strings.HasSuffix(r.Project.Href, env.Project) {
			t.Fatalf("reserved %+v", r)
		}
		block = r
	})
	steps.Run("finds it by tag", []string{"reserves a public address"}, func(t *testing.T) {
		all, _, err := c.ProjectIPs.List(env.Project, &packngo.ListOptions{Includes: []string{"assignments"}})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(all, func(r packngo.IPAddressReservation) bool { return slices.Contains(r.Tags, tag) })
		if i < 0 || all[i].ID != block.ID || len(all[i].Assignments) != 0 {
			t.Fatalf("not found by tag in %+v", all)
		}
	})
	steps.Run("assigns it to a device", []string{"finds it by tag"}, func(t *testing.T) {
		a, _, err := c.DeviceIPs.Assign(devices[0].ID, &packngo.AddressStruct{Address: block.Address})
		if err != nil {
			t.Fatal(err)
		}
		if a.ID == "" || a.Address != block.Address || !strings.HasSuffix(a.AssignedTo.Href, devices[0].ID) {
			t.Fatalf("assigned %+v", a)
		}
		assignment = a
		d, _, err := c.Devices.Get(devices[0].ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(d.Network, func(ip *packngo.IPAddressAssignment) bool { return ip.ID == a.ID }) {
			t.Fatalf("the device's ip_addresses lack the assignment: %+v", d.Network)
		}
		listed, _, err := c.DeviceIPs.List(devices[0].ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(listed, func(ip packngo.IPAddressAssignment) bool { return ip.Address == block.Address }) {
			t.Fatalf("the device's assignments lack it: %+v", listed)
		}
		r, _, err := c.ProjectIPs.Get(block.ID, &packngo.GetOptions{Includes: []string{"assignments"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Assignments) != 1 || r.Assignments[0].ID != a.ID {
			t.Fatalf("the reservation's assignments: %+v", r.Assignments)
		}
	})
	steps.Run("refuses to release it while assigned", []string{"assigns it to a device"}, func(t *testing.T) {
		_, err := c.ProjectIPs.Remove(block.ID)
		e := apiError(t, err, 422)
		if !strings.Contains(e.Error(), "has assignments") {
			t.Fatalf("error %v", e)
		}
	})
	steps.Run("moves it to the other device", []string{"refuses to release it while assigned"}, func(t *testing.T) {
		if _, err := c.DeviceIPs.Unassign(assignment.ID); err != nil {
			t.Fatal(err)
		}
		_, _, err := c.DeviceIPs.Get(assignment.ID, nil)
		apiError(t, err, 404)
		a, _, err := c.DeviceIPs.Assign(devices[1].ID, &packngo.AddressStruct{Address: block.Address + "/32"})
		if err != nil {
			t.Fatal(err)
		}
		assignment = a
	})
	steps.Run("releases it", []string{"moves it to the other device"}, func(t *testing.T) {
		if _, err := c.DeviceIPs.Unassign(assignment.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ProjectIPs.Remove(block.ID); err != nil {
			t.Fatal(err)
		}
		_, _, err := c.ProjectIPs.Get(block.ID, nil)
		apiError(t, err, 404)
	})
	steps.Run("deletes the devices", []string{"creates two devices"}, func(t *testing.T) {
		for _, d := range devices {
			if _, err := c.Devices.Delete(d.ID, false); err != nil {
				t.Fatal(err)
			}
		}
	})
}
