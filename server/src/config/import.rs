//! Importing servers from other MCP clients' configs: Claude Desktop
//! (`claude_desktop_config.json`), Cursor (`~/.cursor/mcp.json`) and VS Code (the user
//! `mcp.json`, whose servers are under `servers`), at their usual places on Linux, macOS and
//! Windows, or from one file given. A name already in the bridge's config is a clash: reported,
//! never overwritten. Each server is checked by the same code as the bridge's config.
//!
//! A file is read only when it is a regular file of at most [`MAX_CONFIG_BYTES`]: a FIFO, a
//! device (`/dev/zero`) or a huge file is refused without being read. The reading blocks, so
//! the HTTP route runs [`find`] off the async threads, and it answers about a file it was
//! given only in words that do not tell whether the file exists or what it holds
//! ([`Found::to_answer`]).

use std::io::Read as _;
use std::path::{Path, PathBuf};

use mcp_bridge_protocol::answers::{
    ImportCandidate, ImportFound, ImportRefused, ImportReport, ImportSource,
};
use serde_json::{Map, Value};

use crate::config::manage::mask_definition;

/// Where the other clients keep their MCP configs on this machine, existing or not.
pub(crate) fn known_locations() -> Vec<(&'static str, PathBuf)> {
    let mut places = Vec::new();
    // `dirs::config_dir()` is ~/.config (or $XDG_CONFIG_HOME) on Linux,
    // ~/Library/Application Support on macOS and %APPDATA% on Windows: Claude Desktop and
    // VS Code use it on all three.
    if let Some(config) = dirs::config_dir() {
        places.push((
            "Claude Desktop",
            config.join("Claude").join("claude_desktop_config.json"),
        ));
    }
    if let Some(home) = dirs::home_dir() {
        places.push(("Cursor", home.join(".cursor").join("mcp.json")));
    }
    if let Some(config) = dirs::config_dir() {
        places.push(("VS Code", config.join("Code").join("User").join("mcp.json")));
    }
    places
}

/// The largest MCP client config read (they are a few KiB).
pub(crate) const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// What an HTTP caller is told when a file it named could not be imported from, whatever the
/// reason: the same words for a missing file, one it may not read, a FIFO, a device, a file too
/// large, and one that is not an MCP client config, so that no file can be probed through it.
pub const UNREADABLE_GIVEN_FILE: &str = "no MCP servers could be imported from this path: it must name a \
     readable regular file of at most 1 MiB holding an MCP client config (JSON with `mcpServers` or `servers`)";

/// Why a config file was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    #[error("it is not a regular file")]
    NotAFile,
    #[error("it is larger than {} KiB, more than any MCP client config", MAX_CONFIG_BYTES / 1024)]
    TooLarge,
    #[error("it is not UTF-8 text")]
    NotText,
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// The text of the config file at `path`, if it is a regular file of at most
/// [`MAX_CONFIG_BYTES`]. It is opened without blocking (a FIFO with no writer would otherwise
/// hold the thread) and checked as opened, so a file swapped in after a check is caught too.
pub(crate) fn read_config_file(path: &Path) -> Result<String, ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(ReadError::NotAFile);
    }
    if metadata.len() > MAX_CONFIG_BYTES {
        return Err(ReadError::TooLarge);
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(ReadError::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| ReadError::NotText)
}

/// One config file looked at.
#[derive(Debug, Clone)]
pub(crate) struct SourceFile {
    pub(crate) client: String,
    pub(crate) path: PathBuf,
    pub(crate) exists: bool,
    /// The caller named this file (rather than it being one of [`known_locations`]).
    pub given: bool,
    /// Why its servers could not be read.
    pub(crate) error: Option<String>,
}

/// One server found in another client's config.
#[derive(Debug, Clone)]
pub(crate) struct FoundServer {
    pub(crate) name: String,
    pub(crate) client: String,
    pub(crate) path: PathBuf,
    pub(crate) definition: Value,
    /// Why it cannot be added under this name (already in the config, or found twice).
    pub(crate) clash: Option<String>,
    /// Why it would not validate.
    pub(crate) problem: Option<String>,
}

impl FoundServer {
    pub(crate) fn addable(&self) -> bool {
        self.clash.is_none() && self.problem.is_none()
    }
}

/// What was found.
#[derive(Debug, Clone, Default)]
pub(crate) struct Found {
    pub(crate) sources: Vec<SourceFile>,
    pub(crate) servers: Vec<FoundServer>,
}

/// The servers of an MCP client's config text: `mcpServers` (Claude Desktop, Cursor) or
/// `servers` (VS Code).
pub(crate) fn servers_in(text: &str) -> Result<Map<String, Value>, String> {
    let doc: Value = serde_json::from_str(text)
        .or_else(|err| serde_json::from_str(&strip_jsonc(text)).map_err(|_| err.to_string()))?;
    for key in ["mcpServers", "servers"] {
        if let Some(servers) = doc.get(key) {
            return servers
                .as_object()
                .cloned()
                .ok_or_else(|| format!("`{key}` is not an object"));
        }
    }
    Ok(Map::new())
}

/// `text` without the comments and trailing commas VS Code allows in its JSON files (strings
/// are left as they are).
fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
            }
            (',', _) => {
                let rest: String = chars.clone().collect();
                let following = strip_jsonc_peek(&rest);
                if !matches!(following, Some('}' | ']')) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The first character after whitespace and comments in `rest`.
fn strip_jsonc_peek(rest: &str) -> Option<char> {
    let mut rest = rest.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after
                .split_once('\n')
                .map(|(_, r)| r)
                .unwrap_or("")
                .trim_start();
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after
                .split_once("*/")
                .map(|(_, r)| r)
                .unwrap_or("")
                .trim_start();
        } else {
            return rest.chars().next();
        }
    }
}

/// Why `definition` cannot be added as `name`, checked by the bridge's own config code.
fn problem(name: &str, definition: &Value, path: &Path) -> Option<String> {
    if definition.to_string().contains("${input:") {
        return Some(
            "it uses VS Code's `${input:…}` prompts, which the bridge cannot ask; add it by hand"
                .to_owned(),
        );
    }
    let mut servers = Map::new();
    let mut definition = definition.clone();
    // A server disabled there is still checked as if enabled.
    if let Some(object) = definition.as_object_mut() {
        object.shift_remove("enabled");
        object.shift_remove("disabled");
    }
    servers.insert(name.to_owned(), definition);
    let mut doc = Map::new();
    doc.insert("mcpServers".to_owned(), Value::Object(servers));
    let text = serde_json::to_string_pretty(&doc).ok()?;
    crate::config::parse(&text, path)
        .err()
        .map(|err| err.to_string())
}

/// Look in `from`, or else in every [`known_locations`]; `existing` are the servers already
/// in the bridge's config.
pub(crate) fn find(from: Option<&Path>, existing: &Map<String, Value>) -> Found {
    let places = match from {
        Some(path) => vec![("file", path.to_owned())],
        None => known_locations(),
    };
    let mut found = Found::default();
    for (client, path) in places {
        let mut source = SourceFile {
            client: client.to_owned(),
            path: path.clone(),
            exists: path.is_file(),
            given: from.is_some(),
            error: None,
        };
        let text = match read_config_file(&path) {
            Ok(text) => text,
            Err(err) => {
                if from.is_some() || source.exists {
                    source.error = Some(err.to_string());
                }
                found.sources.push(source);
                continue;
            }
        };
        match servers_in(&text) {
            Err(err) => source.error = Some(err),
            Ok(servers) if servers.is_empty() && from.is_some() => {
                source.error = Some("it lists no MCP servers (`mcpServers` or `servers`)".into());
            }
            Ok(servers) => {
                for (name, definition) in servers {
                    let clash = if existing.contains_key(&name) {
                        Some("a server of this name is already in the bridge's config".to_owned())
                    } else {
                        found.servers.iter().find(|c| c.name == name).map(|first| {
                            format!("also found in {} ({})", first.client, first.path.display())
                        })
                    };
                    let problem = crate::names::new_server_name_problem(
                        &name,
                        existing.keys().map(String::as_str),
                    )
                    .map(|why| {
                        format!(
                            "its name \"{}\" (shown escaped) cannot name a new server: {why}",
                            crate::names::escaped(&name)
                        )
                    })
                    .or_else(|| problem(&name, &definition, &path));
                    found.servers.push(FoundServer {
                        name,
                        client: client.to_owned(),
                        path: path.clone(),
                        definition,
                        clash,
                        problem,
                    });
                }
            }
        }
        found.sources.push(source);
    }
    found
}

impl Found {
    /// The sources and servers, definitions masked. A file the caller named is not said to
    /// exist or not, and any reason it gave nothing is [`UNREADABLE_GIVEN_FILE`].
    pub(crate) fn to_answer(&self) -> ImportFound {
        ImportFound {
            sources: self
                .sources
                .iter()
                .map(|s| ImportSource {
                    client: s.client.clone(),
                    path: path_text(&s.path),
                    exists: (!s.given).then_some(s.exists),
                    error: if s.given {
                        s.error.as_ref().map(|_| UNREADABLE_GIVEN_FILE.to_owned())
                    } else {
                        s.error.clone()
                    },
                })
                .collect(),
            servers: self
                .servers
                .iter()
                .map(|c| ImportCandidate {
                    name: c.name.clone(),
                    client: c.client.clone(),
                    path: path_text(&c.path),
                    definition: mask_definition(&c.definition),
                    clash: c.clash.clone(),
                    error: c.problem.clone(),
                    addable: c.addable(),
                    reads_env: crate::config::reads_env(&c.definition),
                })
                .collect(),
        }
    }

    /// What happens to the servers asked for by `names`: clashes, invalid, not found.
    pub(crate) fn report<C>(&self, names: &[String]) -> ImportReport<C> {
        let mut clashes = Vec::new();
        let mut invalid = Vec::new();
        let mut not_found = Vec::new();
        let refused = |c: &FoundServer| ImportRefused {
            name: c.name.clone(),
            client: c.client.clone(),
            path: path_text(&c.path),
            reason: None,
            error: None,
        };
        for name in names {
            let first = self.servers.iter().find(|c| &c.name == name);
            match first {
                None => not_found.push(name.clone()),
                Some(c) if c.clash.is_some() => clashes.push(ImportRefused {
                    reason: c.clash.clone(),
                    ..refused(c)
                }),
                Some(c) if c.problem.is_some() => invalid.push(ImportRefused {
                    error: c.problem.clone(),
                    ..refused(c)
                }),
                Some(_) => {}
            }
        }
        ImportReport {
            added: Vec::new(),
            clashes,
            invalid,
            not_found,
            changes: None,
            success: true,
        }
    }
}

/// A path as the answers write it.
fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Add the `picked` servers that are not in `servers` yet; the names added come back.
pub(crate) fn add(servers: &mut Map<String, Value>, picked: &[&FoundServer]) -> Vec<String> {
    let mut added = Vec::new();
    for candidate in picked {
        if servers.contains_key(&candidate.name) {
            continue;
        }
        servers.insert(candidate.name.clone(), candidate.definition.clone());
        added.push(candidate.name.clone());
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_both_shapes() {
        let claude = servers_in(r#"{"mcpServers": {"time": {"command": "uvx"}}}"#).unwrap();
        assert!(claude.contains_key("time"));
        let vscode = servers_in(
            r#"{"servers": {"git": {"type": "stdio", "command": "uvx"}}, "inputs": []}"#,
        )
        .unwrap();
        assert!(vscode.contains_key("git"));
        assert!(servers_in("{").is_err());
        let commented = "{\n  // my servers\n  \"servers\": {\n    /* git */ \"git\": {\"command\": \"uvx\", \"args\": [\"a//b\", \"c,\"],},\n  },\n}";
        let servers = servers_in(commented).unwrap();
        assert_eq!(servers["git"]["args"], json!(["a//b", "c,"]));
        assert!(servers_in("{}").unwrap().is_empty());
    }

    #[test]
    fn clashes_and_problems_are_reported_not_added() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("claude_desktop_config.json");
        std::fs::write(
            &path,
            r#"{"mcpServers": {
                "time": {"command": "uvx", "args": ["mcp-server-time"]},
                "fetch": {"command": "uvx", "args": ["mcp-server-fetch"], "env": {"K": "secret-value"}},
                "broken": {"args": []},
                "asks": {"command": "x", "env": {"K": "${input:key}"}}
            }}"#,
        )
        .unwrap();
        let mut existing = Map::new();
        existing.insert("time".into(), json!({"command": "other"}));
        let found = find(Some(&path), &existing);
        let by_name = |name: &str| found.servers.iter().find(|c| c.name == name).unwrap();
        assert!(by_name("time").clash.is_some());
        assert!(by_name("fetch").addable());
        assert!(
            by_name("broken")
                .problem
                .as_deref()
                .unwrap()
                .contains("command")
        );
        assert!(by_name("asks").problem.is_some());
        let shown = serde_json::to_string(&found.to_answer()).unwrap();
        assert!(!shown.contains("secret-value"), "{shown}");
        let names: Vec<String> = ["time", "fetch", "nope"].map(String::from).to_vec();
        let report = serde_json::to_value(found.report::<()>(&names)).unwrap();
        assert_eq!(report["clashes"][0]["name"], "time");
        assert_eq!(report["not_found"][0], "nope");
        let picked: Vec<&FoundServer> = found.servers.iter().filter(|c| c.addable()).collect();
        assert_eq!(add(&mut existing, &picked), ["fetch"]);
        assert_eq!(existing["time"]["command"], "other");
    }

    #[test]
    fn only_small_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.json");
        std::fs::write(&big, vec![b' '; MAX_CONFIG_BYTES as usize + 1]).unwrap();
        assert!(matches!(read_config_file(&big), Err(ReadError::TooLarge)));
        assert!(matches!(
            read_config_file(dir.path()),
            Err(ReadError::NotAFile | ReadError::Io(_))
        ));
        #[cfg(unix)]
        {
            assert!(matches!(
                read_config_file(Path::new("/dev/zero")),
                Err(ReadError::NotAFile)
            ));
            let fifo = dir.path().join("fifo");
            let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
            // Returns at once: a FIFO without a writer is not waited on.
            assert!(matches!(read_config_file(&fifo), Err(ReadError::NotAFile)));
        }
        let small = dir.path().join("small.json");
        std::fs::write(&small, "{}").unwrap();
        assert_eq!(read_config_file(&small).unwrap(), "{}");
    }

    #[test]
    fn a_given_file_is_answered_in_the_same_words_whatever_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let not_json = dir.path().join("notes.txt");
        std::fs::write(&not_json, "my diary").unwrap();
        let other_json = dir.path().join("package.json");
        std::fs::write(&other_json, r#"{"name": "x"}"#).unwrap();
        let missing = dir.path().join("missing.json");
        let answers: Vec<Value> = [&not_json, &other_json, &missing]
            .into_iter()
            .map(|path| {
                let mut answer =
                    serde_json::to_value(find(Some(path), &Map::new()).to_answer()).unwrap();
                answer["sources"][0]["path"] = Value::Null;
                answer
            })
            .collect();
        assert_eq!(answers[0], answers[1]);
        assert_eq!(answers[0], answers[2]);
        assert_eq!(answers[0]["sources"][0]["error"], UNREADABLE_GIVEN_FILE);
        assert_eq!(answers[0]["sources"][0]["exists"], Value::Null);
    }

    #[test]
    fn known_locations_name_the_three_clients() {
        let clients: Vec<&str> = known_locations().iter().map(|(c, _)| *c).collect();
        assert_eq!(clients, ["Claude Desktop", "Cursor", "VS Code"]);
    }
}
