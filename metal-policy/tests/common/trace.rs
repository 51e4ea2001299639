//! Tracing output captured for the tests that read it: a subscriber that
//! writes every line, with the spans' closes, into a buffer the test reads
//! back. Each such test is a binary of its own (tracing caches which
//! callsites are enabled).

use std::sync::{Arc, Mutex};

/// A `MakeWriter` that appends to a shared buffer.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// What was written since the last take.
    pub fn take(&self) -> String {
        String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap()
    }
}

/// A subscriber of everything up to `level` (no colours, with the spans'
/// closes) writing into a new buffer, this thread's default while the
/// guard lives.
pub fn capture(level: tracing::Level) -> (Captured, tracing::subscriber::DefaultGuard) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(false)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_writer(move || writer.clone())
        .finish();
    (captured, tracing::subscriber::set_default(subscriber))
}
