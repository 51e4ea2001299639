//! Helpers of the external-client tests (`tests/external_clients.rs`):
//! name the `metal-fake` binary (the clients start it with the Go and
//! Python harnesses), find a toolchain, make and reuse the Python
//! virtualenv with the Equinix SDK, and run a client with a deadline, its
//! output kept in a file.
//!
//! The tests are `#[ignore]`d, naming what they need, so that a plain
//! `cargo test` shows them in its summary; run with `--ignored`, a missing
//! toolchain fails the test.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The fake's binary, built by cargo for the integration tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_metal-fake");

/// The Equinix Python SDK version the Python lifecycle runs.
pub const PYTHON_SDK: &str = "equinix==0.19.0";

/// The folder holding the clients' code: the Go module and the Python
/// script.
pub fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients")
}

/// Where the tests keep what they make between runs (the virtualenv, the
/// clients' output), under cargo's target directory.
pub fn work_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("external-clients")
}

/// Fails a test that was asked to run (`--ignored`) and lacks `what`.
pub fn missing(test: &str, what: &str) -> ! {
    panic!("{test} cannot run: {what}")
}

/// Runs `command` until it exits or `deadline` passes (then kills it),
/// with stdout and stderr together in `work_dir()/name.log`. Returns the
/// exit status (`None` if it was killed) and the output.
pub fn run(name: &str, command: &mut Command, deadline: Duration) -> (Option<ExitStatus>, String) {
    let dir = work_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.log"));
    let log = File::create(&path).unwrap();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|e| panic!("{name}: cannot start {command:?}: {e}"));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut output = String::new();
    File::open(&path)
        .unwrap()
        .read_to_string(&mut output)
        .unwrap();
    println!("{name}: {:.1} s", start.elapsed().as_secs_f64());
    (status, output)
}

/// Whether `program args` runs and exits 0 (a toolchain probe).
pub fn runs(program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The Go toolchain's `go`; a test that runs without one on PATH fails
/// saying so.
pub fn go(test: &str) -> &'static str {
    if !runs("go", &["version"]) {
        missing(test, "no Go toolchain (`go` is not on PATH)");
    }
    "go"
}

/// The Go toolchain, with the clients' Go module's dependencies downloaded
/// first (from the module cache, or the proxy the first time), so that a
/// machine that cannot fetch them says so: the test fails naming what is
/// missing.
pub fn go_with_modules(test: &str, deadline: Duration) -> &'static str {
    let go = go(test);
    let mut download = Command::new(go);
    download
        .args(["mod", "download"])
        .current_dir(clients_dir().join("go"))
        .env("GOWORK", "off");
    match run(&format!("{test}.download"), &mut download, deadline) {
        (Some(status), _) if status.success() => go,
        (_, output) => missing(test, &format!("`go mod download` failed: {output}")),
    }
}

/// The test `name` of the package `package` of the clients' Go module
/// (verbose, within 300 s), run from the package's test binary, which
/// `go test -c` builds once a process for each package (with only the
/// module's `go.mod` and `go.sum` whatever the environment): the tests of
/// one package share one compile and one link instead of one each, and two
/// at once do not both compile the SDK. The fake's binary is in
/// `METAL_FAKE` (where the Go harness starts it from). `test` names the
/// asking test in a build failure.
pub fn go_test_command(test: &str, go: &str, package: &str, name: &str) -> Command {
    let binary = go_test_binary(test, go, package);
    let mut command = Command::new(binary);
    command
        .args(["-test.count=1", "-test.v", "-test.timeout=300s"])
        .arg(format!("-test.run=^{name}$"))
        // Where `go test` runs a package's tests.
        .current_dir(clients_dir().join("go").join(package))
        .env("METAL_FAKE", BIN);
    command
}

/// The test binary of `package`, built on the first call for it.
fn go_test_binary(test: &str, go: &str, package: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<(String, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    // A test that panicked holding the lock left the list as it was.
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, path)) = built.iter().find(|(p, _)| p == package) {
        return path.clone();
    }
    let dir = work_dir().join("go-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.test", package.replace('/', "_")));
    let module = clients_dir().join("go");
    let target = format!("./{package}");
    if let Err(output) = build_go_test(test, go, &module, &target, &path, Duration::from_secs(600))
    {
        panic!("{test}: `go test -c {target}` failed: {output}");
    }
    built.push((package.to_string(), path.clone()));
    path
}

/// `go test -c` of the package `target` (as `go` names it, from `dir`)
/// into `binary`, within `deadline`, with only the module's `go.mod` and
/// `go.sum` whatever the environment; `Err` holds the build's output.
pub fn build_go_test(
    test: &str,
    go: &str,
    dir: &Path,
    target: &str,
    binary: &Path,
    deadline: Duration,
) -> Result<(), String> {
    let mut build = Command::new(go);
    build
        .args(["test", "-c", "-o"])
        .arg(binary)
        .arg(target)
        .current_dir(dir)
        .env("GOWORK", "off")
        .env("GOFLAGS", "-mod=readonly");
    match run(&format!("{test}.go-test-build"), &mut build, deadline) {
        (Some(status), _) if status.success() => Ok(()),
        (_, output) => Err(output),
    }
}

/// The Python of a virtualenv with the Equinix SDK installed, made under
/// `work_dir()` on first use and reused after; `Err` says why there is
/// none (no python3, no venv module, pip could not install the SDK).
pub fn python_with_sdk() -> Result<PathBuf, String> {
    python_venv(
        &format!("venv-{}", PYTHON_SDK.replace("==", "-")),
        &[PYTHON_SDK],
        "import equinix.services.metalv1",
    )
}

/// The pytest version the `metal_fake` package's tests run under.
pub const PYTEST: &str = "pytest==9.2.0";

/// The Python of a virtualenv with the Equinix SDK and pytest, as
/// [`python_with_sdk`] makes its own.
pub fn python_with_sdk_and_pytest() -> Result<PathBuf, String> {
    python_venv(
        &format!(
            "venv-{}-{}",
            PYTHON_SDK.replace("==", "-"),
            PYTEST.replace("==", "-")
        ),
        &[PYTHON_SDK, PYTEST],
        "import equinix.services.metalv1, pytest",
    )
}

/// The Python of the virtualenv `work_dir()/name` with `packages`, made on
/// first use (when `import` fails in it) and reused after.
fn python_venv(name: &str, packages: &[&str], import: &str) -> Result<PathBuf, String> {
    let venv = work_dir().join(name);
    let python = venv.join("bin/python");
    let probe = ["-c", import];
    if runs(&python, &probe) {
        return Ok(python);
    }
    if !runs("python3", &["--version"]) {
        return Err("no python3 on PATH".into());
    }
    let _ = std::fs::remove_dir_all(&venv);
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .map_err(|e| format!("python3 -m venv: {e}"))?;
    if !made.status.success() {
        return Err(format!(
            "python3 -m venv failed: {}",
            String::from_utf8_lossy(&made.stderr)
        ));
    }
    let installed = Command::new(&python)
        .args(["-m", "pip", "install", "--disable-pip-version-check", "-q"])
        .args(packages)
        .output()
        .map_err(|e| format!("pip install {packages:?}: {e}"))?;
    if !installed.status.success() || !runs(&python, &probe) {
        // A half-made venv would be taken for a good one next time.
        let _ = std::fs::remove_dir_all(&venv);
        return Err(format!(
            "pip install {packages:?} failed: {}",
            String::from_utf8_lossy(&installed.stderr)
        ));
    }
    Ok(python)
}
