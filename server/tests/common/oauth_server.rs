//! A remote MCP server behind a sign-in, for the OAuth tests: protected resource metadata
//! (RFC 9728), authorization server metadata (RFC 8414), dynamic registration (RFC 7591), an
//! authorization endpoint that consents at once (or denies, when told to), a token endpoint
//! that checks PKCE S256 and `resource`, and the [`Shouter`](super::https::Shouter) tools at
//! `/mcp`, answering 401 with a `WWW-Authenticate` challenge without a token it issued, and a
//! revocation endpoint (RFC 7009) that records what it is sent. Each can be told to misbehave
//! (refuse, answer garbage, redirect in a loop, live elsewhere, name another server's
//! authorization page, echo a secret in its error text) or to name itself in its answers
//! (RFC 9207 `iss`). Plain HTTP on loopback, which the bridge allows.

// Each test file that includes it uses part of it.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Query, RawQuery, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use sha2::Digest as _;

/// What the authorization server does, and what it saw.
#[derive(Default)]
pub struct Behaviour {
    /// The user says no at the consent page.
    pub deny: bool,
    /// The token endpoint answers `invalid_grant`.
    pub token_error: bool,
    /// The protected resource metadata names this resource instead of the server's own.
    pub foreign_resource: Option<String>,
    /// The refresh grant answers `invalid_grant` (the refresh token was revoked or expired).
    pub refresh_error: bool,
    /// The authorization server the protected resource metadata names instead of this one;
    /// this server then publishes no authorization server metadata of its own.
    pub authorization_server: Option<String>,
    /// The authorization server metadata is not JSON.
    pub garbage_metadata: bool,
    /// Neither metadata document is published (404), as before MCP required them.
    pub no_metadata: bool,
    /// The authorization server metadata is reached through this many redirects
    /// (`usize::MAX`: it redirects to itself for ever).
    pub metadata_redirects: usize,
    /// The query the authorization endpoint's URL carries in the metadata (a provider's own
    /// parameters, or ones the authorization request sets too).
    pub authorize_query: Option<String>,
    /// The query strings the authorization endpoint got, as sent.
    pub authorize_queries: Vec<String>,
    /// How long a code may be exchanged (no limit unless set).
    pub code_lifetime: Option<Duration>,
    /// `initialize` and its notification pass without a token: the server asks for a sign-in
    /// only from the first request after the handshake.
    pub handshake_open: bool,
    /// A `tools/call` needs a token granted with this scope; one without it is answered 403
    /// `insufficient_scope`, naming the scope (a step-up).
    pub call_scope: Option<String>,
    /// The scope each authorization code, then each access token, was granted.
    scopes: HashMap<String, String>,
    /// The authorization page its metadata names instead of its own (a mix-up attacker
    /// naming an honest server's page beside its own token endpoint).
    pub authorization_endpoint: Option<String>,
    /// Its metadata announces `authorization_response_iss_parameter_supported` (RFC 9207).
    pub announce_iss: bool,
    /// Its authorization endpoint sends the browser back with `iss` (its issuer).
    pub send_iss: bool,
    /// The `error_description` its token endpoint's errors carry.
    pub error_description: Option<String>,
    /// The `token_endpoint_auth_methods_supported` its metadata names (`["none"]` unless set).
    pub auth_methods: Option<Vec<String>>,
    /// The form of each request its token endpoint got.
    pub token_forms: Vec<HashMap<String, String>>,
    /// Codes issued: code → (PKCE challenge, redirect URI, resource, when).
    codes: HashMap<String, (String, String, String, Instant)>,
    /// Requests the token endpoint got.
    pub token_requests: u32,
    /// Tokens sent to the revocation endpoint, with their `token_type_hint`.
    pub revoked: Vec<(String, String)>,
    /// Access tokens issued.
    pub tokens: HashSet<String>,
    /// `resource` of each authorization request.
    pub resources: Vec<String>,
    /// The lifetime of the access tokens it issues (an hour unless set).
    pub expires_in: Option<u64>,
    /// Refresh tokens issued, and how many refreshes were granted.
    refresh_tokens: HashSet<String>,
    pub refreshes: u32,
    issued: u32,
    /// The client id and secret its client credentials grant takes (HTTP Basic or the form).
    pub machine_client: Option<(String, String)>,
    /// The client id and public key (PEM) whose signed JWTs its client credentials grant
    /// takes (`private_key_jwt`).
    pub machine_key: Option<(String, String)>,
    /// The `Authorization` header of each request its token endpoint got (`""` when none).
    pub token_authorizations: Vec<String>,
    /// Its metadata says it takes Client ID Metadata Documents as client ids.
    pub cimd: bool,
    /// Registrations it got (RFC 7591).
    pub registrations: u32,
    /// The ID token its identity provider (`/idp`, an issuer of its own) takes in a token
    /// exchange (RFC 8693) for an ID-JAG naming client `robot`.
    pub idp_id_token: Option<String>,
    /// The form of each token exchange its identity provider got.
    pub idp_forms: Vec<HashMap<String, String>>,
    /// ID-JAGs its identity provider issued, which its JWT bearer grant (RFC 7523) takes.
    id_jags: HashSet<String>,
}

pub struct OAuthServer {
    pub base: String,
    pub behaviour: Arc<Mutex<Behaviour>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[derive(Clone)]
struct Ctx {
    base: String,
    behaviour: Arc<Mutex<Behaviour>>,
}

impl OAuthServer {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let behaviour = Arc::new(Mutex::new(Behaviour::default()));
        let ctx = Ctx {
            base: base.clone(),
            behaviour: behaviour.clone(),
        };
        let mcp = StreamableHttpService::new(
            || Ok(super::https::Shouter::new()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let protected = Router::new()
            .nest_service("/mcp", mcp)
            .layer(axum::middleware::from_fn_with_state(ctx.clone(), bearer));
        let app = Router::new()
            .route(
                "/.well-known/oauth-protected-resource/mcp",
                get(resource_metadata),
            )
            .route(
                "/.well-known/oauth-protected-resource",
                get(resource_metadata),
            )
            .route(
                "/.well-known/oauth-authorization-server",
                get(server_metadata),
            )
            .route("/register", post(register))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .route("/idp/token", post(idp_token))
            .route("/revoke", post(revoke))
            .with_state(ctx)
            .merge(protected);
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        OAuthServer {
            base,
            behaviour,
            task,
        }
    }

    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base)
    }
}

async fn bearer(State(ctx): State<Ctx>, request: Request, next: Next) -> Response {
    let (handshake_open, call_scope) = {
        let behaviour = ctx.behaviour.lock().unwrap();
        (behaviour.handshake_open, behaviour.call_scope.clone())
    };
    // The JSON-RPC method, when this server's rules depend on it.
    let (request, method) = if handshake_open || call_scope.is_some() {
        let (parts, body) = request.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        let method = serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|v| v["method"].as_str().map(str::to_owned))
            .unwrap_or_default();
        (
            Request::from_parts(parts, axum::body::Body::from(bytes)),
            method,
        )
    } else {
        (request, String::new())
    };
    if handshake_open && (method == "initialize" || method == "notifications/initialized") {
        return next.run(request).await;
    }
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let known = token
        .as_ref()
        .is_some_and(|t| ctx.behaviour.lock().unwrap().tokens.contains(t));
    if known {
        if let Some(scope) = call_scope.filter(|_| method == "tools/call") {
            let granted = ctx
                .behaviour
                .lock()
                .unwrap()
                .scopes
                .get(token.as_deref().unwrap_or_default())
                .cloned()
                .unwrap_or_default();
            if !granted.split(' ').any(|s| s == scope) {
                let challenge = format!(
                    "Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
                    ctx.base
                );
                return (
                    StatusCode::FORBIDDEN,
                    [(header::WWW_AUTHENTICATE, challenge)],
                    "more access needed",
                )
                    .into_response();
            }
        }
        return next.run(request).await;
    }
    let challenge = format!(
        "Bearer resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        ctx.base
    );
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
        "sign in first",
    )
        .into_response()
}

async fn resource_metadata(State(ctx): State<Ctx>) -> Response {
    let behaviour = ctx.behaviour.lock().unwrap();
    if behaviour.no_metadata {
        return StatusCode::NOT_FOUND.into_response();
    }
    let resource = behaviour
        .foreign_resource
        .clone()
        .unwrap_or_else(|| format!("{}/mcp", ctx.base));
    let authorization_server = behaviour
        .authorization_server
        .clone()
        .unwrap_or_else(|| ctx.base.clone());
    axum::Json(json!({
        "resource": resource,
        "authorization_servers": [authorization_server],
    }))
    .into_response()
}

async fn server_metadata(
    State(ctx): State<Ctx>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let base = &ctx.base;
    let (elsewhere, garbage, redirects, authorize_query) = {
        let behaviour = ctx.behaviour.lock().unwrap();
        (
            behaviour.authorization_server.is_some(),
            behaviour.garbage_metadata,
            behaviour.metadata_redirects,
            behaviour.authorize_query.clone(),
        )
    };
    if elsewhere || ctx.behaviour.lock().unwrap().no_metadata {
        return StatusCode::NOT_FOUND.into_response();
    }
    let hop: usize = query
        .get("hop")
        .and_then(|hop| hop.parse().ok())
        .unwrap_or(0);
    if hop < redirects {
        let next = if redirects == usize::MAX {
            hop
        } else {
            hop + 1
        };
        return Redirect::temporary(&format!(
            "/.well-known/oauth-authorization-server?hop={next}"
        ))
        .into_response();
    }
    if garbage {
        return (
            [(header::CONTENT_TYPE, "application/json")],
            "<html><body>{\"issuer\": oops</body></html>",
        )
            .into_response();
    }
    let behaviour = ctx.behaviour.lock().unwrap();
    let authorization_endpoint = behaviour.authorization_endpoint.clone();
    let auth_methods = behaviour
        .auth_methods
        .clone()
        .unwrap_or_else(|| vec!["none".to_owned()]);
    let mut metadata = json!({
        "issuer": base,
        "authorization_endpoint": match (authorization_endpoint, authorize_query) {
            (Some(elsewhere), _) => elsewhere,
            (None, Some(query)) => format!("{base}/authorize?{query}"),
            (None, None) => format!("{base}/authorize"),
        },
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": auth_methods,
        "revocation_endpoint": format!("{base}/revoke"),
    });
    if behaviour.announce_iss {
        metadata["authorization_response_iss_parameter_supported"] = json!(true);
    }
    if behaviour.cimd {
        metadata["client_id_metadata_document_supported"] = json!(true);
    }
    axum::Json(metadata).into_response()
}

/// RFC 7009: the token is forgotten whatever it was; the answer is 200 either way.
async fn revoke(
    State(ctx): State<Ctx>,
    axum::Form(form): axum::Form<HashMap<String, String>>,
) -> StatusCode {
    let mut behaviour = ctx.behaviour.lock().unwrap();
    let token = form.get("token").cloned().unwrap_or_default();
    behaviour.tokens.remove(&token);
    behaviour.refresh_tokens.remove(&token);
    let hint = form.get("token_type_hint").cloned().unwrap_or_default();
    behaviour.revoked.push((token, hint));
    StatusCode::OK
}

async fn register(State(ctx): State<Ctx>, axum::Json(body): axum::Json<Value>) -> Response {
    ctx.behaviour.lock().unwrap().registrations += 1;
    let mut answer = body.clone();
    answer["client_id"] = json!("registered-client");
    (StatusCode::CREATED, axum::Json(answer)).into_response()
}

async fn authorize(
    State(ctx): State<Ctx>,
    RawQuery(raw): RawQuery,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    ctx.behaviour
        .lock()
        .unwrap()
        .authorize_queries
        .push(raw.unwrap_or_default());
    let redirect = query.get("redirect_uri").cloned().unwrap_or_default();
    let state = query.get("state").cloned().unwrap_or_default();
    let mut behaviour = ctx.behaviour.lock().unwrap();
    behaviour
        .resources
        .push(query.get("resource").cloned().unwrap_or_default());
    if behaviour.deny {
        return Redirect::to(&format!("{redirect}?error=access_denied&state={state}"))
            .into_response();
    }
    if query.get("code_challenge_method").map(String::as_str) != Some("S256") {
        return (StatusCode::BAD_REQUEST, "S256 only").into_response();
    }
    behaviour.issued += 1;
    let code = format!("code-{}", behaviour.issued);
    let scope = query.get("scope").cloned().unwrap_or_default();
    behaviour.scopes.insert(code.clone(), scope);
    behaviour.codes.insert(
        code.clone(),
        (
            query.get("code_challenge").cloned().unwrap_or_default(),
            redirect.clone(),
            query.get("resource").cloned().unwrap_or_default(),
            Instant::now(),
        ),
    );
    let iss = if behaviour.send_iss {
        format!(
            "&iss={}",
            url::form_urlencoded::byte_serialize(ctx.base.as_bytes()).collect::<String>()
        )
    } else {
        String::new()
    };
    Redirect::to(&format!("{redirect}?code={code}&state={state}{iss}")).into_response()
}

async fn token(
    State(ctx): State<Ctx>,
    headers: axum::http::HeaderMap,
    axum::Form(form): axum::Form<HashMap<String, String>>,
) -> Response {
    let mut behaviour = ctx.behaviour.lock().unwrap();
    let description = behaviour.error_description.clone();
    let refused = |error: &str| {
        let mut body = json!({ "error": error });
        if let Some(description) = &description {
            body["error_description"] = json!(description);
        }
        (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
    };
    behaviour.token_requests += 1;
    behaviour.token_forms.push(form.clone());
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    behaviour.token_authorizations.push(authorization.clone());
    if behaviour.token_error {
        return refused("invalid_grant");
    }
    if form.get("grant_type").map(String::as_str)
        == Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    {
        let client = behaviour.machine_client.clone().unwrap_or_default();
        let basic =
            base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", client.0, client.1));
        let assertion = form.get("assertion").cloned().unwrap_or_default();
        if authorization != format!("Basic {basic}") {
            return (
                StatusCode::UNAUTHORIZED,
                axum::Json(json!({ "error": "invalid_client" })),
            )
                .into_response();
        }
        if !behaviour.id_jags.remove(&assertion) {
            return refused("invalid_grant");
        }
        // An access token alone: a JWT bearer grant gets no refresh token.
        behaviour.issued += 1;
        let access = format!("access-token-{}-secret", behaviour.issued);
        behaviour.tokens.insert(access.clone());
        return axum::Json(json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": behaviour.expires_in.unwrap_or(3600),
        }))
        .into_response();
    }
    if form.get("grant_type").map(String::as_str) == Some("client_credentials") {
        if form.get("resource") != Some(&format!("{}/mcp", ctx.base)) {
            return refused("invalid_target");
        }
        let by_secret = behaviour
            .machine_client
            .as_ref()
            .is_some_and(|(id, secret)| {
                let basic =
                    base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
                authorization == format!("Basic {basic}")
                    || (form.get("client_id") == Some(id)
                        && form.get("client_secret") == Some(secret))
            });
        let by_key = behaviour.machine_key.as_ref().is_some_and(|(id, public)| {
            let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
            validation.set_audience(&[&ctx.base]);
            validation.set_issuer(&[id]);
            validation.sub = Some(id.clone());
            form.get("client_assertion_type").map(String::as_str)
                == Some("urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
                && jsonwebtoken::decode::<Value>(
                    form.get("client_assertion")
                        .map(String::as_str)
                        .unwrap_or_default(),
                    &jsonwebtoken::DecodingKey::from_ec_pem(public.as_bytes()).unwrap(),
                    &validation,
                )
                .is_ok()
        });
        if !by_secret && !by_key {
            return (
                StatusCode::UNAUTHORIZED,
                axum::Json(json!({ "error": "invalid_client" })),
            )
                .into_response();
        }
        return issue(&mut behaviour);
    }
    if form.get("grant_type").map(String::as_str) == Some("refresh_token") {
        if behaviour.refresh_error {
            return refused("invalid_grant");
        }
        let known = form
            .get("refresh_token")
            .is_some_and(|t| behaviour.refresh_tokens.contains(t));
        if !known {
            return refused("invalid_grant");
        }
        behaviour.refreshes += 1;
        return issue(&mut behaviour);
    }
    if form.get("grant_type").map(String::as_str) != Some("authorization_code") {
        return refused("unsupported_grant_type");
    }
    let lifetime = behaviour.code_lifetime;
    let code = form.get("code").cloned().unwrap_or_default();
    let Some((challenge, redirect, resource, issued)) = behaviour.codes.remove(&code) else {
        return refused("invalid_grant");
    };
    if lifetime.is_some_and(|lifetime| issued.elapsed() > lifetime) {
        return refused("invalid_grant");
    }
    let verifier = form.get("code_verifier").cloned().unwrap_or_default();
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()));
    if computed != challenge
        || form.get("redirect_uri") != Some(&redirect)
        || form.get("resource") != Some(&resource)
    {
        return refused("invalid_grant");
    }
    let scope = behaviour.scopes.remove(&code).unwrap_or_default();
    let answer = issue(&mut behaviour);
    let access = format!("access-token-{}-secret", behaviour.issued);
    behaviour.scopes.insert(access, scope);
    answer
}

/// The identity provider's token exchange: the ID token it takes, for an ID-JAG addressed to
/// the audience asked for, naming the resource and client `robot` (signed with a key of its
/// own: the bridge checks the claims, the authorization server the token it issued).
async fn idp_token(
    State(ctx): State<Ctx>,
    axum::Form(form): axum::Form<HashMap<String, String>>,
) -> Response {
    let mut behaviour = ctx.behaviour.lock().unwrap();
    behaviour.idp_forms.push(form.clone());
    let field = |name: &str| form.get(name).cloned().unwrap_or_default();
    if field("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange"
        || field("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token"
        || field("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag"
        || behaviour.idp_id_token.as_deref() != Some(field("subject_token").as_str())
    {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({ "error": "invalid_grant" })),
        )
            .into_response();
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    behaviour.issued += 1;
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    header.typ = Some("oauth-id-jag+jwt".to_owned());
    let jag = jsonwebtoken::encode(
        &header,
        &json!({
            "iss": format!("{}/idp", ctx.base),
            "sub": "user@example.test",
            "aud": field("audience"),
            "resource": field("resource"),
            "client_id": "robot",
            "jti": format!("jag-{}", behaviour.issued),
            "iat": now,
            "exp": now + 300,
        }),
        &jsonwebtoken::EncodingKey::from_secret(b"the identity provider's own key"),
    )
    .unwrap();
    behaviour.id_jags.insert(jag.clone());
    axum::Json(json!({
        "access_token": jag,
        "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
        "token_type": "N_A",
        "expires_in": 300,
    }))
    .into_response()
}

impl Behaviour {
    /// The refresh tokens it issued and has not revoked.
    pub fn refresh_tokens_issued(&self) -> Vec<String> {
        self.refresh_tokens.iter().cloned().collect()
    }
}

/// New access and refresh tokens.
fn issue(behaviour: &mut Behaviour) -> Response {
    behaviour.issued += 1;
    let access = format!("access-token-{}-secret", behaviour.issued);
    let refresh = format!("refresh-token-{}", behaviour.issued);
    behaviour.tokens.insert(access.clone());
    behaviour.refresh_tokens.insert(refresh.clone());
    axum::Json(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": behaviour.expires_in.unwrap_or(3600),
        "refresh_token": refresh,
    }))
    .into_response()
}
