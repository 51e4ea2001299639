// Lists longer than one page, read whole through packngo's own paging
// (its List methods follow meta.next: nextPage strips the href's query,
// puts the page and the caller's options back, and NewRequest drops the
// leading "/" and resolves the path against the base URL, which ends in
// /metal/v1/), each item once; and IP reservation requests over the
// project's quota (fail_on_approval_required refused, else pending).
// Run by `cargo test -p metal-fake --all-features --test external_clients -- --ignored packngo_pages`.
package packngo_test

import (
	"fmt"
	"testing"

	"github.com/packethost/packngo"

	"metal-fake/go/metalfake"
	"metal-fake/tests/clients/harness"
)

func TestPaging(t *testing.T) {
	env := harness.Start(t, metalfake.Reservations(23))
	c := client(t, env, env.Token)
	steps := harness.NewSteps(t)
	var (
		reservations []packngo.HardwareReservation
		metro        string
	)

	steps.Run("reads 23 reservations 5 a page", nil, func(t *testing.T) {
		before := harness.CallsOf(t, env, "findProjectHardwareReservations")
		all, _, err := c.HardwareReservations.List(env.Project, &packngo.ListOptions{PerPage: 5})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range all {
			ids = append(ids, r.ID)
		}
		harness.Once(t, "reservations", ids, 23)
		harness.Pages(t, env, "findProjectHardwareReservations", before, 5)
		reservations = all
	})
	steps.Run("reads 7 devices 2 a page, and a tag's 1 a page", []string{"reads 23 reservations 5 a page"}, func(t *testing.T) {
		made := map[string]bool{}
		for i, r := range reservations[:7] {
			d := createOn(t, c, env, r, fmt.Sprintf("paged-%d", i))
			if i%2 == 1 {
				tags := []string{"odd"}
				if _, _, err := c.Devices.Update(d.ID, &packngo.DeviceUpdateRequest{Tags: &tags}); err != nil {
					t.Fatal(err)
				}
			}
			made[d.ID] = true
			if d.Metro != nil && d.Metro.Code != "" {
				metro = d.Metro.Code
			} else if r.Facility.Metro != nil {
				metro = r.Facility.Metro.Code
			}
		}
		before := harness.CallsOf(t, env, "findProjectDevices")
		all, _, err := c.Devices.List(env.Project, &packngo.ListOptions{PerPage: 2})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range all {
			if !made[d.ID] {
				t.Fatalf("listed a device not made here: %s", d.ID)
			}
			ids = append(ids, d.ID)
		}
		harness.Once(t, "devices", ids, 7)
		before = harness.Pages(t, env, "findProjectDevices", before, 4)
		odd, _, err := c.Devices.List(env.Project, (&packngo.ListOptions{PerPage: 1}).Filter("tag", "odd"))
		if err != nil {
			t.Fatal(err)
		}
		ids = nil
		for _, d := range odd {
			if len(d.Tags) != 1 || d.Tags[0] != "odd" {
				t.Fatalf("the tag's list holds %s tagged %v", d.Hostname, d.Tags)
			}
			ids = append(ids, d.ID)
		}
		harness.Once(t, "odd devices", ids, 3)
		harness.Pages(t, env, "findProjectDevices", before, 3)
	})
	steps.Run("reads 8 projects 3 a page", nil, func(t *testing.T) {
		for i := 0; i < 7; i++ {
			if _, _, err := c.Projects.Create(&packngo.ProjectCreateRequest{Name: fmt.Sprintf("paged-%d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		before := harness.CallsOf(t, env, "findProjects")
		all, _, err := c.Projects.List(&packngo.ListOptions{PerPage: 3})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range all {
			ids = append(ids, p.ID)
		}
		harness.Once(t, "projects", ids, 8)
		harness.Pages(t, env, "findProjects", before, 3)
	})
	steps.Run("reads the project's events 4 a page, as one page holds them", []string{"reads 7 devices 2 a page, and a tag's 1 a page"}, func(t *testing.T) {
		whole, _, err := c.Projects.ListEvents(env.Project, &packngo.ListOptions{PerPage: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(whole) < 9 {
			t.Fatalf("want at least 9 events, the project has %d", len(whole))
		}
		before := harness.CallsOf(t, env, "findProjectEvents")
		paged, _, err := c.Projects.ListEvents(env.Project, &packngo.ListOptions{PerPage: 4})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i, e := range paged {
			if e.ID != whole[i].ID {
				t.Fatalf("event %d: paged %s, whole %s", i, e.ID, whole[i].ID)
			}
			ids = append(ids, e.ID)
		}
		harness.Once(t, "events", ids, len(whole))
		harness.Pages(t, env, "findProjectEvents", before, (len(whole)+3)/4)
	})
	steps.Run("requests addresses over the quota", []string{"reads 7 devices 2 a page, and a tag's 1 a page"}, func(t *testing.T) {
		p, _, err := c.Projects.Create(&packngo.ProjectCreateRequest{Name: "quota"})
		if err != nil {
			t.Fatal(err)
		}
		none, _, err := c.ProjectIPs.List(p.ID, nil)
		if err != nil || len(none) != 0 {
			t.Fatalf("a new project lists %d IP reservations (%v), want none", len(none), err)
		}
		request := func(quantity int, fail bool) (*packngo.IPAddressReservation, error) {
			r, _, err := c.ProjectIPs.Create(p.ID, &packngo.IPReservationCreateRequest{
				Type: packngo.PublicIPv4, Quantity: quantity, Metro: &metro,
				FailOnApprovalRequired: fail,
			})
			return r, err
		}
		small, err := request(8, true)
		if err != nil || small.State != packngo.IPReservationStateCreated {
			t.Fatalf("8 addresses: %+v, %v", small, err)
		}
		if _, err := request(256, true); err == nil {
			t.Fatal("256 more with fail_on_approval_required: accepted, want 422")
		} else {
			apiError(t, err, 422)
		}
		big, err := request(256, false)
		if err != nil || big.State != packngo.IPReservationStatePending {
			t.Fatalf("256 more without fail_on_approval_required: %+v, %v; want pending", big, err)
		}
		all, _, err := c.ProjectIPs.List(p.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]packngo.IPReservationState{}
		for _, r := range all {
			states[r.ID] = r.State
		}
		if len(all) != 2 || states[small.ID] != packngo.IPReservationStateCreated ||
			states[big.ID] != packngo.IPReservationStatePending {
			t.Fatalf("the project's blocks: %v", states)
		}
	})
}
