//! A small HTTP/1.1 server on loopback, for the hostile-server tests and
//! the instruction-count benchmark: it answers request `n` with whatever
//! `reply(n, request)` says, over keep-alive connections, and counts what
//! it served. It reads request heads only (the clients that talk to it
//! send no bodies) and lives as long as the runtime it was spawned on.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One reply.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    /// `status` with `body` as JSON.
    pub fn json(status: u16, body: impl serde::Serialize) -> Self {
        Self {
            status,
            headers: vec![],
            body: serde_json::to_string(&body).expect("serializable"),
        }
    }

    /// The same reply with one more header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// What the server saw of one request.
pub struct Request {
    /// The request line's target (path and query).
    pub target: String,
    /// The `x-auth-token` header.
    pub token: String,
}

impl Request {
    /// A query parameter's value.
    pub fn query(&self, name: &str) -> Option<&str> {
        let (_, query) = self.target.split_once('?')?;
        query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            (k == name).then_some(v)
        })
    }
}

/// A running server.
pub struct Server {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    served: Arc<AtomicUsize>,
}

impl Server {
    /// How many requests it has answered.
    pub fn served(&self) -> usize {
        self.served.load(Ordering::SeqCst)
    }
}

/// Serves `reply` on a fresh loopback port.
pub async fn serve(reply: impl Fn(usize, &Request) -> Reply + Send + Sync + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let base_url = format!("http://{}", listener.local_addr().expect("its address"));
    let served = Arc::new(AtomicUsize::new(0));
    let reply = Arc::new(reply);
    let count = served.clone();
    tokio::spawn(async move {
        while let Ok((conn, _)) = listener.accept().await {
            tokio::spawn(connection(conn, reply.clone(), count.clone()));
        }
    });
    Server { base_url, served }
}

async fn connection(
    mut conn: tokio::net::TcpStream,
    reply: Arc<impl Fn(usize, &Request) -> Reply>,
    count: Arc<AtomicUsize>,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match conn.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        buf.drain(..end);
        let target = head.split(' ').nth(1).unwrap_or("").to_string();
        let token = head
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("x-auth-token")
                    .then(|| v.trim().to_string())
            })
            .unwrap_or_default();
        let n = count.fetch_add(1, Ordering::SeqCst);
        let r = reply(n, &Request { target, token });
        let mut out = format!(
            "HTTP/1.1 {} Loopback\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            r.status,
            r.body.len()
        );
        for (k, v) in &r.headers {
            out.push_str(k);
            out.push_str(": ");
            out.push_str(v);
            out.push_str("\r\n");
        }
        out.push_str("\r\n");
        out.push_str(&r.body);
        if conn.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
}
