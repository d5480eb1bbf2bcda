//! Changing the servers while the bridge runs: the config file is edited as a JSON document
//! (order and unknown keys kept), validated by the same code as at start-up, written atomically
//! with the previous version kept as `<file>.bak`, and applied so that only the servers whose
//! definition changed restart. The file is also watched: a hand edit is applied the same way,
//! and one that does not validate is logged while the running servers stay as they were.
//!
//! Each read-modify-write holds an exclusive lock on `<file>.lock` beside the file (the file
//! itself is replaced by a rename, so it cannot carry the lock), so two bridges on one file,
//! or `mcp-bridge config import` beside a running bridge, take turns: a change is made to the
//! file as the other left it, and one that cannot get the lock in time is refused, never
//! reported as done.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::Mutex;

use crate::config::{self, ConfigError};
use crate::error::BridgeError;
use crate::redact::{MASK, redact, url_secrets};
use crate::servers::{Changes, Registry};

/// How often the watcher reads the config file.
pub(crate) const WATCH_INTERVAL: Duration = Duration::from_secs(1);
/// How long a change waits for another process's change of the same file.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// The lock file of `path`: the same name with `.lock` appended.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// An exclusive lock on a config file's [`lock_path`], released when dropped (the operating
/// system releases it too when the process ends, however it ends).
#[derive(Debug)]
pub(crate) struct ConfigLock {
    _file: std::fs::File,
}

fn open_lock_file(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options.open(lock_path(path))
}

impl ConfigLock {
    /// Wait for the lock as long as it takes (the command line's edits).
    pub(crate) fn wait(path: &Path) -> std::io::Result<Self> {
        let file = open_lock_file(path)?;
        file.lock()?;
        Ok(ConfigLock { _file: file })
    }

    /// Wait for the lock at most `limit`, without holding an async thread.
    pub(crate) async fn wait_at_most(path: &Path, limit: Duration) -> std::io::Result<Self> {
        let file = open_lock_file(path)?;
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(ConfigLock { _file: file }),
                Err(std::fs::TryLockError::WouldBlock)
                    if tokio::time::Instant::now() < deadline =>
                {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!(
                            "another process kept {} locked for {} s",
                            lock_path(path).display(),
                            limit.as_secs()
                        ),
                    ));
                }
                Err(std::fs::TryLockError::Error(err)) => return Err(err),
            }
        }
    }
}

/// The backup of `path`: the same name with `.bak` appended.
pub(crate) fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

/// Write `text` to `path` atomically: a temporary file in the same directory, flushed, then
/// renamed over `path`; the previous file (if any) is copied to [`backup_path`] first. The new
/// file keeps the old one's permissions (it may hold secrets); a new file is private (0600).
pub(crate) fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)?;
    let old_permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    if old_permissions.is_some() {
        std::fs::copy(path, backup_path(path))?;
    }
    let mut suffix = [0u8; 6];
    let _ = getrandom::fill(&mut suffix);
    let suffix: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
    let temp = dir.join(format!(
        ".{}.{suffix}.tmp",
        path.file_name().unwrap_or_default().to_string_lossy()
    ));
    let result = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let mut file = options.open(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        if let Some(permissions) = old_permissions {
            std::fs::set_permissions(&temp, permissions)?;
        }
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// A config document and its `mcpServers` object (created when missing).
pub(crate) fn servers_of(doc: &mut Value) -> &mut Map<String, Value> {
    if !doc.is_object() {
        *doc = Value::Object(Map::new());
    }
    let object = doc.as_object_mut().expect("an object");
    let servers = object
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    if !servers.is_object() {
        *servers = Value::Object(Map::new());
    }
    servers.as_object_mut().expect("an object")
}

/// The text a document is written as.
pub(crate) fn to_text(doc: &Value) -> String {
    let mut text = serde_json::to_string_pretty(doc).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// Read the config file as text; a missing file is an empty config.
fn read_text(path: &Path) -> std::io::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err),
    }
}

/// Why an edit of the config file was refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EditError {
    /// The file as it is now does not validate: it is not written over.
    #[error("the config file does not validate as it is, so it was not changed; fix it first: {0}")]
    Current(ConfigError),
    /// The edit would make a config that does not validate.
    #[error("{0}")]
    Invalid(ConfigError),
    #[error("cannot read or write the config file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The edit itself refused (an unknown server, …).
    #[error("{0}")]
    Refused(Box<BridgeError>),
}

/// Read `path`, let `edit` change its document, validate the result, and write it atomically,
/// holding the file's [`ConfigLock`] throughout. Returns the new text and its enabled servers.
pub(crate) fn edit_file<T>(
    path: &Path,
    edit: impl FnOnce(&mut Value) -> Result<T, BridgeError>,
) -> Result<(String, Vec<config::ServerSpec>, T), EditError> {
    let _lock = ConfigLock::wait(path).map_err(|source| EditError::Io {
        path: lock_path(path),
        source,
    })?;
    edit_locked(path, edit)
}

/// [`edit_file`] for a caller that holds the file's [`ConfigLock`].
fn edit_locked<T>(
    path: &Path,
    edit: impl FnOnce(&mut Value) -> Result<T, BridgeError>,
) -> Result<(String, Vec<config::ServerSpec>, T), EditError> {
    let io = |source| EditError::Io {
        path: path.to_owned(),
        source,
    };
    let text = read_text(path).map_err(io)?;
    let mut doc = match &text {
        Some(text) => {
            config::parse(text, path).map_err(EditError::Current)?;
            serde_json::from_str::<Value>(text).map_err(|err| {
                EditError::Current(ConfigError::Syntax {
                    path: path.to_owned(),
                    message: err.to_string(),
                    line: err.line(),
                    column: err.column(),
                })
            })?
        }
        None => empty_config(),
    };
    let outcome = edit(&mut doc).map_err(|err| EditError::Refused(Box::new(err)))?;
    let new_text = to_text(&doc);
    let specs = config::parse(&new_text, path).map_err(EditError::Invalid)?;
    write_atomic(path, &new_text).map_err(io)?;
    Ok((new_text, specs, outcome))
}

/// `args` with the secret-looking ones masked: the value of a flag named like a secret
/// (`--api-key=…`, `--token …`, `-p …` is not guessed), `KEY=value` pairs with such a key, and
/// any argument holding a credential shape (`sk-…`, a JWT, `https://user:pw@host`).
pub(crate) fn mask_args(args: &[Value]) -> Vec<Value> {
    let mut masked = Vec::with_capacity(args.len());
    let mut value_is_secret = false;
    for arg in args {
        let Some(text) = arg.as_str() else {
            masked.push(arg.clone());
            value_is_secret = false;
            continue;
        };
        if value_is_secret && !text.starts_with('-') {
            masked.push(Value::from(MASK));
            value_is_secret = false;
            continue;
        }
        value_is_secret = false;
        let flag = text.trim_start_matches('-');
        if text.starts_with('-') && !flag.contains('=') {
            value_is_secret = mcp_bridge_protocol::secrets::is_secret_key(flag);
            masked.push(arg.clone());
            continue;
        }
        if let Some((name, value)) = text.split_once('=')
            && !value.is_empty()
            && mcp_bridge_protocol::secrets::is_secret_key(name.trim_start_matches('-'))
        {
            masked.push(Value::from(format!("{name}={MASK}")));
            continue;
        }
        masked.push(Value::from(crate::redact::mask_patterns(text)));
    }
    masked
}

/// `definition` with the values of `env` and `headers`, the secret-looking `args`
/// ([`mask_args`]) and the credentials in `url` masked.
pub(crate) fn mask_definition(definition: &Value) -> Value {
    let mut masked = definition.clone();
    if let Some(object) = masked.as_object_mut() {
        if let Some(Value::Array(args)) = object.get_mut("args") {
            *args = mask_args(args);
        }
        for key in ["env", "headers"] {
            if let Some(Value::Object(values)) = object.get_mut(key) {
                for value in values.values_mut() {
                    *value = Value::from(MASK);
                }
            }
        }
        if let Some(Value::String(url)) = object.get_mut("url") {
            *url = redact(url, &url_secrets(url));
        }
    }
    masked
}

/// A definition sent back with masked values (as `GET /servers` showed it) keeps the stored
/// secrets for those values.
pub(crate) fn unmask_with(mut definition: Value, stored: Option<&Value>) -> Value {
    let Some(stored) = stored else {
        return definition;
    };
    if let Some(object) = definition.as_object_mut() {
        for key in ["env", "headers"] {
            if let (Some(Value::Object(values)), Some(Value::Object(old))) =
                (object.get_mut(key), stored.get(key))
            {
                for (name, value) in values.iter_mut() {
                    if value.as_str() == Some(MASK)
                        && let Some(previous) = old.get(name)
                    {
                        *value = previous.clone();
                    }
                }
            }
        }
        // An argument sent back as `GET /servers` showed it is the stored one.
        if let (Some(Value::Array(args)), Some(Value::Array(old))) =
            (object.get_mut("args"), stored.get("args"))
            && args.len() == old.len()
        {
            let shown = mask_args(old);
            for ((arg, shown), old) in args.iter_mut().zip(&shown).zip(old) {
                if arg == shown && shown != old {
                    *arg = old.clone();
                }
            }
        }
        if let (Some(Value::String(url)), Some(Value::String(old))) =
            (object.get_mut("url"), stored.get("url"))
            && url.contains(MASK)
            && *url == redact(old, &url_secrets(old))
        {
            *url = old.clone();
        }
    }
    definition
}

/// The config file of a running bridge: its edits and its watcher.
pub struct Manager {
    path: PathBuf,
    registry: Arc<Registry>,
    /// The config text last seen on disk (applied, or refused and logged); held while a change
    /// is made, so changes and the watcher take turns.
    seen: Mutex<Option<String>>,
    /// The built-in server that runs while there is no config file (its name, and the entry
    /// that keeps it as a server of the file).
    builtin: Option<(String, Value)>,
}

impl Manager {
    /// The manager of `path`, whose servers run in `registry`.
    pub fn new(path: PathBuf, registry: Arc<Registry>) -> Self {
        let seen = read_text(&path).ok().flatten();
        Manager {
            path,
            registry,
            seen: Mutex::new(seen),
            builtin: None,
        }
    }

    /// The same manager, knowing that `name` runs built in (the file is missing) and that
    /// `entry` keeps it once the file is written.
    pub(crate) fn with_builtin(mut self, name: &str, entry: Value) -> Self {
        self.builtin = Some((name.to_owned(), entry));
        self
    }

    /// The built-in server while it runs without an entry in the file: its name and the
    /// entry that would keep it.
    pub(crate) fn builtin(&self, doc: Option<&Value>) -> Option<(&str, &Value)> {
        let (name, entry) = self.builtin.as_ref()?;
        let in_file = doc.and_then(|d| d.get("mcpServers")?.get(name)).is_some();
        let running = self.registry.servers().iter().any(|s| s.name() == name);
        (running && !in_file).then_some((name.as_str(), entry))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The config document as it is on disk (an empty one when there is no file); `None` when
    /// the file is not valid JSON.
    pub(crate) fn document(&self) -> Option<Value> {
        match read_text(&self.path) {
            Ok(Some(text)) => serde_json::from_str(&text).ok(),
            Ok(None) => Some(empty_config()),
            Err(_) => None,
        }
    }

    /// Edit the config file (see [`edit_file`]) and apply it to the running servers.
    pub(crate) async fn change<T>(
        &self,
        server: &str,
        edit: impl FnOnce(&mut Value) -> Result<T, BridgeError>,
    ) -> Result<(Changes, T), BridgeError> {
        let mut seen = self.seen.lock().await;
        let lock = ConfigLock::wait_at_most(&self.path, LOCK_WAIT)
            .await
            .map_err(|err| {
                BridgeError::Internal(format!(
                    "the config file was not changed: it could not be locked for the change ({err}); try again"
                ))
            })?;
        let edited = edit_locked(&self.path, edit);
        drop(lock);
        let (text, specs, outcome) = edited.map_err(|err| match err {
            EditError::Refused(err) => *err,
            EditError::Invalid(err) => BridgeError::InvalidServer {
                server: server.to_owned(),
                field: err.field(),
                line: err.line(),
                message: format!("The server definition was refused: {err}"),
            },
            EditError::Current(_) => BridgeError::ConfigFileInvalid(err.to_string()),
            EditError::Io { .. } => BridgeError::Internal(err.to_string()),
        })?;
        *seen = Some(text);
        tracing::info!(config = %self.path.display(), server, "config file written");
        let changes = self.registry.apply(specs).await;
        Ok((changes, outcome))
    }

    /// Apply the file if it changed since it was last seen; an edit that does not validate is
    /// logged (file, line, field) and the running servers are kept.
    pub(crate) async fn reload(&self) -> Option<Changes> {
        let mut seen = self.seen.lock().await;
        let text = match read_text(&self.path) {
            Ok(text) => text,
            Err(err) => {
                tracing::warn!(config = %self.path.display(), error = %err, "cannot read the config file");
                return None;
            }
        };
        if text == *seen {
            return None;
        }
        let Some(current) = text.clone() else {
            *seen = None;
            tracing::warn!(
                config = %self.path.display(),
                "the config file was removed; the running servers are kept"
            );
            return None;
        };
        *seen = text;
        match config::parse(&current, &self.path) {
            Ok(specs) => {
                tracing::info!(config = %self.path.display(), "config file changed; applying it");
                Some(self.registry.apply(specs).await)
            }
            Err(err) => {
                tracing::error!(
                    config = %self.path.display(),
                    line = err.line(),
                    field = err.field(),
                    error = %err,
                    "config file changed but does not validate; the running servers are kept"
                );
                None
            }
        }
    }

    /// Check the file every [`WATCH_INTERVAL`] until the task is dropped.
    pub(crate) async fn watch(self: Arc<Self>) {
        let mut tick = tokio::time::interval(WATCH_INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            self.reload().await;
        }
    }
}

/// A config file with no server: `{"mcpServers": {}}`.
fn empty_config() -> Value {
    let mut doc = Map::new();
    doc.insert("mcpServers".to_owned(), Value::Object(Map::new()));
    Value::Object(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn atomic_write_keeps_a_backup_and_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp-config.json");
        write_atomic(&path, "one").unwrap();
        assert!(!backup_path(&path).exists());
        write_atomic(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(std::fs::read_to_string(backup_path(&path)).unwrap(), "one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 2, "no temporary file is left");
    }

    #[test]
    fn edits_keep_order_and_unknown_keys_and_refuse_bad_definitions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::write(
            &path,
            r#"{"globalShortcut": "x", "mcpServers": {"b": {"command": "b", "autoApprove": []}, "a": {"command": "a"}}}"#,
        )
        .unwrap();
        let (text, specs, ()) = edit_file(&path, |doc| {
            servers_of(doc).insert("c".into(), json!({"command": "c"}));
            Ok(())
        })
        .unwrap();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["b", "a", "c"]);
        assert!(text.contains("globalShortcut") && text.contains("autoApprove"));
        assert!(text.find("\"b\"").unwrap() < text.find("\"a\"").unwrap());
        let err = edit_file(&path, |doc| {
            servers_of(doc).insert("d".into(), json!({"args": []}));
            Ok(())
        })
        .unwrap_err();
        match err {
            EditError::Invalid(err) => {
                assert_eq!(err.field().as_deref(), Some("mcpServers.d.command"))
            }
            other => panic!("{other:?}"),
        }
        // The refused edit left the file as it was.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        std::fs::write(&path, "{").unwrap();
        assert!(matches!(
            edit_file(&path, |_| Ok(())),
            Err(EditError::Current(_))
        ));
    }

    #[test]
    fn secrets_are_masked_and_kept_when_sent_back_masked() {
        let stored = json!({"command": "x", "env": {"API_KEY": "sk-secret-1234", "MODE": "fast"},
            "url": "https://user:hunter22@example.com/mcp?token=abcdef123"});
        let masked = mask_definition(&stored);
        assert_eq!(masked["env"]["API_KEY"], MASK);
        assert_eq!(masked["env"]["MODE"], MASK);
        let url = masked["url"].as_str().unwrap();
        assert!(
            !url.contains("hunter22") && !url.contains("abcdef123"),
            "{url}"
        );
        let mut edited = masked.clone();
        edited["env"]["MODE"] = json!("slow");
        let back = unmask_with(edited, Some(&stored));
        assert_eq!(back["env"]["API_KEY"], "sk-secret-1234");
        assert_eq!(back["env"]["MODE"], "slow");
        assert_eq!(back["url"], stored["url"]);
    }

    #[test]
    fn secret_looking_args_are_masked_and_kept_when_sent_back() {
        let key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123";
        let stored = json!({"command": "npx", "args": [
            "-y", "@acme/mcp", "--api-key", "plainvalue99", format!("--api-key={key}"),
            "--token=abc123", "-e", "GITHUB_TOKEN=gh-value", key, "--port", "8080",
            "--db-password", "hunter2", "--verbose", "https://bob:pw1234@db.example/x"
        ]});
        let masked = mask_definition(&stored);
        let shown = masked.to_string();
        for secret in [
            "plainvalue99",
            "abcdefghijklmnop",
            "abc123",
            "gh-value",
            "hunter2",
            "pw1234",
        ] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert_eq!(
            masked["args"],
            json!([
                "-y",
                "@acme/mcp",
                "--api-key",
                MASK,
                "--api-key=***",
                "--token=***",
                "-e",
                "GITHUB_TOKEN=***",
                MASK,
                "--port",
                "8080",
                "--db-password",
                MASK,
                "--verbose",
                "https://bob:***@db.example/x"
            ])
        );
        let mut edited = masked.clone();
        edited["args"][10] = json!("9090");
        let back = unmask_with(edited, Some(&stored));
        let mut expected = stored["args"].clone();
        expected[10] = json!("9090");
        assert_eq!(back["args"], expected);
    }
}
