//! A connection's socket with a write timeout: a write (or flush) that
//! makes no progress for the timeout fails with `TimedOut`, and hyper then
//! closes the connection. A client that sends requests but never reads
//! the replies fills the socket's buffers; without this, the connection,
//! its queued replies and its connection permit would be held for ever.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// `inner` whose writes time out.
pub(super) struct WriteTimeout<T> {
    inner: T,
    timeout: Duration,
    /// Armed while a write waits; cleared by any progress.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteTimeout<T> {
    pub(super) fn new(inner: T, timeout: Duration) -> Self {
        Self {
            inner,
            timeout,
            deadline: None,
        }
    }

    /// `poll` is the write's own result: progress clears the deadline;
    /// waiting arms it, and fails once it passes.
    fn guard<R>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        if poll.is_ready() {
            self.deadline = None;
            return poll;
        }
        let timeout = self.timeout;
        let deadline = self
            .deadline
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(Instant::now() + timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "metal-fake: the client read nothing for {} ms",
                    timeout.as_millis()
                ),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteTimeout<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.guard(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.guard(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.guard(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.guard(cx, poll)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test(start_paused = true)]
    async fn a_write_nobody_reads_fails_after_the_timeout() {
        // A pipe of 64 bytes whose other end never reads.
        let (ours, _theirs) = tokio::io::duplex(64);
        let mut timed = WriteTimeout::new(ours, Duration::from_secs(5));
        let started = Instant::now();
        let err = timed.write_all(&[0; 1024]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_reader_that_keeps_reading_is_not_cut_off() {
        use tokio::io::AsyncReadExt;
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut timed = WriteTimeout::new(ours, Duration::from_secs(5));
        let reader = tokio::spawn(async move {
            let mut got = 0;
            let mut buf = [0; 16];
            while got < 1024 {
                tokio::time::sleep(Duration::from_secs(1)).await;
                got += theirs.read(&mut buf).await.unwrap();
            }
            got
        });
        timed.write_all(&[0; 1024]).await.unwrap();
        assert_eq!(reader.await.unwrap(), 1024);
    }
}
