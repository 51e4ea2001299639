//! External, unmodified clients run a full device lifecycle against the
//! `metal-fake` binary: the Equinix Python SDK (`equinix` 0.19.0,
//! metalv1), packngo (v0.31.0, its last release) and equinix-sdk-go's
//! metalv1 (v0.46.0). The clients' code is ours, in `tests/clients/` (a Go
//! module with `go.mod` and `go.sum`, and a Python script). Each client
//! starts its own fake, from the binary this test names in `METAL_FAKE`:
//! the Go tests with the Go harness `metal-fake/go/metalfake`
//! (`harness.Start`), the Python script with the `metal_fake` package.
//!
//! The lifecycle: create a user SSH key and a project's (each owned by its
//! user or project: packngo's `Owner`, metalv1's and Python's `entity`);
//! list SSH keys; list the project's provisionable reservations; create a
//! device on one, with tags; create one naming one project key, which gets
//! that key only (packngo and metalv1 name only the reservation, no place,
//! and it lands where its reservation is: packngo with no tags sends
//! `"tags": null`, metalv1 `"facility": null`); refuse a delete while a second device provisions; read until
//! `active`; list the project's devices and find it; update its
//! description and tags; reboot; reinstall with another operating system
//! (and `preserve_data`; metalv1 also `deprovision_fast`); power off and
//! on; refuse a delete while locked; unlock; delete; read 404 right after;
//! delete the SSH key; a bad token gets 401 with the real API's body.
//! packngo also locks and unlocks with `PATCH`, as its `Lock` does.
//!
//! packngo and metalv1 also walk a VRF (`TestVrf`, in their `vrf_test.go`):
//! a VRF with a range, a VRF IP reservation in it, a VLAN and a VRF
//! gateway on the block (metalv1 also a default route, pending, then
//! active once the fake's clock is advanced), one refusal, torn down.
//!
//! And all three walk the network (`TestNetworking` in the Go packages'
//! `networking_test.go`, steps of the Python script): a device, a VLAN of
//! its metro, the device hybrid, the VLAN on its unbonded port and as its
//! native VLAN, a Metal Gateway with a private block, a VRF with a block
//! and a route, the project's BGP and a session with its neighbour data;
//! torn down in the order the API allows, each refusal met once on the
//! way (a VLAN of another metro, a bonded port, a second gateway on the
//! VLAN, a session before BGP is on, a VRF holding a block, a VLAN on
//! ports, a bond with VLANs on its port, the native VLAN unassigned, and
//! for packngo a block bound to its gateway); the VRF's block goes with
//! the route whose next hop it holds, and the gateway's delete is done at
//! once (a read right after is `404`, as metal-cli's gateway test reads
//! it).
//!
//! And all three walk layer 2 on a world of their own (`TestLayer2` in the
//! Go packages' `layer2_test.go`, steps of the Python script): a device on
//! demand goes layer 3, layer 2 bonded, layer 2 individual, hybrid (one
//! port out of the layer-3 bond, then every port; metalv1 and Python) and
//! layer 3 again (packngo with its own `DevicePorts.DeviceToNetworkType`,
//! and through the rest of packngo's own
//! `TestAccDevicePortNetworkStateTransitions`), its ports and addresses
//! read at each step; then the input forms each client sends: packngo's
//! custom data as text and cleared with `""`, a spot bid as text, a spot
//! market request and devices deleted with the force in the body; metalv1's
//! and Python's with the force in the query.
//!
//! packngo and metalv1 also read lists longer than one page through their
//! own paging (`TestPaging`, in their `paging_test.go`): 23 reservations,
//! 7 devices (and the 3 of one tag), 8 projects and the project's events,
//! a few a page, each item once, in as many calls as pages; and a new
//! project's IP reservation requests over the quota (none listed at
//! first; `fail_on_approval_required` refused with `422`, else `pending`).
//!
//! And all three ask for what they read with `include` and `exclude`
//! (`TestInclude` in the Go packages' `include_test.go`, steps of the
//! Python script): a project's organisation and members, the user's
//! emails, a device's keys and project (`project.organization` dotted, in
//! packngo) with its plan excluded to an href, a BGP configuration's
//! sessions; each an href alone when not asked for.
//!
//! Each test needs its toolchain (`go`; `python3` with `venv`, and PyPI
//! reachable the first time: the virtualenv is kept under the target
//! directory), so each is `#[ignore]`d with what it needs, which cargo's
//! summary shows; `cargo test -p metal-fake --all-features --test
//! external_clients -- --ignored` runs them (`.ci/run` does, under
//! `CI=true`), and a missing toolchain then fails the test. Go downloads
//! the modules through its proxy into its module cache the first time, and
//! verifies them against the committed `go.sum`.

use std::process::Command;
use std::time::Duration;

#[path = "common/external.rs"]
#[allow(dead_code)]
mod external;

use external::{clients_dir, go_test_command, go_with_modules, missing, python_with_sdk, run, BIN};

/// The longest a client's run may take, its build included: compiling
/// equinix-sdk-go's metalv1 takes minutes on a loaded two-core machine the
/// first time (cached after); the lifecycle itself takes seconds.
const DEADLINE: Duration = Duration::from_secs(900);

/// Fails the test, with the client's output and the server's log (`log`),
/// unless the client exited 0 and printed `passed_line`.
fn assert_passed(
    name: &str,
    log: &str,
    (status, output): (Option<std::process::ExitStatus>, String),
    passed_line: &str,
) {
    let ok = status.is_some_and(|s| s.success()) && output.contains(passed_line);
    assert!(
        ok,
        "{name}: {}\n--- client output ---\n{output}\n--- metal-fake stderr ---\n{log}",
        match status {
            None => format!("still running after {DEADLINE:?}, killed"),
            Some(s) => format!("exited with {s}"),
        },
    );
    println!("{name}: passed");
}

/// Runs `TestLifecycle` of the Go test package `package` (in
/// `tests/clients/go`), which starts its fake from `METAL_FAKE`.
fn go_lifecycle(test: &str, package: &str) {
    go_test(test, package, "TestLifecycle");
}

/// Runs the Go test `name` of the package `package` (in
/// `tests/clients/go`), which starts its fake from `METAL_FAKE`.
fn go_test(test: &str, package: &str, name: &str) {
    let go = go_with_modules(test, DEADLINE);
    let mut command = go_test_command(test, go, package, name);
    let outcome = run(test, &mut command, DEADLINE);
    // The Go harness logs the fake's stderr in the output when a test fails.
    assert_passed(
        test,
        "(in the client output)",
        outcome,
        &format!("--- PASS: {name} ("),
    );
}

#[test]
#[ignore = "needs python3, and PyPI the first time (equinix==0.19.0)"]
fn python_sdk_runs_the_lifecycle() {
    let test = "python_sdk_runs_the_lifecycle";
    let python = match python_with_sdk() {
        Ok(python) => python,
        Err(why) => missing(test, &why),
    };
    // The script starts its fake with the `metal_fake` package (from the
    // sources here), from the binary cargo built.
    let mut command = Command::new(python);
    command
        .arg(clients_dir().join("python/lifecycle.py"))
        .env(
            "PYTHONPATH",
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("python"),
        )
        .env("METAL_FAKE", BIN)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let outcome = run(test, &mut command, DEADLINE);
    // The script prints the fake's stderr when a step fails.
    assert_passed(
        test,
        "(in the client output)",
        outcome,
        " ok, 0 failing, 0 skipped",
    );
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn packngo_runs_the_lifecycle() {
    go_lifecycle("packngo_runs_the_lifecycle", "packngo");
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn equinix_sdk_go_metalv1_runs_the_lifecycle() {
    go_lifecycle("equinix_sdk_go_metalv1_runs_the_lifecycle", "metalv1");
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn packngo_walks_a_vrf() {
    go_test("packngo_walks_a_vrf", "packngo", "TestVrf");
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn equinix_sdk_go_metalv1_walks_a_vrf() {
    go_test("equinix_sdk_go_metalv1_walks_a_vrf", "metalv1", "TestVrf");
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn packngo_walks_the_network() {
    go_test("packngo_walks_the_network", "packngo", "TestNetworking");
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn equinix_sdk_go_metalv1_walks_the_network() {
    go_test(
        "equinix_sdk_go_metalv1_walks_the_network",
        "metalv1",
        "TestNetworking",
    );
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn packngo_pages_every_list_whole() {
    go_test("packngo_pages_every_list_whole", "packngo", "TestPaging");
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn packngo_walks_layer_2() {
    go_test("packngo_walks_layer_2", "packngo", "TestLayer2");
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn equinix_sdk_go_metalv1_pages_every_list_whole() {
    go_test(
        "equinix_sdk_go_metalv1_pages_every_list_whole",
        "metalv1",
        "TestPaging",
    );
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn equinix_sdk_go_metalv1_walks_layer_2() {
    go_test(
        "equinix_sdk_go_metalv1_walks_layer_2",
        "metalv1",
        "TestLayer2",
    );
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn packngo_includes_what_it_asks_for() {
    go_test(
        "packngo_includes_what_it_asks_for",
        "packngo",
        "TestInclude",
    );
}

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn equinix_sdk_go_metalv1_includes_what_it_asks_for() {
    go_test(
        "equinix_sdk_go_metalv1_includes_what_it_asks_for",
        "metalv1",
        "TestInclude",
    );
}
