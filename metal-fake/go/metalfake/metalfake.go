// Package metalfake runs the metal-fake binary (a stateful fake Equinix
// Metal API) for a Go test, as httptest.NewServer runs a handler: Start
// gives a Fake with the URL, token and project to point packngo or
// equinix-sdk-go at, and the control API (faults, recorded calls, the
// clock, the world) as methods; t.Cleanup stops the process.
//
//	func TestCreate(t *testing.T) {
//		fake := metalfake.Start(t, metalfake.Reservations(2))
//		c, _ := packngo.NewClientWithBaseURL("test", fake.Token, nil, fake.URL+"/")
//		fake.Fault(metalfake.Fault{Operation: "createDevice", Kind: metalfake.DropAfter})
//		...
//	}
//
// The binary is the METAL_FAKE environment variable's, else metal-fake on
// the PATH (pip install metal-fake, or cargo install metal-fake --features
// cli). Standard library only. The flags it passes and the JSON fields it
// sends and reads follow the binary's: the package's tests check them
// against `metal-fake --help` and `metal-fake --control-schema`.
package metalfake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultToken is the X-Auth-Token the fake accepts unless Token says
// otherwise (a test value).
const DefaultToken = "metal-fake-token"

// EnvBinary names the environment variable that gives the binary's path.
const EnvBinary = "METAL_FAKE"

// flags are the binary's flags this package passes.
var flags = struct {
	Listen, Token, Project, Reservations, World, ControlToken, TimeScale,
	RateLimit, FaultRate, Seed, FailRate, FailHostname, ProvisionSeconds,
	PowerSeconds, ReleaseSeconds, DeprovisionSeconds, StateFile, LogCalls string
}{
	Listen:             "--listen",
	Token:              "--token",
	Project:            "--project",
	Reservations:       "--reservations",
	World:              "--world",
	ControlToken:       "--control-token",
	TimeScale:          "--time-scale",
	RateLimit:          "--rate-limit",
	FaultRate:          "--fault-rate",
	Seed:               "--seed",
	FailRate:           "--fail-rate",
	FailHostname:       "--fail-hostname",
	ProvisionSeconds:   "--provision-seconds",
	PowerSeconds:       "--power-seconds",
	ReleaseSeconds:     "--release-seconds",
	DeprovisionSeconds: "--deprovision-seconds",
	StateFile:          "--state-file",
	LogCalls:           "--log-calls",
}

// config is what the options set.
type config struct {
	binary       string
	token        string
	controlToken string
	// flags are the flags and their values, in the order first set.
	flags []flagValue
	// logCalls passes --log-calls (a flag without a value).
	logCalls bool
	args     []string
	world    any
	// timeout bounds the wait for the first two lines.
	timeout time.Duration
}

// flagValue is one flag and its value.
type flagValue struct{ name, value string }

// set sets flag name to value, in place of an earlier value (the binary
// refuses a flag given twice).
func (c *config) set(name, value string) {
	for i := range c.flags {
		if c.flags[i].name == name {
			c.flags[i].value = value
			return
		}
	}
	c.flags = append(c.flags, flagValue{name, value})
}

// Option sets a flag of the binary, or how it is started. A later option
// for the same flag replaces an earlier one (FailHostname adds).
type Option func(*config)

func flag(name string, value string) Option {
	return func(c *config) { c.set(name, value) }
}

func float(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Token is the X-Auth-Token the fake accepts (default DefaultToken).
func Token(token string) Option { return func(c *config) { c.token = token } }

// Project is the main project's UUID (default: a random one).
func Project(id string) Option { return flag(flags.Project, id) }

// Reservations is how many provisionable hardware reservations the main
// project holds (the binary's default is 10).
func Reservations(n int) Option { return flag(flags.Reservations, strconv.Itoa(n)) }

// World seeds the fake with a world document: any value that encodes to
// one (a map, a struct, json.RawMessage), written to a file in the test's
// temporary directory.
func World(doc any) Option { return func(c *config) { c.world = doc } }

// WorldFile seeds the fake with the world document in the file at path.
func WorldFile(path string) Option { return flag(flags.World, path) }

// ControlToken guards the control API with token; the Fake's methods send
// it.
func ControlToken(token string) Option {
	return func(c *config) {
		c.controlToken = token
		c.set(flags.ControlToken, token)
	}
}

// TimeScale runs the fake's clock this many times faster (1 to 10000).
func TimeScale(scale float64) Option { return flag(flags.TimeScale, float(scale)) }

// RateLimit is how many API requests a second the fake allows (0: no
// limit; the binary's default is 40).
func RateLimit(perSecond int) Option { return flag(flags.RateLimit, strconv.Itoa(perSecond)) }

// FaultRate gives a random recoverable fault to this share of the
// requests (0 to 1), drawn from Seed.
func FaultRate(rate float64) Option { return flag(flags.FaultRate, float(rate)) }

// Seed seeds the random faults and provisioning failures.
func Seed(seed uint64) Option { return flag(flags.Seed, strconv.FormatUint(seed, 10)) }

// FailRate makes this share of new devices fail to provision (0 to 1).
func FailRate(rate float64) Option { return flag(flags.FailRate, float(rate)) }

// FailHostname makes the next device of this hostname fail to provision.
func FailHostname(hostname string) Option {
	return func(c *config) { c.flags = append(c.flags, flagValue{flags.FailHostname, hostname}) }
}

// ProvisionSeconds is the time from create to active.
func ProvisionSeconds(s float64) Option { return flag(flags.ProvisionSeconds, float(s)) }

// PowerSeconds is the time a power transition takes.
func PowerSeconds(s float64) Option { return flag(flags.PowerSeconds, float(s)) }

// ReleaseSeconds is the time after a delete before the reservation is
// provisionable again.
func ReleaseSeconds(s float64) Option { return flag(flags.ReleaseSeconds, float(s)) }

// DeprovisionSeconds is how long a deleted device reads as
// deprovisioning.
func DeprovisionSeconds(s float64) Option { return flag(flags.DeprovisionSeconds, float(s)) }

// StateFile loads the world from path at start when it exists (and the
// binary saves it there on SIGTERM; Close kills it, so nothing is saved).
func StateFile(path string) Option { return flag(flags.StateFile, path) }

// LogCalls has the binary print one line a call to its stderr (method,
// path and query, operation, status, fault, the error message answered;
// never a header or a body): read it with Stderr.
func LogCalls() Option { return func(c *config) { c.logCalls = true } }

// Binary is the binary to run, in place of $METAL_FAKE or the PATH's.
func Binary(path string) Option { return func(c *config) { c.binary = path } }

// Args are more flags, passed as they are.
func Args(args ...string) Option {
	return func(c *config) { c.args = append(c.args, args...) }
}

// StartTimeout bounds the wait for the fake's first two lines (default 30
// seconds).
func StartTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Fake is a running metal-fake.
type Fake struct {
	// URL is the API's base URL, ending in /metal/v1 (what a client is
	// given).
	URL string
	// Root is the server's root: the control API is under Root+"/_fake".
	Root string
	// Token is the X-Auth-Token the fake accepts.
	Token string
	// Project is the main project's UUID.
	Project string

	controlToken string
	cmd          *exec.Cmd
	stderr       *lockedBuffer
	http         *http.Client
	once         sync.Once
}

// lockedBuffer is the process's stderr, read while it is written.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Start starts the binary on a free loopback port and waits for its URL
// and project; it fails the test, with the binary's stderr, if the fake
// does not start. t.Cleanup stops it, and logs its stderr when the test
// failed.
func Start(t testing.TB, opts ...Option) *Fake {
	t.Helper()
	f, err := start(t.TempDir(), opts...)
	if err != nil {
		t.Fatalf("metalfake: %v", err)
		return nil
	}
	t.Cleanup(func() {
		f.Close()
		if t.Failed() {
			t.Logf("metal-fake stderr:\n%s", f.Stderr())
		}
	})
	return f
}

// binaryPath is the binary to run: the option's, $METAL_FAKE's, or the
// PATH's metal-fake.
func binaryPath(c *config) (string, error) {
	if c.binary != "" {
		return c.binary, nil
	}
	if p := os.Getenv(EnvBinary); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("metal-fake")
	if err != nil {
		return "", fmt.Errorf("metal-fake is not on the PATH and %s is not set "+
			"(pip install metal-fake, or cargo install metal-fake --features cli): %v", EnvBinary, err)
	}
	return p, nil
}

// start starts the binary, with dir for the files it needs.
func start(dir string, opts ...Option) (*Fake, error) {
	c := &config{token: DefaultToken, timeout: 30 * time.Second}
	for _, opt := range opts {
		opt(c)
	}
	bin, err := binaryPath(c)
	if err != nil {
		return nil, err
	}
	args := []string{flags.Listen, "127.0.0.1:0", flags.Token, c.token}
	if c.world != nil {
		doc, err := json.Marshal(c.world)
		if err != nil {
			return nil, fmt.Errorf("the world does not encode: %v", err)
		}
		path := filepath.Join(dir, "metal-fake-world.json")
		if err := os.WriteFile(path, doc, 0o600); err != nil {
			return nil, err
		}
		args = append(args, flags.World, path)
	}
	for _, f := range c.flags {
		args = append(args, f.name, f.value)
	}
	if c.logCalls {
		args = append(args, flags.LogCalls)
	}
	args = append(args, c.args...)
	cmd := exec.Command(bin, args...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot run %s: %v", bin, err)
	}
	type lines struct {
		url, project string
		err          error
	}
	read := make(chan lines, 1)
	go func() {
		r := bufio.NewReader(stdout)
		first, err := r.ReadString('\n')
		if err != nil {
			read <- lines{err: fmt.Errorf("stdout ended (%v) after %q", err, first)}
			return
		}
		second, err := r.ReadString('\n')
		if err != nil {
			read <- lines{err: fmt.Errorf("stdout ended (%v) after %q", err, first+second)}
			return
		}
		read <- lines{url: strings.TrimSpace(first), project: strings.TrimSpace(second)}
		// Nothing else comes on stdout; drain it so the binary never blocks.
		_, _ = io.Copy(io.Discard, r)
	}()
	// fail stops the process, after giving it a while to exit on its own
	// when its stdout ended (exiting), and says why it did not start.
	fail := func(why string, exiting bool) (*Fake, error) {
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		var status error
		select {
		case status = <-waited:
		case <-time.After(exitWait(exiting)):
			_ = cmd.Process.Kill()
			status = <-waited
		}
		return nil, fmt.Errorf("%s %s did not start (%s; %v); its stderr:\n%s",
			bin, strings.Join(args, " "), why, status, stderr.String())
	}
	var got lines
	select {
	case got = <-read:
	case <-time.After(c.timeout):
		return fail(fmt.Sprintf("no URL and project after %v", c.timeout), false)
	}
	if got.err != nil {
		return fail(got.err.Error(), true)
	}
	apiURL, ok := strings.CutPrefix(got.url, "metal-fake listening on ")
	project, ok2 := strings.CutPrefix(got.project, "project ")
	if !ok || !ok2 {
		return fail(fmt.Sprintf("unexpected lines %q and %q", got.url, got.project), false)
	}
	return &Fake{
		URL:          apiURL,
		Root:         strings.TrimSuffix(apiURL, "/metal/v1"),
		Token:        c.token,
		Project:      project,
		controlToken: c.controlToken,
		cmd:          cmd,
		stderr:       stderr,
		http:         &http.Client{Timeout: 60 * time.Second},
	}, nil
}

// exitWait is how long fail waits for the process to exit by itself: a
// while when its stdout ended, not at all otherwise.
func exitWait(exiting bool) time.Duration {
	if exiting {
		return 10 * time.Second
	}
	return 0
}

// Close stops the process (SIGKILL); Start's cleanup calls it, and a
// second call does nothing.
func (f *Fake) Close() {
	f.once.Do(func() {
		_ = f.cmd.Process.Kill()
		_ = f.cmd.Wait()
	})
}

// Stderr is what the binary wrote to stderr so far (its log).
func (f *Fake) Stderr() string { return f.stderr.String() }

// Kind is a fault kind (the schema's KindName).
type Kind string

// The fault kinds.
const (
	NotSent    Kind = "not_sent"
	FailBefore Kind = "fail_before"
	FailAfter  Kind = "fail_after"
	Throttle   Kind = "throttle"
	Latency    Kind = "latency"
	DropAfter  Kind = "drop_after"
	Hang       Kind = "hang"
	BadGateway Kind = "bad_gateway"
	Truncated  Kind = "truncated"
	Competitor Kind = "competitor"
)

// Kinds lists every fault kind.
var Kinds = []Kind{NotSent, FailBefore, FailAfter, Throttle, Latency, DropAfter, Hang, BadGateway, Truncated, Competitor}

// Fault is one scripted fault (the schema's FaultSpec): Kind on the calls
// of Operation (an operationId; empty: any), only those naming Target, only
// the Nth (1-based), Times in a row (default 1); Status for FailBefore and
// FailAfter, RetryAfterSeconds for Throttle, Seconds for Latency. In
// RandomFaults' kinds, only Kind and its parameters.
type Fault struct {
	Operation         string   `json:"operation,omitempty"`
	Target            string   `json:"target,omitempty"`
	Nth               uint64   `json:"nth,omitempty"`
	Times             uint32   `json:"times,omitempty"`
	Kind              Kind     `json:"kind"`
	Status            int      `json:"status,omitempty"`
	RetryAfterSeconds *float64 `json:"retry_after_seconds,omitempty"`
	Seconds           *float64 `json:"seconds,omitempty"`
}

// faultsRequest is the body of POST /_fake/faults (FaultsRequest).
type faultsRequest struct {
	Faults []Fault       `json:"faults,omitempty"`
	Random *randomFaults `json:"random,omitempty"`
}

// randomFaults is RandomSpec.
type randomFaults struct {
	Rate  float64 `json:"rate"`
	Seed  uint64  `json:"seed"`
	Kinds []Fault `json:"kinds,omitempty"`
}

// clockRequest is the body of POST /_fake/clock (ClockRequest).
type clockRequest struct {
	AdvanceSeconds float64 `json:"advance_seconds"`
}

// FaultsAdded is the reply of adding faults.
type FaultsAdded struct {
	// Added is how many scripted faults were added.
	Added int `json:"added"`
	// Random says whether random faults were set.
	Random bool `json:"random"`
}

// cleared is the reply of DELETE /_fake/faults.
type cleared struct {
	Cleared bool `json:"cleared"`
}

// Call is one recorded call (CallJson).
type Call struct {
	// Seq is 1-based, in the order the calls were logged.
	Seq uint64 `json:"seq"`
	// Method is the request's method ("GET").
	Method string `json:"method"`
	// Path is the request's path ("/metal/v1/devices/...").
	Path string `json:"path"`
	// Query is the request's query without "?"; nil without one.
	Query *string `json:"query"`
	// Operation is the operationId, or "unknown".
	Operation string `json:"operation"`
	// Status is the status sent; nil when no reply was sent.
	Status *int `json:"status"`
	// Error is the error message the fake answered; nil for a success or
	// no reply.
	Error *string `json:"error"`
	// Fault is the injected fault's label, if any.
	Fault *string `json:"fault"`
	// At is when it arrived, on the fake's clock (RFC 3339).
	At string `json:"at"`
}

// Calls is the recorded calls that matched (Calls): Total of them, the
// last ones listed, oldest first.
type Calls struct {
	Total int    `json:"total"`
	Calls []Call `json:"calls"`
	// LastSeq is the newest call's seq (0: none since the last reset).
	LastSeq uint64 `json:"last_seq"`
	// Resets is how many times the log was emptied: a reader following
	// the log starts over when it changes.
	Resets uint64 `json:"resets"`
}

// Clock is the fake's clock (ClockJson).
type Clock struct {
	// Now is now on the fake's clock (RFC 3339).
	Now string `json:"now"`
	// AdvancedSeconds is the total advance.
	AdvancedSeconds float64 `json:"advanced_seconds"`
	// TimeScale is how much faster than real time it runs.
	TimeScale float64 `json:"time_scale"`
}

// Summary is what a world holds, after a reset or a load (Summary).
type Summary struct {
	MainProject   *string `json:"main_project"`
	Organizations int     `json:"organizations"`
	Projects      int     `json:"projects"`
	Tokens        int     `json:"tokens"`
	Reservations  int     `json:"reservations"`
	Devices       int     `json:"devices"`
	SSHKeys       int     `json:"ssh_keys"`
}

// errorsReply is a refusal (Errors).
type errorsReply struct {
	Errors []string `json:"errors"`
}

// tokenRefused is the refusal of a missing control token (TokenRefused).
type tokenRefused struct {
	Error string `json:"error"`
}

// Error is a control call the fake refused, with its messages.
type Error struct {
	// Method and Path name the call.
	Method, Path string
	// Status is the HTTP status; 0 when there was no reply.
	Status int
	// Errors are the fake's messages.
	Errors []string
}

func (e *Error) Error() string {
	return fmt.Sprintf("metal-fake %s %s: %d: %s", e.Method, e.Path, e.Status, strings.Join(e.Errors, "; "))
}

// control makes one control call and decodes its reply into out.
func (f *Fake) control(method, path string, query url.Values, body, out any) error {
	target := path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return &Error{Method: method, Path: target, Errors: []string{err.Error()}}
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, f.Root+target, reader)
	if err != nil {
		return &Error{Method: method, Path: target, Errors: []string{err.Error()}}
	}
	req.Header.Set("Content-Type", "application/json")
	if f.controlToken != "" {
		req.Header.Set("X-Fake-Control-Token", f.controlToken)
	}
	resp, err := f.http.Do(req)
	if err != nil {
		return &Error{Method: method, Path: target, Errors: []string{err.Error()}}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &Error{Method: method, Path: target, Status: resp.StatusCode, Errors: []string{err.Error()}}
	}
	if resp.StatusCode != http.StatusOK {
		var refused errorsReply
		var token tokenRefused
		messages := []string{string(data)}
		if json.Unmarshal(data, &refused) == nil && len(refused.Errors) > 0 {
			messages = refused.Errors
		} else if json.Unmarshal(data, &token) == nil && token.Error != "" {
			messages = []string{token.Error}
		}
		return &Error{Method: method, Path: target, Status: resp.StatusCode, Errors: messages}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &Error{Method: method, Path: target, Status: resp.StatusCode,
			Errors: []string{fmt.Sprintf("the reply %s does not decode: %v", data, err)}}
	}
	return nil
}

// Reset puts back the seeded world and faults, and empties the call log.
func (f *Fake) Reset() (Summary, error) {
	var s Summary
	return s, f.control(http.MethodPost, "/_fake/reset", nil, nil, &s)
}

// Fault adds scripted faults.
func (f *Fake) Fault(faults ...Fault) (FaultsAdded, error) {
	var added FaultsAdded
	return added, f.control(http.MethodPost, "/_fake/faults", nil, faultsRequest{Faults: faults}, &added)
}

// RandomFaults gives a random fault to rate (0 to 1) of the calls, drawn
// from seed; kinds (Kind and its parameters only) narrows them.
func (f *Fake) RandomFaults(rate float64, seed uint64, kinds ...Fault) (FaultsAdded, error) {
	var added FaultsAdded
	body := faultsRequest{Random: &randomFaults{Rate: rate, Seed: seed, Kinds: kinds}}
	return added, f.control(http.MethodPost, "/_fake/faults", nil, body, &added)
}

// ClearFaults clears every fault, scripted and random.
func (f *Fake) ClearFaults() error {
	var c cleared
	return f.control(http.MethodDelete, "/_fake/faults", nil, nil, &c)
}

// Calls lists the recorded calls: of operation only (unless empty), the
// last limit (unless 0; the fake's default is 1000).
func (f *Fake) Calls(operation string, limit int) (Calls, error) {
	query := url.Values{}
	if operation != "" {
		query.Set("operation", operation)
	}
	if limit != 0 {
		query.Set("limit", strconv.Itoa(limit))
	}
	var calls Calls
	return calls, f.control(http.MethodGet, "/_fake/calls", query, nil, &calls)
}

// Advance advances the fake's clock (at most a week a call).
func (f *Fake) Advance(seconds float64) (Clock, error) {
	var c Clock
	return c, f.control(http.MethodPost, "/_fake/clock", nil, clockRequest{AdvanceSeconds: seconds}, &c)
}

// Clock reads the fake's clock.
func (f *Fake) Clock() (Clock, error) {
	var c Clock
	return c, f.control(http.MethodGet, "/_fake/clock", nil, nil, &c)
}

// World is the world now, as a world document.
func (f *Fake) World() (json.RawMessage, error) {
	var doc json.RawMessage
	return doc, f.control(http.MethodGet, "/_fake/world", nil, nil, &doc)
}

// LoadWorld replaces the world with doc (any value that encodes to a world
// document: json.RawMessage, a map, a struct).
func (f *Fake) LoadWorld(doc any) (Summary, error) {
	var s Summary
	return s, f.control(http.MethodPost, "/_fake/world", nil, doc, &s)
}

// State is the counters and the world's contents.
func (f *Fake) State() (map[string]any, error) {
	var state map[string]any
	return state, f.control(http.MethodGet, "/_fake/state", nil, nil, &state)
}
