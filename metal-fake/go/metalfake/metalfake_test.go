// The package's tests run the binary ($METAL_FAKE, or metal-fake on the
// PATH): `cargo test -p metal-fake --features cli --test go_harness --
// --ignored` sets METAL_FAKE to the workspace's. Without a binary they
// fail, as Start does.
package metalfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// plain is an HTTP client without keep-alive: net/http retries a GET on a
// reused connection that closed before the reply, which would hide a
// dropped reply.
var plain = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// get is a GET of the API with the fake's token: the status and the JSON
// body (status 0 when no reply came).
func get(t *testing.T, f *Fake, path string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Auth-Token", f.Token)
	resp, err := plain.Do(req)
	if err != nil {
		return 0, map[string]any{"error": err.Error()}
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

func fatalIf(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestStartServesTheAPIAndTheControlAPI(t *testing.T) {
	f := Start(t, Reservations(2), RateLimit(0))
	if !strings.HasSuffix(f.URL, "/metal/v1") || f.Token != DefaultToken || f.Project == "" {
		t.Fatalf("started %+v", f)
	}
	status, body := get(t, f, "/projects/"+f.Project+"/hardware-reservations")
	if status != 200 || len(body["hardware_reservations"].([]any)) != 2 {
		t.Fatalf("reservations: %d %v", status, body)
	}
	summary, err := f.Reset()
	fatalIf(t, err)
	if summary.MainProject == nil || *summary.MainProject != f.Project || summary.Reservations != 2 {
		t.Fatalf("reset %+v", summary)
	}
	added, err := f.Fault(Fault{Operation: "findProjectById", Kind: DropAfter})
	fatalIf(t, err)
	if added.Added != 1 || added.Random {
		t.Fatalf("added %+v", added)
	}
	if status, body := get(t, f, "/projects/"+f.Project); status != 0 {
		t.Fatalf("the reply was not dropped: %d %v", status, body)
	}
	if status, _ := get(t, f, "/projects/"+f.Project); status != 200 {
		t.Fatalf("after the fault: %d", status)
	}
	calls, err := f.Calls("findProjectById", 10)
	fatalIf(t, err)
	if calls.Total != 2 || len(calls.Calls) != 2 {
		t.Fatalf("calls %+v", calls)
	}
	first, second := calls.Calls[0], calls.Calls[1]
	if first.Fault == nil || *first.Fault != "drop_after" || first.Status != nil {
		t.Fatalf("the dropped call %+v", first)
	}
	if second.Status == nil || *second.Status != 200 || second.Seq <= first.Seq || second.At == "" {
		t.Fatalf("the second call %+v", second)
	}
	clock, err := f.Advance(600)
	fatalIf(t, err)
	if clock.AdvancedSeconds != 600 || clock.TimeScale != 1 || clock.Now == "" {
		t.Fatalf("clock %+v", clock)
	}
	if again, err := f.Clock(); err != nil || again.AdvancedSeconds != 600 {
		t.Fatalf("clock read %+v %v", again, err)
	}
	state, err := f.State()
	fatalIf(t, err)
	if state["calls"].(float64) != 2 { // the reset forgot the first
		t.Fatalf("state %v", state)
	}
}

func TestACallIsLoggedWithItsRequestAndErrorAndNeverItsToken(t *testing.T) {
	const secret = "secret-token-for-the-log"
	f := Start(t, Token(secret), RateLimit(0), LogCalls())
	missing := "0d000000-0000-4000-8000-00000000dead"
	if status, _ := get(t, f, "/devices/"+missing+"?include=project"); status != 404 {
		t.Fatalf("a missing device: %d", status)
	}
	calls, err := f.Calls("findDeviceById", 10)
	fatalIf(t, err)
	if len(calls.Calls) != 1 {
		t.Fatalf("calls %+v", calls)
	}
	c := calls.Calls[0]
	if c.Method != "GET" || c.Path != "/metal/v1/devices/"+missing {
		t.Fatalf("the call's request %+v", c)
	}
	if c.Query == nil || *c.Query != "include=project" || c.Error == nil || *c.Error != "Not found" {
		t.Fatalf("the call's query and error %+v", c)
	}
	line := "GET /metal/v1/devices/" + missing + "?include=project findDeviceById 404: Not found"
	if !strings.Contains(f.Stderr(), line) {
		t.Fatalf("stderr has no line %q:\n%s", line, f.Stderr())
	}
	raw, err := json.Marshal(calls)
	fatalIf(t, err)
	if strings.Contains(f.Stderr(), secret) || strings.Contains(string(raw), secret) {
		t.Fatalf("the token is in the call log")
	}
}

func TestRandomFaultsAndClearFaults(t *testing.T) {
	f := Start(t, RateLimit(0))
	added, err := f.RandomFaults(1, 3, Fault{Kind: FailBefore, Status: 503})
	fatalIf(t, err)
	if !added.Random || added.Added != 0 {
		t.Fatalf("added %+v", added)
	}
	if status, _ := get(t, f, "/projects/"+f.Project); status != 503 {
		t.Fatalf("a random fault at rate 1: %d", status)
	}
	if err := f.ClearFaults(); err != nil {
		t.Fatal(err)
	}
	if status, _ := get(t, f, "/projects/"+f.Project); status != 200 {
		t.Fatalf("after clearing: %d", status)
	}
	seconds := 0.5
	added, err = f.Fault(
		Fault{Kind: Latency, Seconds: &seconds, Times: 2},
		Fault{Operation: "findProjectById", Kind: Throttle, RetryAfterSeconds: &seconds, Nth: 1},
		Fault{Kind: Hang, Target: f.Project},
	)
	fatalIf(t, err)
	if added.Added != 3 {
		t.Fatalf("added %+v", added)
	}
}

func TestAWorldSavedAndLoaded(t *testing.T) {
	world := map[string]any{
		"projects": []any{map[string]any{"id": "0b000000-0000-4000-8000-0000000000aa", "name": "go"}},
	}
	f := Start(t, World(world))
	if f.Project != "0b000000-0000-4000-8000-0000000000aa" {
		t.Fatalf("project %s", f.Project)
	}
	var doc map[string]any
	saved, err := f.World()
	fatalIf(t, err)
	if err := json.Unmarshal(saved, &doc); err != nil {
		t.Fatal(err)
	}
	doc["projects"] = append(doc["projects"].([]any), map[string]any{"id": "0b000000-0000-4000-8000-0000000000ab"})
	summary, err := f.LoadWorld(doc)
	fatalIf(t, err)
	if summary.Projects != 2 {
		t.Fatalf("loaded %+v", summary)
	}
}

func TestRefusalsAreErrorsWithTheFakesMessage(t *testing.T) {
	f := Start(t)
	_, err := f.Fault(Fault{Operation: "createDevise", Kind: Hang})
	var refused *Error
	if !errors.As(err, &refused) || refused.Status != 422 ||
		!strings.Contains(err.Error(), `"createDevise" is not an operationId of the spec`) {
		t.Fatalf("a misspelt operation: %v", err)
	}
	if _, err := f.Advance(-1); !errors.As(err, &refused) || refused.Status != 422 {
		t.Fatalf("a negative advance: %v", err)
	}
	if _, err := f.Calls("", 1_000_000); err == nil || !strings.Contains(err.Error(), "limit must be from 1") {
		t.Fatalf("a limit too large: %v", err)
	}
}

func TestTheControlTokenIsSent(t *testing.T) {
	f := Start(t, ControlToken("guard"))
	if _, err := f.Reset(); err != nil {
		t.Fatal(err)
	}
	f.controlToken = "wrong"
	_, err := f.State()
	var refused *Error
	if !errors.As(err, &refused) || refused.Status != 401 || !slices.Equal(refused.Errors, []string{"Invalid control token"}) {
		t.Fatalf("a wrong control token: %v", err)
	}
}

// recorder is a testing.TB whose Fatalf records the message and ends the
// goroutine, as testing's does.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestAFakeThatDoesNotStartFailsTheTestWithItsStderr(t *testing.T) {
	r := &recorder{TB: t}
	done := make(chan *Fake)
	go func() {
		var f *Fake
		defer func() { done <- f }()
		f = Start(r, TimeScale(0.5))
	}()
	if f := <-done; f != nil {
		t.Fatalf("a time scale of 0.5 started %+v", f)
	}
	for _, want := range []string{"did not start", "not a time scale from 1 to 10000", "exit status 2"} {
		if !strings.Contains(r.fatal, want) {
			t.Errorf("the failure does not say %q: %s", want, r.fatal)
		}
	}
	if _, err := start(t.TempDir(), Binary(filepath.Join(t.TempDir(), "nowhere"))); err == nil ||
		!strings.Contains(err.Error(), "cannot run") {
		t.Fatalf("a missing binary: %v", err)
	}
}

// binary is the binary the tests run.
func binary(t *testing.T) string {
	t.Helper()
	bin, err := binaryPath(&config{})
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestEveryFlagIsOneOfTheBinarys(t *testing.T) {
	help, err := exec.Command(binary(t), "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(flags)
	for i := 0; i < v.NumField(); i++ {
		flag := v.Field(i).String()
		// A flag with a value is followed by it; one without, by its line's end.
		if !strings.Contains(string(help), flag+" ") && !strings.Contains(string(help), flag+"\n") {
			t.Errorf("metal-fake --help does not name %s (%s)", flag, v.Type().Field(i).Name)
		}
	}
	// Every option at once: a renamed flag makes the binary refuse to start.
	dir := t.TempDir()
	f := Start(t, Token("t"), Project("0b000000-0000-4000-8000-0000000000cc"), Reservations(1),
		ControlToken("c"), TimeScale(2), RateLimit(0), FaultRate(0), Seed(7), FailRate(0),
		FailHostname("doomed"), ProvisionSeconds(1), PowerSeconds(1), ReleaseSeconds(1),
		DeprovisionSeconds(0), StateFile(filepath.Join(dir, "state.json")), LogCalls())
	if f.Project != "0b000000-0000-4000-8000-0000000000cc" || f.Token != "t" {
		t.Fatalf("started %+v", f)
	}
	if summary, err := f.Reset(); err != nil || summary.Reservations != 1 {
		t.Fatalf("reset %+v %v", summary, err)
	}
	// A later option replaces an earlier one; FailHostname adds.
	g := Start(t, Reservations(4), Reservations(2), FailHostname("a"), FailHostname("b"))
	if summary, err := g.Reset(); err != nil || summary.Reservations != 2 {
		t.Fatalf("Reservations(4), Reservations(2): %+v %v", summary, err)
	}
	world := filepath.Join(dir, "world.json")
	doc := `{"projects": [{"id": "0b000000-0000-4000-8000-0000000000dd"}]}`
	if err := os.WriteFile(world, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if g := Start(t, WorldFile(world)); g.Project != "0b000000-0000-4000-8000-0000000000dd" {
		t.Fatalf("from a world file: %+v", g)
	}
}

// jsonFields are the JSON names of a struct's fields.
func jsonFields(v any) []string {
	var names []string
	ty := reflect.TypeOf(v)
	for i := 0; i < ty.NumField(); i++ {
		tag := ty.Field(i).Tag.Get("json")
		names = append(names, strings.Split(tag, ",")[0])
	}
	return names
}

func TestEveryFieldIsInTheControlSchema(t *testing.T) {
	out, err := exec.Command(binary(t), "--control-schema").Output()
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Endpoints   map[string]any `json:"endpoints"`
		Definitions map[string]struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
			Enum       []string       `json:"enum"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(out, &schema); err != nil {
		t.Fatal(err)
	}
	// The JSON the package sends and reads, by the schema's definition.
	wire := map[string]any{
		"FaultsRequest": faultsRequest{},
		"FaultSpec":     Fault{},
		"RandomSpec":    randomFaults{},
		"ClockRequest":  clockRequest{},
		"FaultsAdded":   FaultsAdded{},
		"Cleared":       cleared{},
		"CallJson":      Call{},
		"Calls":         Calls{},
		"ClockJson":     Clock{},
		"Summary":       Summary{},
		"Errors":        errorsReply{},
		"TokenRefused":  tokenRefused{},
	}
	for name, v := range wire {
		def, ok := schema.Definitions[name]
		if !ok {
			t.Errorf("the control schema has no %s", name)
			continue
		}
		fields := jsonFields(v)
		for _, field := range fields {
			if _, ok := def.Properties[field]; !ok {
				t.Errorf("%s.%s (%T) is not in the control schema", name, field, v)
			}
		}
		for _, field := range def.Required {
			if !slices.Contains(fields, field) {
				t.Errorf("%T does not know %s.%s, which the schema requires", v, name, field)
			}
		}
	}
	var kinds []string
	for _, k := range Kinds {
		kinds = append(kinds, string(k))
	}
	slices.Sort(kinds)
	enum := slices.Clone(schema.Definitions["KindName"].Enum)
	slices.Sort(enum)
	if !slices.Equal(kinds, enum) {
		t.Errorf("the kinds %v are not the schema's %v", kinds, enum)
	}
	for _, param := range []string{"operation", "limit"} {
		if _, ok := schema.Definitions["CallsQuery"].Properties[param]; !ok {
			t.Errorf("GET /_fake/calls takes no %s", param)
		}
	}
	for _, endpoint := range []string{
		"POST /_fake/reset", "POST /_fake/faults", "DELETE /_fake/faults", "GET /_fake/calls",
		"POST /_fake/clock", "GET /_fake/clock", "GET /_fake/world", "POST /_fake/world", "GET /_fake/state",
	} {
		if _, ok := schema.Endpoints[endpoint]; !ok {
			t.Errorf("%s is not in the control schema", endpoint)
		}
	}
}
