// include and exclude through metalv1's own request builders (Include and
// Exclude take lists, sent comma-joined as the spec's `explode: false`
// says): a reference metalv1 types as the thing is whole when included and
// an href alone otherwise; one it types as an Href keeps the whole thing's
// other fields in AdditionalProperties; an excluded one is its href.
// Run by `cargo test -p metal-fake --all-features --test external_clients -- --ignored metalv1_includes`.
package metalv1_test

import (
	"testing"

	"github.com/equinix/equinix-sdk-go/services/metalv1"

	"metal-fake/tests/clients/harness"
)

func TestInclude(t *testing.T) {
	env := harness.Start(t)
	c := client(env)
	ctx := authed(env.Token)
	steps := harness.NewSteps(t)
	var (
		device string
		key    string
	)

	steps.Run("reads the project's organisation whole", nil, func(t *testing.T) {
		plain, _, err := c.ProjectsApi.FindProjectById(ctx, env.Project).Execute()
		if err != nil {
			t.Fatal(err)
		}
		org := plain.GetOrganization()
		if org.GetName() != "" || org.GetHref() == "" {
			t.Fatalf("not included: %+v", org)
		}
		got, _, err := c.ProjectsApi.FindProjectById(ctx, env.Project).Include([]string{"organization", "members"}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		org = got.GetOrganization()
		members := got.GetMembers()
		if org.GetName() == "" || len(members) == 0 || members[0].AdditionalProperties["email"] == nil {
			t.Fatalf("included: organization %+v, members %+v", org, members)
		}
	})
	steps.Run("reads the user's emails whole", nil, func(t *testing.T) {
		me, _, err := c.UsersApi.FindCurrentUser(ctx).Include([]string{"emails"}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		emails := me.GetEmails()
		if len(emails) == 0 || emails[0].AdditionalProperties["address"] != me.GetEmail() {
			t.Fatalf("emails %+v of %s", emails, me.GetEmail())
		}
	})
	steps.Run("creates a device with a key", nil, func(t *testing.T) {
		input := metalv1.NewSSHKeyCreateInput()
		input.SetLabel("metalv1-include")
		input.SetKey(harness.PublicKey)
		k, _, err := c.SSHKeysApi.CreateSSHKey(ctx).SSHKeyCreateInput(*input).Execute()
		if err != nil {
			t.Fatal(err)
		}
		key = k.GetId()
		list, err := c.HardwareReservationsApi.FindProjectHardwareReservations(ctx, env.Project).ExecuteWithPagination()
		if err != nil || len(list.GetHardwareReservations()) == 0 {
			t.Fatalf("reservations %+v, %v", list, err)
		}
		device = createOn(t, ctx, c, env, list.GetHardwareReservations()[0], "metalv1-include").GetId()
		waitState(t, ctx, c, device, metalv1.DEVICESTATE_ACTIVE)
	})
	created := []string{"creates a device with a key"}
	steps.Run("reads the device's project and keys whole, and excludes its plan", created, func(t *testing.T) {
		got, _, err := c.DevicesApi.FindDeviceById(ctx, device).
			Include([]string{"project", "ssh_keys"}).Exclude([]string{"plan"}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		project := got.GetProject()
		if project.GetId() != env.Project || project.GetName() == "" {
			t.Fatalf("project %+v", project)
		}
		keys := got.GetSshKeys()
		if len(keys) != 1 || keys[0].AdditionalProperties["id"] != key {
			t.Fatalf("keys %+v", keys)
		}
		plan := got.GetPlan()
		if plan.GetSlug() != "" || plan.AdditionalProperties["href"] == nil {
			t.Fatalf("excluded plan %+v", plan)
		}
	})
	steps.Run("reads the BGP configuration's sessions whole", created, func(t *testing.T) {
		if _, err := c.BGPApi.RequestBgpConfig(ctx, env.Project).BgpConfigRequestInput(metalv1.BgpConfigRequestInput{
			Asn: 65000, DeploymentType: metalv1.BGPCONFIGREQUESTINPUTDEPLOYMENTTYPE_LOCAL,
		}).Execute(); err != nil {
			t.Fatal(err)
		}
		ipv4 := metalv1.BGPSESSIONINPUTADDRESSFAMILY_IPV4
		input := metalv1.BGPSessionInput{AddressFamily: &ipv4, DefaultRoute: metalv1.PtrBool(true)}
		s, _, err := c.DevicesApi.CreateBgpSession(ctx, device).BGPSessionInput(input).Execute()
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := c.BGPApi.FindBgpConfigByProject(ctx, env.Project).Include([]string{"sessions"}).Execute()
		if err != nil {
			t.Fatal(err)
		}
		sessions := got.GetSessions()
		if len(sessions) != 1 || sessions[0].GetId() != s.GetId() {
			t.Fatalf("sessions %+v", sessions)
		}
	})
}
