#![allow(dead_code)]
//! A local HTTPS MCP server for the TLS tests: a certificate authority made for the run, a
//! certificate it signs for `localhost`, and rmcp's own streamable HTTP server behind
//! tokio-rustls on a free port.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use hyper_util::rt::TokioIo;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use serde::Deserialize;
use tower::ServiceExt as _;

/// A certificate authority made for one test.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl TestCa {
    pub fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        TestCa { issuer }
    }

    /// The CA's certificate written as a PEM file in `dir`.
    pub fn write_pem(&self, dir: &Path) -> PathBuf {
        let path = dir.join("test-ca.pem");
        std::fs::write(&path, self.issuer.pem()).unwrap();
        path
    }

    /// A server certificate for these DNS names, with its key.
    fn leaf(
        &self,
        names: &[&str],
    ) -> (
        rustls::pki_types::CertificateDer<'static>,
        PrivateKeyDer<'static>,
    ) {
        let key = KeyPair::generate().unwrap();
        let params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
                .unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        (cert.der().clone(), key)
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ShoutArgs {
    pub text: String,
}

/// The tools of the HTTPS server: one that answers in capitals, one that echoes.
#[derive(Clone)]
pub struct Shouter {
    tool_router: ToolRouter<Shouter>,
}

impl Shouter {
    pub fn new() -> Self {
        Shouter {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Shouter {
    #[tool(description = "Answer with the text in capitals.")]
    async fn shout(&self, Parameters(args): Parameters<ShoutArgs>) -> String {
        args.text.to_uppercase()
    }

    #[tool(description = "Answer with the text as it is.")]
    async fn echo(&self, Parameters(args): Parameters<ShoutArgs>) -> String {
        args.text
    }
}

#[tool_handler(router = self.tool_router, name = "shouter")]
impl ServerHandler for Shouter {}

/// A running HTTPS MCP server; stopped when dropped.
pub struct HttpsServer {
    pub port: u16,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for HttpsServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl HttpsServer {
    /// Serve the [`Shouter`] at `/mcp` over TLS with a certificate `ca` signs for `names`.
    pub async fn start(ca: &TestCa, names: &[&str]) -> Self {
        let (cert, key) = ca.leaf(names);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
        let mcp = StreamableHttpService::new(
            || Ok(Shouter::new()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let app = axum::Router::new().nest_service("/mcp", mcp);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let task = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                let acceptor = acceptor.clone();
                let app = app.clone();
                tokio::spawn(async move {
                    // A client that refuses the certificate ends the handshake here.
                    let Ok(stream) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = hyper::service::service_fn(
                        move |request: hyper::Request<hyper::body::Incoming>| {
                            app.clone().oneshot(request.map(Body::new))
                        },
                    );
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        HttpsServer { port, task }
    }
}
