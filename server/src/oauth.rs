//! Signing in to remote MCP servers with OAuth 2.1, as the MCP authorization spec describes:
//! discovery (RFC 9728, RFC 8414 or OpenID Connect), dynamic registration (RFC 7591) when the
//! config names no `client_id`, the authorization code with PKCE (S256) and `resource`
//! (RFC 8707), refreshing before expiry, and revoking the tokens at sign-out (RFC 7009) where
//! the authorization server offers it. rmcp's `auth` module does the OAuth work; this module
//! keeps the bridge's side of it: the sign-ins waiting for their callback (single use, 10
//! minutes), each server's sign-in state, and the token file (`oauth/tokens.rs`).
//!
//! Against mix-up (one authorization server's metadata naming another's authorization page,
//! so that the code comes back to the bridge and is sent to the wrong token endpoint): the
//! callback's `iss` (RFC 9207) is compared with the issuer the sign-in began with, and must be
//! there when that issuer announces it; an authorization page on another origin than the
//! issuer is named to the user before they go there; tokens are revoked only at the
//! authorization server that issued them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataSource,
    AuthorizationRequest, AuthorizationSession,
};

use crate::http_client;

/// A remote server's sign-in settings (`client_id`, `client_secret_env`, `scopes`); by default
/// the bridge registers itself with the server's authorization server and asks for the scopes
/// the server names.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SignInSettings {
    pub client_id: Option<String>,
    /// The environment variable holding the client's secret (the config never holds it).
    pub client_secret_env: Option<String>,
    pub scopes: Vec<String>,
    /// How the server is signed in to (`sign_in.grant`): in the browser, or by the bridge alone.
    pub grant: machine::Grant,
    /// The bridge's Client ID Metadata Document, used as its `client_id` where the
    /// authorization server takes one instead of a registration.
    pub client_metadata_url: Option<String>,
}

pub(crate) mod machine;
pub(crate) mod tokens;

use tokens::{IssuedBy, ServerTokens, TokenFile};

/// The bridge's route the authorization server sends the browser back to.
pub(crate) const CALLBACK_PATH: &str = "/oauth/callback";

/// How long a sign-in waits for its callback.
pub(crate) const STATE_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// The most sign-ins to one server that may wait for their callback at once: each holds a
/// session, and each began with a registration at the authorization server, so a caller
/// repeating the route must not pile them up. A further one is refused until one completes
/// or expires.
pub(crate) const MAX_PENDING_SIGN_INS: usize = 5;

/// The HTTPS address of the bridge's Client ID Metadata Document (`docs/client-metadata.json`
/// as published), set when the bridge is built (`MCP_BRIDGE_CLIENT_METADATA_URL`; the release
/// workflow sets it to where it publishes the document). Where an authorization server takes
/// such documents (`client_id_metadata_document_supported`), this address is the bridge's
/// `client_id` and nothing is registered. A server entry's `client_metadata_url` overrides it.
pub(crate) const CLIENT_METADATA_URL: Option<&str> = option_env!("MCP_BRIDGE_CLIENT_METADATA_URL");

/// Whether `document` can be a client id (an `https` URL with a path, as the Client ID
/// Metadata Document draft requires).
pub(crate) fn check_metadata_url(document: &str) -> Result<(), String> {
    match url::Url::parse(document) {
        Ok(url)
            if url.scheme() == "https"
                && url.host_str().is_some()
                && url.path() != "/"
                && url.fragment().is_none()
                && url.username().is_empty()
                && url.password().is_none() =>
        {
            Ok(())
        }
        _ => Err("`client_metadata_url` must be the https address of the bridge's client metadata document, with a path (or \"\" to register instead)".to_owned()),
    }
}

/// The name the bridge registers itself under.
const CLIENT_NAME: &str = "MCP Bridge";

pub(crate) use mcp_bridge_protocol::answers::SignInState;

/// A sign-in state in words for the terminal (`mcp-bridge status`).
pub(crate) fn state_words(state: &SignInState) -> String {
    match state {
        SignInState::NotNeeded => "no sign-in needed".to_owned(),
        SignInState::SignedIn { until: Some(until) } => format!("signed in — until {until}"),
        SignInState::SignedIn { until: None } => "signed in".to_owned(),
        SignInState::NeedsSignIn { reason } => format!("needs sign-in ({reason})"),
        SignInState::Failed { reason } => format!("sign-in failed: {reason}"),
    }
}

/// What the last start or sign-in found out about a server, beside its tokens.
#[derive(Debug, Clone)]
enum Noted {
    Needed { challenge: String, reason: String },
    Failed { reason: String },
}

/// A sign-in waiting for its callback.
struct Pending {
    server: String,
    url: String,
    session: AuthorizationSession,
    created: Instant,
    /// The authorization server it began with.
    issued_by: IssuedBy,
    /// Values masked in whatever it reports (the client secret, the bridge's token).
    known: Vec<String>,
}

/// A sign-in begun: the page the user opens, and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Begun {
    pub(crate) authorization_url: String,
    /// The authorization page's origin (`https://host:port`).
    pub(crate) page_origin: String,
    /// The authorization server's issuer the sign-in began with, when its metadata named one.
    pub(crate) issuer: Option<String>,
    /// The authorization page is on another origin than the issuer: the user is told so
    /// before going there, since a callback without `iss` cannot show whose code it carries.
    pub(crate) page_elsewhere: bool,
}

/// Why a callback did nothing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CallbackError {
    /// No sign-in with this `state` is waiting (wrong, or already used).
    UnknownState,
    /// The sign-in waited longer than [`STATE_LIFETIME`].
    Expired { server: String },
    /// The authorization server answered with an error (the user denied consent…).
    Refused { server: String, reason: String },
    /// The code could not be exchanged for tokens.
    Exchange { server: String, reason: String },
}

/// The sign-ins of all remote servers.
pub(crate) struct SignIns {
    tokens: Arc<TokenFile>,
    pending: Mutex<HashMap<String, Pending>>,
    /// Sign-ins begun and not waiting yet (still discovering, registering), by server.
    beginning: Mutex<HashMap<String, usize>>,
    noted: Mutex<HashMap<String, Noted>>,
}

/// A sign-in's place among the [`MAX_PENDING_SIGN_INS`] of its server while it begins.
struct Place<'a> {
    sign_ins: &'a SignIns,
    server: String,
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        if let Some(count) = lock(&self.sign_ins.beginning).get_mut(&self.server) {
            *count = count.saturating_sub(1);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SignIns {
    /// Tokens kept in `file`, or in memory only when `None`.
    pub(crate) fn new(file: Option<PathBuf>) -> Self {
        SignIns {
            tokens: Arc::new(TokenFile::new(file)),
            pending: Mutex::new(HashMap::new()),
            beginning: Mutex::new(HashMap::new()),
            noted: Mutex::new(HashMap::new()),
        }
    }

    /// rmcp's credential store for server `name` at `url`.
    pub(crate) fn tokens_for(&self, name: &str, url: &str) -> ServerTokens {
        ServerTokens {
            file: self.tokens.clone(),
            name: name.to_owned(),
            url: url.to_owned(),
        }
    }

    /// Whether tokens are stored for server `name` at `url`.
    pub(crate) async fn has_tokens(&self, name: &str, url: &str) -> bool {
        matches!(
            self.tokens.load(name, url).await,
            Ok(Some(credentials)) if credentials.token_response.is_some()
        )
    }

    /// The server answered 401 with `challenge` (`WWW-Authenticate`).
    pub(crate) fn note_needed(&self, name: &str, challenge: String, reason: String) {
        lock(&self.noted).insert(name.to_owned(), Noted::Needed { challenge, reason });
    }

    /// The server started: whatever was noted no longer holds.
    pub(crate) fn note_started(&self, name: &str) {
        lock(&self.noted).remove(name);
        self.tokens.clear_refused(name);
    }

    /// Why server `name` needs the user to sign in again, when its authorization server
    /// refused to renew the sign-in.
    pub(crate) fn refresh_refused(&self, name: &str) -> Option<String> {
        self.tokens.refresh_refused(name)
    }

    /// Note that server `name`'s sign-in failed; `reason` is masked first (`known` values and
    /// credential shapes: an authorization server's error text may echo anything). Answers
    /// the masked reason.
    fn note_failed(&self, name: &str, reason: &str, known: &[String]) -> String {
        let reason = crate::redact::redact(reason, known);
        lock(&self.noted).insert(
            name.to_owned(),
            Noted::Failed {
                reason: reason.clone(),
            },
        );
        reason
    }

    /// Server `name`'s sign-in state.
    pub(crate) async fn state(&self, name: &str, url: &str) -> SignInState {
        let noted = lock(&self.noted).get(name).cloned();
        match noted {
            Some(Noted::Failed { reason }) => return SignInState::Failed { reason },
            _ if let Some(reason) = self.tokens.refresh_refused(name) => {
                return SignInState::NeedsSignIn { reason };
            }
            Some(Noted::Needed { reason, .. }) => return SignInState::NeedsSignIn { reason },
            None => {}
        }
        match self.tokens.load(name, url).await {
            Ok(Some(credentials)) if credentials.token_response.is_some() => {
                SignInState::SignedIn {
                    until: expiry(&credentials),
                }
            }
            Ok(_) => SignInState::NotNeeded,
            Err(reason) => SignInState::Failed { reason },
        }
    }

    /// Start signing in to server `name` at `url`: discover its authorization server, register
    /// (unless `settings` names a client), and answer the page the user opens. The browser
    /// comes back to `redirect_uri`. `withheld` (the bridge's token) is never sent as the
    /// client's secret and is masked in what is reported.
    pub(crate) async fn begin(
        &self,
        name: &str,
        url: &str,
        ca_file: Option<&std::path::Path>,
        settings: &SignInSettings,
        redirect_uri: &str,
        withheld: &[String],
    ) -> Result<Begun, String> {
        let _place = self.place_for(name)?;
        let mut known = withheld.to_vec();
        let result = self
            .authorize(name, url, ca_file, settings, redirect_uri, &mut known)
            .await;
        match result {
            Ok((state, session, issued_by)) => {
                let begun = begun(&session.auth_url, issued_by.issuer.clone());
                let mut pending = lock(&self.pending);
                pending.retain(|_, p| p.created.elapsed() < STATE_LIFETIME);
                pending.insert(
                    state,
                    Pending {
                        server: name.to_owned(),
                        url: url.to_owned(),
                        session,
                        created: Instant::now(),
                        issued_by,
                        known,
                    },
                );
                Ok(begun)
            }
            Err(reason) => Err(self.note_failed(name, &reason, &known)),
        }
    }

    /// A place for one more sign-in to server `name`, or why there is none: refused before
    /// anything is sent, and no failure of the server's.
    fn place_for(&self, name: &str) -> Result<Place<'_>, String> {
        let mut pending = lock(&self.pending);
        pending.retain(|_, p| p.created.elapsed() < STATE_LIFETIME);
        let waiting = pending.values().filter(|p| p.server == name).count();
        let mut beginning = lock(&self.beginning);
        let begun = beginning.entry(name.to_owned()).or_default();
        if waiting + *begun >= MAX_PENDING_SIGN_INS {
            return Err(format!(
                "{MAX_PENDING_SIGN_INS} sign-ins to it are already waiting for the browser; \
                 finish one of them, or begin again when they expire ({} minutes after they began)",
                STATE_LIFETIME.as_secs() / 60
            ));
        }
        *begun += 1;
        Ok(Place {
            sign_ins: self,
            server: name.to_owned(),
        })
    }

    async fn authorize(
        &self,
        name: &str,
        url: &str,
        ca_file: Option<&std::path::Path>,
        settings: &SignInSettings,
        redirect_uri: &str,
        known: &mut Vec<String>,
    ) -> Result<(String, AuthorizationSession, IssuedBy), String> {
        http_client::check_url(url, "`url`")?;
        let mut manager = manager(name, url, ca_file, self).await?;
        let challenge = match lock(&self.noted).get(name) {
            Some(Noted::Needed { challenge, .. }) => Some(challenge.clone()),
            _ => None,
        };
        let resolution = manager
            .resolve_metadata_from_challenge(challenge.as_deref())
            .await
            .map_err(|err| {
                format!(
                    "its authorization server could not be found: {}",
                    words(&err)
                )
            })?;
        // rmcp falls back to `/authorize` and `/token` on the server's own origin when nothing
        // is published (an old revision of MCP); a sign-in is never sent to a guessed page.
        if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
            return Err(
                "its authorization server could not be found: neither the server nor its origin publishes OAuth metadata (RFC 9728, RFC 8414 or OpenID Connect discovery)"
                    .to_owned(),
            );
        }
        let metadata = resolution.metadata;
        http_client::check_url(
            &metadata.authorization_endpoint,
            "its authorization endpoint",
        )?;
        http_client::check_url(&metadata.token_endpoint, "its token endpoint")?;
        if let Some(registration) = &metadata.registration_endpoint {
            http_client::check_url(registration, "its registration endpoint")?;
        }
        let revocation_endpoint = revocation_endpoint(&metadata);
        let issued_by = IssuedBy {
            issuer: metadata.issuer.clone(),
            revocation_endpoint,
        };
        manager.set_metadata(metadata);
        let mut request = AuthorizationRequest::new(redirect_uri).with_client_name(CLIENT_NAME);
        if let Some(client_id) = &settings.client_id {
            request = request.with_preregistered_client(client_id);
            if let Some(variable) = &settings.client_secret_env {
                let secret = client_secret(variable, known)?;
                known.push(secret.clone());
                request = request.with_client_secret(secret);
            }
        }
        if let Some(document) = &settings.client_metadata_url {
            request = request.with_client_metadata_url(document);
        }
        if !settings.scopes.is_empty() {
            request = request.with_scopes(settings.scopes.iter().cloned());
        }
        let mut session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, err)| format!("the sign-in could not begin: {}", words(&err)))?;
        session.auth_url = without_repeats(&session.auth_url);
        let state = url::Url::parse(&session.auth_url)
            .ok()
            .and_then(|u| {
                u.query_pairs()
                    .find(|(key, _)| key == "state")
                    .map(|(_, value)| value.into_owned())
            })
            .ok_or_else(|| "the authorization URL holds no `state`".to_owned())?;
        Ok((state, session, issued_by))
    }

    /// The browser came back with `state` and `code` (or `error`), and `iss` when the
    /// authorization server names itself (RFC 9207): exchange the code for tokens, which are
    /// stored. Each `state` is used once. Answers the server's name.
    pub(crate) async fn finish(
        &self,
        state: &str,
        code: Option<&str>,
        error: Option<&str>,
        iss: Option<&str>,
    ) -> Result<String, CallbackError> {
        let pending = lock(&self.pending)
            .remove(state)
            .ok_or(CallbackError::UnknownState)?;
        let server = pending.server.clone();
        let known = &pending.known;
        if pending.created.elapsed() >= STATE_LIFETIME {
            self.note_failed(&server, "the sign-in took longer than 10 minutes", known);
            return Err(CallbackError::Expired { server });
        }
        if let Some(error) = error {
            let reason = self.note_failed(
                &server,
                &format!("the authorization server answered `{error}`"),
                known,
            );
            return Err(CallbackError::Refused { server, reason });
        }
        let Some(code) = code else {
            let reason = self.note_failed(&server, "the authorization server sent no code", known);
            return Err(CallbackError::Refused { server, reason });
        };
        // rmcp compares `iss` with the issuer the sign-in began with before the code goes
        // anywhere, and wants it when that issuer announces
        // `authorization_response_iss_parameter_supported`.
        match pending
            .session
            .handle_callback_with_issuer(code, state, iss)
            .await
        {
            Ok(_) => {
                lock(&self.noted).remove(&server);
                self.tokens.clear_refused(&server);
                if let Err(reason) = self
                    .tokens
                    .record_issuer(&server, &pending.url, pending.issued_by.clone())
                    .await
                {
                    tracing::warn!(server = %server, %reason, "where the tokens came from could not be stored");
                }
                Ok(server)
            }
            Err(AuthError::AuthorizationServerMismatch {
                expected_issuer,
                received_issuer,
            }) => {
                let reason = self.note_failed(
                    &server,
                    &format!(
                        "the answer came from the authorization server `{received_issuer}` (its `iss`), not from `{expected_issuer}` where the sign-in began; the code was sent nowhere"
                    ),
                    known,
                );
                Err(CallbackError::Refused { server, reason })
            }
            Err(AuthError::AuthorizationServerMissingIssuer { expected_issuer }) => {
                let reason = self.note_failed(
                    &server,
                    &format!(
                        "the authorization server `{expected_issuer}` says it names itself in its answers (`iss`), and this answer did not; the code was sent nowhere"
                    ),
                    known,
                );
                Err(CallbackError::Refused { server, reason })
            }
            Err(err) => {
                let reason = self.note_failed(
                    &server,
                    &format!(
                        "the code could not be exchanged for tokens: {}",
                        words(&err)
                    ),
                    known,
                );
                Err(CallbackError::Exchange { server, reason })
            }
        }
    }

    /// Sign out of server `name` at `url`: revoke its tokens where the authorization server
    /// that issued them offers revocation, then forget them and what was noted. Whether there
    /// were tokens, and whether they were revoked. A revocation that fails is logged; the
    /// tokens are forgotten all the same. `withheld` as for [`SignIns::begin`].
    pub(crate) async fn forget(
        &self,
        name: &str,
        url: &str,
        ca_file: Option<&std::path::Path>,
        settings: &SignInSettings,
        withheld: &[String],
    ) -> Result<(bool, bool), String> {
        let stored = self.tokens.load(name, url).await.ok().flatten();
        let revoked = match stored {
            Some(credentials) if credentials.token_response.is_some() => {
                match self
                    .revoke(name, url, ca_file, settings, &credentials, withheld)
                    .await
                {
                    Ok(revoked) => revoked,
                    Err(reason) => {
                        tracing::warn!(server = %name, %reason, "the tokens could not be revoked");
                        false
                    }
                }
            }
            _ => false,
        };
        lock(&self.noted).remove(name);
        lock(&self.pending).retain(|_, p| p.server != name);
        self.tokens.clear_refused(name);
        let forgotten = self.tokens.remove(name).await?;
        Ok((forgotten, revoked))
    }

    /// RFC 7009: send the refresh token, then the access token, to the `revocation_endpoint`
    /// of the authorization server that issued them. `Ok(false)` when it has none.
    async fn revoke(
        &self,
        name: &str,
        url: &str,
        ca_file: Option<&std::path::Path>,
        settings: &SignInSettings,
        credentials: &rmcp::transport::auth::StoredCredentials,
        withheld: &[String],
    ) -> Result<bool, String> {
        let endpoint = match self.tokens.issued_by(name, url).await? {
            Some(issued_by) => issued_by.revocation_endpoint,
            None => {
                // A token file written before the issuer's revocation endpoint was kept: the
                // authorization server the metadata names now gets the tokens only when it is
                // the issuer they were stored with.
                let manager = manager(name, url, ca_file, self).await?;
                let metadata = manager
                    .resolve_metadata_from_challenge(None)
                    .await
                    .map_err(|err| {
                        format!(
                            "its authorization server could not be found: {}",
                            words(&err)
                        )
                    })?
                    .metadata;
                if credentials.issuer.is_none() || credentials.issuer != metadata.issuer {
                    return Err(format!(
                        "the tokens came from `{}`, and the server's metadata now names `{}`; they are not sent there",
                        credentials.issuer.as_deref().unwrap_or("an unnamed issuer"),
                        metadata.issuer.as_deref().unwrap_or("an unnamed issuer"),
                    ));
                }
                revocation_endpoint(&metadata)
            }
        };
        let Some(endpoint) = endpoint.as_deref() else {
            return Ok(false);
        };
        http_client::check_url(endpoint, "its revocation endpoint")?;
        let secret = match &settings.client_secret_env {
            Some(variable) => Some(client_secret(variable, withheld)?),
            None => None,
        };
        let tokens = serde_json::to_value(credentials.token_response.as_ref())
            .map_err(|err| err.to_string())?;
        let http = http_client::client(ca_file)?;
        for hint in ["refresh_token", "access_token"] {
            let Some(token) = tokens.get(hint).and_then(serde_json::Value::as_str) else {
                continue;
            };
            let body = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("token", token)
                .append_pair("token_type_hint", hint)
                .append_pair("client_id", &credentials.client_id)
                .finish();
            let mut request = http
                .post(endpoint)
                .header(
                    reqwest::header::CONTENT_TYPE,
                    "application/x-www-form-urlencoded",
                )
                .body(body);
            if let Some(secret) = &secret {
                request = request.basic_auth(&credentials.client_id, Some(secret));
            }
            let answer = request.send().await.map_err(|err| {
                format!("its revocation endpoint: {}", http_client::describe(&err))
            })?;
            if !answer.status().is_success() {
                return Err(format!(
                    "its revocation endpoint answered {}",
                    answer.status()
                ));
            }
        }
        Ok(true)
    }
}

/// An authorization manager for server `name` at `url`, over the bridge's HTTPS client and
/// with the server's tokens as its store.
pub(crate) async fn manager(
    name: &str,
    url: &str,
    ca_file: Option<&std::path::Path>,
    sign_ins: &SignIns,
) -> Result<AuthorizationManager, String> {
    let http = http_client::client(ca_file)?;
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|err| format!("the sign-in cannot be set up: {}", words(&err)))?;
    manager
        .with_client(http)
        .map_err(|err| format!("the sign-in cannot be set up: {}", words(&err)))?;
    manager.set_credential_store(sign_ins.tokens_for(name, url));
    Ok(manager)
}

/// The authorization server's `revocation_endpoint`, when it names one the bridge may reach.
fn revocation_endpoint(metadata: &AuthorizationMetadata) -> Option<String> {
    let endpoint = metadata
        .additional_fields
        .get("revocation_endpoint")
        .and_then(serde_json::Value::as_str)?;
    http_client::check_url(endpoint, "its revocation endpoint")
        .inspect_err(|reason| tracing::warn!(%reason, "the revocation endpoint is not used"))
        .ok()?;
    Some(endpoint.to_owned())
}

/// The client's secret, from the environment variable `variable`: never one of the bridge's
/// own variables (`MCP_BRIDGE_*`, which the config refuses too), nor a value holding
/// `withheld` (the bridge's token).
fn client_secret(variable: &str, withheld: &[String]) -> Result<String, String> {
    if crate::options::is_bridge_variable(variable) {
        return Err(format!(
            "`client_secret_env` names `{variable}`, one of the bridge's own variables, which are never sent to a server"
        ));
    }
    let secret = std::env::var(variable).map_err(|_| {
        format!(
            "`client_secret_env` names the environment variable `{variable}`, which is not set for the bridge"
        )
    })?;
    if withheld
        .iter()
        .any(|value| !value.is_empty() && secret.contains(value.as_str()))
    {
        return Err(format!(
            "`client_secret_env` names `{variable}`, which holds the bridge's token; it is never sent to a server"
        ));
    }
    Ok(secret)
}

/// What the user is told of a sign-in's authorization page: its origin, and whether it is
/// another than the issuer's.
fn begun(authorization_url: &str, issuer: Option<String>) -> Begun {
    let origin = |text: &str| {
        url::Url::parse(text)
            .ok()
            .map(|url| url.origin().ascii_serialization())
    };
    let page_origin = origin(authorization_url).unwrap_or_default();
    let page_elsewhere = issuer.as_deref().and_then(origin).as_ref() != Some(&page_origin);
    Begun {
        authorization_url: authorization_url.to_owned(),
        page_origin,
        issuer,
        page_elsewhere,
    }
}

/// An rmcp auth error in one line with its causes. rmcp's errors name endpoints and OAuth
/// error codes, never tokens.
pub(crate) fn words(err: &rmcp::transport::auth::AuthError) -> String {
    http_client::describe(err)
}

/// When the stored access token expires, as RFC 3339, when the server said.
fn expiry(credentials: &rmcp::transport::auth::StoredCredentials) -> Option<String> {
    let received = credentials.token_received_at?;
    let response = serde_json::to_value(credentials.token_response.as_ref()?).ok()?;
    let lifetime = response.get("expires_in")?.as_u64()?;
    let at = chrono::DateTime::from_timestamp(i64::try_from(received + lifetime).ok()?, 0)?;
    Some(at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// The authorization URL with each parameter once (RFC 6749 §3.1: the endpoint's own query is
/// kept, and no parameter is sent twice). When the provider's endpoint already carries one the
/// request sets (`state`, `redirect_uri`, `code_challenge` …), the endpoint's copy goes and the
/// request's, added after it, stays.
fn without_repeats(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return url.to_owned();
    };
    let pairs: Vec<(String, String)> = parsed.query_pairs().into_owned().collect();
    let kept: Vec<&(String, String)> = pairs
        .iter()
        .enumerate()
        .filter(|(at, (key, _))| !pairs[at + 1..].iter().any(|(later, _)| later == key))
        .map(|(_, pair)| pair)
        .collect();
    if kept.len() == pairs.len() {
        return url.to_owned();
    }
    parsed
        .query_pairs_mut()
        .clear()
        .extend_pairs(kept.iter().map(|(key, value)| (key, value)));
    parsed.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document a publisher serves (with its `client_id` set to its address) names the
    /// bridge's callback, a public client, and the grants a browser sign-in uses.
    #[test]
    fn the_client_metadata_document_names_the_callback_and_a_public_client() {
        let document: serde_json::Value =
            serde_json::from_str(include_str!("../../docs/client-metadata.json")).unwrap();
        let callback = format!(
            "http://127.0.0.1:{}{CALLBACK_PATH}",
            crate::options::DEFAULT_PORT
        );
        let redirects = document["redirect_uris"].as_array().unwrap();
        assert!(
            redirects.iter().any(|uri| *uri == callback.as_str()),
            "{document}"
        );
        assert_eq!(document["token_endpoint_auth_method"], "none");
        assert_eq!(document["client_name"], CLIENT_NAME);
        assert_eq!(
            document["grant_types"],
            serde_json::json!(["authorization_code", "refresh_token"])
        );
        assert_eq!(document["response_types"], serde_json::json!(["code"]));
        assert!(
            document["client_id"]
                .as_str()
                .unwrap()
                .starts_with("https://")
        );
        assert!(check_metadata_url("https://bridge.example/client-metadata.json").is_ok());
        for bad in [
            "http://bridge.example/doc.json",
            "https://bridge.example/",
            "not a url",
        ] {
            assert!(check_metadata_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_parameter_the_endpoint_already_carries_is_sent_once_with_the_requests_value() {
        let url = "https://as.example/authorize?tenant=acme&state=theirs&redirect_uri=https%3A%2F%2Fevil.example&response_type=code&state=ours&redirect_uri=http%3A%2F%2F127.0.0.1%3A3849%2Foauth%2Fcallback";
        let once = url::Url::parse(&without_repeats(url)).unwrap();
        let pairs: Vec<(String, String)> = once.query_pairs().into_owned().collect();
        let pairs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("tenant", "acme"),
                ("response_type", "code"),
                ("state", "ours"),
                ("redirect_uri", "http://127.0.0.1:3849/oauth/callback"),
            ]
        );
        let plain = "https://as.example/authorize?a=1&b=2";
        assert_eq!(without_repeats(plain), plain);
    }
}
