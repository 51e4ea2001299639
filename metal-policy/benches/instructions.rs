//! Instructions per request: the policy client against the raw generated
//! client, counted by valgrind's callgrind, in process and over HTTP on
//! loopback. Run with
//!
//! ```sh
//! cargo bench -p metal-policy --bench instructions
//! ```
//!
//! (valgrind must be installed: `apt-get install valgrind`). It prints the
//! sizes of the futures a request moves, then one table of instructions per
//! request and the ratios to the raw client.
//!
//! Each figure is the difference between two runs of one scenario that
//! differ only in their number of requests, divided by that difference, so
//! that starting the process, the runtime, the server and the client, and
//! the warm-up, cancel out. Instruction counts do not depend on how busy
//! the machine is; two runs agree to within a fraction of a percent.
//!
//! The scenarios, each `findProjectById` one request after another on a
//! single-threaded tokio runtime:
//!
//! - `raw`: the generated client (`metal-api`) alone;
//! - `policy, limits off`: [`metal_policy::Metal::get_project`] with
//!   `api_rate(0)`, every other setting at its default (parallelism 1, the
//!   retry budget, no registry);
//! - `policy, default limits`: every setting at its default but the rate,
//!   1 µs apart instead of 2 s, so that the limiter reserves every turn
//!   without any request sleeping, and a metrics registry.
//!
//! The server is the smallest that answers: in process, an exchange that
//! answers every request with the same project; over HTTP, the loopback
//! server of the tests (`tests/common/loopback.rs`), on the same runtime.
//! Its instructions are in every figure alike, so a ratio here is stricter
//! than one against the fake, whose own work would be in both terms.
//!
//! The benchmark informs; nothing asserts on its figures, and CI does not
//! run it.

use std::future::Future;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use metal_api::exchange::{BoxFuture, Exchange};
use metal_api::Operation;
use metal_policy::{Client, Metal};
use uuid::Uuid;

#[allow(dead_code)]
#[path = "../tests/common/loopback.rs"]
mod loopback;

const TOKEN: &str = "instructions-bench-token";
/// Requests made before counting starts (both runs make them).
const WARM_UP: usize = 50;
/// The two run lengths.
const SHORT: usize = 500;
const LONG: usize = 1500;
/// The child's environment variable: `<scenario> <requests>`.
const CHILD: &str = "METAL_INSTRUCTIONS_CHILD";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    InProcess,
    Http,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Raw,
    PolicyOff,
    PolicyDefault,
}

const SCENARIOS: [(Path, Who); 6] = [
    (Path::InProcess, Who::Raw),
    (Path::InProcess, Who::PolicyOff),
    (Path::InProcess, Who::PolicyDefault),
    (Path::Http, Who::Raw),
    (Path::Http, Who::PolicyOff),
    (Path::Http, Who::PolicyDefault),
];

fn name(path: Path, client: Who) -> String {
    format!("{path:?}-{client:?}")
}

/// The project every request gets (the fields a real reply has).
fn project_body() -> String {
    serde_json::json!({
        "id": "2f1e8bd0-6bb2-4d35-9d4e-4b6a8b1c2d3e",
        "name": "bench",
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        "href": "/metal/v1/projects/2f1e8bd0-6bb2-4d35-9d4e-4b6a8b1c2d3e",
        "organization": {"href": "/metal/v1/organizations/6c0f2f0e-8d55-4d0a-9c7e-1f2e3d4c5b6a"},
        "devices": [],
        "members": [{"href": "/metal/v1/users/0d2b1c3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}],
        "memberships": [],
        "ssh_keys": [],
        "tags": ["bench"],
        "customdata": {},
        "network_status": {},
        "type": "default",
    })
    .to_string()
}

/// An exchange that answers every request with the same project, as an
/// in-process server would.
struct Canned(String);

impl Exchange for Canned {
    fn exchange<'a>(
        &'a self,
        _operation: &'static Operation,
        _request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        Box::pin(async move {
            let reply = http::Response::builder()
                .status(200)
                .header("content-type", "application/json")
                .body(reqwest::Body::from(self.0.clone()))
                .expect("a valid reply");
            Ok(reqwest::Response::from(reply))
        })
    }
}

fn config(base_url: &str) -> metal_api::Config {
    metal_api::Config::builder()
        .auth_token(TOKEN)
        .base_url(base_url)
        .build()
        .expect("a loopback configuration")
}

/// The generated client of `path`; the server, when one is needed, runs
/// on the current runtime.
async fn raw_client(path: Path) -> metal_api::Client {
    match path {
        Path::InProcess => {
            let config = config("http://127.0.0.1:9/metal/v1");
            metal_api::Client::over(
                config.base_url(),
                config.default_headers().clone(),
                Arc::new(Canned(project_body())),
            )
            .unwrap()
        }
        Path::Http => {
            let body = project_body();
            let server = loopback::serve(move |_, _| loopback::Reply {
                status: 200,
                headers: vec![],
                body: body.clone(),
            })
            .await;
            config(&server.base_url).client().expect("a client")
        }
    }
}

fn policy(api: metal_api::Client, client: Who) -> Client {
    let b = Client::builder().api(api);
    match client {
        Who::PolicyOff => b.api_rate(Duration::ZERO),
        _ => b
            .api_rate(Duration::from_micros(1))
            .registry(prometheus::Registry::new()),
    }
    .build()
    .expect("the policy client builds")
}

/// Makes `requests` requests (after the warm-up) in scenario `(path,
/// client)`.
fn child(path: Path, client: Who, requests: usize) {
    // A subscriber that records nothing, as an application without one:
    // with none set at all, tracing's `log` compatibility, which a test
    // dependency (httpmock) turns on in this build, would count log calls
    // that a build without it never makes.
    tracing::subscriber::set_global_default(tracing::subscriber::NoSubscriber::default())
        .expect("the first subscriber");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let api = raw_client(path).await;
        let id = Uuid::nil();
        match client {
            Who::Raw => {
                for _ in 0..WARM_UP + requests {
                    api.find_project_by_id().id(id).send().await.expect("raw");
                }
            }
            _ => {
                let c = policy(api, client);
                for _ in 0..WARM_UP + requests {
                    c.get_project(id).await.expect("policy");
                }
            }
        }
    });
}

/// The instructions callgrind counts for one run of the child.
fn count(path: Path, client: Who, requests: usize) -> u64 {
    let out = std::env::temp_dir().join(format!(
        "metal-instructions-{}-{}-{requests}.out",
        std::process::id(),
        name(path, client)
    ));
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .env(CHILD, format!("{} {requests}", name(path, client)))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("valgrind runs (apt-get install valgrind)");
    assert!(
        status.success(),
        "{} under valgrind: {status}",
        name(path, client)
    );
    let text = std::fs::read_to_string(&out).expect("callgrind's output");
    let _ = std::fs::remove_file(&out);
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
        .expect("a total in callgrind's output")
}

/// Instructions per request in one scenario.
fn per_request(path: Path, client: Who) -> f64 {
    let short = count(path, client, SHORT);
    let long = count(path, client, LONG);
    (long as f64 - short as f64) / (LONG - SHORT) as f64
}

/// The size of the future a call returns (for a boxed one, of what is in
/// the box).
fn size<F: Future>(f: &F) -> usize {
    std::mem::size_of_val(f)
}

fn sizes() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let api = raw_client(Path::InProcess).await;
        let c = policy(api.clone(), Who::PolicyDefault);
        let id = Uuid::nil();
        let raw_send = api.find_project_by_id().id(id).send();
        let call = c.call(|api| api.find_project_by_id().id(id).send());
        let typed = c.get_project(id);
        let request = reqwest::Request::new(
            reqwest::Method::GET,
            "http://127.0.0.1:9/metal/v1/projects/x"
                .parse()
                .expect("a URL"),
        );
        let op = &metal_api::operation::FIND_PROJECT_BY_ID;
        let layer = c
            .api()
            .exchange()
            .exchange(op, request.try_clone().expect("no body"));
        let http = config("http://127.0.0.1:9/metal/v1")
            .client()
            .expect("a client");
        let bottom = http.exchange().exchange(op, request);
        println!("## Future sizes (bytes)");
        println!("| future | bytes |");
        println!("|---|---|");
        println!(
            "| raw `find_project_by_id().send()` | {} |",
            size(&raw_send)
        );
        println!("| policy `Client::call(...)` | {} |", size(&call));
        println!(
            "| policy `Metal::get_project` (in its box) | {} |",
            std::mem::size_of_val(typed.as_ref().get_ref())
        );
        println!(
            "| policy layer at the hook point (in its box) | {} |",
            std::mem::size_of_val(layer.as_ref().get_ref())
        );
        println!(
            "| reqwest exchange below it (in its box) | {} |",
            std::mem::size_of_val(bottom.as_ref().get_ref())
        );
    });
}

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        let (scenario, requests) = spec.split_once(' ').expect("<scenario> <requests>");
        let requests: usize = requests.parse().expect("a number of requests");
        let (path, client) = SCENARIOS
            .into_iter()
            .find(|(p, c)| name(*p, *c) == scenario)
            .expect("a known scenario");
        child(path, client, requests);
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` runs it with
    // no such flag and expects it quick: only the sizes then.
    let benching = std::env::args().any(|a| a == "--bench");
    sizes();
    if !benching {
        println!("(not run with --bench: the instruction counts are left out)");
        return;
    }
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!("valgrind is not installed (apt-get install valgrind): no instruction counts");
        std::process::exit(1);
    }
    let mut figures = Vec::new();
    for (path, client) in SCENARIOS {
        let n = per_request(path, client);
        figures.push(((path, client), n));
    }
    let get = |p: Path, c: Who| {
        figures
            .iter()
            .find(|(k, _)| *k == (p, c))
            .map(|(_, n)| *n)
            .expect("every scenario ran")
    };
    println!(
        "\n## Instructions per request (callgrind; runs of {SHORT} and {LONG} requests, difference / {})",
        LONG - SHORT
    );
    println!(
        "| path | raw | policy, limits off | policy, default limits | off / raw | default / raw |"
    );
    println!("|---|---|---|---|---|---|");
    for (path, label) in [(Path::InProcess, "in process"), (Path::Http, "over HTTP")] {
        let raw = get(path, Who::Raw);
        let off = get(path, Who::PolicyOff);
        let default = get(path, Who::PolicyDefault);
        println!(
            "| {label} | {:.1}k | {:.1}k | {:.1}k | {:.3} | {:.3} |",
            raw / 1000.0,
            off / 1000.0,
            default / 1000.0,
            off / raw,
            default / raw
        );
    }
    println!("goals over HTTP: limits off <= 1.10 x raw, default limits <= 1.15 x raw");
}
