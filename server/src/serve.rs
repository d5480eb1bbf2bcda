//! Running the bridge: load the config and token, bind the port, serve at once while the MCP
//! servers start in the background, until SIGINT/SIGTERM/SIGHUP; then drain, and stop every MCP
//! server process (no orphans).

pub(crate) mod listen;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::config::{self, ConfigSource};
use crate::oauth::SignIns;
use crate::options::ServeArgs;
use crate::security::Security;
use crate::servers::{Registry, Status};
use crate::state::AppState;

/// How long in-flight requests get to finish after a stop signal.
const DRAIN: Duration = Duration::from_secs(5);
/// How long the answers to calls cut short by the stop get to be sent.
const ANSWER_AFTER_STOP: Duration = Duration::from_secs(2);

/// Exit code for a bad command line or config.
const USAGE: u8 = 2;

/// Print a line for the user on stdout or in the log file (credential-shaped text masked,
/// control characters escaped: it may name a server or quote its error); a closed stdout is
/// not a reason to stop.
fn say(line: &str) {
    say_unmasked(&crate::logging::escape_controls(
        &crate::redact::mask_patterns(line),
    ));
}

/// [`say`] without the masker: only for the lines that show the user the bridge's own token
/// (never written to a log file: see `serve`).
fn say_unmasked(line: &str) {
    crate::logging::say(line);
}

/// An error line on stderr or in the log file, control characters escaped (it may name a
/// server or a key from the config file).
macro_rules! complain {
    ($($arg:tt)*) => {
        crate::logging::complain(&crate::logging::escape_controls(&format!($($arg)*)))
    };
}

/// Run the bridge with `args`; returns the exit code.
pub(crate) fn run(args: ServeArgs) -> ExitCode {
    if let Err(err) = crate::logging::init(args.log_format, args.log_file.as_deref()) {
        eprintln!(
            "mcp-bridge: cannot open the log file {}: {err}",
            args.log_file
                .as_deref()
                .unwrap_or(std::path::Path::new(""))
                .display()
        );
        return ExitCode::FAILURE;
    }
    if args.no_auth && !args.host.is_loopback() {
        complain!(
            "mcp-bridge: --no-auth is only allowed on a loopback address, not --host {}",
            args.host
        );
        return ExitCode::from(USAGE);
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mcp-bridge"));
    let (specs, source) = match config::load(args.config.as_deref(), &exe) {
        Ok(loaded) => loaded,
        Err(err) => {
            complain!("mcp-bridge: {err}");
            return ExitCode::from(USAGE);
        }
    };
    // Orphaned descendants of the MCP servers are adopted by the bridge, which then finds
    // and stops them (Linux).
    crate::servers::reaper::become_subreaper();
    // On Windows each server's job object is killed when the bridge's handle closes, which the
    // OS does however the bridge ends; the watchdog is for process groups, which need it.
    #[cfg(unix)]
    crate::servers::watchdog::start(&exe);
    let token = match resolve_token(&args) {
        Ok(token) => token,
        Err(message) => {
            complain!("mcp-bridge: {message}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            complain!("mcp-bridge: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(serve(args, specs, source, token));
    // Children were stopped in `serve`; do not wait for stray blocking tasks.
    runtime.shutdown_timeout(Duration::from_secs(1));
    code
}

/// The token to require: `--no-auth` → none, `--token`/`MCP_BRIDGE_TOKEN`, else the stored one.
fn resolve_token(args: &ServeArgs) -> Result<Option<String>, String> {
    if args.no_auth {
        tracing::warn!(
            "--no-auth: every program on this machine can run your tools through the bridge; use it only with the original extension"
        );
        return Ok(None);
    }
    if let Some(token) = args.token.as_ref().filter(|t| !t.trim().is_empty()) {
        return Ok(Some(token.trim().to_owned()));
    }
    let dir = config::config_dir().map_err(|err| err.to_string())?;
    let loaded = crate::token::load_or_create(&dir)
        .map_err(|err| format!("cannot use the token file: {err}"))?;
    for repair in &loaded.repaired {
        tracing::warn!("{repair}");
        say(&format!("Repaired permissions: {repair}."));
    }
    let token = loaded.token;
    if loaded.created {
        // Windows has no file modes: the token is private there because the config
        // directory is in the user's profile, which other users cannot read.
        let private = if cfg!(unix) {
            "mode 0600"
        } else {
            "in your user profile"
        };
        say(&format!(
            "Created a new token in {} ({private}).",
            crate::token::path_in(&dir).display()
        ));
    }
    Ok(Some(token))
}

async fn serve(
    args: ServeArgs,
    specs: Vec<config::ServerSpec>,
    source: ConfigSource,
    token: Option<String>,
) -> ExitCode {
    if !args.host.is_loopback() {
        tracing::warn!(
            host = %args.host,
            "LISTENING ON A NON-LOOPBACK ADDRESS: other machines can reach the bridge; anyone with the token can run your tools"
        );
    }
    let address = SocketAddr::new(args.host, args.port);
    let listener = match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => listener,
        Err(err) if err.kind() == std::io::ErrorKind::AddrInUse => {
            complain!(
                "mcp-bridge: port {} on {} is already in use (another mcp-bridge or the Python bridge is probably running); stop it or start this one with --port <another port>",
                args.port,
                args.host
            );
            return ExitCode::FAILURE;
        }
        Err(err) => {
            complain!("mcp-bridge: cannot listen on {address}: {err}");
            return ExitCode::FAILURE;
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);

    let stop = CancellationToken::new();
    tokio::spawn(watch_signals(stop.clone()));

    match &source {
        ConfigSource::File(path) => {
            tracing::info!(config = %path.display(), servers = specs.len(), "config loaded")
        }
        ConfigSource::Demo { missing, .. } => tracing::info!(
            missing = %missing.display(),
            "no config file; running the built-in demo server"
        ),
    }
    let names: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
    for name in &names {
        if let Some(warning) = crate::names::odd_server_name(name, names.iter().copied()) {
            tracing::warn!("{warning}");
        }
    }
    let result_limits = args.result_limits();
    let registry = Arc::new(Registry::limited(
        specs,
        token.iter().cloned().collect(),
        result_limits.max_message(),
        Arc::new(SignIns::new(
            config::config_dir()
                .ok()
                .map(|dir| dir.join(crate::oauth::tokens::FILE_NAME)),
        )),
    ));
    // The servers start in the background: /health answers at once, and /tools shows each
    // server as `starting` until it runs or fails.
    let starting = {
        let registry = registry.clone();
        tokio::spawn(async move {
            registry.start_all().await;
            for server in registry.servers() {
                if server.status() == Status::Running {
                    say(&format!(
                        "  server {}: running, {} tools",
                        server.name(),
                        server.tools().len()
                    ));
                } else {
                    say(&format!(
                        "  server {}: unavailable ({})",
                        server.name(),
                        server.last_failure().0
                    ));
                }
            }
        })
    };

    let security = Security::new(token.clone(), port, Some(args.host));
    let manager = match source {
        ConfigSource::File(path) => crate::config::manage::Manager::new(path, registry.clone()),
        ConfigSource::Demo { missing, keep } => {
            crate::config::manage::Manager::new(missing, registry.clone())
                .with_builtin(crate::servers::spec::DEMO_SERVER_NAME, keep)
        }
    };
    let manager = Arc::new(manager);
    // Hand edits of the config file are applied while the bridge runs.
    let watcher = tokio::spawn(manager.clone().watch());
    let state = AppState::new(registry.clone(), security, args.call_timeout())
        .with_result_limits(result_limits)
        .with_manager(manager);
    // Expired large results are dropped even when no one reads or adds one.
    let sweeper = tokio::spawn(state.results.clone().sweep_every(Duration::from_secs(60)));
    let app = crate::app(state);
    let token_source = if args.no_auth {
        crate::pairing::TokenSource::None
    } else if args.token.as_ref().is_some_and(|t| !t.trim().is_empty()) {
        crate::pairing::TokenSource::CommandLine
    } else {
        crate::pairing::TokenSource::File
    };
    // A log file is kept and may be read later, by whoever can: the token stays out of it.
    let shown_token = token.as_deref().filter(|_| !crate::logging::to_file());
    match (&token, shown_token) {
        (Some(_), Some(token)) => say_unmasked(&format!(
            "Token: {token}  (send it as `Authorization: Bearer <token>`)"
        )),
        (Some(_), None) => {
            say("Token: not shown in a log file (see the file `token` in the config directory)")
        }
        (None, _) => say("Token: none (--no-auth)"),
    }
    // What to do next, in plain words: paired through the native host, or paste the token.
    if shown_token.is_some() || token.is_none() {
        let advice = crate::pairing::start_advice(token_source, shown_token);
        say_unmasked(&advice);
    }
    let shown_host = if args.host.is_ipv6() {
        format!("[{}]", args.host)
    } else {
        args.host.to_string()
    };
    say(&format!(
        "MCP Bridge {} listening on http://{shown_host}:{port}",
        crate::VERSION
    ));
    tracing::info!(port, host = %args.host, "listening");
    if let Ok(dir) = config::config_dir() {
        crate::pairing::record_endpoint(&dir, &format!("http://{shown_host}:{port}"), token_source);
    }

    let limits = crate::serve::listen::ConnectionLimits {
        max_connections: args.max_connections,
        header_timeout: args.header_timeout(),
    };
    let mut draining = crate::serve::listen::serve(listener, app, limits, stop.clone()).await;
    // The port is free from here on: the recorded address goes with it.
    if let Ok(dir) = config::config_dir() {
        crate::pairing::forget_endpoint(&dir);
    }
    starting.abort();
    sweeper.abort();
    watcher.abort();
    if !draining.wait(DRAIN).await {
        tracing::warn!(
            "requests still running after {} s; stopping their MCP servers",
            DRAIN.as_secs()
        );
    }
    tracing::info!("stopping MCP servers");
    registry.shutdown().await;
    // What is left of the servers' descendants (adopted `setsid` grandchildren) goes too.
    let spare: Vec<u32> = crate::servers::watchdog::pid().into_iter().collect();
    let _ = tokio::task::spawn_blocking(move || crate::servers::reaper::kill_all_but(&spare)).await;
    // Calls cut short by the stop are answered as such before the process ends.
    draining.wait(ANSWER_AFTER_STOP).await;
    tracing::info!("stopped");
    ExitCode::SUCCESS
}

/// Cancel `stop` on SIGINT, SIGTERM or SIGHUP (the terminal closed); on Windows on the
/// console's control events.
async fn watch_signals(stop: CancellationToken) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut interrupt), Ok(mut terminate), Ok(mut hangup)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            tracing::error!("cannot install signal handlers");
            return;
        };
        let name = tokio::select! {
            _ = interrupt.recv() => "SIGINT",
            _ = terminate.recv() => "SIGTERM",
            _ = hangup.recv() => "SIGHUP",
        };
        // Stop first: nothing that happens while logging may keep the bridge running.
        stop.cancel();
        tracing::info!(signal = name, "stop signal received");
    }
    #[cfg(windows)]
    {
        // Ctrl+C and Ctrl+Break in the console, its window closed, the user logging off or
        // the machine shutting down. After a close, logoff or shutdown event Windows ends
        // the process a few seconds later whatever it does, so the stop must be prompt.
        use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close, ctrl_logoff, ctrl_shutdown};
        let (Ok(mut interrupt), Ok(mut brk), Ok(mut close), Ok(mut logoff), Ok(mut shutdown)) = (
            ctrl_c(),
            ctrl_break(),
            ctrl_close(),
            ctrl_logoff(),
            ctrl_shutdown(),
        ) else {
            tracing::error!("cannot install console control handlers");
            return;
        };
        let name = tokio::select! {
            _ = interrupt.recv() => "Ctrl+C",
            _ = brk.recv() => "Ctrl+Break",
            _ = close.recv() => "console closed",
            _ = logoff.recv() => "logoff",
            _ = shutdown.recv() => "shutdown",
        };
        stop.cancel();
        tracing::info!(signal = name, "stop signal received");
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
        tracing::info!("Ctrl-C received");
    }
    stop.cancel();
}
