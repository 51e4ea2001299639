//! What a client can make the server hold, over real loopback TCP: the
//! token is checked before the body is read, a stalled body is cut off,
//! a silent connection is closed, the connection limit holds, requests
//! without a token spend none of the rate limit, and an oversized body is
//! `413` with the API's error body. Timeouts are configured short (200 ms)
//! and every wait is bounded.

use crate::http;

use std::net::SocketAddr;
use std::time::Duration;

use metal_fake::{Fake, ServerConfig, ServerHandle};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{timeout, Instant};

const TOKEN: &str = "bounds-token";
const SHORT: Duration = Duration::from_millis(200);
/// Longer than any wait the server should make us do here.
const LONG: Duration = Duration::from_secs(10);
/// How long a test waits for a reply it expects.
const PATIENCE: Duration = Duration::from_secs(3);

async fn server(fake: &Fake, config: ServerConfig) -> ServerHandle {
    crate::http::serve(fake, config).await
}

fn addr(server: &ServerHandle) -> SocketAddr {
    server
        .base_url()
        .trim_start_matches("http://")
        .trim_end_matches("/metal/v1")
        .parse()
        .unwrap()
}

/// A reply read off a raw connection.
#[derive(Debug)]
struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    /// Whether the body is the API's error body, `{"errors": [strings]}`,
    /// or its single-string form `{"error": string}` (a bad token's).
    fn is_api_error(&self) -> bool {
        let v = self.json();
        let list = v["errors"]
            .as_array()
            .is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_string));
        list || v["error"].is_string()
    }
}

/// Reads one reply (head, then a `Content-Length` body), or `None` when
/// the connection closes first or nothing complete comes within `within`.
async fn read_reply(stream: &mut TcpStream, within: Duration) -> Option<Reply> {
    let read = async {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_string();
                let len: usize = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse().ok())
                            .flatten()
                    })
                    .unwrap_or(0);
                if buf.len() >= end + 4 + len {
                    let status = head.split_whitespace().nth(1)?.parse().ok()?;
                    let body = buf[end + 4..end + 4 + len].to_vec();
                    return Some(Reply { status, head, body });
                }
            }
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
    };
    timeout(within, read).await.ok().flatten()
}

/// Whether the server closes `stream` (EOF or reset) within `within`,
/// ignoring anything it sends first.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let wait = async {
        let mut chunk = [0u8; 4096];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    timeout(within, wait).await.is_ok()
}

/// The head of a request, `Connection: keep-alive`.
fn head(method: &str, path: &str, token: Option<&str>, extra: &str) -> String {
    let token = token.map_or(String::new(), |t| format!("X-Auth-Token: {t}\r\n"));
    format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\n{token}{extra}\r\n")
}

fn keys_path(fake: &Fake) -> String {
    format!("/metal/v1/projects/{}/ssh-keys", fake.project())
}

fn project_path(fake: &Fake) -> String {
    format!("/metal/v1/projects/{}", fake.project())
}

/// Starts an upload that promises a megabyte and sends 8 bytes of it.
async fn stalled_upload(server: &ServerHandle, fake: &Fake, token: Option<&str>) -> TcpStream {
    let mut s = TcpStream::connect(addr(server)).await.unwrap();
    let h = head(
        "POST",
        &keys_path(fake),
        token,
        "Content-Type: application/json\r\nContent-Length: 1048576\r\n",
    );
    s.write_all(h.as_bytes()).await.unwrap();
    s.write_all(b"{\"label\"").await.unwrap();
    s
}

#[tokio::test]
async fn a_stalled_upload_without_a_token_is_refused_at_once() {
    let fake = Fake::builder().build();
    // The body timeout is long: a 401 that comes at once did not wait for
    // the body.
    let s = server(&fake, ServerConfig::new(TOKEN).body_timeout(LONG)).await;
    for token in [None, Some("wrong")] {
        let started = Instant::now();
        let mut conn = stalled_upload(&s, &fake, token).await;
        let reply = read_reply(&mut conn, PATIENCE)
            .await
            .expect("a reply before the body is sent");
        assert!(started.elapsed() < PATIENCE, "{:?}", started.elapsed());
        assert_eq!(reply.status, 401, "{reply:?}");
        assert!(reply.is_api_error(), "{reply:?}");
    }
    assert_eq!(fake.snapshot().requests["createProjectSSHKey"]["401"], 2);
    assert_eq!(fake.snapshot().world.ssh_keys, 0);
}

#[tokio::test]
async fn a_stalled_upload_with_a_token_is_cut_off_after_the_body_timeout() {
    let fake = Fake::builder().build();
    let s = server(&fake, ServerConfig::new(TOKEN).body_timeout(SHORT)).await;
    let started = Instant::now();
    let mut conn = stalled_upload(&s, &fake, Some(TOKEN)).await;
    let reply = read_reply(&mut conn, PATIENCE)
        .await
        .expect("a reply once the body timeout passed");
    let waited = started.elapsed();
    assert!(
        waited >= SHORT,
        "replied after {waited:?}, before the timeout"
    );
    assert_eq!(reply.status, 408, "{reply:?}");
    assert!(reply.is_api_error(), "{reply:?}");
    assert!(
        reply
            .head
            .to_ascii_lowercase()
            .contains("connection: close"),
        "{reply:?}"
    );
    assert!(closed_within(&mut conn, PATIENCE).await, "still open");
    assert_eq!(fake.snapshot().requests["createProjectSSHKey"]["408"], 1);
    assert_eq!(fake.snapshot().world.ssh_keys, 0);
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_after_the_header_timeout() {
    let fake = Fake::builder().build();
    let s = server(&fake, ServerConfig::new(TOKEN).header_timeout(SHORT)).await;

    // Silent from the start.
    let started = Instant::now();
    let mut silent = TcpStream::connect(addr(&s)).await.unwrap();
    assert!(closed_within(&mut silent, PATIENCE).await, "still open");
    assert!(started.elapsed() >= SHORT / 2, "{:?}", started.elapsed());

    // A head begun and never finished.
    let mut partial = TcpStream::connect(addr(&s)).await.unwrap();
    partial
        .write_all(b"GET /metal/v1/projects HTT")
        .await
        .unwrap();
    assert!(closed_within(&mut partial, PATIENCE).await, "still open");

    // Kept alive after a reply, then idle.
    let mut idle = TcpStream::connect(addr(&s)).await.unwrap();
    let h = head("GET", &project_path(&fake), Some(TOKEN), "");
    idle.write_all(h.as_bytes()).await.unwrap();
    let reply = read_reply(&mut idle, PATIENCE).await.expect("a reply");
    assert_eq!(reply.status, 200, "{reply:?}");
    let idle_since = Instant::now();
    assert!(closed_within(&mut idle, PATIENCE).await, "still open");
    assert!(
        idle_since.elapsed() >= SHORT / 2,
        "{:?}",
        idle_since.elapsed()
    );
}

#[tokio::test]
async fn beyond_the_connection_limit_new_connections_wait_until_one_closes() {
    let fake = Fake::builder().build();
    let config = ServerConfig::new(TOKEN)
        .max_connections(4)
        .header_timeout(LONG);
    let s = server(&fake, config).await;
    let request = head("GET", &project_path(&fake), Some(TOKEN), "");

    // Four connections, each served once and then held open, idle.
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut conn = TcpStream::connect(addr(&s)).await.unwrap();
        conn.write_all(request.as_bytes()).await.unwrap();
        let reply = read_reply(&mut conn, PATIENCE).await.expect("served");
        assert_eq!(reply.status, 200);
        held.push(conn);
    }

    // A fifth is not served while they are held.
    let mut fifth = TcpStream::connect(addr(&s)).await.unwrap();
    fifth.write_all(request.as_bytes()).await.unwrap();
    assert!(
        read_reply(&mut fifth, Duration::from_millis(300))
            .await
            .is_none(),
        "a fifth connection was served beyond the limit of 4"
    );

    // One closes: the fifth is served.
    drop(held.pop());
    let reply = read_reply(&mut fifth, PATIENCE)
        .await
        .expect("served once a connection closed");
    assert_eq!(reply.status, 200);

    // Everything closed: normal service, up to the limit at once (a
    // connection reqwest keeps alive holds its place until it closes).
    drop(held);
    drop(fifth);
    let http = http::client();
    let url = format!("{}/projects/{}", s.base_url(), fake.project());
    let sends = (0..4).map(|_| {
        let http = http.clone();
        let url = url.clone();
        async move {
            timeout(PATIENCE, http.get(url).header("X-Auth-Token", TOKEN).send())
                .await
                .expect("served in time")
                .unwrap()
                .status()
        }
    });
    for status in futures::future::join_all(sends).await {
        assert_eq!(status, 200);
    }
}

#[tokio::test]
async fn requests_without_a_token_spend_none_of_the_rate_limit() {
    const RATE: u32 = 5;
    let fake = Fake::builder().build();
    let s = server(&fake, ServerConfig::new(TOKEN).rate_limit(Some(RATE))).await;
    let url = format!("{}/projects/{}", s.base_url(), fake.project());
    let http = http::client();
    let started = Instant::now();
    for i in 0..100 {
        let token = if i % 2 == 0 { None } else { Some("wrong") };
        let mut r = http.get(&url);
        if let Some(t) = token {
            r = r.header("X-Auth-Token", t);
        }
        let resp = r.send().await.unwrap();
        assert_eq!(resp.status(), 401, "unauthenticated request {i}");
        // The budget is shown, never spent: it stays full.
        let remaining = resp.headers().get("x-ratelimit-remaining");
        assert_eq!(remaining.and_then(|v| v.to_str().ok()), Some("5"));
    }
    let mut statuses = Vec::new();
    for _ in 0..RATE {
        let resp = http
            .get(&url)
            .header("X-Auth-Token", TOKEN)
            .send()
            .await
            .unwrap();
        statuses.push(resp.status().as_u16());
    }
    // The bucket refills at RATE a second: within the first second, only
    // the authorised requests may have spent it.
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "too slow to tell"
    );
    assert_eq!(statuses, vec![200; RATE as usize]);
    let next = http
        .get(&url)
        .header("X-Auth-Token", TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(next.status(), 429, "the limit still holds");
}

#[tokio::test]
async fn an_oversized_body_gets_413_with_the_api_error_body() {
    let fake = Fake::builder().build();

    // The default limit, 2 MiB, announced by Content-Length: refused from
    // the head, nothing read.
    let s = server(&fake, ServerConfig::new(TOKEN).body_timeout(LONG)).await;
    let mut conn = TcpStream::connect(addr(&s)).await.unwrap();
    let len = metal_fake::DEFAULT_BODY_LIMIT + 1;
    let h = head(
        "POST",
        &keys_path(&fake),
        Some(TOKEN),
        &format!("Content-Type: application/json\r\nContent-Length: {len}\r\n"),
    );
    conn.write_all(h.as_bytes()).await.unwrap();
    let reply = read_reply(&mut conn, PATIENCE).await.expect("a reply");
    assert_eq!(reply.status, 413, "{reply:?}");
    assert!(reply.is_api_error(), "{reply:?}");
    assert!(reply.head.contains("application/json"), "{reply:?}");

    // A configured limit, met by a chunked body without a length.
    let s = server(&fake, ServerConfig::new(TOKEN).body_limit(1024)).await;
    let mut conn = TcpStream::connect(addr(&s)).await.unwrap();
    let h = head(
        "POST",
        &keys_path(&fake),
        Some(TOKEN),
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
    );
    conn.write_all(h.as_bytes()).await.unwrap();
    let chunk = format!("{:x}\r\n{}\r\n", 600, " ".repeat(600));
    for _ in 0..2 {
        conn.write_all(chunk.as_bytes()).await.unwrap();
    }
    let reply = read_reply(&mut conn, PATIENCE).await.expect("a reply");
    assert_eq!(reply.status, 413, "{reply:?}");
    assert!(reply.is_api_error(), "{reply:?}");

    // Within the limit, the same route serves.
    let body = format!(
        "{{\"label\":\"small\",\"key\":\"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA{} x\"}}",
        "k".repeat(16)
    );
    let created = http::client()
        .post(format!(
            "{}/projects/{}/ssh-keys",
            s.base_url(),
            fake.project()
        ))
        .header("X-Auth-Token", TOKEN)
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    assert_eq!(fake.snapshot().requests["createProjectSSHKey"]["413"], 2);
}

#[tokio::test]
async fn a_client_that_never_reads_its_replies_is_closed_after_the_write_timeout() {
    // Each page of 1000 reservations is hundreds of kilobytes: forty of
    // them fill any loopback socket's buffers.
    let fake = Fake::builder().reservations(1000).build();
    let server = server(&fake, ServerConfig::new(TOKEN).write_timeout(SHORT)).await;
    let mut conn = TcpStream::connect(addr(&server)).await.unwrap();
    let request = format!(
        "GET /metal/v1/projects/{}/hardware-reservations?per_page=1000 HTTP/1.1\r\nhost: x\r\nx-auth-token: {TOKEN}\r\n\r\n",
        fake.project()
    );
    let requests = 40;
    conn.write_all(request.repeat(requests).as_bytes())
        .await
        .unwrap();
    // Read nothing until the server stops taking requests: its writes stall
    // once the sockets' buffers are full, then time out. How long filling
    // them takes depends on the machine's load, so this waits for the
    // count of requests served to stop growing, not for a fixed time.
    let served = || -> u64 {
        fake.snapshot()
            .requests
            .iter()
            .filter(|(op, _)| op.contains("HardwareReservations"))
            .flat_map(|(_, statuses)| statuses.values())
            .sum()
    };
    let waited = Instant::now();
    let mut last = served();
    loop {
        tokio::time::sleep(SHORT * 3).await;
        let now = served();
        if now == last || waited.elapsed() > LONG {
            break;
        }
        last = now;
    }
    tokio::time::sleep(SHORT * 2).await;
    let mut got = Vec::new();
    let read = timeout(LONG, conn.read_to_end(&mut got)).await;
    assert!(
        read.is_ok(),
        "the server kept the connection open ({} bytes read in {LONG:?})",
        got.len()
    );
    let replies = got.windows(12).filter(|w| w == b"HTTP/1.1 200").count();
    assert!(
        replies < requests,
        "closed before every reply was sent: {replies} of {requests}"
    );
    server.shutdown().await;
}
