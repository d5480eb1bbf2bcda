//! Asking a running bridge how it is, without an async runtime or an HTTP client crate: the
//! native host and `mcp-bridge status` need two small GETs on loopback, with short limits.
//! The token goes only to a server that first proved it holds it (`crate::proof`).

use std::io::{Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs as _};
use std::time::Duration;

/// What answered at an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Probe {
    /// Nothing listens there.
    NotRunning,
    /// Something answers, but not with our `/health`.
    NotOurBridge,
    /// Something answers like our `/health` but could not prove it holds the token: a
    /// stranger on the port, or a bridge with another token. The token was not sent.
    Unproved,
    /// Our bridge, and whether it took the token (`/tools` with it: 200, or 401/403). With a
    /// token, reached only after the bridge proved it holds that token.
    Bridge { token_accepted: bool },
}

/// One `GET` on `url` (`http://host:port`), the status and body; `None` when nothing answers.
pub(crate) fn get(
    url: &str,
    path: &str,
    bearer: Option<&str>,
    limit: Duration,
) -> Option<(u16, String)> {
    let authority = url.strip_prefix("http://")?.trim_end_matches('/');
    let address = authority.to_socket_addrs().ok()?.next()?;
    let mut stream = TcpStream::connect_timeout(&address, limit).ok()?;
    stream.set_read_timeout(Some(limit)).ok()?;
    stream.set_write_timeout(Some(limit)).ok()?;
    let auth = bearer
        .map(|token| format!("Authorization: Bearer {token}\r\n"))
        .unwrap_or_default();
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\n{auth}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = Vec::new();
    // At most 1 MiB: /tools lists are small, and a stranger may send anything.
    stream.take(1 << 20).read_to_end(&mut answer).ok()?;
    let text = String::from_utf8_lossy(&answer);
    let status = text
        .strip_prefix("HTTP/1.")?
        .get(2..5)?
        .parse::<u16>()
        .ok()?;
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    Some((status, body))
}

/// Whether `body` is our bridge's `/health` answer.
fn is_our_health(body: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(body.trim())
        .ok()
        .is_some_and(|value| mcp_bridge_protocol::health::is_ours(&value))
}

/// The port in `url` (`http://host:port`), which the proof covers.
fn port_of(url: &str) -> Option<u16> {
    url.strip_prefix("http://")?
        .trim_end_matches('/')
        .rsplit_once(':')?
        .1
        .parse()
        .ok()
}

/// Is our bridge at `url`, and does it take `token` (none: `--no-auth` bridges take that)?
/// With a token, `/health` is asked a fresh challenge first, and `/tools` (with the token) is
/// asked only when the answer proves the server holds that token.
pub(crate) fn probe(url: &str, token: Option<&str>) -> Probe {
    let limit = Duration::from_secs(2);
    let nonce = crate::proof::new_nonce();
    let path = crate::proof::challenge_path(&nonce);
    let health = match get(url, &path, None, limit) {
        None => return Probe::NotRunning,
        Some((200, body)) if is_our_health(&body) => body,
        Some(_) => return Probe::NotOurBridge,
    };
    if let Some(token) = token {
        let proof = serde_json::from_str::<serde_json::Value>(health.trim())
            .ok()
            .and_then(|health| health["proof"].as_str().map(str::to_owned));
        let proved = match (proof, port_of(url)) {
            (Some(proof), Some(port)) => crate::proof::verify(token, port, &nonce, &proof),
            _ => false,
        };
        if !proved {
            return Probe::Unproved;
        }
    }
    match get(url, "/tools", token, limit) {
        Some((200, _)) => Probe::Bridge {
            token_accepted: true,
        },
        _ => Probe::Bridge {
            token_accepted: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_listening_is_not_running() {
        // Bind and drop to find a port nothing listens on.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        assert_eq!(
            probe(&format!("http://127.0.0.1:{port}"), None),
            Probe::NotRunning
        );
    }

    #[test]
    fn a_stranger_is_not_our_bridge() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(1) {
                let mut stream = stream.unwrap();
                let mut buf = [0u8; 1024];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
                );
            }
        });
        assert_eq!(
            probe(&format!("http://127.0.0.1:{port}"), None),
            Probe::NotOurBridge
        );
    }

    #[test]
    fn reads_our_health() {
        assert!(is_our_health(
            r#"{"status":"ok","version":"0.1.0","servers":{}}"#
        ));
        assert!(!is_our_health(r#"{"status":"ok"}"#));
        assert!(!is_our_health("<html>"));
    }
}
