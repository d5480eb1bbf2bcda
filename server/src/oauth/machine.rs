//! Signing in without a person: a server entry whose `sign_in.grant` is `client_credentials`
//! (OAuth client credentials, the client authenticated by its secret or by a signed JWT,
//! RFC 7523 `private_key_jwt`) or `cross_app_access` (an enterprise ID token exchanged at the
//! identity provider for an ID-JAG, RFC 8693, then redeemed at the server's authorization
//! server, RFC 7523 JWT bearer grant). The bridge gets the access token itself when the
//! server starts, again before it expires, and again when the server answers 401; tokens are
//! held in memory only. Secrets, keys and ID tokens are read from the environment variable or
//! file the config names, each time a token is got, never from the config itself.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use oauth2::TokenResponse;
use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
};
use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataSource,
    ClientCredentialsConfig, OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRequest,
};

use crate::http_client;

/// How a remote server is signed in to (`sign_in.grant`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Grant {
    /// The user signs in in the browser (authorization code with PKCE): the default.
    #[default]
    AuthorizationCode,
    /// OAuth client credentials: with the client's secret (`client_secret_env`), or with a
    /// JWT signed by `key` (`private_key_jwt`).
    ClientCredentials { key: Option<SigningKey> },
    /// Enterprise cross-app access: an ID token exchanged for an ID-JAG, then for a token.
    CrossAppAccess(CrossApp),
}

impl Grant {
    /// Whether the bridge gets the server's token itself.
    pub fn is_machine(&self) -> bool {
        !matches!(self, Grant::AuthorizationCode)
    }
}

/// Where a secret value is read from: an environment variable or a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Env(String),
    File(PathBuf),
}

impl Source {
    /// The value, trimmed; `what` names it in errors (never the value).
    fn read(&self, what: &str) -> Result<String, String> {
        let value = match self {
            Source::Env(variable) => {
                if crate::options::is_bridge_variable(variable) {
                    return Err(format!(
                        "{what} names `{variable}`, one of the bridge's own variables, which are never sent to a server"
                    ));
                }
                std::env::var(variable).map_err(|_| {
                    format!("{what} names the environment variable `{variable}`, which is not set for the bridge")
                })?
            }
            Source::File(path) => std::fs::read_to_string(path).map_err(|err| {
                format!(
                    "{what}: the file `{}` could not be read: {err}",
                    path.display()
                )
            })?,
        };
        let value = value.trim().to_owned();
        if value.is_empty() {
            return Err(format!("{what} is empty"));
        }
        Ok(value)
    }
}

/// The private key a `private_key_jwt` client signs its assertions with (PEM, PKCS#8 or
/// PKCS#1), and the algorithm when the config names one.
#[derive(Debug, Clone, PartialEq)]
pub struct SigningKey {
    pub source: Source,
    pub algorithm: Option<String>,
}

/// The identity provider side of cross-app access.
#[derive(Debug, Clone, PartialEq)]
pub struct CrossApp {
    pub idp_issuer: String,
    pub idp_token_endpoint: String,
    pub idp_client_id: String,
    /// The bridge's secret at the identity provider, when it is a confidential client there.
    pub idp_client_secret_env: Option<String>,
    /// The user's ID token from the identity provider.
    pub id_token: Source,
}

/// The keys a `sign_in` object may hold.
const SIGN_IN_KEYS: [&str; 10] = [
    "grant",
    "private_key_file",
    "private_key_env",
    "signing_algorithm",
    "idp_issuer",
    "idp_token_endpoint",
    "idp_client_id",
    "idp_client_secret_env",
    "id_token_env",
    "id_token_file",
];

/// The grant a server entry's `sign_in` object describes, checked against its `client_id` and
/// `client_secret_env`. Relative file paths are taken from `dir` (the config file's folder).
/// An error names the key at fault (`sign_in.KEY`) and why, never a value.
pub(crate) fn grant_from_config(
    sign_in: &BTreeMap<String, String>,
    client_id: Option<&str>,
    client_secret_env: Option<&str>,
    dir: Option<&std::path::Path>,
) -> Result<Grant, (String, String)> {
    if let Some(key) = sign_in
        .keys()
        .find(|key| !SIGN_IN_KEYS.contains(&key.as_str()))
    {
        return Err((
            format!("sign_in.{key}"),
            format!(
                "`sign_in` has no key `{key}`; it may hold {}",
                SIGN_IN_KEYS.join(", ")
            ),
        ));
    }
    let text = |key: &str| sign_in.get(key).filter(|v| !v.trim().is_empty()).cloned();
    let env = |key: &str| -> Result<Option<String>, (String, String)> {
        match text(key) {
            Some(variable) if crate::options::is_bridge_variable(&variable) => Err((
                format!("sign_in.{key}"),
                format!(
                    "`sign_in.{key}` names `{variable}`, one of the bridge's own variables (`MCP_BRIDGE_*`), which are never sent to a server"
                ),
            )),
            other => Ok(other),
        }
    };
    let file = |key: &str| {
        text(key).map(|file| {
            let file = PathBuf::from(file);
            match dir {
                Some(dir) if file.is_relative() => dir.join(file),
                _ => file,
            }
        })
    };
    let one_source = |env_key: &str, file_key: &str| -> Result<Option<Source>, (String, String)> {
        match (env(env_key)?, file(file_key)) {
            (Some(_), Some(_)) => Err((
                format!("sign_in.{env_key}"),
                format!(
                    "`sign_in.{env_key}` and `sign_in.{file_key}` both name where it is; keep one"
                ),
            )),
            (Some(variable), None) => Ok(Some(Source::Env(variable))),
            (None, Some(path)) => Ok(Some(Source::File(path))),
            (None, None) => Ok(None),
        }
    };
    let needs_client_id = |grant: &str| {
        if client_id.is_none() {
            Err((
                "client_id".to_owned(),
                format!(
                    "the grant `{grant}` needs the `client_id` the authorization server gave the bridge"
                ),
            ))
        } else {
            Ok(())
        }
    };
    let grant = text("grant").unwrap_or_else(|| "authorization_code".to_owned());
    match grant.as_str() {
        "authorization_code" => {
            if let Some(key) = sign_in.keys().find(|key| *key != "grant") {
                return Err((
                    format!("sign_in.{key}"),
                    format!(
                        "`sign_in.{key}` is for the grants `client_credentials` and `cross_app_access`, not `authorization_code`"
                    ),
                ));
            }
            Ok(Grant::AuthorizationCode)
        }
        "client_credentials" => {
            needs_client_id(&grant)?;
            if let Some(key) = sign_in
                .keys()
                .find(|key| key.starts_with("idp_") || key.starts_with("id_token"))
            {
                return Err((
                    format!("sign_in.{key}"),
                    format!("`sign_in.{key}` is for the grant `cross_app_access`"),
                ));
            }
            let key = one_source("private_key_env", "private_key_file")?;
            match (&key, client_secret_env) {
                (Some(_), Some(_)) => Err((
                    "client_secret_env".to_owned(),
                    "the client authenticates with its secret (`client_secret_env`) or with a signed JWT (`sign_in.private_key_file` or `sign_in.private_key_env`), not both".to_owned(),
                )),
                (None, None) => Err((
                    "client_secret_env".to_owned(),
                    "the grant `client_credentials` needs the client's secret (`client_secret_env`: the environment variable holding it) or its private key (`sign_in.private_key_file` or `sign_in.private_key_env`)".to_owned(),
                )),
                _ => {
                    let algorithm = text("signing_algorithm");
                    if let Some(algorithm) = &algorithm {
                        if key.is_none() {
                            return Err((
                                "sign_in.signing_algorithm".to_owned(),
                                "`sign_in.signing_algorithm` is for a private key".to_owned(),
                            ));
                        }
                        algorithm_named(algorithm).map_err(|message| {
                            ("sign_in.signing_algorithm".to_owned(), message)
                        })?;
                    }
                    Ok(Grant::ClientCredentials {
                        key: key.map(|source| SigningKey { source, algorithm }),
                    })
                }
            }
        }
        "cross_app_access" => {
            needs_client_id(&grant)?;
            let required = |key: &str| {
                text(key).ok_or_else(|| {
                    (
                        format!("sign_in.{key}"),
                        format!("the grant `cross_app_access` needs `sign_in.{key}`"),
                    )
                })
            };
            let idp_issuer = required("idp_issuer")?;
            let idp_token_endpoint = required("idp_token_endpoint")?;
            let idp_client_id = required("idp_client_id")?;
            let id_token = one_source("id_token_env", "id_token_file")?.ok_or_else(|| {
                (
                    "sign_in.id_token_env".to_owned(),
                    "the grant `cross_app_access` needs the user's ID token from the identity provider: `sign_in.id_token_env` or `sign_in.id_token_file`".to_owned(),
                )
            })?;
            if let Some(key) = ["private_key_env", "private_key_file", "signing_algorithm"]
                .into_iter()
                .find(|key| sign_in.contains_key(*key))
            {
                return Err((
                    format!("sign_in.{key}"),
                    format!("`sign_in.{key}` is for the grant `client_credentials`"),
                ));
            }
            Ok(Grant::CrossAppAccess(CrossApp {
                idp_issuer,
                idp_token_endpoint,
                idp_client_id,
                idp_client_secret_env: env("idp_client_secret_env")?,
                id_token,
            }))
        }
        other => Err((
            "sign_in.grant".to_owned(),
            format!(
                "`sign_in.grant` is `authorization_code` (the default), `client_credentials` or `cross_app_access`, not `{other}`"
            ),
        )),
    }
}

/// The JWT algorithm a `signing_algorithm` names (the asymmetric ones `private_key_jwt` uses).
fn algorithm_named(name: &str) -> Result<jsonwebtoken::Algorithm, String> {
    use jsonwebtoken::Algorithm::*;
    match name {
        "ES256" => Ok(ES256),
        "ES384" => Ok(ES384),
        "RS256" => Ok(RS256),
        "RS384" => Ok(RS384),
        "RS512" => Ok(RS512),
        "PS256" => Ok(PS256),
        "PS384" => Ok(PS384),
        "PS512" => Ok(PS512),
        "EdDSA" => Ok(EdDSA),
        other => Err(format!(
            "`sign_in.signing_algorithm` is one of ES256, ES384, RS256, RS384, RS512, PS256, PS384, PS512, EdDSA, not `{other}`"
        )),
    }
}

/// A token got, and when it stops being used (a minute before it expires).
#[derive(Clone)]
struct Held {
    token: String,
    renew_at: Option<Instant>,
}

/// What gets one server's tokens, and the token it holds.
pub(crate) struct Machine {
    server: String,
    url: String,
    ca_file: Option<PathBuf>,
    client_id: String,
    client_secret_env: Option<String>,
    scopes: Vec<String>,
    grant: Grant,
    held: tokio::sync::Mutex<Option<Held>>,
}

/// Renewed this long before the token's expiry.
const EARLY: Duration = Duration::from_secs(60);

impl Machine {
    pub(crate) fn new(
        server: &str,
        url: &str,
        ca_file: Option<PathBuf>,
        settings: &super::SignInSettings,
    ) -> Arc<Self> {
        Arc::new(Machine {
            server: server.to_owned(),
            url: url.to_owned(),
            ca_file,
            client_id: settings.client_id.clone().unwrap_or_default(),
            client_secret_env: settings.client_secret_env.clone(),
            scopes: settings.scopes.clone(),
            grant: settings.grant.clone(),
            held: tokio::sync::Mutex::new(None),
        })
    }

    /// The token to send: the one held while it is fresh, else a new one.
    pub(crate) async fn token(&self) -> Result<String, String> {
        let mut held = self.held.lock().await;
        if let Some(current) = held.as_ref()
            && current.renew_at.is_none_or(|at| Instant::now() < at)
        {
            return Ok(current.token.clone());
        }
        let fresh = self.get().await?;
        let token = fresh.token.clone();
        *held = Some(fresh);
        Ok(token)
    }

    /// The server refused `sent`: a new token, unless another request got one already.
    async fn renew(&self, sent: &str) -> Result<String, String> {
        let mut held = self.held.lock().await;
        if let Some(current) = held.as_ref()
            && current.token != sent
        {
            return Ok(current.token.clone());
        }
        let fresh = self.get().await?;
        let token = fresh.token.clone();
        *held = Some(fresh);
        Ok(token)
    }

    /// Get a token from the authorization server.
    async fn get(&self) -> Result<Held, String> {
        let (manager, metadata) = self.discover().await?;
        let (token, lifetime) = match &self.grant {
            Grant::AuthorizationCode => {
                return Err("the server's sign-in is in the browser".to_owned());
            }
            Grant::ClientCredentials { key: None } => self.with_secret(manager).await?,
            Grant::ClientCredentials { key: Some(key) } => self.with_jwt(&metadata, key).await?,
            Grant::CrossAppAccess(cross) => self.cross_app(&metadata, cross).await?,
        };
        tracing::info!(server = %self.server, "got an access token without the browser");
        Ok(Held {
            token,
            renew_at: lifetime.map(|lifetime| Instant::now() + lifetime.saturating_sub(EARLY)),
        })
    }

    /// The server's authorization server, found as for a sign-in in the browser.
    async fn discover(&self) -> Result<(AuthorizationManager, AuthorizationMetadata), String> {
        http_client::check_url(&self.url, "`url`")?;
        let http = http_client::client(self.ca_file.as_deref())?;
        let mut manager = AuthorizationManager::new(self.url.as_str())
            .await
            .map_err(|err| format!("the sign-in cannot be set up: {}", super::words(&err)))?;
        manager
            .with_client(http)
            .map_err(|err| format!("the sign-in cannot be set up: {}", super::words(&err)))?;
        let resolution = manager
            .resolve_metadata_from_challenge(None)
            .await
            .map_err(|err| {
                format!(
                    "its authorization server could not be found: {}",
                    super::words(&err)
                )
            })?;
        if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
            return Err("its authorization server could not be found: neither the server nor its origin publishes OAuth metadata".to_owned());
        }
        let metadata = resolution.metadata;
        http_client::check_url(&metadata.token_endpoint, "its token endpoint")?;
        manager.set_metadata(metadata.clone());
        Ok((manager, metadata))
    }

    fn secret(&self) -> Result<Option<String>, String> {
        self.client_secret_env
            .as_ref()
            .map(|variable| Source::Env(variable.clone()).read("`client_secret_env`"))
            .transpose()
    }

    /// Client credentials with the client's secret: rmcp sends it with HTTP Basic when the
    /// authorization server offers only that, else in the request body.
    async fn with_secret(
        &self,
        mut manager: AuthorizationManager,
    ) -> Result<(String, Option<Duration>), String> {
        let config = ClientCredentialsConfig::ClientSecret {
            client_id: self.client_id.clone(),
            client_secret: self.secret()?.unwrap_or_default(),
            scopes: self.scopes.clone(),
            resource: Some(self.url.clone()),
        };
        let refused = |err: AuthError| format!("no token was issued: {}", super::words(&err));
        manager
            .validate_client_credentials_metadata(&config)
            .map_err(refused)?;
        manager
            .configure_client_credentials(&config)
            .map_err(refused)?;
        let answer = manager
            .exchange_client_credentials(&config)
            .await
            .map_err(refused)?;
        Ok((answer.access_token().secret().clone(), answer.expires_in()))
    }

    /// Client credentials with a signed JWT (RFC 7523 §2.2): `iss` and `sub` the client id,
    /// `aud` the authorization server's issuer, five minutes of life, a fresh `jti`.
    async fn with_jwt(
        &self,
        metadata: &AuthorizationMetadata,
        key: &SigningKey,
    ) -> Result<(String, Option<Duration>), String> {
        let offered = |field: &str| -> Option<Vec<String>> {
            metadata
                .additional_fields
                .get(field)?
                .as_array()
                .map(|all| {
                    all.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
        };
        if let Some(methods) = offered("token_endpoint_auth_methods_supported")
            && !methods.iter().any(|m| m == "private_key_jwt")
        {
            return Err(format!(
                "its authorization server does not take signed JWTs from clients (it offers {})",
                methods.join(", ")
            ));
        }
        let pem = key.source.read("the private key")?;
        let (algorithm, encoding) = signing(
            &pem,
            key.algorithm.as_deref(),
            offered("token_endpoint_auth_signing_alg_values_supported"),
        )?;
        let audience = metadata.issuer.clone().ok_or(
            "its authorization server names no issuer, which a signed JWT is addressed to",
        )?;
        let now = chrono::Utc::now().timestamp();
        let claims = serde_json::json!({
            "iss": self.client_id,
            "sub": self.client_id,
            "aud": audience,
            "iat": now,
            "exp": now + 300,
            "jti": uuid::Uuid::new_v4().to_string(),
        });
        let assertion =
            jsonwebtoken::encode(&jsonwebtoken::Header::new(algorithm), &claims, &encoding)
                .map_err(|err| format!("the JWT could not be signed: {err}"))?;
        let body = {
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            form.append_pair("grant_type", "client_credentials")
                .append_pair(
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                )
                .append_pair("client_assertion", &assertion)
                .append_pair("resource", &self.url);
            if !self.scopes.is_empty() {
                form.append_pair("scope", &self.scopes.join(" "));
            }
            form.finish()
        };
        let http = http_client::client(self.ca_file.as_deref())?;
        let answer = http
            .post(&metadata.token_endpoint)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|err| format!("its token endpoint: {}", http_client::describe(&err)))?;
        let status = answer.status();
        let body: serde_json::Value = answer.json().await.unwrap_or_default();
        if !status.is_success() {
            return Err(format!(
                "no token was issued: its token endpoint answered {status} `{}`",
                body["error"].as_str().unwrap_or("no error code")
            ));
        }
        let token = body["access_token"]
            .as_str()
            .ok_or("its token endpoint answered without an access token")?;
        Ok((
            token.to_owned(),
            body["expires_in"].as_u64().map(Duration::from_secs),
        ))
    }

    /// Cross-app access: the ID token is exchanged at the identity provider for an ID-JAG
    /// addressed to the server's authorization server and naming the server, which the
    /// authorization server exchanges for the access token (rmcp checks the ID-JAG's claims
    /// in between).
    async fn cross_app(
        &self,
        metadata: &AuthorizationMetadata,
        cross: &CrossApp,
    ) -> Result<(String, Option<Duration>), String> {
        http_client::check_url(&cross.idp_token_endpoint, "`sign_in.idp_token_endpoint`")?;
        let issuer = metadata
            .issuer
            .clone()
            .ok_or("its authorization server names no issuer, which the ID-JAG is addressed to")?;
        let mut idp = EmaAuthorizationServer::new(
            &cross.idp_issuer,
            &cross.idp_token_endpoint,
            &cross.idp_client_id,
        );
        if let Some(variable) = &cross.idp_client_secret_env {
            let secret = Source::Env(variable.clone()).read("`sign_in.idp_client_secret_env`")?;
            idp = idp.with_client_authentication(EmaClientAuthentication::ClientSecretBasic(
                oauth2::ClientSecret::new(secret),
            ));
        }
        let mut resource_as =
            EmaAuthorizationServer::new(&issuer, &metadata.token_endpoint, &self.client_id);
        if let Some(secret) = self.secret()? {
            let secret = oauth2::ClientSecret::new(secret);
            let only_post = metadata
                .additional_fields
                .get("token_endpoint_auth_methods_supported")
                .and_then(|v| v.as_array())
                .is_some_and(|methods| {
                    methods.iter().any(|m| m == "client_secret_post")
                        && !methods.iter().any(|m| m == "client_secret_basic")
                });
            resource_as = resource_as.with_client_authentication(if only_post {
                EmaClientAuthentication::ClientSecretPost(secret)
            } else {
                EmaClientAuthentication::ClientSecretBasic(secret)
            });
        }
        let id_token = cross.id_token.read("the ID token")?;
        let http = Http(http_client::client(self.ca_file.as_deref())?);
        let answer = EmaExchangeRequest::new_with_id_token(idp, resource_as, &self.url, &id_token)
            .with_scopes(self.scopes.iter().cloned())
            .exchange(&http, &http)
            .await
            .map_err(|err| format!("no token was issued: {}", http_client::describe(&err)))?;
        Ok((answer.access_token.secret().clone(), answer.expires_in))
    }
}

/// The algorithm and key a JWT is signed with: the one the config names, else the first the
/// authorization server takes that fits the key (ES256 and RS256 when it does not say).
fn signing(
    pem: &str,
    named: Option<&str>,
    offered: Option<Vec<String>>,
) -> Result<(jsonwebtoken::Algorithm, jsonwebtoken::EncodingKey), String> {
    use jsonwebtoken::{Algorithm, EncodingKey};
    let bytes = pem.as_bytes();
    let unreadable = || {
        "the private key is not a PEM EC, RSA or Ed25519 private key (PKCS#8 or PKCS#1)".to_owned()
    };
    let (family, key): (&[Algorithm], EncodingKey) =
        if let Ok(key) = EncodingKey::from_ec_pem(bytes) {
            (&[Algorithm::ES256, Algorithm::ES384], key)
        } else if let Ok(key) = EncodingKey::from_rsa_pem(bytes) {
            (
                &[
                    Algorithm::RS256,
                    Algorithm::RS384,
                    Algorithm::RS512,
                    Algorithm::PS256,
                    Algorithm::PS384,
                    Algorithm::PS512,
                ],
                key,
            )
        } else if let Ok(key) = EncodingKey::from_ed_pem(bytes) {
            (&[Algorithm::EdDSA], key)
        } else {
            return Err(unreadable());
        };
    let algorithm = match named {
        Some(name) => {
            let algorithm = algorithm_named(name)?;
            if !family.contains(&algorithm) {
                return Err(format!("`sign_in.signing_algorithm` {name} does not fit the private key"));
            }
            algorithm
        }
        None => match offered {
            Some(offered) => *family
                .iter()
                .find(|a| offered.iter().any(|o| algorithm_named(o).ok() == Some(**a)))
                .ok_or_else(|| {
                    format!(
                        "its authorization server takes JWTs signed with {}, none of which fits the private key",
                        offered.join(", ")
                    )
                })?,
            None => family[0],
        },
    };
    Ok((algorithm, key))
}

/// rmcp's OAuth HTTP interface over the bridge's HTTPS client (its CA file, its limits).
struct Http(reqwest::Client);

/// The most of a token endpoint's answer that is read.
const MAX_ANSWER: usize = 1 << 20;

impl OAuthHttpClient for Http {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let OAuthHttpRequest { request, .. } = request;
            let request = reqwest::Request::try_from(request)?;
            let mut answer = self.0.execute(request).await?;
            let mut builder = oauth2::http::Response::builder().status(answer.status());
            for (name, value) in answer.headers() {
                builder = builder.header(name, value);
            }
            let mut body = Vec::new();
            while let Some(chunk) = answer.chunk().await? {
                if body.len() + chunk.len() > MAX_ANSWER {
                    return Err("the answer is larger than 1 MiB".into());
                }
                body.extend_from_slice(&chunk);
            }
            Ok(builder.body(body)?)
        })
    }
}

pub(crate) mod client;

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(auth: &[(&str, &str)], secret: Option<&str>) -> Result<Grant, (String, String)> {
        let auth: BTreeMap<String, String> = auth
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        grant_from_config(
            &auth,
            Some("robot"),
            secret,
            Some(std::path::Path::new("/cfg")),
        )
    }

    #[test]
    fn a_grant_takes_its_secrets_by_name_and_refuses_what_does_not_fit() {
        assert_eq!(grant(&[], None), Ok(Grant::AuthorizationCode));
        assert_eq!(
            grant(&[("grant", "client_credentials")], Some("ROBOT_SECRET")),
            Ok(Grant::ClientCredentials { key: None })
        );
        assert_eq!(
            grant(
                &[
                    ("grant", "client_credentials"),
                    ("private_key_file", "key.pem")
                ],
                None
            ),
            Ok(Grant::ClientCredentials {
                key: Some(SigningKey {
                    source: Source::File(PathBuf::from("/cfg/key.pem")),
                    algorithm: None,
                })
            })
        );
        let field = |result: Result<Grant, (String, String)>| result.unwrap_err().0;
        // Neither a secret nor a key, or both.
        assert_eq!(
            field(grant(&[("grant", "client_credentials")], None)),
            "client_secret_env"
        );
        assert_eq!(
            field(grant(
                &[("grant", "client_credentials"), ("private_key_env", "KEY")],
                Some("S")
            )),
            "client_secret_env"
        );
        // The bridge's own variables are never a secret's source.
        assert_eq!(
            field(grant(
                &[
                    ("grant", "client_credentials"),
                    ("private_key_env", "MCP_BRIDGE_TOKEN")
                ],
                None
            )),
            "sign_in.private_key_env"
        );
        assert_eq!(
            field(grant(&[("grant", "password")], None)),
            "sign_in.grant"
        );
        assert_eq!(
            field(grant(&[("client_secret", "x")], None)),
            "sign_in.client_secret"
        );
        assert_eq!(
            field(grant(
                &[("grant", "cross_app_access"), ("idp_issuer", "https://idp")],
                None
            )),
            "sign_in.idp_token_endpoint"
        );
    }
}
