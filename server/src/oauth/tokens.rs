//! The sign-in tokens on disk: one JSON file in the bridge's config directory that only the
//! user can read (0600 on Unix; on Windows the config directory is in the user's profile),
//! holding each remote server's client id and tokens under its name and URL, and the
//! authorization server that issued them (its issuer and revocation endpoint, so that a
//! sign-out revokes there whatever the server's metadata names later). rmcp reads and writes
//! it through [`ServerTokens`], its credential store.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};

/// The file's name in the config directory.
pub(crate) const FILE_NAME: &str = "oauth-tokens.json";

/// One server's entry: the URL it was signed in at (a changed `url` needs a new sign-in).
#[derive(Clone, Serialize, Deserialize)]
struct Entry {
    url: String,
    credentials: StoredCredentials,
    /// Where the tokens came from; absent in files written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    issued_by: Option<IssuedBy>,
}

/// The authorization server a sign-in went to, as its metadata said when the sign-in began.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct IssuedBy {
    /// Its `issuer` (RFC 8414), when it named one.
    pub(crate) issuer: Option<String>,
    /// Its `revocation_endpoint` (RFC 7009), when it offered one.
    pub(crate) revocation_endpoint: Option<String>,
}

/// The token file, or memory alone when the bridge has no config directory (tests).
pub(crate) struct TokenFile {
    path: Option<PathBuf>,
    entries: tokio::sync::Mutex<Option<BTreeMap<String, Entry>>>,
    /// Servers whose authorization server refused to renew their sign-in, with why.
    refused: std::sync::Mutex<BTreeMap<String, String>>,
}

impl TokenFile {
    pub(crate) fn new(path: Option<PathBuf>) -> Self {
        TokenFile {
            path,
            entries: tokio::sync::Mutex::new(None),
            refused: std::sync::Mutex::new(BTreeMap::new()),
        }
    }

    fn refused(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.refused
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Why server `name`'s sign-in could not be renewed, when its authorization server
    /// refused the refresh since the last sign-in.
    pub(crate) fn refresh_refused(&self, name: &str) -> Option<String> {
        self.refused().get(name).cloned()
    }

    /// A new sign-in (or a sign-out) ends what a refused refresh said.
    pub(crate) fn clear_refused(&self, name: &str) {
        self.refused().remove(name);
    }

    async fn with_entries<T>(
        &self,
        change: impl FnOnce(&mut BTreeMap<String, Entry>) -> (T, bool),
    ) -> Result<T, String> {
        let mut guard = self.entries.lock().await;
        if guard.is_none() {
            *guard = Some(match &self.path {
                Some(path) => read(path)?,
                None => BTreeMap::new(),
            });
        }
        let entries = guard.as_mut().expect("loaded above");
        let (value, changed) = change(entries);
        if changed && let Some(path) = &self.path {
            write(path, entries)?;
        }
        Ok(value)
    }

    /// The credentials stored for server `name` at `url`.
    pub(crate) async fn load(
        &self,
        name: &str,
        url: &str,
    ) -> Result<Option<StoredCredentials>, String> {
        self.with_entries(|entries| {
            let found = entries
                .get(name)
                .filter(|entry| entry.url == url)
                .map(|entry| entry.credentials.clone());
            (found, false)
        })
        .await
    }

    /// The authorization server that issued server `name`'s tokens at `url`, when the file
    /// says (older files do not).
    pub(crate) async fn issued_by(
        &self,
        name: &str,
        url: &str,
    ) -> Result<Option<IssuedBy>, String> {
        self.with_entries(|entries| {
            let found = entries
                .get(name)
                .filter(|entry| entry.url == url)
                .and_then(|entry| entry.issued_by.clone());
            (found, false)
        })
        .await
    }

    /// Store `credentials` for server `name` at `url`. What is known of the authorization
    /// server that issued the tokens stays while the credentials name the same issuer (a
    /// refresh); tokens of another issuer drop it until [`TokenFile::record_issuer`].
    pub(crate) async fn save(
        &self,
        name: &str,
        url: &str,
        credentials: StoredCredentials,
    ) -> Result<(), String> {
        self.with_entries(|entries| {
            let issued_by = entries
                .get(name)
                .filter(|old| old.url == url && old.credentials.issuer == credentials.issuer)
                .and_then(|old| old.issued_by.clone())
                .filter(|by| by.issuer == credentials.issuer);
            entries.insert(
                name.to_owned(),
                Entry {
                    url: url.to_owned(),
                    credentials,
                    issued_by,
                },
            );
            ((), true)
        })
        .await
    }

    /// Note that server `name`'s tokens at `url`, just stored by a sign-in, came from
    /// `issued_by`.
    pub(crate) async fn record_issuer(
        &self,
        name: &str,
        url: &str,
        issued_by: IssuedBy,
    ) -> Result<(), String> {
        self.with_entries(|entries| match entries.get_mut(name) {
            Some(entry) if entry.url == url => {
                entry.issued_by = Some(issued_by);
                ((), true)
            }
            _ => ((), false),
        })
        .await
    }

    /// Forget server `name`'s tokens; whether there were any.
    pub(crate) async fn remove(&self, name: &str) -> Result<bool, String> {
        self.with_entries(|entries| {
            let removed = entries.remove(name).is_some();
            (removed, removed)
        })
        .await
    }
}

fn read(path: &Path) -> Result<BTreeMap<String, Entry>, String> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|err| {
            format!(
                "the sign-in token file {} cannot be read ({err}); delete it and sign in again",
                path.display()
            )
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(err) => Err(format!(
            "the sign-in token file {} cannot be read: {err}",
            path.display()
        )),
    }
}

/// Write the file whole: a new file created readable by the user only, then renamed over the
/// old one, so a crash never leaves half a file.
fn write(path: &Path, entries: &BTreeMap<String, Entry>) -> Result<(), String> {
    let fail = |err: std::io::Error| {
        format!(
            "the sign-in token file {} cannot be written: {err}",
            path.display()
        )
    };
    let text =
        serde_json::to_vec_pretty(entries).map_err(|err| fail(std::io::Error::other(err)))?;
    let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    {
        use std::io::Write as _;
        let mut file = options.open(&temporary).map_err(fail)?;
        file.write_all(&text).map_err(fail)?;
        file.sync_all().map_err(fail)?;
    }
    std::fs::rename(&temporary, path).map_err(fail)
}

/// One server's view of the token file: rmcp's credential store for it.
pub(crate) struct ServerTokens {
    pub(crate) file: Arc<TokenFile>,
    pub(crate) name: String,
    pub(crate) url: String,
}

#[async_trait::async_trait]
impl CredentialStore for ServerTokens {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.file
            .load(&self.name, &self.url)
            .await
            .map_err(AuthError::CredentialStoreError)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.file
            .save(&self.name, &self.url, credentials)
            .await
            .map_err(AuthError::CredentialStoreError)
    }

    /// The authorization server refused the refresh token (`invalid_grant`): the tokens are
    /// dead, so they are forgotten, and the server needs the user to sign in again.
    async fn on_refresh_token_rejected(
        &self,
        _credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        tracing::warn!(server = %self.name, "the authorization server refused to renew the sign-in");
        self.file.refused().insert(
            self.name.clone(),
            "its authorization server refused to renew the sign-in (`invalid_grant`)".to_owned(),
        );
        self.file
            .remove(&self.name)
            .await
            .map(|_| ())
            .map_err(AuthError::CredentialStoreError)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.file
            .remove(&self.name)
            .await
            .map(|_| ())
            .map_err(AuthError::CredentialStoreError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tokens_are_kept_per_server_and_url_in_a_file_only_the_user_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let file = TokenFile::new(Some(path.clone()));
        let credentials = StoredCredentials::new("client-1".to_owned(), None, vec![], None);
        file.save("wiki", "https://wiki.example/mcp", credentials)
            .await
            .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Read back by a fresh reader of the same file.
        let again = TokenFile::new(Some(path));
        let loaded = again
            .load("wiki", "https://wiki.example/mcp")
            .await
            .unwrap();
        assert_eq!(loaded.unwrap().client_id, "client-1");
        // Another URL under the same name is another server.
        assert!(
            again
                .load("wiki", "https://other.example/mcp")
                .await
                .unwrap()
                .is_none()
        );
        assert!(again.remove("wiki").await.unwrap());
        assert!(
            again
                .load("wiki", "https://wiki.example/mcp")
                .await
                .unwrap()
                .is_none()
        );
    }

    #[tokio::test]
    async fn the_issuer_is_kept_through_a_refresh_and_older_files_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        // A file written before the issuer was kept beside the tokens.
        std::fs::write(
            &path,
            r#"{"wiki": {"url": "https://wiki.example/mcp", "credentials": {"client_id": "c", "token_response": null}}}"#,
        )
        .unwrap();
        let file = TokenFile::new(Some(path.clone()));
        let url = "https://wiki.example/mcp";
        assert_eq!(
            file.load("wiki", url).await.unwrap().unwrap().client_id,
            "c"
        );
        assert_eq!(file.issued_by("wiki", url).await.unwrap(), None);

        let issuer = Some("https://as.example".to_owned());
        let by = IssuedBy {
            issuer: issuer.clone(),
            revocation_endpoint: Some("https://as.example/revoke".to_owned()),
        };
        let credentials = |issuer: &Option<String>| {
            StoredCredentials::new("c".to_owned(), None, vec![], None).with_issuer(issuer.clone())
        };
        file.save("wiki", url, credentials(&issuer)).await.unwrap();
        file.record_issuer("wiki", url, by.clone()).await.unwrap();
        // A refresh stores new credentials of the same issuer: where they came from stays.
        file.save("wiki", url, credentials(&issuer)).await.unwrap();
        let again = TokenFile::new(Some(path));
        assert_eq!(again.issued_by("wiki", url).await.unwrap(), Some(by));
        // Credentials of another issuer drop it.
        again
            .save(
                "wiki",
                url,
                credentials(&Some("https://other.example".to_owned())),
            )
            .await
            .unwrap();
        assert_eq!(again.issued_by("wiki", url).await.unwrap(), None);
    }
}
