//! The HTTP client a remote MCP server is reached with: HTTPS through rustls with the `ring`
//! provider and Mozilla's root certificates, plus the extra CA a server's `ca_file` names for a
//! private deployment; plain `http://` only to a loopback address. Its errors say what went
//! wrong with the certificate in words, not as a chain of library types.

use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject as _;
use url::{Host, Url};

/// The most redirects one request follows (all of them to the same origin).
pub(crate) const MAX_REDIRECTS: usize = 5;

/// How long a connection (TCP and TLS) may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Check that `url` is one the bridge may reach: `https://`, or `http://` to a loopback host
/// (`localhost`, `127.0.0.0/8`, `::1`) where nothing crosses the network. `what` names the
/// URL in the error (the server's `url`, an authorization endpoint).
pub(crate) fn check_url(url: &str, what: &str) -> Result<Url, String> {
    let parsed = Url::parse(url).map_err(|err| format!("{what} `{url}` is not a URL: {err}"))?;
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(&parsed) => Ok(parsed),
        "http" => Err(format!(
            "{what} `{url}` is plain http:// to a host that is not this computer; the bridge sends \
             nothing unencrypted over the network: use https://"
        )),
        other => Err(format!(
            "{what} `{url}` uses `{other}:`; use https:// (or http:// to this computer)"
        )),
    }
}

/// Whether `url` names this computer: `localhost` or a loopback IP address.
pub(crate) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// The client for one remote server: Mozilla's roots and, when `ca_file` is given, the
/// certificates of that PEM file as well. Redirects are followed only to the same origin
/// (a session id and the server's headers never reach another host) and only with 307 or 308
/// (a 301/302/303 would turn the POST of a message into a GET without it), at most
/// [`MAX_REDIRECTS`] times.
pub(crate) fn client(ca_file: Option<&Path>) -> Result<reqwest::Client, String> {
    builder(ca_file)?
        .redirect(same_origin_redirects())
        .build()
        .map_err(|err| format!("the HTTP client cannot be set up: {}", describe(&err)))
}

/// The client a remote server's icons are fetched with: the same certificates as
/// [`client`], and no redirect followed (a redirect answers as itself, and is refused).
pub(crate) fn icon_client(ca_file: Option<&Path>) -> Result<reqwest::Client, String> {
    builder(ca_file)?
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|err| format!("the HTTP client cannot be set up: {}", describe(&err)))
}

/// A client builder trusting Mozilla's roots and the certificates of `ca_file`.
fn builder(ca_file: Option<&Path>) -> Result<reqwest::ClientBuilder, String> {
    // rmcp builds clients of its own too (its OAuth discovery): they get `ring` as well.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(path) = ca_file {
        for cert in extra_cas(path)? {
            roots.add(cert).map_err(|err| {
                format!(
                    "`ca_file` {}: a certificate in it cannot be used: {err}",
                    path.display()
                )
            })?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|err| format!("TLS cannot be set up: {err}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .connect_timeout(CONNECT_TIMEOUT))
}

/// The certificates of the PEM file `path` (at least one).
fn extra_cas(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let shown = path.display();
    let text =
        std::fs::read(path).map_err(|err| format!("`ca_file` {shown} cannot be read: {err}"))?;
    let certs = CertificateDer::pem_slice_iter(&text)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| format!("`ca_file` {shown} is not a PEM file of certificates: {err}"))?;
    if certs.is_empty() {
        return Err(format!(
            "`ca_file` {shown} holds no certificate (expected `-----BEGIN CERTIFICATE-----` blocks)"
        ));
    }
    Ok(certs)
}

fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .last()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else if keeps_body && same_origin {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// An error and its causes in one line, each message once; a certificate problem is put in
/// words first (the server's name not on its certificate, an unknown authority, an expired
/// certificate), with what to do about it.
pub(crate) fn describe(err: &(dyn std::error::Error + 'static)) -> String {
    let mut messages: Vec<String> = Vec::new();
    let mut tls = None;
    let mut current = Some(err);
    while let Some(error) = current {
        let text = error.to_string();
        if !messages.iter().any(|seen| seen.contains(&text)) {
            messages.push(text);
        }
        tls = tls.or_else(|| tls_error(error));
        current = error.source();
    }
    let chain = messages.join(": ");
    match tls.as_ref().and_then(certificate_words) {
        Some(words) => format!("{words} ({chain})"),
        None => chain,
    }
}

/// Why a TLS connection to `url` fails, in words, when it is the certificate; `None` when
/// the connection opens or fails for another reason. Asked after a failed handshake: rmcp's
/// transport error names the HTTP client's error without its causes.
pub(crate) async fn certificate_problem(client: &reqwest::Client, url: &str) -> Option<String> {
    if !url.starts_with("https://") {
        return None;
    }
    let probe = client.head(url).timeout(CONNECT_TIMEOUT).send().await;
    let err = probe.err()?;
    let text = describe(&err);
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(&err);
    while let Some(error) = current {
        if tls_error(error)
            .as_ref()
            .and_then(certificate_words)
            .is_some()
        {
            return Some(text);
        }
        current = error.source();
    }
    None
}

/// The rustls error at this link of a chain (an `io::Error` hides it from `source()`).
fn tls_error(error: &(dyn std::error::Error + 'static)) -> Option<rustls::Error> {
    if let Some(tls) = error.downcast_ref::<rustls::Error>() {
        return Some(tls.clone());
    }
    // hyper wraps the rustls error in an `io::Error` inside another `io::Error`.
    let mut inner = error.downcast_ref::<std::io::Error>()?.get_ref()?;
    loop {
        if let Some(tls) = inner.downcast_ref::<rustls::Error>() {
            return Some(tls.clone());
        }
        inner = inner.downcast_ref::<std::io::Error>()?.get_ref()?;
    }
}

fn certificate_words(error: &rustls::Error) -> Option<String> {
    use rustls::CertificateError as C;
    let rustls::Error::InvalidCertificate(problem) = error else {
        return None;
    };
    Some(match problem {
        C::UnknownIssuer => {
            "the server's TLS certificate is not signed by an authority this bridge \
                             trusts; for a private deployment, name its CA's PEM file in the \
                             server's `ca_file`"
                .to_owned()
        }
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            "the server's TLS certificate is not valid for the host name in its `url`".to_owned()
        }
        C::Expired | C::ExpiredContext { .. } => {
            "the server's TLS certificate has expired".to_owned()
        }
        C::NotValidYet | C::NotValidYetContext { .. } => {
            "the server's TLS certificate is not valid yet (is this computer's clock right?)"
                .to_owned()
        }
        C::Revoked => "the server's TLS certificate has been revoked".to_owned(),
        other => format!("the server's TLS certificate was refused: {other:?}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_only_to_this_computer() {
        for url in [
            "https://example.com/mcp",
            "http://127.0.0.1:9/mcp",
            "http://127.8.0.1/mcp",
            "http://localhost:3000/mcp",
            "http://[::1]:8080/mcp",
        ] {
            assert!(check_url(url, "`url`").is_ok(), "{url}");
        }
        let refused = check_url("http://example.com/mcp", "`url`").unwrap_err();
        assert!(refused.contains("use https://"), "{refused}");
        for url in [
            "http://10.0.0.1/mcp",
            "http://localhost.example.com/mcp",
            "http://[::2]/",
        ] {
            assert!(check_url(url, "`url`").is_err(), "{url}");
        }
        assert!(
            check_url("ftp://example.com/", "`url`")
                .unwrap_err()
                .contains("`ftp:`")
        );
        assert!(
            check_url("not a url", "`url`")
                .unwrap_err()
                .contains("is not a URL")
        );
    }

    #[test]
    fn a_ca_file_that_is_missing_or_not_pem_is_named_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let err = client(Some(&missing)).unwrap_err();
        assert!(err.contains("cannot be read"), "{err}");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificate here\n").unwrap();
        let err = client(Some(&empty)).unwrap_err();
        assert!(err.contains("holds no certificate"), "{err}");
        assert!(client(None).is_ok());
    }
}
