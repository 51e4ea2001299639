// A full device lifecycle through equinix-sdk-go's metalv1 client
// (github.com/equinix/equinix-sdk-go/services/metalv1, unmodified) against
// the metal-fake binary (harness.Start starts it); run by `cargo test -p metal-fake --features cli --test
// external_clients`. Each step asserts what the SDK's caller sees: the
// values it decodes, the status and the error text of its
// GenericOpenAPIError.
package metalv1_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/equinix/equinix-sdk-go/services/metalv1"

	"metal-fake/tests/clients/harness"
)

func client(env harness.Env) *metalv1.APIClient {
	config := metalv1.NewConfiguration()
	config.Servers = metalv1.ServerConfigurations{{URL: env.URL}}
	return metalv1.NewAPIClient(config)
}

func authed(token string) context.Context {
	return context.WithValue(context.Background(), metalv1.ContextAPIKeys,
		map[string]metalv1.APIKey{"x_auth_token": {Key: token}})
}

// apiError checks that a call failed with status and returns the API's
// error body as the SDK decoded it.
func apiError(t *testing.T, resp *http.Response, err error, status int) metalv1.Error {
	t.Helper()
	var e *metalv1.GenericOpenAPIError
	if !errors.As(err, &e) {
		t.Fatalf("want the SDK's GenericOpenAPIError with status %d, got %v", status, err)
	}
	if resp == nil || resp.StatusCode != status {
		t.Fatalf("want status %d, got %v (body %s)", status, err, e.Body())
	}
	body, ok := e.Model().(metalv1.Error)
	if !ok {
		t.Fatalf("the SDK did not decode the error body %s: %v", e.Body(), err)
	}
	return body
}

func createOn(t *testing.T, ctx context.Context, c *metalv1.APIClient, env harness.Env, r metalv1.HardwareReservation, hostname string) *metalv1.Device {
	t.Helper()
	facility := r.GetFacility()
	metro := facility.GetMetro()
	plan := r.GetPlan()
	input := metalv1.NewDeviceCreateInMetroInput(metro.GetCode(), harness.OS, plan.GetSlug())
	input.SetHardwareReservationId(r.GetId())
	input.SetHostname(hostname)
	input.SetTags([]string{"external-clients", "metalv1"})
	d, _, err := c.DevicesApi.CreateDevice(ctx, env.Project).
		CreateDeviceRequest(metalv1.DeviceCreateInMetroInputAsCreateDeviceRequest(input)).
		Execute()
	if err != nil {
		t.Fatalf("create on reservation %s: %v", r.GetId(), err)
	}
	if d.GetId() == "" || d.GetHostname() != hostname {
		t.Fatalf("create returned id %q hostname %q, want hostname %q", d.GetId(), d.GetHostname(), hostname)
	}
	return d
}

func waitState(t *testing.T, ctx context.Context, c *metalv1.APIClient, id string, want metalv1.DeviceState) {
	t.Helper()
	harness.Until(t, "device "+id+" "+string(want), func() (bool, string) {
		d, _, err := c.DevicesApi.FindDeviceById(ctx, id).Execute()
		if err != nil {
			return false, err.Error()
		}
		return d.GetState() == want, "state " + string(d.GetState())
	})
}

func action(t *testing.T, ctx context.Context, c *metalv1.APIClient, id string, kind metalv1.DeviceActionInputType) {
	t.Helper()
	if _, err := c.DevicesApi.PerformAction(ctx, id).DeviceActionInput(*metalv1.NewDeviceActionInput(kind)).Execute(); err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
}

func update(t *testing.T, ctx context.Context, c *metalv1.APIClient, id string, input *metalv1.DeviceUpdateInput) *metalv1.Device {
	t.Helper()
	d, _, err := c.DevicesApi.UpdateDevice(ctx, id).DeviceUpdateInput(*input).Execute()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLifecycle(t *testing.T) {
	lifecycle := t
	env := harness.Start(t)
	c := client(env)
	ctx := authed(env.Token)
	steps := harness.NewSteps(t)
	var (
		key          *metalv1.SSHKey
		projectKey   *metalv1.SSHKey
		reservations []metalv1.HardwareReservation
		device       *metalv1.Device
	)

	steps.Run("creates a user SSH key", nil, func(t *testing.T) {
		input := metalv1.NewSSHKeyCreateInput()
		input.SetLabel("metalv1")
		input.SetKey(harness.PublicKey)
		k, _, err := c.SSHKeysApi.CreateSSHKey(ctx).SSHKeyCreateInput(*input).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if k.GetId() == "" || k.GetLabel() != "metalv1" || k.GetKey() != harness.PublicKey || k.GetFingerprint() == "" {
			t.Fatalf("created key %+v", k)
		}
		key = k
	})
	steps.Run("creates a project SSH key whose entity is the project", nil, func(t *testing.T) {
		input := metalv1.NewSSHKeyCreateInput()
		input.SetLabel("metalv1-project")
		input.SetKey(harness.ProjectKey)
		k, _, err := c.SSHKeysApi.CreateProjectSSHKey(ctx, env.Project).SSHKeyCreateInput(*input).Execute()
		if err != nil {
			t.Fatal(err)
		}
		entity := k.GetEntity()
		if entity.GetHref() != "/metal/v1/projects/"+env.Project {
			t.Fatalf("the project's key has entity %q", entity.GetHref())
		}
		projectKey = k
	})
	steps.Run("lists SSH keys", []string{"creates a user SSH key"}, func(t *testing.T) {
		list, _, err := c.SSHKeysApi.FindSSHKeys(ctx).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(list.GetSshKeys(), func(k metalv1.SSHKey) bool { return k.GetId() == key.GetId() }) {
			t.Fatalf("key %s not in the list of %d keys", key.GetId(), len(list.GetSshKeys()))
		}
	})
	steps.Run("lists provisionable reservations", nil, func(t *testing.T) {
		list, err := c.HardwareReservationsApi.FindProjectHardwareReservations(ctx, env.Project).ExecuteWithPagination()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.GetHardwareReservations() {
			plan := r.GetPlan()
			if r.GetProvisionable() && plan.GetSlug() != "" {
				reservations = append(reservations, r)
			}
		}
		if len(reservations) < 3 {
			t.Fatalf("want at least 3 provisionable reservations, got %d of %d", len(reservations), len(list.GetHardwareReservations()))
		}
	})
	// The facility shape with no facility (the SDK writes "facility": null)
	// and one project key: the device goes where its reservation is, with
	// that key only.
	steps.Run("creates a device naming only its reservation and one key",
		[]string{"lists provisionable reservations", "creates a project SSH key whose entity is the project"}, func(t *testing.T) {
			r := reservations[2]
			plan := r.GetPlan()
			input := metalv1.NewDeviceCreateInFacilityInput(nil, harness.OS, plan.GetSlug())
			input.SetHardwareReservationId(r.GetId())
			input.SetHostname("metalv1-reservation-only")
			input.SetProjectSshKeys([]string{projectKey.GetId()})
			d, _, err := c.DevicesApi.CreateDevice(ctx, env.Project).
				CreateDeviceRequest(metalv1.DeviceCreateInFacilityInputAsCreateDeviceRequest(input)).
				Execute()
			if err != nil {
				t.Fatal(err)
			}
			facility, want := d.GetFacility(), r.GetFacility()
			if facility.GetCode() != want.GetCode() {
				t.Fatalf("device in facility %q, want the reservation's %q", facility.GetCode(), want.GetCode())
			}
			keys := d.GetSshKeys()
			if len(keys) != 1 || !strings.HasSuffix(keys[0].GetHref(), "/"+projectKey.GetId()) {
				t.Fatalf("device's keys %+v, want only %s", keys, projectKey.GetId())
			}
			lifecycle.Cleanup(func() {
				waitState(lifecycle, ctx, c, d.GetId(), metalv1.DEVICESTATE_ACTIVE)
				if _, err := c.DevicesApi.DeleteDevice(ctx, d.GetId()).Execute(); err != nil {
					lifecycle.Errorf("delete of device %s once active: %v", d.GetId(), err)
				}
			})
		})
	steps.Run("creates a device on a reservation", []string{"lists provisionable reservations"}, func(t *testing.T) {
		device = createOn(t, ctx, c, env, reservations[0], "metalv1-1")
		// The API renders the reservation as an {href} stub unless asked
		// to include it.
		r, want := device.GetHardwareReservation(), reservations[0].GetId()
		if r.GetId() != want && !strings.HasSuffix(r.GetHref(), "/"+want) {
			t.Fatalf("device's reservation id %q href %q, want %s", r.GetId(), r.GetHref(), want)
		}
	})
	// The real API refuses to delete a device while it provisions. A
	// second device, so that a fake that deletes anyway fails here only.
	steps.Run("refuses delete while provisioning", []string{"lists provisionable reservations"}, func(t *testing.T) {
		d := createOn(t, ctx, c, env, reservations[1], "metalv1-2")
		resp, err := c.DevicesApi.DeleteDevice(ctx, d.GetId()).Execute()
		if err == nil {
			t.Fatalf("deleting device %s (state %s) right after create succeeded; want 422", d.GetId(), d.GetState())
		}
		// Refused: it provisions on, and goes when the lifecycle ends.
		lifecycle.Cleanup(func() {
			waitState(lifecycle, ctx, c, d.GetId(), metalv1.DEVICESTATE_ACTIVE)
			if _, err := c.DevicesApi.DeleteDevice(ctx, d.GetId()).Execute(); err != nil {
				lifecycle.Errorf("delete of device %s once active: %v", d.GetId(), err)
			}
		})
		body := apiError(t, resp, err, http.StatusUnprocessableEntity)
		if !slices.Contains(body.GetErrors(), "Cannot delete a device while it is provisioning") {
			t.Fatalf("errors %q", body.GetErrors())
		}
	})
	created := []string{"creates a device on a reservation"}
	steps.Run("reads the device until active", created, func(t *testing.T) {
		waitState(t, ctx, c, device.GetId(), metalv1.DEVICESTATE_ACTIVE)
	})
	active := []string{"reads the device until active"}
	steps.Run("lists the project's devices and finds it", active, func(t *testing.T) {
		list, err := c.DevicesApi.FindProjectDevices(ctx, env.Project).ExecuteWithPagination()
		if err != nil {
			t.Fatal(err)
		}
		devices := list.GetDevices()
		i := slices.IndexFunc(devices, func(d metalv1.Device) bool { return d.GetId() == device.GetId() })
		if i < 0 {
			t.Fatalf("device %s not among the project's %d devices", device.GetId(), len(devices))
		}
		if got := devices[i]; got.GetHostname() != "metalv1-1" || got.GetState() != metalv1.DEVICESTATE_ACTIVE ||
			!slices.Contains(got.GetTags(), "metalv1") {
			t.Fatalf("listed as %s %s %v", got.GetHostname(), got.GetState(), got.GetTags())
		}
	})
	steps.Run("updates description and tags", active, func(t *testing.T) {
		description := "updated by metalv1"
		tags := []string{"external-clients", "updated"}
		input := metalv1.NewDeviceUpdateInput()
		input.SetDescription(description)
		input.SetTags(tags)
		d := update(t, ctx, c, device.GetId(), input)
		if d.GetDescription() != description || !slices.Equal(d.GetTags(), tags) {
			t.Fatalf("update returned description %q tags %v", d.GetDescription(), d.GetTags())
		}
		read, _, err := c.DevicesApi.FindDeviceById(ctx, device.GetId()).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if read.GetDescription() != description || !slices.Equal(read.GetTags(), tags) {
			t.Fatalf("read back description %q tags %v", read.GetDescription(), read.GetTags())
		}
	})
	steps.Run("reboots", active, func(t *testing.T) {
		action(t, ctx, c, device.GetId(), metalv1.DEVICEACTIONINPUTTYPE_REBOOT)
		waitState(t, ctx, c, device.GetId(), metalv1.DEVICESTATE_ACTIVE)
	})
	// What metal-cli's `device reinstall -O ... --preserve-data
	// --deprovision-fast` sends.
	steps.Run("reinstalls with another operating system", active, func(t *testing.T) {
		input := metalv1.NewDeviceActionInput(metalv1.DEVICEACTIONINPUTTYPE_REINSTALL)
		input.SetOperatingSystem(harness.OtherOS)
		input.SetPreserveData(true)
		input.SetDeprovisionFast(true)
		if _, err := c.DevicesApi.PerformAction(ctx, device.GetId()).DeviceActionInput(*input).Execute(); err != nil {
			t.Fatal(err)
		}
		waitState(t, ctx, c, device.GetId(), metalv1.DEVICESTATE_ACTIVE)
		d, _, err := c.DevicesApi.FindDeviceById(ctx, device.GetId()).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if os := d.GetOperatingSystem(); os.GetSlug() != harness.OtherOS {
			t.Fatalf("operating system after the reinstall %q, want %s", os.GetSlug(), harness.OtherOS)
		}
	})
	steps.Run("powers off and on", active, func(t *testing.T) {
		action(t, ctx, c, device.GetId(), metalv1.DEVICEACTIONINPUTTYPE_POWER_OFF)
		waitState(t, ctx, c, device.GetId(), metalv1.DEVICESTATE_INACTIVE)
		action(t, ctx, c, device.GetId(), metalv1.DEVICEACTIONINPUTTYPE_POWER_ON)
		waitState(t, ctx, c, device.GetId(), metalv1.DEVICESTATE_ACTIVE)
	})
	steps.Run("refuses delete while locked", active, func(t *testing.T) {
		input := metalv1.NewDeviceUpdateInput()
		input.SetLocked(true)
		if d := update(t, ctx, c, device.GetId(), input); !d.GetLocked() {
			t.Fatal("the update's reply does not show the device locked")
		}
		resp, err := c.DevicesApi.DeleteDevice(ctx, device.GetId()).Execute()
		if err == nil {
			t.Fatal("deleting a locked device succeeded; want 422")
		}
		body := apiError(t, resp, err, http.StatusUnprocessableEntity)
		if !strings.Contains(strings.ToLower(strings.Join(body.GetErrors(), " ")), "locked") {
			t.Fatalf("errors %q do not say the device is locked", body.GetErrors())
		}
	})
	steps.Run("unlocks", []string{"refuses delete while locked"}, func(t *testing.T) {
		input := metalv1.NewDeviceUpdateInput()
		input.SetLocked(false)
		if d := update(t, ctx, c, device.GetId(), input); d.GetLocked() {
			t.Fatal("the update's reply still shows the device locked")
		}
	})
	steps.Run("deletes the device", []string{"unlocks"}, func(t *testing.T) {
		if _, err := c.DevicesApi.DeleteDevice(ctx, device.GetId()).Execute(); err != nil {
			t.Fatal(err)
		}
	})
	// Right after the delete, as Monogon's wrapngo live test and the
	// Terraform provider's destroy check read.
	steps.Run("reads 404 right after delete", []string{"deletes the device"}, func(t *testing.T) {
		d, resp, err := c.DevicesApi.FindDeviceById(ctx, device.GetId()).Execute()
		if err == nil {
			t.Fatalf("the deleted device reads %s", d.GetState())
		}
		apiError(t, resp, err, http.StatusNotFound)
	})
	steps.Run("deletes the SSH key", []string{"creates a user SSH key"}, func(t *testing.T) {
		if _, err := c.SSHKeysApi.DeleteSSHKey(ctx, key.GetId()).Execute(); err != nil {
			t.Fatal(err)
		}
		_, resp, err := c.SSHKeysApi.FindSSHKeyById(ctx, key.GetId()).Execute()
		apiError(t, resp, err, http.StatusNotFound)
	})
	steps.Run("a bad token gets 401 Invalid authentication token", nil, func(t *testing.T) {
		_, resp, err := c.SSHKeysApi.FindSSHKeys(authed("not-" + env.Token)).Execute()
		body := apiError(t, resp, err, http.StatusUnauthorized)
		// The real API's single-string shape: {"error": "..."}.
		if body.GetError() != "Invalid authentication token" {
			t.Fatalf(`"error" is %q (and "errors" %q); want "Invalid authentication token"`, body.GetError(), body.GetErrors())
		}
	})
	// The Terraform provider's project data source reads the organization
	// link and the BGP config, which is 200 and empty while BGP is off.
	steps.Run("reads the project with its organization and BGP off", nil, func(t *testing.T) {
		p, _, err := c.ProjectsApi.FindProjectById(ctx, env.Project).Execute()
		if err != nil {
			t.Fatal(err)
		}
		org := p.GetOrganization()
		if p.GetId() != env.Project || !strings.HasPrefix(org.GetHref(), "/metal/v1/organizations/") {
			t.Fatalf("project %s has organization %q", p.GetId(), org.GetHref())
		}
		bgp, _, err := c.BGPApi.FindBgpConfigByProject(ctx, env.Project).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if bgp.GetId() != "" || bgp.GetAsn() != 0 {
			t.Fatalf("BGP off reads %+v", bgp)
		}
	})
	steps.Run("creates, lists, updates with PUT and deletes a project with BGP", nil, func(t *testing.T) {
		input := metalv1.NewProjectCreateFromRootInput("metalv1-project")
		input.SetTags([]string{"metalv1"})
		p, _, err := c.ProjectsApi.CreateProject(ctx).ProjectCreateFromRootInput(*input).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if p.GetName() != "metalv1-project" || !slices.Equal(p.GetTags(), []string{"metalv1"}) {
			t.Fatalf("created project %+v", p)
		}
		list, _, err := c.ProjectsApi.FindProjects(ctx).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(list.GetProjects(), func(q metalv1.Project) bool { return q.GetId() == p.GetId() }) {
			t.Fatalf("project %s not in the list", p.GetId())
		}
		update := metalv1.NewProjectUpdateInput()
		update.SetName("metalv1-renamed")
		u, _, err := c.ProjectsApi.UpdateProject(ctx, p.GetId()).ProjectUpdateInput(*update).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if u.GetName() != "metalv1-renamed" || !slices.Equal(u.GetTags(), []string{"metalv1"}) {
			t.Fatalf("updated project %+v", u)
		}
		request := metalv1.NewBgpConfigRequestInput(65100, metalv1.BGPCONFIGREQUESTINPUTDEPLOYMENTTYPE_GLOBAL)
		if _, err := c.BGPApi.RequestBgpConfig(ctx, p.GetId()).BgpConfigRequestInput(*request).Execute(); err != nil {
			t.Fatal(err)
		}
		bgp, _, err := c.BGPApi.FindBgpConfigByProject(ctx, p.GetId()).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if bgp.GetStatus() != metalv1.BGPCONFIGSTATUS_REQUESTED || bgp.GetAsn() != 65100 {
			t.Fatalf("BGP requested reads %+v", bgp)
		}
		if _, err := c.ProjectsApi.DeleteProject(ctx, p.GetId()).Execute(); err != nil {
			t.Fatal(err)
		}
		_, resp, err := c.ProjectsApi.FindProjectById(ctx, p.GetId()).Execute()
		apiError(t, resp, err, http.StatusNotFound)
	})
	steps.Run("lists plans and operating systems", nil, func(t *testing.T) {
		plans, _, err := c.PlansApi.FindPlans(ctx).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if len(plans.GetPlans()) == 0 || plans.GetPlans()[0].GetSlug() == "" {
			t.Fatalf("plans %+v", plans)
		}
		oses, _, err := c.OperatingSystemsApi.FindOperatingSystems(ctx).Execute()
		if err != nil {
			t.Fatal(err)
		}
		for _, slug := range []string{harness.OS, harness.OtherOS} {
			if !slices.ContainsFunc(oses.GetOperatingSystems(), func(o metalv1.OperatingSystem) bool { return o.GetSlug() == slug }) {
				t.Fatalf("%s not among the operating systems", slug)
			}
		}
	})

	// The catalog's names, read as metal-cli and the Terraform provider's
	// data sources read them, and the metro and plan of the on-demand
	// device below.
	var metro, plan string
	steps.Run("reads the catalog's names", nil, func(t *testing.T) {
		metros, _, err := c.MetrosApi.FindMetros(ctx).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if len(metros.GetMetros()) == 0 {
			t.Fatal("no metros")
		}
		m := metros.GetMetros()[0]
		if m.GetName() == "" || m.GetCountry() == "" {
			t.Fatalf("metro %+v has no name or country", m)
		}
		one, _, err := c.MetrosApi.GetMetro(ctx, m.GetId()).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if one.GetCode() != m.GetCode() || one.GetName() != m.GetName() {
			t.Fatalf("metro %s reads %+v", m.GetId(), one)
		}
		metro = m.GetCode()
		facilities, _, err := c.FacilitiesApi.FindFacilitiesByProject(ctx, env.Project).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(facilities.GetFacilities(), func(f metalv1.Facility) bool {
			fm := f.GetMetro()
			return fm.GetCode() == metro && strings.HasPrefix(f.GetName(), m.GetName())
		}) {
			t.Fatalf("no named facility of metro %s in the project's list", metro)
		}
		plans, _, err := c.PlansApi.FindPlansByProject(ctx, env.Project).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if len(plans.GetPlans()) == 0 || plans.GetPlans()[0].GetName() == "" {
			t.Fatalf("the project's plans %+v", plans)
		}
		plan = plans.GetPlans()[0].GetSlug()
	})
	catalog := []string{"reads the catalog's names"}
	steps.Run("checks capacity for an on-demand device", catalog, func(t *testing.T) {
		server := metalv1.NewServerInfo()
		server.SetMetro(metro)
		server.SetPlan(plan)
		server.SetQuantity("1")
		input := metalv1.NewCapacityInput()
		input.SetServers([]metalv1.ServerInfo{*server})
		got, _, err := c.CapacityApi.CheckCapacityForMetro(ctx).CapacityInput(*input).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if len(got.GetServers()) != 1 || !got.GetServers()[0].GetAvailable() {
			t.Fatalf("capacity check %+v, want one server available", got.GetServers())
		}
	})
	// An on-demand device whose public IPv4 comes from a reserved block,
	// as the Terraform provider's ip_address { reservation_ids } asks.
	var (
		block    *metalv1.IPReservation
		onDemand *metalv1.Device
	)
	steps.Run("creates an on-demand device with an address of a reserved block", catalog, func(t *testing.T) {
		request := metalv1.NewIPReservationRequestInput(2, "public_ipv4")
		request.SetMetro(metro)
		r, _, err := c.IPAddressesApi.RequestIPReservation(ctx, env.Project).
			RequestIPReservationRequest(metalv1.IPReservationRequestInputAsRequestIPReservationRequest(request)).
			Execute()
		if err != nil {
			t.Fatal(err)
		}
		if r.IPReservation == nil {
			t.Fatalf("the reservation decoded as %+v", r)
		}
		block = r.IPReservation
		public := metalv1.NewIPAddress()
		public.SetAddressFamily(metalv1.IPADDRESSADDRESSFAMILY__4)
		public.SetPublic(true)
		public.SetCidr(32)
		public.SetIpReservations([]string{block.GetId()})
		private := metalv1.NewIPAddress()
		private.SetAddressFamily(metalv1.IPADDRESSADDRESSFAMILY__4)
		private.SetPublic(false)
		input := metalv1.NewDeviceCreateInMetroInput(metro, harness.OS, plan)
		input.SetHostname("metalv1-on-demand")
		input.SetIpAddresses([]metalv1.IPAddress{*public, *private})
		d, _, err := c.DevicesApi.CreateDevice(ctx, env.Project).
			CreateDeviceRequest(metalv1.DeviceCreateInMetroInputAsCreateDeviceRequest(input)).
			Execute()
		if err != nil {
			t.Fatal(err)
		}
		onDemand = d
		waitState(t, ctx, c, d.GetId(), metalv1.DEVICESTATE_ACTIVE)
		read, _, err := c.DevicesApi.FindDeviceById(ctx, d.GetId()).Execute()
		if err != nil {
			t.Fatal(err)
		}
		addresses := read.GetIpAddresses()
		if len(addresses) != 2 || addresses[0].GetAddress() != block.GetAddress() || !addresses[0].GetManagement() ||
			addresses[1].GetPublic() {
			t.Fatalf("addresses %+v, want the block's %s first and a private one", addresses, block.GetAddress())
		}
		free, _, err := c.IPAddressesApi.FindIPAvailabilities(ctx, block.GetId()).
			Cidr(metalv1.FINDIPAVAILABILITIESCIDRPARAMETER__32).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if len(free.GetAvailable()) != 1 {
			t.Fatalf("free in the block after the create: %v", free.GetAvailable())
		}
	})
	made := []string{"creates an on-demand device with an address of a reserved block"}
	steps.Run("reads the device's metadata", made, func(t *testing.T) {
		m, _, err := c.DevicesApi.FindDeviceMetadataByID(ctx, onDemand.GetId()).Execute()
		if err != nil {
			t.Fatal(err)
		}
		network := m.GetNetwork()
		if m.GetHostname() != "metalv1-on-demand" || m.GetMetro() != metro || m.GetPlan() != plan ||
			!slices.Contains(network.GetAddresses(), block.GetAddress()+"/32") {
			t.Fatalf("metadata %+v", m)
		}
	})
	steps.Run("lists the device's own blocks among the project's", made, func(t *testing.T) {
		list, _, err := c.IPAddressesApi.FindIPReservations(ctx, env.Project).
			Types([]metalv1.FindIPReservationsTypesParameterInner{metalv1.FINDIPRESERVATIONSTYPESPARAMETERINNER_PRIVATE_IPV4}).
			Execute()
		if err != nil {
			t.Fatal(err)
		}
		found := slices.ContainsFunc(list.GetIpAddresses(), func(r metalv1.IPReservationListIpAddressesInner) bool {
			return r.IPReservation != nil && !r.IPReservation.GetPublic() && r.IPReservation.GetAddressFamily() == 4
		})
		if !found {
			t.Fatalf("no private block among %d", len(list.GetIpAddresses()))
		}
	})
	steps.Run("reads the device's events", made, func(t *testing.T) {
		events, _, err := c.EventsApi.FindDeviceEvents(ctx, onDemand.GetId()).Execute()
		if err != nil {
			t.Fatal(err)
		}
		types := []string{}
		for _, e := range events.GetEvents() {
			types = append(types, e.GetType())
		}
		// The first page (10, newest first): the end of provisioning.
		for _, want := range []string{"provisioning.110", "provisioning.104"} {
			if !slices.Contains(types, want) {
				t.Fatalf("events %v lack %s", types, want)
			}
		}
	})
	steps.Run("deletes the on-demand device and releases the block", made, func(t *testing.T) {
		if _, err := c.DevicesApi.DeleteDevice(ctx, onDemand.GetId()).Execute(); err != nil {
			t.Fatal(err)
		}
		free, _, err := c.IPAddressesApi.FindIPAvailabilities(ctx, block.GetId()).
			Cidr(metalv1.FINDIPAVAILABILITIESCIDRPARAMETER__32).Execute()
		if err != nil {
			t.Fatal(err)
		}
		if len(free.GetAvailable()) != 2 {
			t.Fatalf("free in the block after the delete: %v", free.GetAvailable())
		}
		if _, err := c.IPAddressesApi.DeleteIPAddress(ctx, block.GetId()).Execute(); err != nil {
			t.Fatal(err)
		}
	})
}
