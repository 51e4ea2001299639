//! packngo (v0.31.0, unmodified) reserves, assigns, moves and releases an
//! elastic address against the `metal-fake` binary, as
//! cloud-provider-equinix-metal does for a control-plane address: the Go
//! test `TestIPReservations` in `tests/clients/go/packngo`. It needs `go`
//! (and the Go module proxy the first time), so it is `#[ignore]`d with
//! that reason and fails when run with `--ignored` without it, as
//! `tests/external_clients.rs` does. The Go test starts its fake with the
//! Go harness (`metal-fake/go/metalfake`), from the binary named in
//! `METAL_FAKE`.

use std::time::Duration;

#[path = "common/external.rs"]
#[allow(dead_code)]
mod external;

use external::{go_test_command, go_with_modules, run};

/// The longest the run may take, packngo's build included.
const DEADLINE: Duration = Duration::from_secs(900);

#[test]
#[ignore = "needs go, and the Go module proxy the first time"]
fn packngo_reserves_assigns_moves_and_releases_an_elastic_address() {
    let test = "packngo_reserves_assigns_moves_and_releases_an_elastic_address";
    let go = go_with_modules(test, DEADLINE);
    let mut command = go_test_command(test, go, "packngo", "TestIPReservations");
    let (status, output) = run(test, &mut command, DEADLINE);
    let passed = status.is_some_and(|s| s.success())
        && output.contains("--- PASS: TestIPReservations (")
        && !output.contains("--- SKIP");
    assert!(
        passed,
        "{test}: {status:?}\n--- client output (with the fake's stderr when it failed) ---\n{output}"
    );
}
