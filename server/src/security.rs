//! Who may talk to the bridge: only the user's browser extension. Checks the `Host` header
//! (DNS rebinding), the `Origin` (web pages are refused) — each present at most once, for every
//! method including `OPTIONS` — the bearer token and the body size, and answers CORS only for
//! extension origins.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::Response;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::error::{BridgeError, Refused};

/// The largest request body accepted (1 MiB).
pub const BODY_LIMIT: usize = 1024 * 1024;

/// The only route open without a token.
pub(crate) const OPEN_PATH: &str = "/health";

/// Origins of browser extensions: the only ones allowed to call the bridge from a browser.
pub(crate) const EXTENSION_ORIGIN_PREFIXES: [&str; 2] = ["chrome-extension://", "moz-extension://"];

/// The bridge's access rules.
#[derive(Debug, Clone)]
pub struct Security {
    token: Option<String>,
    port: u16,
    allowed_hosts: Vec<String>,
}

impl Security {
    /// Rules for a bridge listening on `port`; `bind` adds its own address when it is not
    /// loopback (the user asked for network access with `--host`). `token: None` is `--no-auth`.
    pub fn new(token: Option<String>, port: u16, bind: Option<IpAddr>) -> Self {
        let mut allowed_hosts = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        if let Some(ip) = bind.filter(|ip| !ip.is_loopback() && !ip.is_unspecified()) {
            allowed_hosts.push(match ip {
                IpAddr::V4(v4) => format!("{v4}:{port}"),
                IpAddr::V6(v6) => format!("[{v6}]:{port}"),
            });
        }
        Security {
            token,
            port,
            allowed_hosts,
        }
    }

    pub(crate) fn requires_token(&self) -> bool {
        self.token.is_some()
    }

    /// The values never sent to a server nor shown: the token, when there is one.
    pub(crate) fn withheld(&self) -> Vec<String> {
        self.token.iter().cloned().collect()
    }

    /// The answer to a client's challenge (`crate::proof`): `None` for a `--no-auth` bridge,
    /// which has no token to prove.
    pub(crate) fn prove(&self, nonce: &str) -> Option<String> {
        self.token
            .as_deref()
            .map(|token| crate::proof::answer(token, self.port, nonce))
    }

    /// The port the bridge listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    pub(crate) fn host_allowed(&self, host: &str) -> bool {
        self.allowed_hosts
            .iter()
            .any(|allowed| allowed.eq_ignore_ascii_case(host))
    }

    /// Check where a request comes from and is addressed to: one `Host` the bridge answers
    /// to, at most one `Origin`, and that of an extension. Applies to every method, `OPTIONS`
    /// (a CORS preflight) included.
    pub(crate) fn check_host_origin(&self, request: &Request) -> Result<(), BridgeError> {
        let headers = request.headers();
        for name in [header::HOST, header::ORIGIN] {
            if headers.get_all(&name).iter().count() > 1 {
                return Err(BridgeError::Forbidden {
                    refused: Refused::Ambiguous,
                    value: name.to_string(),
                    message: format!(
                        "The request has more than one `{name}` header; the bridge refuses ambiguous requests."
                    ),
                });
            }
        }
        let host = headers
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("");
        if !self.host_allowed(host) {
            return Err(BridgeError::Forbidden {
                refused: Refused::Host,
                value: host.to_owned(),
                message: format!(
                    "Host `{host}` is refused: the bridge only answers requests addressed to {} (protection against DNS rebinding).",
                    self.allowed_hosts.join(", ")
                ),
            });
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            if !origin_allowed(origin) {
                return Err(BridgeError::Forbidden {
                    refused: Refused::Origin,
                    value: origin.to_owned(),
                    message: format!(
                        "Origin `{origin}` is refused: web pages may not call the bridge; only the MCP Bridge browser extension may."
                    ),
                });
            }
        }
        Ok(())
    }

    /// Check one request; `Err` is the refusal to send.
    pub(crate) fn check(&self, request: &Request) -> Result<(), BridgeError> {
        self.check_host_origin(request)?;
        let headers = request.headers();
        if let Some(length) = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok())
            && length > BODY_LIMIT as u64
        {
            return Err(BridgeError::PayloadTooLarge { limit: BODY_LIMIT });
        }
        // The sign-in callback and a view's one-time address are reached by navigation,
        // without the token (`routes::sign_in`, `routes::views`).
        let path = request.uri().path();
        let navigated = path == crate::oauth::CALLBACK_PATH || path.starts_with(VIEWS_PATH);
        let open = path == OPEN_PATH
            || (navigated && request.method() == Method::GET)
            || request.method() == Method::OPTIONS;
        if let (Some(expected), false) = (&self.token, open) {
            let given = headers
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| {
                    let (scheme, token) = value.trim().split_once(' ')?;
                    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
                });
            match given {
                None => {
                    return Err(BridgeError::Unauthorized {
                        missing: true,
                        message: "Missing token. Send `Authorization: Bearer <token>`. The token is printed when the bridge starts \
                         and stored in the file `token` in the bridge's config directory; paste it into the extension's options."
                            .to_owned(),
                    });
                }
                Some(token) if !crate::token::matches(expected, token) => {
                    return Err(BridgeError::Unauthorized {
                        missing: false,
                        message: "Wrong token. The bearer token does not match this bridge's token (see the file `token` in the bridge's config directory)."
                            .to_owned(),
                    });
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// Whether a browser `Origin` belongs to an extension.
pub(crate) fn origin_allowed(origin: &str) -> bool {
    EXTENSION_ORIGIN_PREFIXES
        .iter()
        .any(|prefix| origin.starts_with(prefix) && origin.len() > prefix.len())
}

/// Middleware applying [`Security::check`].
pub(crate) async fn guard(
    State(security): State<Arc<Security>>,
    request: Request,
    next: Next,
) -> Result<Response, BridgeError> {
    if let Err(refusal) = security.check(&request) {
        return Err(refused(&request, refusal));
    }
    Ok(next.run(request).await)
}

/// Logs a refused request and hands the refusal back.
fn refused(request: &Request, refusal: BridgeError) -> BridgeError {
    tracing::warn!(
        method = %request.method(),
        path = %request.uri().path(),
        status = refusal.status().as_u16(),
        reason = %refusal,
        "request refused"
    );
    refusal
}

/// Where views are served (`routes::views`): `{VIEWS_PATH}{id}`.
pub(crate) const VIEWS_PATH: &str = "/views/";

/// Middleware outside CORS: a preflight (`OPTIONS`) from a web origin, to a foreign host or
/// with doubled headers is refused before the CORS layer could answer it.
pub(crate) async fn preflight_guard(
    State(security): State<Arc<Security>>,
    request: Request,
    next: Next,
) -> Result<Response, BridgeError> {
    if request.method() == Method::OPTIONS
        && let Err(refusal) = security.check_host_origin(&request)
    {
        return Err(refused(&request, refusal));
    }
    Ok(next.run(request).await)
}

/// CORS for extension pages only (a web origin never gets this far).
pub(crate) fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(
            |origin: &HeaderValue, _parts: &axum::http::request::Parts| {
                origin.to_str().is_ok_and(origin_allowed)
            },
        ))
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
        .expose_headers([header::HeaderName::from_static(crate::trace::HEADER)])
        .max_age(std::time::Duration::from_secs(600))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    fn request(host: &str, origin: Option<&str>, auth: Option<&str>, path: &str) -> Request {
        let mut builder = axum::http::Request::builder()
            .uri(path)
            .header("host", host);
        if let Some(origin) = origin {
            builder = builder.header("origin", origin);
        }
        if let Some(auth) = auth {
            builder = builder.header("authorization", auth);
        }
        builder.body(Body::empty()).unwrap()
    }

    #[test]
    fn hosts() {
        let security = Security::new(None, 3849, None);
        for host in [
            "127.0.0.1:3849",
            "localhost:3849",
            "LOCALHOST:3849",
            "[::1]:3849",
        ] {
            assert!(
                security.check(&request(host, None, None, "/tools")).is_ok(),
                "{host}"
            );
        }
        for host in [
            "evil.com:3849",
            "127.0.0.1:80",
            "localhost",
            "",
            "127.0.0.1.nip.io:3849",
        ] {
            assert!(
                security
                    .check(&request(host, None, None, "/tools"))
                    .is_err(),
                "{host}"
            );
        }
    }

    #[test]
    fn network_bind_adds_its_address() {
        let security = Security::new(None, 9, Some("192.168.1.5".parse().unwrap()));
        assert!(security.host_allowed("192.168.1.5:9"));
        let security = Security::new(None, 9, Some("0.0.0.0".parse().unwrap()));
        assert!(!security.host_allowed("0.0.0.0:9"));
    }

    #[test]
    fn origins() {
        assert!(origin_allowed("chrome-extension://abcdef"));
        assert!(origin_allowed("moz-extension://1234-5678"));
        assert!(!origin_allowed("chrome-extension://"));
        assert!(!origin_allowed("https://chat.deepseek.com"));
        assert!(!origin_allowed("null"));
        let security = Security::new(None, 1, None);
        let err = security
            .check(&request(
                "localhost:1",
                Some("https://evil.example"),
                None,
                "/health",
            ))
            .unwrap_err();
        assert_eq!(err.status(), axum::http::StatusCode::FORBIDDEN);
    }

    #[test]
    fn tokens() {
        let security = Security::new(Some("secret-token".into()), 1, None);
        let host = "127.0.0.1:1";
        assert!(
            security
                .check(&request(host, None, None, "/health"))
                .is_ok()
        );
        let missing = security
            .check(&request(host, None, None, "/tools"))
            .unwrap_err();
        assert_eq!(missing.status(), axum::http::StatusCode::UNAUTHORIZED);
        assert!(
            security
                .check(&request(host, None, Some("Bearer nope"), "/tools"))
                .is_err()
        );
        assert!(
            security
                .check(&request(host, None, Some("Basic secret-token"), "/tools"))
                .is_err()
        );
        assert!(
            security
                .check(&request(host, None, Some("Bearer secret-token"), "/tools"))
                .is_ok()
        );
        assert!(
            security
                .check(&request(
                    host,
                    None,
                    Some("bearer  secret-token "),
                    "/tools"
                ))
                .is_ok()
        );
        let wrong = security
            .check(&request(host, None, Some("Bearer nope"), "/tools"))
            .unwrap_err();
        assert!(
            !wrong.to_string().contains("secret-token"),
            "the token never appears in errors"
        );
    }
}
