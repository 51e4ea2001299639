//! The `metal_fake` Python package (`metal-fake/python`, the wheel's pure
//! Python part) and its pytest fixtures: pytest runs
//! `python/tests/test_metal_fake.py` against the binary cargo built
//! (`METAL_FAKE`), with the package from the sources (`PYTHONPATH`) and
//! its plugin named with `-p` (from the wheel, `.ci/run` runs the same file
//! with the plugin found through its entry point). It needs `python3` and
//! PyPI the first time (the Equinix SDK and pytest, in a virtualenv kept
//! under the target directory), so it is `#[ignore]`d, naming them.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

#[path = "common/external.rs"]
#[allow(dead_code)]
mod external;

use external::{missing, python_with_sdk_and_pytest, run, BIN};

/// The longest the run may take.
const DEADLINE: Duration = Duration::from_secs(300);

#[test]
#[ignore = "needs python3, and PyPI the first time (equinix==0.19.0, pytest)"]
fn the_python_package_and_its_fixtures_drive_the_binary() {
    let test = "the_python_package_and_its_fixtures_drive_the_binary";
    let python = match python_with_sdk_and_pytest() {
        Ok(python) => python,
        Err(why) => missing(test, &why),
    };
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    let mut command = Command::new(python);
    command
        .args(["-m", "pytest", "-v", "-p", "metal_fake.pytest_plugin"])
        .arg(package.join("tests"))
        .current_dir(&package)
        .env("PYTHONPATH", &package)
        .env("METAL_FAKE", BIN)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let (status, output) = run(test, &mut command, DEADLINE);
    // pytest exits 5 when it collected nothing: only 0 passes.
    assert!(
        status.is_some_and(|s| s.success()) && output.contains(" passed"),
        "{test}: {status:?}\n{output}"
    );
    assert!(!output.contains(" skipped"), "{output}");
}
