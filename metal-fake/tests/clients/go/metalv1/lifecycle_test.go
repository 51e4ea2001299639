// A full device lifecycle through equinix-sdk-go's metalv1 client
// (github.com/equinix/equinix-sdk-go/services/metalv1, unmodified) against
// the metal-fake binary; run by `cargo test -p metal-fake --features cli --test
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
	env := harness.Load(t)
	c := client(env)
	ctx := authed(env.Token)
	steps := harness.NewSteps(t)
	var (
		key          *metalv1.SSHKey
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
		if len(reservations) < 2 {
			t.Fatalf("want at least 2 provisionable reservations, got %d of %d", len(reservations), len(list.GetHardwareReservations()))
		}
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
	steps.Run("reads 404 after delete", []string{"deletes the device"}, func(t *testing.T) {
		harness.Until(t, "device "+device.GetId()+" gone", func() (bool, string) {
			d, resp, err := c.DevicesApi.FindDeviceById(ctx, device.GetId()).Execute()
			if err == nil {
				return false, "state " + string(d.GetState())
			}
			return resp != nil && resp.StatusCode == http.StatusNotFound, err.Error()
		})
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
}
