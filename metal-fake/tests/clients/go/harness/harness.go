// Package harness is what the Go client tests share: the fake server each
// test starts (metalfake.Start, with the timings the lifecycles need), a
// lifecycle made of named steps that skip, saying why, when a step they
// need failed, and bounded polling.
//
// The tests run through `cargo test -p metal-fake --features cli --test external_clients`,
// which sets METAL_FAKE to the metal-fake binary it built; run directly,
// they use $METAL_FAKE or metal-fake on the PATH, and fail without one.
package harness

import (
	"testing"
	"time"

	"metal-fake/go/metalfake"
)

// PublicKey is the SSH public key the lifecycles register: a valid
// ed25519 key made for these tests (its private half was not kept).
const PublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOVjFzMYflwcJIRqu3RsfO+ZD/Kfa7XSjW5O0gNcTh++ external-clients"

// ProjectKey is a second valid ed25519 public key (its private half was
// not kept either), for a project's key.
const ProjectKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMJQ8x4ZofZgvfC/27rI+MqdzBlsJ18MGi4GffRCqMQe external-clients-project"

// OS is the operating system slug the devices are created with.
const OS = "ubuntu_24_04"

// OtherOS is the operating system a reinstall installs.
const OtherOS = "debian_12"

// Patience bounds every wait for a state: the Rust test starts the fake
// with provisioning and power transitions of a second or two.
const Patience = 30 * time.Second

// Interval is how often a wait polls.
const Interval = 100 * time.Millisecond

// Env is the fake server a test runs against.
type Env struct {
	// URL is the API's base URL, ending in /metal/v1 (no slash).
	URL string
	// Token is the X-Auth-Token the fake accepts.
	Token string
	// Project is the fake's project, which holds the reservations.
	Project string
	// Fake is the running fake, with its control API.
	Fake *metalfake.Fake
}

// Start starts a fake for t, stopped when t ends: 4 reservations, devices
// active two seconds after create, power transitions of half a second,
// reservations free a second after a delete, and a rate limit no client
// here reaches (so the X-RateLimit-* headers are present but no 429
// comes: none of these clients retries one); opts come after, so they win.
func Start(t *testing.T, opts ...metalfake.Option) Env {
	t.Helper()
	defaults := []metalfake.Option{
		metalfake.Token("external-clients-token"),
		metalfake.Reservations(4),
		metalfake.ProvisionSeconds(2),
		metalfake.PowerSeconds(0.5),
		metalfake.ReleaseSeconds(1),
		metalfake.RateLimit(1000),
	}
	fake := metalfake.Start(t, append(defaults, opts...)...)
	return Env{URL: fake.URL, Token: fake.Token, Project: fake.Project, Fake: fake}
}

// OwnProject is the project of OwnWorld.
const OwnProject = "0b000000-0000-4000-8000-0000000000c1"

// OwnWorld is a world document of its own, for the walks that must not
// depend on the default world's catalog: an organisation with OwnProject,
// one plan (c3.small.x86 at $0.50 an hour, so a spot bid of $0.15 is the
// market price), in metro da (facility da11), four machines free there.
func OwnWorld() map[string]any {
	org := "0a000000-0000-4000-8000-0000000000c1"
	return map[string]any{
		"organizations": []any{map[string]any{"id": org, "name": "external clients"}},
		"projects":      []any{map[string]any{"id": OwnProject, "organization": org, "name": "walks"}},
		"plans":         []any{map[string]any{"slug": "c3.small.x86", "pricing": map[string]any{"hour": 0.5}}},
		"metros":        []any{map[string]any{"code": "da"}},
		"facilities":    []any{map[string]any{"code": "da11", "metro": "da"}},
		"capacity":      []any{map[string]any{"facility": "da11", "plan": "c3.small.x86", "available": 4}},
	}
}

// StartOwn starts a fake on OwnWorld for t, with Start's timings.
func StartOwn(t *testing.T) Env {
	t.Helper()
	fake := metalfake.Start(t,
		metalfake.Token("external-clients-token"),
		metalfake.World(OwnWorld()),
		metalfake.ProvisionSeconds(2),
		metalfake.PowerSeconds(0.5),
		metalfake.ReleaseSeconds(1),
		metalfake.RateLimit(1000),
	)
	return Env{URL: fake.URL, Token: fake.Token, Project: OwnProject, Fake: fake}
}

// Steps runs a lifecycle's steps in order as sub-tests. A step names the
// steps it needs; when one of those did not pass, it is skipped with the
// reason instead of failing for someone else's fault, so a run fails at
// exactly the steps that are wrong.
type Steps struct {
	t      *testing.T
	passed map[string]bool
}

// NewSteps starts a lifecycle in t.
func NewSteps(t *testing.T) *Steps {
	return &Steps{t: t, passed: map[string]bool{}}
}

// Run runs step name after checking that every step in needs passed, and
// reports whether it passed (a skipped step did not).
func (s *Steps) Run(name string, needs []string, step func(t *testing.T)) bool {
	s.t.Helper()
	passed := false
	s.t.Run(name, func(t *testing.T) {
		for _, need := range needs {
			if !s.passed[need] {
				t.Skipf("skipped: needs step %q, which did not pass", need)
			}
		}
		// Deferred, so a step that stops with t.Fatal is recorded too.
		defer func() { passed = !t.Failed() && !t.Skipped() }()
		step(t)
	})
	s.passed[name] = passed
	return passed
}

// Until polls check every Interval until it reports done, failing the test
// after Patience with the last thing it saw. check returns what it saw, for
// the failure message.
func Until(t *testing.T, what string, check func() (done bool, saw string)) {
	t.Helper()
	deadline := time.Now().Add(Patience)
	for {
		done, saw := check()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v; last saw %s", what, Patience, saw)
		}
		time.Sleep(Interval)
	}
}

// Once fails t unless ids holds want distinct IDs, each once (a list read
// whole through a client's paging).
func Once(t *testing.T, what string, ids []string, want int) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("%s: %s listed twice in %v", what, id, ids)
		}
		seen[id] = true
	}
	if len(ids) != want {
		t.Fatalf("%s: want %d, listed %d: %v", what, want, len(ids), ids)
	}
}

// CallsOf is how many calls of operation the fake has logged.
func CallsOf(t *testing.T, env Env, operation string) int {
	t.Helper()
	calls, err := env.Fake.Calls(operation, 1)
	if err != nil {
		t.Fatal(err)
	}
	return calls.Total
}

// Pages fails t unless operation was called want times since the fake had
// logged before calls of it (so a list was read a page a call), and
// returns how many it has logged now.
func Pages(t *testing.T, env Env, operation string, before, want int) int {
	t.Helper()
	now := CallsOf(t, env, operation)
	if now-before != want {
		t.Fatalf("%s: want %d pages read, the fake served %d", operation, want, now-before)
	}
	return now
}
