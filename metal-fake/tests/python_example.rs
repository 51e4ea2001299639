//! Runs `examples/control_api.py` against the binary:
//! the Equinix Python SDK (`equinix==0.19.0`, metalv1) and the control API,
//! through the `metal_fake` package (`python/`, on `PYTHONPATH`), which
//! starts the binary cargo built (`METAL_FAKE`).
//! The test makes a venv under the target directory and installs the SDK
//! there. It is `#[ignore]`d with what it needs, which cargo's summary
//! shows; with `--ignored` (as `.ci/run` runs it under `CI=true`) a missing
//! Python fails it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_metal-fake");
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/control_api.py");
const PACKAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/python");
const SDK: &str = "equinix==0.19.0";

/// A venv with the SDK, made once under the target directory.
fn venv() -> Result<PathBuf, String> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("control-api-venv");
    let python = dir.join("bin").join("python3");
    let ready = dir.join(".equinix-0.19.0");
    if ready.exists() {
        return Ok(python);
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&dir)
        .status()
        .map_err(|e| format!("python3 is not available: {e}"))?;
    if !made.success() {
        return Err(format!("python3 -m venv failed: {made}"));
    }
    let pip = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", SDK])
        .output()
        .map_err(|e| format!("pip: {e}"))?;
    if !pip.status.success() {
        return Err(format!(
            "pip install {SDK} failed: {}",
            String::from_utf8_lossy(&pip.stderr)
        ));
    }
    std::fs::write(&ready, SDK).map_err(|e| e.to_string())?;
    Ok(python)
}

#[test]
#[ignore = "needs python3, and PyPI the first time (equinix==0.19.0)"]
fn the_python_example_drives_the_fake_through_the_control_api() {
    let python = match venv() {
        Ok(p) => p,
        Err(why) => panic!("the Python example needs python3 and {SDK}: {why}"),
    };
    // The example starts the fake itself with the `metal_fake` package:
    // from the sources here, with the binary cargo built.
    let out = Command::new(&python)
        .arg(SCRIPT)
        .env("PYTHONPATH", PACKAGE)
        .env("METAL_FAKE", BIN)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "control_api.py failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("control_api.py: all checks passed"),
        "{stdout}"
    );
    assert!(stdout.contains("ok: the device exists although its reply was lost"));
}
