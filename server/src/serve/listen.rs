//! Accepting connections: a cap on open connections (one over it gets a clear `503` and is
//! closed) and a time limit for reading a request's headers (a slow or idle client is
//! disconnected), so that slow clients cannot starve the extension; then a graceful drain.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

pub(crate) use crate::options::DEFAULT_MAX_CONNECTIONS;
/// Seconds a client gets to send a request's headers (also the idle time of a kept-alive
/// connection), by default.
pub(crate) const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(15);

/// The limits on connections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    pub(crate) max_connections: usize,
    pub(crate) header_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
        }
    }
}

/// The connections still open after the listener stopped accepting.
pub(crate) struct Draining(Option<Pin<Box<dyn Future<Output = ()> + Send>>>);

impl Draining {
    /// Wait at most `limit` for every open connection to finish; whether they all did.
    pub(crate) async fn wait(&mut self, limit: Duration) -> bool {
        let Some(open) = self.0.as_mut() else {
            return true;
        };
        let done = tokio::time::timeout(limit, open).await.is_ok();
        if done {
            self.0 = None;
        }
        done
    }
}

/// Serve `app` on `listener` until `stop` is cancelled; then stop accepting and hand back the
/// open connections, which are told to close once their current request is answered.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    stop: CancellationToken,
) -> Draining {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    loop {
        let (stream, peer) = tokio::select! {
            _ = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(error = %err, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            tracing::warn!(
                %peer,
                limit = limits.max_connections,
                "connection refused: too many open connections"
            );
            tokio::spawn(refuse(stream, limits.max_connections));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let app = app.clone();
            async move {
                Ok::<_, Infallible>(
                    app.oneshot(request.map(Body::new))
                        .await
                        .unwrap_or_else(|never| match never {}),
                )
            }
        });
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(%peer, error = %err, "connection closed with an error");
            }
            drop(permit);
        });
    }
    Draining(Some(Box::pin(graceful.shutdown())))
}

/// Answer a connection over the cap with a `503` and close it.
async fn refuse(mut stream: TcpStream, limit: usize) {
    // The string form of the error body: no request was read, so there is no trace id.
    let body = serde_json::to_string(&mcp_bridge_protocol::errors::ErrorAnswer {
        detail: format!(
            "The bridge has {limit} connections open, its limit; this connection is refused. \
             Close idle connections or try again shortly."
        ),
    })
    .unwrap_or_default();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        let _ = stream.write_all(response.as_bytes()).await;
        let _ = stream.shutdown().await;
    })
    .await;
}
