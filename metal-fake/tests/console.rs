//! The console (`/_fake/console`) in a real browser: Debian's chromium,
//! headless, driven over WebDriver by its chromedriver (with
//! `fantoccini`), against the fake served by `metal_fake::bind` with a
//! control token. A failing call shows as failed with its message and
//! opens to its bodies; a device made through the API shows under its
//! project; the page's own clock button turns it `active`; the page
//! fetched nothing from anywhere else. The test takes the screenshot the
//! README shows, and writes it to `metal-fake/console.png` when
//! `METAL_FAKE_WRITE_SCREENSHOT` is set (else below the target
//! directory, so a test run changes nothing in the checkout).
//!
//! It needs `chromium` and `chromedriver` (Debian: `apt-get install
//! chromium chromium-driver`; or `CHROMIUM` and `CHROMEDRIVER` naming
//! them), so it is `#[ignore]`d, naming them; run with `--ignored` (as
//! CI does), a missing browser fails it. What needs no browser (the
//! token's rules, the policy header, the endpoints the page reads) is
//! tested in `tests/suite/console.rs`.

#[path = "http/mod.rs"]
#[allow(dead_code)] // the plain client only
mod http;

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};
use futures::FutureExt;
use metal_fake::{Fake, ServerConfig, Timings};
use serde_json::{json, Value};
use uuid::Uuid;

const TOKEN: &str = "console-api-token";
const CONTROL: &str = "console control token";

/// How long the page may take to show what the test waits for (it polls
/// the calls every second, the world every two).
const WAIT: Duration = Duration::from_secs(20);

/// The flags chromium runs with: headless, no sandbox (CI runs as root),
/// and nothing that reaches the network on its own (the machines'
/// network is closed): no QUIC, first-run, background networking,
/// component updates or sync.
const CHROMIUM_FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The screenshot's size, in CSS pixels.
const WINDOW: (u32, u32) = (1400, 900);

/// The program `env` names, or the first of `names` on the `PATH`.
fn program(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// chromedriver, killed (with the browser it started) when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `chromedriver` on a free loopback port and waits until it
/// answers.
async fn start_driver(chromedriver: &Path, log: &Path) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .arg(format!("--log-path={}", log.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromedriver.display()));
    let driver = Driver { child, port };
    let ready = format!("http://127.0.0.1:{port}/status");
    let http = http::client();
    for _ in 0..200 {
        if let Ok(r) = http.get(&ready).send().await
            && r.status().is_success()
        {
            return driver;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("chromedriver did not answer on port {port} within 20 s; its log: {log:?}");
}

/// Polls `check` (every 100 ms, up to [`WAIT`]) until it gives `Some`.
async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the console did not show {what} within {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The text of the first element `css` finds, if any.
async fn text(c: &Client, css: &str) -> Option<String> {
    let e = c.find(Locator::Css(css)).await.ok()?;
    e.text().await.ok()
}

/// The text of the first element `css` finds inside `row`, if any.
async fn cell(row: &fantoccini::elements::Element, css: &str) -> Option<String> {
    let e = row.find(Locator::Css(css)).await.ok()?;
    e.text().await.ok()
}

/// The fake's server root, its main project, and a client of it.
struct Served {
    root: String,
    api: String,
    project: Uuid,
    http: reqwest::Client,
}

impl Served {
    async fn control(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let resp = self
            .http
            .request(method, format!("{}{path}", self.root))
            .header("x-fake-control-token", CONTROL)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_success(), "{path}: {}", resp.status());
        resp.json().await.unwrap()
    }

    async fn api(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.api))
            .header("x-auth-token", TOKEN);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }
}

/// What the test does in the browser, once the page is open.
async fn steps(c: &Client, s: &Served) {
    use reqwest::Method;
    // Without the token the page is refused as the control API refuses.
    c.goto(&format!("{}/_fake/console", s.root)).await.unwrap();
    let refused = text(c, "body").await.unwrap_or_default();
    assert!(refused.contains("Invalid control token"), "{refused}");

    c.goto(&format!(
        "{}/_fake/console?token=console%20control%20token",
        s.root
    ))
    .await
    .unwrap();
    assert_eq!(c.title().await.unwrap(), "metal-fake console");
    // The page read the world: the project is there.
    let project = format!("section.project[data-id=\"{}\"]", s.project);
    eventually("the main project", || async {
        c.find(Locator::Css(&project)).await.ok()
    })
    .await;

    // A failing call: a fault injected on findDeviceById, then the call.
    s.control(
        Method::POST,
        "/_fake/faults",
        json!({"faults": [{"operation": "findDeviceById", "kind": "fail_before", "status": 503}]}),
    )
    .await;
    // The armed fault shows.
    eventually("the armed fault", || async {
        text(c, "#faults")
            .await
            .filter(|t| t.contains("findDeviceById") && t.contains("fail_before 503"))
    })
    .await;
    let (status, _) = s
        .api(Method::GET, &format!("/devices/{}", Uuid::new_v4()), None)
        .await;
    assert_eq!(status, 503);
    let failed = "tr.call.failed[data-operation=\"findDeviceById\"]";
    let (shown_status, shown_error) = eventually("the failed call", || async {
        let row = c.find(Locator::Css(failed)).await.ok()?;
        let status = cell(&row, ".status").await?;
        let error = cell(&row, ".error").await?;
        Some((status, error))
    })
    .await;
    assert!(shown_status.starts_with("503"), "{shown_status}");
    assert!(shown_status.contains("fail_before"), "{shown_status}");
    assert_eq!(shown_error, "fake: injected server error");
    // And a missing thing: a path the API does not have.
    let (status, _) = s.api(Method::GET, "/nowhere", None).await;
    assert_eq!(status, 404);
    let missing = "tr.call.failed[data-operation=\"unknown\"]";
    let (path, error) = eventually("the call of a missing path", || async {
        let row = c.find(Locator::Css(missing)).await.ok()?;
        let path = cell(&row, ".path").await?;
        let error = cell(&row, ".error").await?;
        Some((path, error))
    })
    .await;
    // The only call the log holds besides the test's own: the browser's
    // icon request (after the refused page) never reached the API.
    assert_eq!(path, "/metal/v1/nowhere");
    assert_eq!(error, "Not found");
    // The filters: failed calls only, then a text.
    let status_filter = c.find(Locator::Id("f-status")).await.unwrap();
    status_filter.select_by_value("failed").await.unwrap();
    let rows = c.find_all(Locator::Css("tr.call")).await.unwrap();
    assert_eq!(rows.len(), 2, "the two failed calls");
    status_filter.select_by_value("").await.unwrap();

    // A device made through the API shows under its project, not active.
    let reservation = s.control(Method::GET, "/_fake/world", Value::Null).await["reservations"][0]
        ["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, device) = s
        .api(
            Method::POST,
            &format!("/projects/{}/devices", s.project),
            Some(json!({
                "hostname": "console-web-1",
                "plan": "c3.small.x86",
                "metro": "da",
                "operating_system": "ubuntu_22_04",
                "hardware_reservation_id": reservation,
            })),
        )
        .await;
    assert_eq!(status, 201, "{device}");
    let id = device["id"].as_str().unwrap().to_string();
    let state = format!("{project} .device[data-id=\"{id}\"] .state");
    let before = eventually("the new device under its project", || text(c, &state)).await;
    assert!(
        ["queued", "provisioning"].contains(&before.as_str()),
        "{before}"
    );
    let hostname = format!("{project} .device[data-id=\"{id}\"] .hostname");
    assert_eq!(text(c, &hostname).await.as_deref(), Some("console-web-1"));

    // The clock, advanced from the page by an hour, turns it active.
    c.find(Locator::Id("step"))
        .await
        .unwrap()
        .select_by_value("3600")
        .await
        .unwrap();
    c.find(Locator::Id("advance"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    eventually("the device active", || async {
        text(c, &state).await.filter(|t| t == "active")
    })
    .await;
    let advanced = text(c, "#advanced").await.unwrap_or_default();
    assert!(advanced.contains("+3600 s"), "{advanced}");
    // Active, it has its addresses.
    let addresses = format!("{project} .device[data-id=\"{id}\"] .addr");
    let addresses = text(c, &addresses).await.unwrap_or_default();
    assert!(addresses.contains('/'), "{addresses}");

    // Links between records: a VLAN on the device's bond, a gateway on
    // the VLAN, each a link to the VLAN's row under the project.
    let (status, vlan) = s
        .api(
            Method::POST,
            &format!("/projects/{}/virtual-networks", s.project),
            Some(json!({"metro": "da", "vxlan": 1001, "description": "backend"})),
        )
        .await;
    assert_eq!(status, 201, "{vlan}");
    let vlan = vlan["id"].as_str().unwrap().to_string();
    let (_, shown) = s.api(Method::GET, &format!("/devices/{id}"), None).await;
    let bond = shown["network_ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "bond0")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, port) = s
        .api(
            Method::POST,
            &format!("/ports/{bond}/assign"),
            Some(json!({"vnid": vlan})),
        )
        .await;
    assert_eq!(status, 200, "{port}");
    let (status, gateway) = s
        .api(
            Method::POST,
            &format!("/projects/{}/metal-gateways", s.project),
            Some(json!({"virtual_network_id": vlan, "private_ipv4_subnet_size": 8})),
        )
        .await;
    assert!(status == 201 || status == 200, "{status} {gateway}");
    let gateway = gateway["id"].as_str().unwrap().to_string();
    let (status, key) = s
        .api(
            Method::POST,
            &format!("/projects/{}/ssh-keys", s.project),
            Some(json!({
                "label": "console-ci",
                "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci",
            })),
        )
        .await;
    assert_eq!(status, 201, "{key}");
    let to_vlan = format!("a[href=\"#r-{vlan}\"]");
    let on_port = format!("{project} .device[data-id=\"{id}\"] .port {to_vlan}");
    let shown = eventually("the VLAN on the device's bond", || text(c, &on_port)).await;
    assert_eq!(shown, "vlan 1001");
    let on_gateway = format!("{project} tr.gateway[data-id=\"{gateway}\"] {to_vlan}");
    assert_eq!(text(c, &on_gateway).await.as_deref(), Some("vlan 1001"));
    let key_row = format!("{project} tr.ssh_key");
    assert!(text(c, &key_row)
        .await
        .is_some_and(|t| t.contains("console-ci")));
    c.find(Locator::Css(&on_port))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(
        c.current_url().await.unwrap().fragment(),
        Some(format!("r-{vlan}").as_str())
    );
    let target = format!("{project} tr.vlan#r-{vlan}");
    assert!(text(c, &target).await.is_some_and(|t| t.contains("1001")));

    // The failed call opens to its bodies.
    eventually("the failed call to click", || async {
        let row = c.find(Locator::Css(failed)).await.ok()?;
        row.click().await.ok()
    })
    .await;
    let reply = eventually("the failed call's reply body", || async {
        // (Its headings are shown in capitals.)
        text(c, "tr.detail")
            .await
            .filter(|t| t.to_lowercase().contains("reply"))
    })
    .await;
    assert!(reply.contains("fake: injected server error"), "{reply}");

    // Everything the page loaded came from the fake.
    let loaded = c
        .execute(
            "return performance.getEntriesByType('resource').map(e => e.name)",
            vec![],
        )
        .await
        .unwrap();
    let loaded: Vec<String> = serde_json::from_value(loaded).unwrap();
    assert!(!loaded.is_empty());
    for url in &loaded {
        assert!(url.starts_with(&format!("{}/_fake/", s.root)), "{url}");
    }

    // The README's screenshot is rewritten when asked, as COVERAGE.md
    // is: a test run leaves the checkout as it found it (CI packs the
    // crates from it afterwards).
    let png = c.screenshot().await.unwrap();
    let shot = if std::env::var_os("METAL_FAKE_WRITE_SCREENSHOT").is_some() {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("console.png")
    } else {
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("console.png")
    };
    std::fs::write(&shot, &png).unwrap();
    println!("screenshot: {} ({} bytes)", shot.display(), png.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver (Debian: apt-get install chromium chromium-driver)"]
async fn the_console_in_a_real_browser() {
    let test = "the_console_in_a_real_browser";
    let chromium = program(
        "CHROMIUM",
        &["chromium", "chromium-browser", "google-chrome"],
    )
    .unwrap_or_else(|| {
        panic!("{test} cannot run: no chromium (apt-get install chromium, or set CHROMIUM)")
    });
    let chromedriver = program("CHROMEDRIVER", &["chromedriver"]).unwrap_or_else(|| {
        panic!("{test} cannot run: no chromedriver (apt-get install chromium-driver, or set CHROMEDRIVER)")
    });

    // The fake, with devices slow enough that only the clock makes them
    // active within the test.
    let timings = Timings {
        queued: Duration::from_secs(300),
        provisioning: Duration::from_secs(600),
        ..Timings::default()
    };
    let fake = Fake::builder().reservations(2).timings(timings).build();
    let config = ServerConfig::new(TOKEN).control_token(Some(CONTROL.to_string()));
    let server = metal_fake::bind(fake.clone(), "127.0.0.1:0", config)
        .await
        .unwrap();
    let served = Served {
        root: server.base_url().trim_end_matches("/metal/v1").to_string(),
        api: server.base_url().to_string(),
        project: fake.project(),
        http: http::client(),
    };

    // A fresh profile, and chromedriver's log, under cargo's target
    // directory.
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "console-{}-{}",
        std::process::id(),
        Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&work).unwrap();
    let profile = work.join("profile");
    let driver = start_driver(&chromedriver, &work.join("chromedriver.log")).await;
    let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|f| f.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    args.push(format!("--window-size={},{}", WINDOW.0, WINDOW.1));
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".to_string(),
        json!({"binary": chromium, "args": args}),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client = ClientBuilder::new(connector)
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .unwrap_or_else(|e| panic!("{test}: no browser session: {e}; see {}", work.display()));

    let outcome = AssertUnwindSafe(steps(&client, &served))
        .catch_unwind()
        .await;
    if outcome.is_err() {
        // What the page showed when the test failed.
        if let Ok(png) = client.screenshot().await {
            let shot = work.join("failure.png");
            let _ = std::fs::write(&shot, png);
            eprintln!("{test}: the page as it failed: {}", shot.display());
        }
    }
    // The browser closes, whatever happened.
    let _ = client.close().await;
    drop(driver);
    server.shutdown().await;
    match outcome {
        Ok(()) => {
            let _ = std::fs::remove_dir_all(&work);
        }
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
