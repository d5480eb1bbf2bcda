//! Where the config file lives and how it is loaded, with the demo server standing in when
//! the default file is missing.

use std::path::{Path, PathBuf};

use super::{CONFIG_DIR_ENV, CONFIG_FILE_NAME, ConfigError, DEMO_FOLDER_NAME, ServerSpec, parse};

/// The config directory: `$MCP_BRIDGE_CONFIG_DIR`, else `<platform config dir>/mcp-bridge`.
pub(crate) fn config_dir() -> Result<PathBuf, ConfigError> {
    if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV).filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::config_dir()
        .map(|dir| dir.join("mcp-bridge"))
        .ok_or(ConfigError::NoConfigDir)
}

/// The config file to use: `explicit` (`--config`), else the default one in [`config_dir`].
pub(crate) fn config_path(explicit: Option<&Path>) -> Result<PathBuf, ConfigError> {
    match explicit {
        Some(path) => Ok(path.to_owned()),
        None => Ok(config_dir()?.join(CONFIG_FILE_NAME)),
    }
}

/// Where the servers come from: a config file, or the demo server when there is none.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ConfigSource {
    File(PathBuf),
    /// No file at this (default) path: the demo server runs. `keep` is the entry that keeps
    /// it once the file is written ([`ServerSpec::demo_entry`]).
    Demo {
        missing: PathBuf,
        keep: serde_json::Value,
    },
}

/// Load the servers: `explicit` (from `--config`) must exist; the default file may be missing,
/// and then the demo server (run from `exe`) is the one server.
pub(crate) fn load(
    explicit: Option<&Path>,
    exe: &Path,
) -> Result<(Vec<ServerSpec>, ConfigSource), ConfigError> {
    let dir = match explicit {
        Some(_) => None,
        None => Some(config_dir()?),
    };
    let path = match (explicit, &dir) {
        (Some(path), _) => path.to_owned(),
        (None, Some(dir)) => dir.join(CONFIG_FILE_NAME),
        (None, None) => return Err(ConfigError::NoConfigDir),
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok((parse(&text, &path)?, ConfigSource::File(path))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && dir.is_some() => {
            let root = dir.unwrap_or_default().join(DEMO_FOLDER_NAME);
            Ok((
                vec![ServerSpec::demo(exe, &root)],
                ConfigSource::Demo {
                    missing: path,
                    keep: ServerSpec::demo_entry(exe, &root),
                },
            ))
        }
        Err(source) => Err(ConfigError::Read { path, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Transport;
    use crate::servers::spec::DEMO_SERVER_NAME;

    #[test]
    fn missing_default_file_means_demo_server() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.json");
        // An explicit --config must exist.
        assert!(matches!(
            load(Some(&missing), Path::new("/bin/mcp-bridge")),
            Err(ConfigError::Read { .. })
        ));
    }

    #[test]
    fn the_demo_entry_parses_to_the_demo_server() {
        let (exe, root) = (Path::new("/opt/mcp-bridge"), Path::new("/d"));
        let entry = ServerSpec::demo_entry(exe, root);
        let text = serde_json::json!({ "mcpServers": { DEMO_SERVER_NAME: entry } }).to_string();
        let specs = parse(&text, Path::new("mcp-config.json")).unwrap();
        assert_eq!(specs, vec![ServerSpec::demo(exe, root)]);
    }

    #[test]
    fn demo_spec_runs_the_demo_subcommand() {
        let spec = ServerSpec::demo(Path::new("/opt/mcp-bridge"), Path::new("/d"));
        assert_eq!(spec.name, DEMO_SERVER_NAME);
        match spec.transport {
            Transport::Stdio { command, args, .. } => {
                assert_eq!(command, "/opt/mcp-bridge");
                assert_eq!(args, ["demo-server", "--root", "/d"]);
            }
            other => panic!("unexpected transport {other:?}"),
        }
    }
}
