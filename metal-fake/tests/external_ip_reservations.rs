//! packngo (v0.31.0, unmodified) reserves, assigns, moves and releases an
//! elastic address against the `metal-fake` binary, as
//! cloud-provider-equinix-metal does for a control-plane address: the Go
//! test `TestIPReservations` in `tests/clients/go/packngo`. It runs when
//! `go` is on the machine and skips, saying so, when it is not (under
//! `CI=true` it fails instead), as `tests/external_clients.rs` does.

use std::process::Command;
use std::time::Duration;

#[path = "common/external.rs"]
#[allow(dead_code)]
mod external;

use external::{clients_dir, go, run, skip, FakeProcess};

/// The longest the run may take, packngo's build included.
const DEADLINE: Duration = Duration::from_secs(900);

#[test]
fn packngo_reserves_assigns_moves_and_releases_an_elastic_address() {
    let test = "packngo_reserves_assigns_moves_and_releases_an_elastic_address";
    let Some(go) = go() else {
        return skip(test, "no Go toolchain (`go` is not on PATH)");
    };
    let mut download = Command::new(go);
    download
        .args(["mod", "download"])
        .current_dir(clients_dir().join("go"))
        .env("GOWORK", "off");
    match run(&format!("{test}.download"), &mut download, DEADLINE) {
        (Some(status), _) if status.success() => {}
        (_, output) => return skip(test, &format!("`go mod download` failed: {output}")),
    }
    let fake = FakeProcess::start(test, 2);
    let mut command = Command::new(go);
    command
        .args(["test", "-count=1", "-v", "-timeout", "300s"])
        .args(["-run", "^TestIPReservations$", "./packngo"])
        .current_dir(clients_dir().join("go"))
        .env("GOWORK", "off")
        .env("GOFLAGS", "-mod=readonly")
        .env("METAL_FAKE_IP_RESERVATIONS", "1");
    fake.env(&mut command);
    let (status, output) = run(test, &mut command, DEADLINE);
    let passed = status.is_some_and(|s| s.success())
        && output.contains("--- PASS: TestIPReservations (")
        && !output.contains("--- SKIP");
    assert!(
        passed,
        "{test}: {status:?}\n--- client output ---\n{output}\n--- metal-fake stderr ---\n{}",
        fake.log()
    );
}
