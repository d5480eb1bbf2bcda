//! Pairing the extension with the bridge without copying the token: `mcp-bridge install`
//! registers this binary as a native messaging host that only our extension may start;
//! started by the browser, it tells the extension the bridge's address and token (starting
//! the bridge when it is not running). `uninstall` removes it, `status` says what is
//! registered and how the bridge answers.

pub(crate) mod host;
pub mod paths;
pub(crate) mod probe;
#[cfg(windows)]
mod windows_registry;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

use paths::{Browser, ExtensionId, Os};

/// The file in the config directory where a running bridge records its address and where
/// its token comes from, for the host (which the browser starts with its own environment).
pub(crate) const ENDPOINT_FILE_NAME: &str = "endpoint.json";

/// Where the bridge's token comes from, as recorded in the endpoint file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenSource {
    /// The token file in the config directory.
    File,
    /// `--token` or `MCP_BRIDGE_TOKEN`: known only to whoever started the bridge.
    CommandLine,
    /// `--no-auth`.
    None,
}

impl TokenSource {
    fn as_str(self) -> &'static str {
        match self {
            TokenSource::File => "file",
            TokenSource::CommandLine => "command-line",
            TokenSource::None => "none",
        }
    }
}

/// Records the running bridge's address (best effort: a read-only config directory only
/// means the host falls back to the default address).
pub(crate) fn record_endpoint(dir: &Path, url: &str, source: TokenSource) {
    let body = json!({"url": url, "token": source.as_str(), "pid": std::process::id()});
    if let Err(err) = std::fs::write(dir.join(ENDPOINT_FILE_NAME), format!("{body}\n")) {
        tracing::warn!(error = %err, "cannot record the bridge's address for the native host");
    }
}

/// Removes the endpoint file at exit when it is still this process's (another bridge may have
/// recorded itself since), so that no one is pointed at an address nothing proves any more.
pub(crate) fn forget_endpoint(dir: &Path) {
    let path = dir.join(ENDPOINT_FILE_NAME);
    let ours = std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .is_some_and(|endpoint| endpoint["pid"] == std::process::id());
    if ours && let Err(err) = std::fs::remove_file(&path) {
        tracing::warn!(error = %err, "cannot remove the recorded address of the stopped bridge");
    }
}

/// The bridge as the host finds it through the config directory.
struct ConfigBridge {
    dir: PathBuf,
    exe: PathBuf,
    endpoint: Value,
}

impl ConfigBridge {
    fn new(dir: PathBuf, exe: PathBuf) -> ConfigBridge {
        let endpoint = std::fs::read_to_string(dir.join(ENDPOINT_FILE_NAME))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Value::Null);
        ConfigBridge { dir, exe, endpoint }
    }
}

/// The address a bridge started with default options listens on.
pub(crate) fn default_url() -> String {
    let port = std::env::var("MCP_BRIDGE_PORT")
        .ok()
        .and_then(|port| port.parse::<u16>().ok())
        .unwrap_or(crate::options::DEFAULT_PORT);
    format!("http://127.0.0.1:{port}")
}

impl host::Bridge for ConfigBridge {
    fn url(&self) -> String {
        self.endpoint["url"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(default_url)
    }

    fn token(&self) -> Result<Option<String>, String> {
        match self.endpoint["token"].as_str() {
            Some("none") => Ok(None),
            Some("command-line") => Err(
                "the bridge was started with --token (or MCP_BRIDGE_TOKEN); paste that token into the extension's options, or start the bridge without it".into(),
            ),
            _ => crate::token::load_or_create(&self.dir)
                .map(|loaded| Some(loaded.token))
                .map_err(|err| format!("cannot read the bridge's token: {err}")),
        }
    }

    fn start(&self) -> Result<(), String> {
        host::start_detached(&self.exe, &self.dir.join("bridge.log"))
    }

    fn command(&self) -> String {
        let exe = self.exe.display().to_string();
        if exe.contains(' ') {
            format!("\"{exe}\"")
        } else {
            exe
        }
    }
}

fn exe() -> Result<PathBuf, String> {
    std::env::current_exe()
        .and_then(|exe| exe.canonicalize())
        .map(|exe| without_verbatim_prefix(&exe))
        .map_err(|err| format!("cannot find this program's own path: {err}"))
}

/// On Windows `canonicalize` answers the verbatim form `\\?\C:\…`; the host manifests get
/// the plain drive path instead, the form the browsers' documentation shows (Chromium starts
/// the host through `cmd.exe`). Any other path is kept as it is.
fn without_verbatim_prefix(path: &Path) -> PathBuf {
    let text = path.to_string_lossy();
    match text.strip_prefix(r"\\?\") {
        Some(rest) if rest.get(1..3) == Some(r":\") => PathBuf::from(rest),
        _ => path.to_path_buf(),
    }
}

fn home() -> Result<PathBuf, String> {
    dirs::home_dir().ok_or_else(|| "no home directory".to_owned())
}

/// Run as the native messaging host (the browser started this process).
pub fn run_host() -> ExitCode {
    let (dir, exe) = match (crate::config::config_dir(), exe()) {
        (Ok(dir), Ok(exe)) => (dir, exe),
        (Err(err), _) => {
            eprintln!("mcp-bridge (native host): {err}");
            return ExitCode::FAILURE;
        }
        (_, Err(err)) => {
            eprintln!("mcp-bridge (native host): {err}");
            return ExitCode::FAILURE;
        }
    };
    let bridge = ConfigBridge::new(dir, exe);
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    match host::serve(&mut input, &mut output, &bridge) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // stderr reaches the browser's log, never the page.
            eprintln!("mcp-bridge (native host): {err}");
            ExitCode::FAILURE
        }
    }
}

/// Where each browser's registration is on this system.
fn locations(home: &Path) -> Vec<(Browser, PathBuf)> {
    Browser::ALL
        .iter()
        .map(|&browser| (browser, paths::manifest_path(Os::current(), browser, home)))
        .collect()
}

/// The extension IDs the installed host manifests allow beyond the built-in ones (added by
/// `install --extension-id`): the manifests are where they are kept.
pub fn installed_extra_ids(home: &Path) -> Vec<ExtensionId> {
    let mut ids = Vec::new();
    for (_browser, path) in locations(home) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(manifest) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        for id in paths::extra_ids(&manifest) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// Write every manifest (and, on Windows, the registry values naming them), allowing the
/// built-in extension IDs, those an earlier install added, and `added`.
pub(crate) fn install(
    home: &Path,
    exe: &Path,
    added: &[ExtensionId],
) -> Result<Vec<(Browser, PathBuf)>, String> {
    let mut extra = installed_extra_ids(home);
    for id in added {
        if !extra.contains(id) {
            extra.push(id.clone());
        }
    }
    let mut done = Vec::new();
    for (browser, path) in locations(home) {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(&paths::manifest(browser, exe, &extra))
            .map_err(|err| err.to_string())?;
        std::fs::write(&path, text + "\n")
            .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
        #[cfg(windows)]
        windows_registry::register(browser, &path)?;
        done.push((browser, path));
    }
    Ok(done)
}

/// Remove every manifest (and registry value) this program wrote; what was removed.
pub(crate) fn uninstall(home: &Path) -> Result<Vec<(Browser, PathBuf)>, String> {
    let mut removed = Vec::new();
    for (browser, path) in locations(home) {
        #[cfg(windows)]
        windows_registry::unregister(browser)?;
        match std::fs::remove_file(&path) {
            Ok(()) => removed.push((browser, path)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(format!("cannot remove {}: {err}", path.display())),
        }
    }
    Ok(removed)
}

/// The browsers whose registration names a host manifest that exists.
pub(crate) fn registered(home: &Path) -> Vec<(Browser, PathBuf)> {
    locations(home)
        .into_iter()
        .filter(|(_browser, path)| {
            #[cfg(windows)]
            if !windows_registry::is_registered(*_browser, path) {
                return false;
            }
            path.is_file()
        })
        .collect()
}

/// What the bridge should tell the user on start: paired, or paste the token.
pub(crate) fn start_advice(source: TokenSource, token: Option<&str>) -> String {
    let browsers = home().map(|home| registered(&home)).unwrap_or_default();
    let names: Vec<&str> = browsers
        .iter()
        .map(|(browser, _)| browser.label())
        .collect();
    advice(source, token, &names)
}

/// [`start_advice`] for the browsers `registered`.
pub(crate) fn advice(source: TokenSource, token: Option<&str>, registered: &[&str]) -> String {
    let paste =
        |token: &str| format!("paste this token into MCP Bridge → Options → Connection: {token}");
    match (source, token) {
        (TokenSource::File, _) if !registered.is_empty() => format!(
            "Paired with the extension (native host registered for {}): it fetches the address and token itself.",
            registered.join(", ")
        ),
        (TokenSource::CommandLine, Some(token)) => format!(
            "Next: {} (a --token is not handed out by the native host).",
            paste(token)
        ),
        (_, Some(token)) => format!(
            "Next: {}\n  or run `mcp-bridge install` once, and the extension pairs itself.",
            paste(token)
        ),
        (_, None) => "Next: leave the token empty in MCP Bridge → Options → Connection (this bridge takes none).".to_owned(),
    }
}

/// `mcp-bridge install [--extension-id ID]...`
pub(crate) fn run_install(added: &[ExtensionId]) -> ExitCode {
    let result = home().and_then(|home| {
        exe().and_then(|exe| install(&home, &exe, added).map(|done| (done, exe, home)))
    });
    match result {
        Ok((done, exe, home)) => {
            println!(
                "Registered {} as the native messaging host {}:",
                exe.display(),
                paths::HOST_NAME
            );
            for (browser, path) in done {
                println!("  {:<9} {}", browser.label(), path.display());
            }
            let mut allowed: Vec<String> = paths::CHROMIUM_EXTENSION_IDS
                .iter()
                .map(|id| format!("chrome-extension://{id}/"))
                .collect();
            allowed.push(paths::FIREFOX_EXTENSION_ID.to_owned());
            for id in installed_extra_ids(&home) {
                allowed.push(match id {
                    ExtensionId::Chromium(id) => format!("chrome-extension://{id}/"),
                    ExtensionId::Firefox(id) => id,
                });
            }
            println!(
                "Only these extensions may start it: {}.",
                allowed.join(", ")
            );
            println!(
                "The extension now pairs itself; it starts the bridge when it is not running."
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("mcp-bridge install: {err}");
            ExitCode::FAILURE
        }
    }
}

/// `mcp-bridge uninstall`
pub(crate) fn run_uninstall() -> ExitCode {
    match home().and_then(|home| uninstall(&home)) {
        Ok(removed) if removed.is_empty() => {
            println!("No native messaging host was registered.");
            ExitCode::SUCCESS
        }
        Ok(removed) => {
            println!("Removed the native messaging host {}:", paths::HOST_NAME);
            for (browser, path) in removed {
                println!("  {:<9} {}", browser.label(), path.display());
            }
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("mcp-bridge uninstall: {err}");
            ExitCode::FAILURE
        }
    }
}

/// `mcp-bridge status`
pub(crate) fn run_status() -> ExitCode {
    let home = match home() {
        Ok(home) => home,
        Err(err) => {
            eprintln!("mcp-bridge status: {err}");
            return ExitCode::FAILURE;
        }
    };
    let registered = registered(&home);
    println!("Native messaging host {}:", paths::HOST_NAME);
    for (browser, path) in locations(&home) {
        let state = if registered.iter().any(|(b, _)| *b == browser) {
            "registered"
        } else {
            "not registered"
        };
        println!("  {:<9} {state:<15} {}", browser.label(), path.display());
    }
    let dir = match crate::config::config_dir() {
        Ok(dir) => dir,
        Err(err) => {
            eprintln!("mcp-bridge status: {err}");
            return ExitCode::FAILURE;
        }
    };
    let bridge = ConfigBridge::new(dir, exe().unwrap_or_else(|_| PathBuf::from("mcp-bridge")));
    use host::Bridge as _;
    let url = bridge.url();
    let token = bridge.token();
    let probed = probe::probe(&url, token.as_ref().ok().and_then(|t| t.as_deref()));
    let line = match probed {
        probe::Probe::NotRunning => format!(
            "not running (nothing answers at {url}); start it with `{}`",
            bridge.command()
        ),
        probe::Probe::NotOurBridge => format!("something that is not MCP Bridge answers at {url}"),
        probe::Probe::Unproved => format!(
            "something at {url} answers like MCP Bridge but cannot prove it holds the token in the config directory (another program, or a bridge started with --token); the token was not sent to it"
        ),
        probe::Probe::Bridge {
            token_accepted: true,
        } => format!("running at {url}; the token is accepted"),
        probe::Probe::Bridge {
            token_accepted: false,
        } => match &token {
            Err(reason) => format!("running at {url}; {reason}"),
            Ok(_) => format!(
                "running at {url}, but it refuses the token in the config directory (was it started with --token?)"
            ),
        },
    };
    println!("Bridge: {line}");
    // Only a bridge that proved it holds the token, and took it, is sent it again.
    if let (
        probe::Probe::Bridge {
            token_accepted: true,
        },
        Ok(Some(token)),
    ) = (&probed, &token)
    {
        print_sign_ins(&url, token);
    }
    ExitCode::SUCCESS
}

/// The remote servers' sign-in states, from a running bridge's `GET /servers` (asked only
/// once [`probe::probe`] found that the bridge proved it holds the token and took it).
fn print_sign_ins(url: &str, token: &str) {
    let limit = std::time::Duration::from_secs(5);
    let Some((200, body)) = probe::get(url, "/servers", Some(token), limit) else {
        return;
    };
    let Ok(answer) = serde_json::from_str::<Value>(body.trim()) else {
        return;
    };
    let states: Vec<(String, crate::oauth::SignInState)> = answer["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|server| {
            let name = server["name"].as_str()?.to_owned();
            let state = serde_json::from_value(server["sign_in"].clone()).ok()?;
            Some((name, state))
        })
        .collect();
    if states.is_empty() {
        return;
    }
    println!("Sign-in of the remote servers:");
    for (name, state) in states {
        println!("  {name}: {}", crate::oauth::state_words(&state));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_message_says_what_to_do_next() {
        assert_eq!(
            advice(TokenSource::File, Some("abc"), &["Chromium", "Firefox"]),
            "Paired with the extension (native host registered for Chromium, Firefox): it fetches the address and token itself."
        );
        let unpaired = advice(TokenSource::File, Some("abc"), &[]);
        assert!(unpaired.contains("paste this token into MCP Bridge → Options → Connection: abc"));
        assert!(unpaired.contains("mcp-bridge install"));
        let flag = advice(TokenSource::CommandLine, Some("xyz"), &["Chrome"]);
        assert!(
            flag.contains("paste this token") && flag.contains("xyz"),
            "{flag}"
        );
        assert!(advice(TokenSource::None, None, &[]).contains("leave the token empty"));
    }

    #[test]
    fn the_host_path_is_a_plain_drive_path() {
        assert_eq!(
            without_verbatim_prefix(Path::new(r"\\?\C:\Users\me\mcp-bridge.exe")),
            PathBuf::from(r"C:\Users\me\mcp-bridge.exe")
        );
        // A verbatim UNC path has no plain drive form: kept.
        let unc = Path::new(r"\\?\UNC\server\share\mcp-bridge.exe");
        assert_eq!(without_verbatim_prefix(unc), unc);
        let unix = Path::new("/opt/mcp-bridge");
        assert_eq!(without_verbatim_prefix(unix), unix);
    }

    // On Windows this would write the user's real registry.
    #[cfg(not(windows))]
    #[test]
    fn install_uninstall_round_trip() {
        let home = tempfile::tempdir().unwrap();
        let exe = Path::new("/opt/mcp-bridge");
        assert!(registered(home.path()).is_empty());
        let done = install(home.path(), exe, &[]).unwrap();
        assert_eq!(done.len(), 5);
        assert_eq!(registered(home.path()).len(), 5);
        let removed = uninstall(home.path()).unwrap();
        assert_eq!(removed.len(), 5);
        assert!(registered(home.path()).is_empty());
        assert!(uninstall(home.path()).unwrap().is_empty());
    }
}
