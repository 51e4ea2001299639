// include and exclude through packngo's own options: GetOptions.Includes
// (packngo joins them into one comma-separated value), dotted names, and
// Excludes; each reference packngo's types read is an href alone unless
// asked for, whole when asked, an href again when excluded. The reads are
// those packngo's own acceptance tests make (a project's members, a
// user's emails, a BGP configuration's sessions, a device's keys).
// Run by `cargo test -p metal-fake --all-features --test external_clients -- --ignored packngo_includes`.
package packngo_test

import (
	"testing"

	"github.com/packethost/packngo"

	"metal-fake/tests/clients/harness"
)

func TestInclude(t *testing.T) {
	env := harness.Start(t)
	c := client(t, env, env.Token)
	steps := harness.NewSteps(t)
	var (
		device *packngo.Device
		key    *packngo.SSHKey
	)

	steps.Run("reads the project's members whole, and its organisation", nil, func(t *testing.T) {
		plain, _, err := c.Projects.Get(env.Project, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(plain.Users) == 0 || plain.Users[0].ID != "" || plain.Organization.ID != "" || plain.Organization.URL == "" {
			t.Fatalf("not included: members %+v, organization %+v", plain.Users, plain.Organization)
		}
		got, _, err := c.Projects.Get(env.Project, &packngo.GetOptions{Includes: []string{"members", "organization"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Users) == 0 || got.Users[0].ID == "" || got.Users[0].Email == "" || got.Organization.Name == "" {
			t.Fatalf("included: members %+v, organization %+v", got.Users, got.Organization)
		}
	})
	steps.Run("reads the user's emails whole", nil, func(t *testing.T) {
		me, _, err := c.Users.Current()
		if err != nil {
			t.Fatal(err)
		}
		u, _, err := c.Users.Get(me.ID, &packngo.GetOptions{Includes: []string{"emails"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(u.Emails) == 0 || u.Emails[0].Address != me.Email || !u.Emails[0].Default {
			t.Fatalf("emails %+v of %s", u.Emails, me.Email)
		}
	})
	steps.Run("creates a device with a key", nil, func(t *testing.T) {
		k, _, err := c.SSHKeys.Create(&packngo.SSHKeyCreateRequest{Label: "packngo-include", Key: harness.PublicKey})
		if err != nil {
			t.Fatal(err)
		}
		key = k
		reservations, _, err := c.HardwareReservations.List(env.Project, nil)
		if err != nil || len(reservations) == 0 {
			t.Fatalf("reservations %v, %v", reservations, err)
		}
		device = createOn(t, c, env, reservations[0], "packngo-include")
		waitState(t, c, device.ID, "active")
	})
	created := []string{"creates a device with a key"}
	steps.Run("reads the device's keys and project whole, comma-joined, and excludes its plan", created, func(t *testing.T) {
		plain, _, err := c.Devices.Get(device.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(plain.SSHKeys) != 1 || plain.SSHKeys[0].ID != "" || plain.SSHKeys[0].URL == "" ||
			plain.Project == nil || plain.Project.ID != "" || plain.Plan == nil || plain.Plan.Slug == "" {
			t.Fatalf("by default: keys %+v, project %+v, plan %+v", plain.SSHKeys, plain.Project, plain.Plan)
		}
		got, _, err := c.Devices.Get(device.ID, &packngo.GetOptions{
			Includes: []string{"ssh_keys", "project.organization"},
			Excludes: []string{"plan"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.SSHKeys) != 1 || got.SSHKeys[0].ID != key.ID || got.SSHKeys[0].Key != harness.PublicKey {
			t.Fatalf("keys %+v", got.SSHKeys)
		}
		if got.Project == nil || got.Project.ID != env.Project || got.Project.Organization.Name == "" {
			t.Fatalf("project %+v", got.Project)
		}
		if got.Plan == nil || got.Plan.Slug != "" || got.Plan.Href == "" {
			t.Fatalf("excluded plan %+v", got.Plan)
		}
	})
	steps.Run("reads the BGP configuration's sessions whole", created, func(t *testing.T) {
		if _, err := c.BGPConfig.Create(env.Project, packngo.CreateBGPConfigRequest{
			DeploymentType: "local", Asn: 65000,
		}); err != nil {
			t.Fatal(err)
		}
		yes := true
		s, _, err := c.BGPSessions.Create(device.ID, packngo.CreateBGPSessionRequest{AddressFamily: "ipv4", DefaultRoute: &yes})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := c.BGPConfig.Get(env.Project, &packngo.GetOptions{Includes: []string{"sessions"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Sessions) != 1 || got.Sessions[0].ID != s.ID || got.Sessions[0].AddressFamily != "ipv4" {
			t.Fatalf("sessions %+v", got.Sessions)
		}
		// packngo's update sends an object, and reads the session back.
		updated, _, err := c.BGPSessions.Update(s.ID, packngo.UpdateBGPSessionRequest{DefaultRoute: false})
		if err != nil || updated.ID != s.ID || updated.DefaultRoute == nil || *updated.DefaultRoute {
			t.Fatalf("updated %+v, %v", updated, err)
		}
	})
	steps.Run("lists the project's devices with their project whole", created, func(t *testing.T) {
		all, _, err := c.Devices.List(env.Project, &packngo.ListOptions{Includes: []string{"project"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) == 0 {
			t.Fatal("no devices")
		}
		for _, d := range all {
			if d.Project == nil || d.Project.ID != env.Project || d.Project.Name == "" {
				t.Fatalf("device %s's project %+v", d.ID, d.Project)
			}
		}
	})
}
