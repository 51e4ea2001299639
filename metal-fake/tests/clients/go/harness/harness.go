// Package harness is what the Go client tests share: the fake server they
// run against (from the environment the Rust test sets), a lifecycle made
// of named steps that skip, saying why, when a step they need failed, and
// bounded polling.
//
// The tests run through `cargo test -p metal-fake --features cli --test external_clients`,
// which starts the metal-fake binary and sets METAL_API_URL,
// METAL_AUTH_TOKEN and METAL_PROJECT_ID. Run directly without them, they
// skip.
package harness

import (
	"os"
	"testing"
	"time"
)

// PublicKey is the SSH public key the lifecycles register: a valid
// ed25519 key made for these tests (its private half was not kept).
const PublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOVjFzMYflwcJIRqu3RsfO+ZD/Kfa7XSjW5O0gNcTh++ external-clients"

// OS is the operating system slug the devices are created with.
const OS = "ubuntu_24_04"

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
}

// Load reads the fake's address, token and project, and skips the test,
// saying how to run it, when they are not set.
func Load(t *testing.T) Env {
	t.Helper()
	env := Env{
		URL:     os.Getenv("METAL_API_URL"),
		Token:   os.Getenv("METAL_AUTH_TOKEN"),
		Project: os.Getenv("METAL_PROJECT_ID"),
	}
	if env.URL == "" || env.Token == "" || env.Project == "" {
		t.Skip("METAL_API_URL, METAL_AUTH_TOKEN and METAL_PROJECT_ID are not set: " +
			"run through `cargo test -p metal-fake --features cli --test external_clients`")
	}
	return env
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
