// A full device lifecycle through packngo (github.com/packethost/packngo,
// unmodified), the Go client the reference design wraps, against the
// metal-fake binary; run by `cargo test -p metal-fake --features cli --test
// external_clients`. Each step asserts what packngo's caller sees: the
// values it decodes, the status and the error text of its ErrorResponse.
package packngo_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/packethost/packngo"

	"metal-fake/tests/clients/harness"
)

func client(t *testing.T, env harness.Env, token string) *packngo.Client {
	t.Helper()
	// packngo joins its paths to the base URL, which must end in a slash.
	c, err := packngo.NewClientWithBaseURL("metal-fake external client test", token, nil, env.URL+"/")
	if err != nil {
		t.Fatalf("packngo.NewClientWithBaseURL: %v", err)
	}
	return c
}

// apiError is the ErrorResponse packngo returns for a non-2xx reply.
func apiError(t *testing.T, err error, status int) *packngo.ErrorResponse {
	t.Helper()
	var e *packngo.ErrorResponse
	if !errors.As(err, &e) {
		t.Fatalf("want packngo's ErrorResponse with status %d, got %v", status, err)
	}
	if e.Response.StatusCode != status {
		t.Fatalf("want status %d, got %v", status, err)
	}
	return e
}

// createOn creates a device on reservation r in the project.
func createOn(t *testing.T, c *packngo.Client, env harness.Env, r packngo.HardwareReservation, hostname string) *packngo.Device {
	t.Helper()
	metro := ""
	if r.Facility.Metro != nil {
		metro = r.Facility.Metro.Code
	}
	d, _, err := c.Devices.Create(&packngo.DeviceCreateRequest{
		Hostname:              hostname,
		Plan:                  r.Plan.Slug,
		Metro:                 metro,
		OS:                    harness.OS,
		ProjectID:             env.Project,
		HardwareReservationID: r.ID,
		Tags:                  []string{"external-clients", "packngo"},
	})
	if err != nil {
		t.Fatalf("create on reservation %s: %v", r.ID, err)
	}
	if d.ID == "" || d.Hostname != hostname {
		t.Fatalf("create returned id %q hostname %q, want hostname %q", d.ID, d.Hostname, hostname)
	}
	return d
}

// waitState polls the device until it is in state want.
func waitState(t *testing.T, c *packngo.Client, id, want string) {
	t.Helper()
	harness.Until(t, "device "+id+" "+want, func() (bool, string) {
		d, _, err := c.Devices.Get(id, nil)
		if err != nil {
			return false, err.Error()
		}
		return d.State == want, "state " + d.State
	})
}

func TestLifecycle(t *testing.T) {
	lifecycle := t
	env := harness.Start(t)
	c := client(t, env, env.Token)
	steps := harness.NewSteps(t)
	var (
		key          *packngo.SSHKey
		projectKey   *packngo.SSHKey
		reservations []packngo.HardwareReservation
		device       *packngo.Device
	)

	steps.Run("creates a user SSH key", nil, func(t *testing.T) {
		k, _, err := c.SSHKeys.Create(&packngo.SSHKeyCreateRequest{Label: "packngo", Key: harness.PublicKey})
		if err != nil {
			t.Fatal(err)
		}
		if k.ID == "" || k.Label != "packngo" || k.Key != harness.PublicKey || k.FingerPrint == "" {
			t.Fatalf("created key %+v", k)
		}
		// packngo's SSHKey.Owner, which the Terraform provider reads.
		if !strings.HasPrefix(k.Owner.Href, "/metal/v1/users/") {
			t.Fatalf("the user's key has owner %q", k.Owner.Href)
		}
		key = k
	})
	steps.Run("creates a project SSH key owned by the project", nil, func(t *testing.T) {
		k, _, err := c.SSHKeys.Create(&packngo.SSHKeyCreateRequest{
			Label: "packngo-project", Key: harness.ProjectKey, ProjectID: env.Project,
		})
		if err != nil {
			t.Fatal(err)
		}
		if k.Owner.Href != "/metal/v1/projects/"+env.Project {
			t.Fatalf("the project's key has owner %q", k.Owner.Href)
		}
		projectKey = k
	})
	steps.Run("lists SSH keys", []string{"creates a user SSH key"}, func(t *testing.T) {
		keys, _, err := c.SSHKeys.List()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(keys, func(k packngo.SSHKey) bool { return k.ID == key.ID }) {
			t.Fatalf("key %s not in the list of %d keys", key.ID, len(keys))
		}
	})
	steps.Run("lists provisionable reservations", nil, func(t *testing.T) {
		all, _, err := c.HardwareReservations.List(env.Project, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range all {
			if r.Provisionable && r.Plan.Slug != "" {
				reservations = append(reservations, r)
			}
		}
		if len(reservations) < 3 {
			t.Fatalf("want at least 3 provisionable reservations, got %d of %d", len(reservations), len(all))
		}
	})
	// As Monogon's shepherd creates: the reservation, plan, OS and one
	// project key, no metro or facility, and no tags (packngo sends
	// "tags": null).
	steps.Run("creates a device naming only its reservation and one key",
		[]string{"lists provisionable reservations", "creates a project SSH key owned by the project"}, func(t *testing.T) {
			r := reservations[2]
			d, _, err := c.Devices.Create(&packngo.DeviceCreateRequest{
				Hostname:              "packngo-shepherd",
				Plan:                  r.Plan.Slug,
				OS:                    harness.OS,
				ProjectID:             env.Project,
				HardwareReservationID: r.ID,
				ProjectSSHKeys:        []string{projectKey.ID},
			})
			if err != nil {
				t.Fatal(err)
			}
			if d.Facility == nil || d.Facility.Code != r.Facility.Code {
				t.Fatalf("device in facility %+v, want the reservation's %s", d.Facility, r.Facility.Code)
			}
			if len(d.SSHKeys) != 1 || !strings.HasSuffix(d.SSHKeys[0].URL, "/"+projectKey.ID) {
				t.Fatalf("device's keys %+v, want only %s", d.SSHKeys, projectKey.ID)
			}
			lifecycle.Cleanup(func() {
				waitState(lifecycle, c, d.ID, "active")
				if _, err := c.Devices.Delete(d.ID, false); err != nil {
					lifecycle.Errorf("delete of device %s once active: %v", d.ID, err)
				}
			})
		})
	steps.Run("creates a device on a reservation", []string{"lists provisionable reservations"}, func(t *testing.T) {
		device = createOn(t, c, env, reservations[0], "packngo-1")
		// The API renders the reservation as an {href} stub unless asked
		// to include it.
		r := device.HardwareReservation
		if r == nil || (r.ID != reservations[0].ID && !strings.HasSuffix(r.Href, "/"+reservations[0].ID)) {
			t.Fatalf("device's reservation %v, want %s", r, reservations[0].ID)
		}
	})
	// The real API refuses to delete a device while it provisions. A
	// second device, so that a fake that deletes anyway fails here only.
	steps.Run("refuses delete while provisioning", []string{"lists provisionable reservations"}, func(t *testing.T) {
		d := createOn(t, c, env, reservations[1], "packngo-2")
		_, err := c.Devices.Delete(d.ID, false)
		if err == nil {
			t.Fatalf("deleting device %s (state %s) right after create succeeded; want 422", d.ID, d.State)
		}
		// Refused: it provisions on, and goes when the lifecycle ends.
		lifecycle.Cleanup(func() {
			waitState(lifecycle, c, d.ID, "active")
			if _, err := c.Devices.Delete(d.ID, false); err != nil {
				lifecycle.Errorf("delete of device %s once active: %v", d.ID, err)
			}
		})
		e := apiError(t, err, http.StatusUnprocessableEntity)
		if !slices.Contains(e.Errors, "Cannot delete a device while it is provisioning") {
			t.Fatalf("errors %q", e.Errors)
		}
	})
	created := []string{"creates a device on a reservation"}
	steps.Run("reads the device until active", created, func(t *testing.T) {
		waitState(t, c, device.ID, "active")
	})
	active := []string{"reads the device until active"}
	steps.Run("lists the project's devices and finds it", active, func(t *testing.T) {
		devices, _, err := c.Devices.List(env.Project, nil)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(devices, func(d packngo.Device) bool { return d.ID == device.ID })
		if i < 0 {
			t.Fatalf("device %s not among the project's %d devices", device.ID, len(devices))
		}
		if got := devices[i]; got.Hostname != "packngo-1" || got.State != "active" ||
			!slices.Contains(got.Tags, "packngo") {
			t.Fatalf("listed as %s %s %v", got.Hostname, got.State, got.Tags)
		}
	})
	steps.Run("updates description and tags", active, func(t *testing.T) {
		description := "updated by packngo"
		tags := []string{"external-clients", "updated"}
		d, _, err := c.Devices.Update(device.ID, &packngo.DeviceUpdateRequest{Description: &description, Tags: &tags})
		if err != nil {
			t.Fatal(err)
		}
		if d.Description == nil || *d.Description != description || !slices.Equal(d.Tags, tags) {
			t.Fatalf("update returned description %v tags %v", d.Description, d.Tags)
		}
		read, _, err := c.Devices.Get(device.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if read.Description == nil || *read.Description != description || !slices.Equal(read.Tags, tags) {
			t.Fatalf("read back description %v tags %v", read.Description, read.Tags)
		}
	})
	steps.Run("reboots", active, func(t *testing.T) {
		if _, err := c.Devices.Reboot(device.ID); err != nil {
			t.Fatal(err)
		}
		waitState(t, c, device.ID, "active")
	})
	// metal-cli's `device reinstall -O ... --preserve-data`, through
	// packngo's Reinstall.
	steps.Run("reinstalls with another operating system", active, func(t *testing.T) {
		fields := &packngo.DeviceReinstallFields{OperatingSystem: harness.OtherOS, PreserveData: true}
		if _, err := c.Devices.Reinstall(device.ID, fields); err != nil {
			t.Fatal(err)
		}
		waitState(t, c, device.ID, "active")
		d, _, err := c.Devices.Get(device.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.OS == nil || d.OS.Slug != harness.OtherOS {
			t.Fatalf("operating system after the reinstall %+v, want %s", d.OS, harness.OtherOS)
		}
	})
	steps.Run("powers off and on", active, func(t *testing.T) {
		if _, err := c.Devices.PowerOff(device.ID); err != nil {
			t.Fatal(err)
		}
		waitState(t, c, device.ID, "inactive")
		if _, err := c.Devices.PowerOn(device.ID); err != nil {
			t.Fatal(err)
		}
		waitState(t, c, device.ID, "active")
	})
	steps.Run("refuses delete while locked", active, func(t *testing.T) {
		locked := true
		d, _, err := c.Devices.Update(device.ID, &packngo.DeviceUpdateRequest{Locked: &locked})
		if err != nil {
			t.Fatal(err)
		}
		if !d.Locked {
			t.Fatal("the update's reply does not show the device locked")
		}
		_, err = c.Devices.Delete(device.ID, false)
		if err == nil {
			t.Fatal("deleting a locked device succeeded; want 422")
		}
		e := apiError(t, err, http.StatusUnprocessableEntity)
		if len(e.Errors) == 0 || !strings.Contains(strings.ToLower(strings.Join(e.Errors, " ")), "locked") {
			t.Fatalf("errors %q do not say the device is locked", e.Errors)
		}
	})
	steps.Run("unlocks", []string{"refuses delete while locked"}, func(t *testing.T) {
		unlocked := false
		d, _, err := c.Devices.Update(device.ID, &packngo.DeviceUpdateRequest{Locked: &unlocked})
		if err != nil {
			t.Fatal(err)
		}
		if d.Locked {
			t.Fatal("the update's reply still shows the device locked")
		}
	})
	// packngo's own Lock and Unlock send PATCH /devices/{id}.
	steps.Run("locks and unlocks with PATCH as packngo's Lock does", active, func(t *testing.T) {
		if _, err := c.Devices.Lock(device.ID); err != nil {
			t.Fatalf("Lock: %v", err)
		}
		if d, _, err := c.Devices.Get(device.ID, nil); err != nil || !d.Locked {
			t.Fatalf("after Lock: locked %v, err %v", d != nil && d.Locked, err)
		}
		if _, err := c.Devices.Unlock(device.ID); err != nil {
			t.Fatalf("Unlock: %v", err)
		}
		if d, _, err := c.Devices.Get(device.ID, nil); err != nil || d.Locked {
			t.Fatalf("after Unlock: locked %v, err %v", d != nil && d.Locked, err)
		}
	})
	steps.Run("deletes the device", []string{"unlocks"}, func(t *testing.T) {
		if _, err := c.Devices.Delete(device.ID, false); err != nil {
			t.Fatal(err)
		}
	})
	// Right after the delete, as Monogon's wrapngo live test and the
	// Terraform provider's destroy check read.
	steps.Run("reads 404 right after delete", []string{"deletes the device"}, func(t *testing.T) {
		d, _, err := c.Devices.Get(device.ID, nil)
		if err == nil {
			t.Fatalf("the deleted device reads %s", d.State)
		}
		apiError(t, err, http.StatusNotFound)
	})
	steps.Run("deletes the SSH key", []string{"creates a user SSH key"}, func(t *testing.T) {
		if _, err := c.SSHKeys.Delete(key.ID); err != nil {
			t.Fatal(err)
		}
		_, _, err := c.SSHKeys.Get(key.ID, nil)
		apiError(t, err, http.StatusNotFound)
	})
	steps.Run("a bad token gets 401 Invalid authentication token", nil, func(t *testing.T) {
		bad := client(t, env, "not-"+env.Token)
		_, _, err := bad.SSHKeys.List()
		e := apiError(t, err, http.StatusUnauthorized)
		// The real API's single-string shape: {"error": "..."}.
		if e.SingleError != "Invalid authentication token" {
			t.Fatalf(`"error" is %q (and "errors" %q); want "Invalid authentication token"`, e.SingleError, e.Errors)
		}
	})
	// The Terraform provider's project data source reads the organization
	// link and the BGP config, which is 200 and empty while BGP is off.
	steps.Run("reads the project with its organization and BGP off", nil, func(t *testing.T) {
		p, _, err := c.Projects.Get(env.Project, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != env.Project || !strings.HasPrefix(p.Organization.URL, "/metal/v1/organizations/") {
			t.Fatalf("project %s has organization %q", p.ID, p.Organization.URL)
		}
		bgp, _, err := c.BGPConfig.Get(env.Project, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bgp.ID != "" || bgp.Status != "" || bgp.Asn != 0 {
			t.Fatalf("BGP off reads %+v", bgp)
		}
	})
	steps.Run("creates, lists, updates with PATCH and deletes a project with BGP", nil, func(t *testing.T) {
		p, _, err := c.Projects.Create(&packngo.ProjectCreateRequest{Name: "packngo-project"})
		if err != nil {
			t.Fatal(err)
		}
		if p.ID == "" || p.Name != "packngo-project" || p.Organization.URL == "" {
			t.Fatalf("created project %+v", p)
		}
		all, _, err := c.Projects.List(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(all, func(q packngo.Project) bool { return q.ID == p.ID }) {
			t.Fatalf("project %s not in the list of %d", p.ID, len(all))
		}
		name, on := "packngo-renamed", true
		u, _, err := c.Projects.Update(p.ID, &packngo.ProjectUpdateRequest{Name: &name, BackendTransfer: &on})
		if err != nil {
			t.Fatal(err)
		}
		if u.Name != name || !u.BackendTransfer {
			t.Fatalf("updated project %+v", u)
		}
		if _, err := c.BGPConfig.Create(p.ID, packngo.CreateBGPConfigRequest{DeploymentType: "local", Asn: 65000}); err != nil {
			t.Fatal(err)
		}
		bgp, _, err := c.BGPConfig.Get(p.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bgp.Status != "enabled" || bgp.Asn != 65000 || bgp.DeploymentType != "local" {
			t.Fatalf("BGP requested reads %+v", bgp)
		}
		if _, err := c.Projects.Delete(p.ID); err != nil {
			t.Fatal(err)
		}
		_, _, err = c.Projects.Get(p.ID, nil)
		apiError(t, err, http.StatusNotFound)
	})
	steps.Run("lists plans and operating systems", nil, func(t *testing.T) {
		plans, _, err := c.Plans.List(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(plans) == 0 || plans[0].Slug == "" {
			t.Fatalf("plans %+v", plans)
		}
		oses, _, err := c.OperatingSystems.List()
		if err != nil {
			t.Fatal(err)
		}
		for _, slug := range []string{harness.OS, harness.OtherOS} {
			if !slices.ContainsFunc(oses, func(o packngo.OS) bool { return o.Slug == slug && len(o.ProvisionableOn) > 0 }) {
				t.Fatalf("%s not among %d operating systems", slug, len(oses))
			}
		}
	})

	// The catalog's names, which the Terraform provider's data sources and
	// metal-cli print: the metro, its facility and the plan an on-demand
	// device is created with below.
	var metro, plan string
	steps.Run("reads the catalog's names", nil, func(t *testing.T) {
		metros, _, err := c.Metros.List(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(metros) == 0 || metros[0].Code == "" || metros[0].Name == "" || metros[0].Country == "" {
			t.Fatalf("metros %+v", metros)
		}
		metro = metros[0].Code
		if metro == "da" && (metros[0].Name != "Dallas" || metros[0].Country != "US") {
			t.Fatalf("metro da is %q in %q, want Dallas, US", metros[0].Name, metros[0].Country)
		}
		facilities, _, err := c.Facilities.List(nil)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(facilities, func(f packngo.Facility) bool { return f.Metro != nil && f.Metro.Code == metro })
		if i < 0 || facilities[i].Name == "" || !strings.HasPrefix(facilities[i].Name, metros[0].Name) {
			t.Fatalf("no named facility in metro %s among %+v", metro, facilities)
		}
		plans, _, err := c.Plans.List(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(plans) == 0 || plans[0].Name == "" || plans[0].Line != "baremetal" {
			t.Fatalf("plans %+v", plans)
		}
		plan = plans[0].Slug
	})
	catalog := []string{"reads the catalog's names"}
	steps.Run("checks capacity for an on-demand device", catalog, func(t *testing.T) {
		got, _, err := c.CapacityService.CheckMetros(&packngo.CapacityInput{
			Servers: []packngo.ServerInfo{{Metro: metro, Plan: plan, Quantity: 1}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Servers) != 1 || !got.Servers[0].Available {
			t.Fatalf("capacity check %+v, want one server available", got.Servers)
		}
		report, _, err := c.CapacityService.ListMetros()
		if err != nil {
			t.Fatal(err)
		}
		if level := (*report)[metro][plan].Level; level == "" || level == "unavailable" {
			t.Fatalf("capacity of %s in %s is %q", plan, metro, level)
		}
	})
	// As the Terraform provider's device with
	// ip_address { type = "public_ipv4", reservation_ids = [...] }: an
	// on-demand device whose public IPv4 comes from a reserved block, and
	// a private IPv4 of its own.
	var (
		block    *packngo.IPAddressReservation
		onDemand *packngo.Device
	)
	steps.Run("creates an on-demand device with an address of a reserved block", catalog, func(t *testing.T) {
		r, _, err := c.ProjectIPs.Create(env.Project, &packngo.IPReservationCreateRequest{
			Type: packngo.PublicIPv4, Quantity: 2, Metro: &metro, FailOnApprovalRequired: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		block = r
		d, _, err := c.Devices.Create(&packngo.DeviceCreateRequest{
			Hostname:  "packngo-on-demand",
			Plan:      plan,
			Metro:     metro,
			OS:        harness.OS,
			ProjectID: env.Project,
			IPAddresses: []packngo.IPAddressCreateRequest{
				{AddressFamily: 4, Public: true, CIDR: 32, Reservations: []string{block.ID}},
				{AddressFamily: 4, Public: false},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if d.HardwareReservation != nil || d.Metro == nil || d.Metro.Code != metro {
			t.Fatalf("on-demand device on %v in %v", d.HardwareReservation, d.Metro)
		}
		onDemand = d
		waitState(t, c, d.ID, "active")
		read, _, err := c.Devices.Get(d.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		ni := read.GetNetworkInfo()
		if ni.PublicIPv4 != block.Address || ni.PrivateIPv4 == "" || ni.PublicIPv6 != "" {
			t.Fatalf("addresses %+v, want the block's %s and a private IPv4 only", ni, block.Address)
		}
		free, _, err := c.ProjectIPs.AvailableAddresses(block.ID, &packngo.AvailableRequest{CIDR: 32})
		if err != nil {
			t.Fatal(err)
		}
		if len(free) != 1 || free[0] == block.Address+"/32" {
			t.Fatalf("free in the block after the create: %v", free)
		}
	})
	made := []string{"creates an on-demand device with an address of a reserved block"}
	steps.Run("finds the device's own private block among the project's", made, func(t *testing.T) {
		// The types the Terraform provider's precreated-block data source
		// names (packngo's Filter returns a copy with the parameter).
		opts := (&packngo.ListOptions{Includes: []string{"assignments"}}).
			Filter("types", "public_ipv4,global_ipv4,private_ipv4,public_ipv6,vrf")
		all, _, err := c.ProjectIPs.List(env.Project, opts)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(all, func(r packngo.IPAddressReservation) bool {
			return !r.Public && r.AddressFamily == 4 && len(r.Assignments) == 1 &&
				strings.HasSuffix(r.Assignments[0].AssignedTo.Href, "/"+onDemand.ID)
		})
		if i < 0 {
			t.Fatalf("no private block of device %s among %d", onDemand.ID, len(all))
		}
	})
	steps.Run("reads the device's events", made, func(t *testing.T) {
		events, _, err := c.Devices.ListEvents(onDemand.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		types := make([]string, 0, len(events))
		for _, e := range events {
			types = append(types, e.Type)
		}
		// packngo pages through them all.
		for _, want := range []string{"instance.created", "provisioning.110"} {
			if !slices.ContainsFunc(types, func(t string) bool { return strings.HasPrefix(t, want) }) {
				t.Fatalf("events %v lack %s", types, want)
			}
		}
	})
	steps.Run("deletes the on-demand device and releases the block", made, func(t *testing.T) {
		if _, err := c.Devices.Delete(onDemand.ID, false); err != nil {
			t.Fatal(err)
		}
		free, _, err := c.ProjectIPs.AvailableAddresses(block.ID, &packngo.AvailableRequest{CIDR: 32})
		if err != nil {
			t.Fatal(err)
		}
		if len(free) != 2 {
			t.Fatalf("free in the block after the delete: %v", free)
		}
		if _, err := c.ProjectIPs.Delete(block.ID); err != nil {
			t.Fatal(err)
		}
	})
}
