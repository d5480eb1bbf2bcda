//! The command line: `mcp-bridge [OPTIONS]` runs the bridge, `mcp-bridge demo-server` runs the
//! built-in demo MCP server on stdio, `mcp-bridge config path|check|import` works on the config
//! file, `install|uninstall|status` register the native messaging host (`crate::pairing`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::options::ServeArgs;

#[derive(Debug, Parser)]
#[command(
    name = "mcp-bridge",
    version,
    about = "Local bridge between the MCP Bridge browser extension and your MCP servers."
)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<CliCommand>,

    #[command(flatten)]
    pub(crate) serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum CliCommand {
    /// Run the built-in demo MCP server on stdin/stdout (the bridge starts it when there is no
    /// config file; it is also the test server).
    DemoServer {
        /// The folder `read_text_file` may read (created if missing)
        /// [default: <config dir>/mcp-bridge/demo-files].
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// The config file: where it is, check it, import servers from other MCP clients.
    Config {
        #[command(subcommand)]
        action: crate::config::command::ConfigCommand,
    },
    /// Register this program as the native messaging host of Chrome, Chromium, Edge, Brave
    /// and Firefox, so the extension pairs itself (no token to copy).
    Install {
        /// Also let the extension with this ID start the host (repeatable): a Chromium ID
        /// (32 letters a-p, as chrome://extensions shows it — e.g. the Chrome Web Store's or
        /// an unpacked load without the development key) or a Firefox ID. Kept in the host
        /// manifests, so a later `install` keeps it.
        #[arg(long = "extension-id", value_name = "ID", value_parser = crate::pairing::paths::ExtensionId::parse)]
        extension_ids: Vec<crate::pairing::paths::ExtensionId>,
    },
    /// Remove the native messaging host registration.
    Uninstall,
    /// What is registered, per browser, and whether the bridge runs and takes its token.
    Status,
    /// Internal: the helper that stops the MCP servers if the bridge is killed.
    #[command(hide = true)]
    Watchdog,
}

/// Run what the command line asks for; the process exit code comes back.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Some(CliCommand::DemoServer { root }) => run_demo_server(root),
        Some(CliCommand::Watchdog) => crate::servers::watchdog::run(),
        Some(CliCommand::Install { extension_ids }) => crate::pairing::run_install(&extension_ids),
        Some(CliCommand::Uninstall) => crate::pairing::run_uninstall(),
        Some(CliCommand::Status) => crate::pairing::run_status(),
        Some(CliCommand::Config { action }) => {
            crate::config::command::run(action, cli.serve.config.as_deref())
        }
        None => {
            let code = crate::serve::run(cli.serve);
            // Its last lines (an error that stops it, "stopped") are written, unless the
            // stream is stalled: then the exit does not wait for it.
            crate::logging::finish(std::time::Duration::from_secs(2));
            code
        }
    }
}

fn run_demo_server(root: Option<PathBuf>) -> ExitCode {
    let root = match root {
        Some(root) => root,
        None => match crate::config::config_dir() {
            Ok(dir) => dir.join(crate::config::DEMO_FOLDER_NAME),
            Err(err) => {
                eprintln!("mcp-bridge demo-server: {err}");
                return ExitCode::FAILURE;
            }
        },
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("mcp-bridge demo-server: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(crate::servers::demo::run(&root)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("mcp-bridge demo-server: {err}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::DEFAULT_PORT;
    use clap::CommandFactory as _;
    use std::time::Duration;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn defaults_match_the_original_bridge() {
        let cli = Cli::try_parse_from(["mcp-bridge"]).unwrap();
        assert_eq!(cli.serve.port, DEFAULT_PORT);
        assert!(cli.serve.host.is_loopback());
        assert!(cli.command.is_none());
        assert_eq!(cli.serve.call_timeout(), Duration::from_secs(120));
        assert_eq!(
            cli.serve.result_limits(),
            crate::calls::results::Limits::default()
        );
    }

    #[test]
    fn result_limits_are_bounded() {
        let cli = Cli::try_parse_from([
            "mcp-bridge",
            "--large-result-threshold",
            "100",
            "--result-page-size",
            "64",
            "--result-store-size",
            "2",
            "--result-ttl",
            "1.5",
        ])
        .unwrap();
        let limits = cli.serve.result_limits();
        assert_eq!((limits.threshold, limits.page_chars), (100, 64));
        assert_eq!(limits.memory, 2 * 1024 * 1024);
        assert_eq!(limits.ttl, Duration::from_millis(1500));
        assert_eq!(limits.max_message(), 16 * 1024 * 1024);
        for (flag, value) in [
            ("--large-result-threshold", "10"),
            ("--result-page-size", "2000000"),
            ("--result-page-size", "abc"),
            ("--result-store-size", "0"),
            ("--result-ttl", "0"),
        ] {
            assert!(
                Cli::try_parse_from(["mcp-bridge", flag, value]).is_err(),
                "{flag} {value}"
            );
        }
    }

    #[test]
    fn token_and_no_auth_conflict() {
        assert!(Cli::try_parse_from(["mcp-bridge", "--token", "x", "--no-auth"]).is_err());
    }

    #[test]
    fn demo_server_subcommand() {
        let cli = Cli::try_parse_from(["mcp-bridge", "demo-server"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(CliCommand::DemoServer { root: None })
        ));
    }

    #[test]
    fn config_subcommands() {
        let cli = Cli::try_parse_from(["mcp-bridge", "config", "check", "x.json"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(CliCommand::Config {
                action: crate::config::command::ConfigCommand::Check { file: Some(_) }
            })
        ));
        let cli = Cli::try_parse_from(["mcp-bridge", "config", "import", "--from", "f", "--yes"])
            .unwrap();
        assert!(matches!(
            cli.command,
            Some(CliCommand::Config {
                action: crate::config::command::ConfigCommand::Import { yes: true, .. }
            })
        ));
        assert!(Cli::try_parse_from(["mcp-bridge", "config", "path"]).is_ok());
    }

    #[test]
    fn pairing_subcommands() {
        for (word, expected) in [("install", 0), ("uninstall", 1), ("status", 2)] {
            let cli = Cli::try_parse_from(["mcp-bridge", word]).unwrap();
            let index = match cli.command {
                Some(CliCommand::Install { .. }) => 0,
                Some(CliCommand::Uninstall) => 1,
                Some(CliCommand::Status) => 2,
                other => panic!("{word}: {other:?}"),
            };
            assert_eq!(index, expected);
        }
        let cli = Cli::try_parse_from([
            "mcp-bridge",
            "install",
            "--extension-id",
            "abcdefghijklmnopabcdefghijklmnop",
            "--extension-id",
            "fork@example.org",
        ])
        .unwrap();
        let Some(CliCommand::Install { extension_ids }) = cli.command else {
            panic!("{:?}", cli.command);
        };
        assert_eq!(extension_ids.len(), 2);
        let err = Cli::try_parse_from(["mcp-bridge", "install", "--extension-id", "nope"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not an extension ID"), "{err}");
    }

    #[test]
    fn call_timeout_must_be_positive() {
        assert!(Cli::try_parse_from(["mcp-bridge", "--call-timeout", "0"]).is_err());
        assert!(Cli::try_parse_from(["mcp-bridge", "--call-timeout", "abc"]).is_err());
        let cli = Cli::try_parse_from(["mcp-bridge", "--call-timeout", "1.5"]).unwrap();
        assert_eq!(cli.serve.call_timeout(), Duration::from_millis(1500));
    }
}
