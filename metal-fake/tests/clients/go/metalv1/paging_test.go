// Lists longer than one page, read whole through metalv1's own paging
// (ExecuteWithPagination asks for page 1, 2, ... while meta.last_page is
// past meta.current_page), each item once; and IP reservation requests
// over the project's quota (fail_on_approval_required refused, else
// pending). Run by `cargo test -p metal-fake --all-features --test
// external_clients -- --ignored metalv1_pages`.
package metalv1_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/equinix/equinix-sdk-go/services/metalv1"

	"metal-fake/go/metalfake"
	"metal-fake/tests/clients/harness"
)

func TestPaging(t *testing.T) {
	env := harness.Start(t, metalfake.Reservations(23))
	c := client(env)
	ctx := authed(env.Token)
	steps := harness.NewSteps(t)
	var (
		reservations []metalv1.HardwareReservation
		metro        string
	)

	steps.Run("reads 23 reservations 5 a page", nil, func(t *testing.T) {
		before := harness.CallsOf(t, env, "findProjectHardwareReservations")
		all, err := c.HardwareReservationsApi.FindProjectHardwareReservations(ctx, env.Project).
			PerPage(5).ExecuteWithPagination()
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range all.GetHardwareReservations() {
			ids = append(ids, r.GetId())
		}
		harness.Once(t, "reservations", ids, 23)
		harness.Pages(t, env, "findProjectHardwareReservations", before, 5)
		reservations = all.GetHardwareReservations()
	})
	steps.Run("reads 7 devices 2 a page, and a tag's 1 a page", []string{"reads 23 reservations 5 a page"}, func(t *testing.T) {
		made := map[string]bool{}
		for i, r := range reservations[:7] {
			d := createOn(t, ctx, c, env, r, fmt.Sprintf("paged-%d", i))
			if i%2 == 1 {
				input := metalv1.NewDeviceUpdateInput()
				input.SetTags([]string{"odd"})
				update(t, ctx, c, d.GetId(), input)
			}
			made[d.GetId()] = true
			facility := r.GetFacility()
			m := facility.GetMetro()
			metro = m.GetCode()
		}
		before := harness.CallsOf(t, env, "findProjectDevices")
		all, err := c.DevicesApi.FindProjectDevices(ctx, env.Project).PerPage(2).ExecuteWithPagination()
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range all.GetDevices() {
			if !made[d.GetId()] {
				t.Fatalf("listed a device not made here: %s", d.GetId())
			}
			ids = append(ids, d.GetId())
		}
		harness.Once(t, "devices", ids, 7)
		before = harness.Pages(t, env, "findProjectDevices", before, 4)
		odd, err := c.DevicesApi.FindProjectDevices(ctx, env.Project).Tag("odd").PerPage(1).ExecuteWithPagination()
		if err != nil {
			t.Fatal(err)
		}
		ids = nil
		for _, d := range odd.GetDevices() {
			if tags := d.GetTags(); len(tags) != 1 || tags[0] != "odd" {
				t.Fatalf("the tag's list holds %s tagged %v", d.GetHostname(), tags)
			}
			ids = append(ids, d.GetId())
		}
		harness.Once(t, "odd devices", ids, 3)
		harness.Pages(t, env, "findProjectDevices", before, 3)
	})
	steps.Run("reads 8 projects 3 a page", nil, func(t *testing.T) {
		for i := 0; i < 7; i++ {
			input := metalv1.NewProjectCreateFromRootInput(fmt.Sprintf("paged-%d", i))
			if _, _, err := c.ProjectsApi.CreateProject(ctx).ProjectCreateFromRootInput(*input).Execute(); err != nil {
				t.Fatal(err)
			}
		}
		before := harness.CallsOf(t, env, "findProjects")
		all, err := c.ProjectsApi.FindProjects(ctx).PerPage(3).ExecuteWithPagination()
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range all.GetProjects() {
			ids = append(ids, p.GetId())
		}
		harness.Once(t, "projects", ids, 8)
		harness.Pages(t, env, "findProjects", before, 3)
	})
	steps.Run("reads the project's events 4 a page, as one page holds them", []string{"reads 7 devices 2 a page, and a tag's 1 a page"}, func(t *testing.T) {
		whole, _, err := c.EventsApi.FindProjectEvents(ctx, env.Project).PerPage(1000).Execute()
		if err != nil {
			t.Fatal(err)
		}
		events := whole.GetEvents()
		if len(events) < 9 {
			t.Fatalf("want at least 9 events, the project has %d", len(events))
		}
		before := harness.CallsOf(t, env, "findProjectEvents")
		paged, err := c.EventsApi.FindProjectEvents(ctx, env.Project).PerPage(4).ExecuteWithPagination()
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i, e := range paged.GetEvents() {
			if i >= len(events) || e.GetId() != events[i].GetId() {
				t.Fatalf("event %d: paged %s, not the whole list's", i, e.GetId())
			}
			ids = append(ids, e.GetId())
		}
		harness.Once(t, "events", ids, len(events))
		harness.Pages(t, env, "findProjectEvents", before, (len(events)+3)/4)
	})
	steps.Run("requests addresses over the quota", []string{"reads 7 devices 2 a page, and a tag's 1 a page"}, func(t *testing.T) {
		p, _, err := c.ProjectsApi.CreateProject(ctx).
			ProjectCreateFromRootInput(*metalv1.NewProjectCreateFromRootInput("quota")).Execute()
		if err != nil {
			t.Fatal(err)
		}
		none, _, err := c.IPAddressesApi.FindIPReservations(ctx, p.GetId()).Execute()
		if err != nil || len(none.GetIpAddresses()) != 0 {
			t.Fatalf("a new project lists %d IP reservations (%v), want none", len(none.GetIpAddresses()), err)
		}
		request := func(quantity int32, fail bool) (*metalv1.IPReservation, *http.Response, error) {
			input := metalv1.NewIPReservationRequestInput(quantity, "public_ipv4")
			input.SetMetro(metro)
			input.SetFailOnApprovalRequired(fail)
			r, resp, err := c.IPAddressesApi.RequestIPReservation(ctx, p.GetId()).
				RequestIPReservationRequest(metalv1.IPReservationRequestInputAsRequestIPReservationRequest(input)).
				Execute()
			if err != nil || r.IPReservation == nil {
				return nil, resp, err
			}
			return r.IPReservation, resp, nil
		}
		small, _, err := request(8, true)
		if err != nil || small == nil || small.GetState() != "created" {
			t.Fatalf("8 addresses: %+v, %v", small, err)
		}
		if _, resp, err := request(256, true); err == nil {
			t.Fatal("256 more with fail_on_approval_required: accepted, want 422")
		} else {
			apiError(t, resp, err, 422)
		}
		big, _, err := request(256, false)
		if err != nil || big == nil || big.GetState() != "pending" {
			t.Fatalf("256 more without fail_on_approval_required: %+v, %v; want pending", big, err)
		}
		before := harness.CallsOf(t, env, "findIPReservations")
		all, err := c.IPAddressesApi.FindIPReservations(ctx, p.GetId()).PerPage(1).ExecuteWithPagination()
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]string{}
		var ids []string
		for _, r := range all.GetIpAddresses() {
			if r.IPReservation == nil {
				t.Fatalf("a block decoded as %+v", r)
			}
			states[r.IPReservation.GetId()] = r.IPReservation.GetState()
			ids = append(ids, r.IPReservation.GetId())
		}
		harness.Once(t, "blocks", ids, 2)
		harness.Pages(t, env, "findIPReservations", before, 2)
		if states[small.GetId()] != "created" || states[big.GetId()] != "pending" {
			t.Fatalf("the project's blocks: %v", states)
		}
	})
}
