//! The sign-in tokens on disk: one JSON file in the bridge's config directory that only the
//! user can read (0600 on Unix; on Windows the config directory is in the user's profile),
//! holding each remote server's client id and tokens under its name and URL. rmcp reads and
//! writes it through [`ServerTokens`], its credential store.

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

    pub(crate) async fn save(
        &self,
        name: &str,
        url: &str,
        credentials: StoredCredentials,
    ) -> Result<(), String> {
        self.with_entries(|entries| {
            entries.insert(
                name.to_owned(),
                Entry {
                    url: url.to_owned(),
                    credentials,
                },
            );
            ((), true)
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
}
