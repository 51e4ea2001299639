//! The Go harness `metal-fake/go/metalfake` (a module of its own, standard
//! library only): its tests start the binary cargo built (`METAL_FAKE`),
//! drive the control API, and check the flags and the JSON fields the
//! package uses against `--help` and `--control-schema`. It needs `go`, so
//! it is `#[ignore]`d, naming it; with `--ignored` a missing toolchain
//! fails it.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

#[path = "common/external.rs"]
#[allow(dead_code)]
mod external;

use external::{go, run, BIN};

/// The longest the run may take, the build included.
const DEADLINE: Duration = Duration::from_secs(600);

#[test]
#[ignore = "needs go"]
fn the_go_harness_drives_the_binary() {
    let test = "the_go_harness_drives_the_binary";
    let go = go(test);
    let mut command = Command::new(go);
    command
        .args(["test", "-count=1", "-v", "-timeout", "300s", "./..."])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("go/metalfake"))
        // Only this module's go.mod, whatever the environment.
        .env("GOWORK", "off")
        .env("GOFLAGS", "-mod=readonly")
        .env("METAL_FAKE", BIN);
    let (status, output) = run(test, &mut command, DEADLINE);
    assert!(
        status.is_some_and(|s| s.success()) && output.contains("\nok "),
        "{test}: {status:?}\n{output}"
    );
    for name in [
        "TestEveryFlagIsOneOfTheBinarys",
        "TestEveryFieldIsInTheControlSchema",
        "TestAFakeThatDoesNotStartFailsTheTestWithItsStderr",
    ] {
        assert!(
            output.contains(&format!("--- PASS: {name} (")),
            "{name} did not pass:\n{output}"
        );
    }
    assert!(!output.contains("--- SKIP"), "{output}");
}
