//! Starting one MCP server: spawn the child process in its own process group (a job object on
//! Windows) or open the HTTP session, do the MCP handshake, and fetch the tool list — all
//! under the start-up timeout.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ErrorData, ProtocolVersion};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt as _, RoleClient, RunningService,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use self::discover_probe::DiscoverProbe;
use self::http_tasks::TaskNoting;
use self::stdio_decode::{Decoded, LineRead, LineReader, ToolCalls};
use super::client::{BridgeClient, ListKind, Shared};
use super::masked::{Known, MaskingTransport};
use super::spec::{ServerSpec, Transport};
use super::stderr::StderrTail;
use crate::oauth::SignIns;
use crate::redact::redact;
use rmcp::transport::auth::AuthClient;

mod discover_probe;
mod http_tasks;
mod stdio_decode;

/// The client side of one connection; [`BridgeClient`] answers the handshake and the server.
pub(crate) type Client = RunningService<RoleClient, BridgeClient>;

/// A started server.
pub(crate) struct Connected {
    pub(crate) client: Client,
    pub(crate) stderr: Arc<StderrTail>,
    /// The child's pid, which is also its process group id.
    pub(crate) pid: Option<u32>,
    /// The tag its processes carry (`super::reaper`).
    pub tag: Option<String>,
    pub(crate) tools: usize,
    pub(crate) instructions: Option<String>,
    /// The tools it runs as tasks, as its tool lists say.
    pub(crate) tasks: super::tasks::TaskTools,
}

/// Why a server could not be started.
#[derive(Debug, Clone)]
pub(crate) struct StartFailure {
    pub(crate) message: String,
    pub(crate) stderr: String,
    /// The server asked for a sign-in: its `WWW-Authenticate` challenge.
    pub(crate) challenge: Option<String>,
}

/// Why a handshake failed: the message, and the challenge when the server wants a sign-in.
pub(crate) struct HandshakeFailure {
    message: String,
    challenge: Option<String>,
}

impl From<String> for HandshakeFailure {
    fn from(message: String) -> Self {
        HandshakeFailure {
            message,
            challenge: None,
        }
    }
}

/// The environment a child starts with: the bridge's own, less its `MCP_BRIDGE_*` variables and
/// any variable whose name or value holds one of `withheld` (the token); then the server's `env`.
pub(crate) fn child_env(
    configured: &std::collections::BTreeMap<String, String>,
    withheld: &[String],
) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let holds_secret = |text: &str| {
        withheld
            .iter()
            .any(|secret| !secret.is_empty() && text.contains(secret.as_str()))
    };
    let mut vars: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
        .filter(|(name, value)| {
            let name = name.to_string_lossy();
            !crate::options::is_bridge_variable(&name)
                && !holds_secret(&name)
                && !holds_secret(&value.to_string_lossy())
        })
        .collect();
    vars.extend(
        configured
            .iter()
            .map(|(name, value)| (name.into(), value.into())),
    );
    vars
}

/// Start the server described by `spec`, its lists stored in `shared`; `withheld` are values
/// (the bridge's token) that must not reach the child through its environment.
pub(crate) async fn connect(
    shared: &Arc<Shared>,
    spec: &ServerSpec,
    known: &Known,
    withheld: &[String],
    max_message: usize,
    sign_ins: &SignIns,
) -> Result<Connected, StartFailure> {
    let secrets: &[String] = known.fixed();
    let stderr = Arc::new(StderrTail::new(&spec.name, secrets.to_vec()));
    let fail = |message: String, stderr: &StderrTail| StartFailure {
        message: redact(&message, secrets),
        stderr: stderr.tail(),
        challenge: None,
    };
    match &spec.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let child_env = child_env(env, withheld);
            let mut cmd = tokio::process::Command::new(program(command, &child_env));
            let tag = super::reaper::new_tag();
            cmd.args(args)
                .env_clear()
                .envs(child_env)
                .env(super::reaper::TAG_VAR, &tag);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            #[cfg(target_os = "linux")]
            die_with_the_bridge(&mut cmd);
            let mut wrapped = process_wrap::tokio::CommandWrap::from(cmd);
            #[cfg(unix)]
            wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
            // A job object holds the server and everything it starts (`npx.cmd` → `node`):
            // killing the job kills them all, and, with `KillOnDrop`, Windows kills the job
            // when the bridge's handle to it closes, even when the bridge itself is killed.
            // No console: the server gets no window and not the console's Ctrl+C, which
            // would make a `.cmd` shim ask "Terminate batch job (Y/N)?" on its stdin; the
            // bridge stops it itself.
            #[cfg(windows)]
            {
                use windows::Win32::System::Threading::CREATE_NO_WINDOW;
                wrapped.wrap(process_wrap::tokio::CreationFlags(CREATE_NO_WINDOW));
                wrapped.wrap(process_wrap::tokio::JobObject);
            }
            wrapped.wrap(process_wrap::tokio::KillOnDrop);
            let (transport, child_stderr) =
                ChildTransport::spawn(wrapped, max_message).map_err(|err| {
                    let hint = if err.kind() == std::io::ErrorKind::NotFound {
                        " (is it installed and on PATH?)"
                    } else {
                        ""
                    };
                    fail(format!("cannot run `{command}`: {err}{hint}"), &stderr)
                })?;
            let pid = transport.id();
            let tasks = transport.tasks.clone();
            match child_stderr {
                Some(child_stderr) => {
                    let tail = stderr.clone();
                    tokio::spawn(async move { tail.collect(child_stderr).await });
                }
                None => stderr.close(),
            }
            let started = handshake(shared, spec, known, transport, &stderr).await;
            match started {
                Ok((client, tools, instructions)) => Ok(Connected {
                    client,
                    stderr,
                    pid,
                    tag: Some(tag),
                    tools,
                    instructions,
                    tasks,
                }),
                Err(HandshakeFailure { message, .. }) => {
                    // The child is being killed; give its last words a moment to arrive.
                    stderr.wait_closed(Duration::from_secs(1)).await;
                    let _ =
                        tokio::task::spawn_blocking(move || super::reaper::kill_tagged(&tag, pid))
                            .await;
                    Err(fail(message, &stderr))
                }
            }
        }
        Transport::StreamableHttp {
            url,
            headers,
            ca_file,
            sign_in,
        } => {
            stderr.close();
            crate::http_client::check_url(url, "`url`")
                .map_err(|message| fail(message, &stderr))?;
            let http = crate::http_client::client(ca_file.as_deref())
                .map_err(|message| fail(message, &stderr))?;
            let mut map = HashMap::new();
            for (name, value) in headers {
                let name = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| fail(format!("header name `{name}` is not valid"), &stderr))?;
                let value = HeaderValue::from_str(value).map_err(|_| {
                    fail(
                        format!("the value of header `{name}` is not valid"),
                        &stderr,
                    )
                })?;
                map.insert(name, value);
            }
            // The tools it runs as tasks, noted from its listings as they pass (`http_tasks.rs`).
            let tasks = super::tasks::TaskTools::default();
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(map)
                .max_sse_event_size(max_message);
            // Signed in by the bridge alone: it gets the token now, so that a refusal is this
            // start's failure, and again before it expires or when the server refuses it.
            let started = if sign_in.grant.is_machine() {
                let machine =
                    crate::oauth::machine::Machine::new(&spec.name, url, ca_file.clone(), sign_in);
                machine.token().await.map_err(|message| {
                    fail(format!("it could not be signed in to: {message}"), &stderr)
                })?;
                let client =
                    crate::oauth::machine::client::MachineClient::new(http.clone(), machine);
                let client = TaskNoting::new(client, tasks.clone());
                let transport = StreamableHttpClientTransport::with_client(client, config);
                handshake(shared, spec, known, transport, &stderr).await
            // Signed in: rmcp's client adds the access token, refreshing it before it expires.
            } else if sign_ins.has_tokens(&spec.name, url).await {
                let mut manager =
                    crate::oauth::manager(&spec.name, url, ca_file.as_deref(), sign_ins)
                        .await
                        .map_err(|message| fail(message, &stderr))?;
                let initialised = manager.initialize_from_store().await.map_err(|err| {
                    fail(
                        format!(
                            "its sign-in could not be read back: {}",
                            crate::oauth::words(&err)
                        ),
                        &stderr,
                    )
                })?;
                if !initialised {
                    tracing::warn!(server = %spec.name, "stored sign-in no longer applies");
                }
                let authorised =
                    TaskNoting::new(AuthClient::new(http.clone(), manager), tasks.clone());
                let transport = StreamableHttpClientTransport::with_client(authorised, config);
                handshake(shared, spec, known, transport, &stderr).await
            } else {
                let client = TaskNoting::new(http.clone(), tasks.clone());
                let transport = StreamableHttpClientTransport::with_client(client, config);
                handshake(shared, spec, known, transport, &stderr).await
            };
            let (client, tools, instructions) = match started {
                Ok(started) => started,
                Err(HandshakeFailure {
                    message,
                    challenge: Some(challenge),
                }) => {
                    return Err(StartFailure {
                        message: redact(&message, secrets),
                        stderr: String::new(),
                        challenge: Some(challenge),
                    });
                }
                Err(HandshakeFailure { message, .. }) => {
                    let message = crate::http_client::certificate_problem(&http, url)
                        .await
                        .unwrap_or(message);
                    return Err(fail(message, &stderr));
                }
            };
            Ok(Connected {
                client,
                stderr,
                pid: None,
                tag: None,
                tools,
                instructions,
                tasks,
            })
        }
        Transport::Sse { url, .. } => {
            stderr.close();
            Err(fail(
                format!(
                    "`{url}` uses the legacy HTTP+SSE transport, which this bridge does not speak; \
                     point `url` at the server's streamable HTTP endpoint and set \"type\": \"streamable-http\""
                ),
                &stderr,
            ))
        }
    }
}

/// The program to start for `command`: on Windows the file the child's `PATH` and `PATHEXT`
/// lead to (`npx` → `npx.cmd`), elsewhere `command` itself (the OS searches `PATH`).
fn program(
    command: &str,
    child_env: &[(std::ffi::OsString, std::ffi::OsString)],
) -> std::ffi::OsString {
    #[cfg(windows)]
    {
        use super::program::{env_value, find_on_windows};
        if let Some(found) = find_on_windows(
            command,
            env_value(child_env, "PATH"),
            env_value(child_env, "PATHEXT"),
            |path| path.is_file(),
        ) {
            return found.into_os_string();
        }
    }
    #[cfg(not(windows))]
    let _ = child_env;
    command.into()
}

/// Have the kernel kill the child when the bridge dies, even by SIGKILL (its process group,
/// with any grandchildren, is killed by the bridge's watchdog).
#[cfg(target_os = "linux")]
fn die_with_the_bridge(cmd: &mut tokio::process::Command) {
    let bridge = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs between fork and exec and calls only async-signal-safe functions
    // (prctl, getppid, _exit).
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            // The bridge died before the line above took effect.
            if libc::getppid() != bridge {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// How the bridge starts speaking with a server (docs/BRIDGE.md, "Protocol revisions"):
/// `server/discover` asking for 2026-07-28; a server that answers it with an error (it does not
/// know the method: a server of an older revision) or with no `DiscoverResult`
/// (`discover_probe.rs`) is sent, on the same connection, the `initialize` of the newest
/// revision that has one, as is a server that does not answer it within rmcp's 10 s.
///
/// A server pinned to a revision (`protocol_version`) is spoken to in that one only: an
/// `initialize` naming it, or `server/discover` with no fallback.
fn lifecycle(spec: &ServerSpec) -> ClientLifecycleMode {
    match &spec.mcp.protocol_version {
        Some(pinned) if pinned.has_initialize() => ClientLifecycleMode::Initialize,
        Some(pinned) => ClientLifecycleMode::Discover {
            preferred_versions: vec![pinned.clone()],
        },
        None => ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        },
    }
}

/// The MCP handshake, then the server's lists: its tools (which it must list), its prompts and
/// resources (a failure there is logged, and the list stays empty).
async fn handshake<T, E, A>(
    shared: &Arc<Shared>,
    spec: &ServerSpec,
    known: &Known,
    transport: T,
    stderr: &StderrTail,
) -> Result<(Client, usize, Option<String>), HandshakeFailure>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let limit = spec.startup_timeout;
    // Every connection, local or remote, masks what the server sends in one place.
    let transport = MaskingTransport::new(
        DiscoverProbe::new(transport.into_transport()),
        known.clone(),
        &spec.name,
    );
    let work = async {
        let client = BridgeClient::new(shared.clone())
            .serve_with_lifecycle(transport, lifecycle(spec))
            .await
            .map_err(|err| {
                if let ClientInitializeError::NoCompatibleProtocolVersion {
                    server_supported, ..
                } = &err
                {
                    return HandshakeFailure::from(super::revisions::none_shared(server_supported));
                }
                if err.is_authorization_required() {
                    let challenge = err.auth_challenge().unwrap_or_default().to_owned();
                    return HandshakeFailure {
                        message: "it answered that it needs a sign-in".to_owned(),
                        challenge: Some(challenge),
                    };
                }
                HandshakeFailure::from(format!(
                    "the MCP handshake failed: {}",
                    crate::http_client::describe(&err)
                ))
            })?;
        if let Some(info) = client.peer_info() {
            super::revisions::check(&info.protocol_version).map_err(HandshakeFailure::from)?;
        }
        // A server may let the handshake through and ask for a sign-in at its first list.
        shared
            .reload(client.peer(), ListKind::Tools)
            .await
            .map_err(|failure| match failure.challenge {
                Some(challenge) => HandshakeFailure {
                    message: "it answered that it needs a sign-in".to_owned(),
                    challenge: Some(challenge),
                },
                None => HandshakeFailure::from(failure.message),
            })?;
        for kind in [ListKind::Prompts, ListKind::Resources] {
            if let Err(err) = shared.reload(client.peer(), kind).await {
                tracing::warn!(server = %spec.name, error = %err, "the server's list could not be read");
            }
        }
        let info = client.peer_info();
        shared
            .set_server_icon(info.as_ref().and_then(|info| info.server_info.as_ref()))
            .await;
        super::listen::follow(client.service(), client.peer(), &spec.name);
        let instructions = client
            .peer_info()
            .and_then(|info| info.instructions.clone());
        Ok::<_, HandshakeFailure>((client, shared.lists().tools.len(), instructions))
    };
    match tokio::time::timeout(limit, work).await {
        Ok(result) => result,
        Err(_) => Err(HandshakeFailure::from({
            let exited = if stderr.is_closed() && !stderr.tail().is_empty() {
                " (it wrote to stderr and exited)"
            } else {
                ""
            };
            format!(
                "it did not finish starting within {} s{exited}; raise its `timeout` in the config if it is just slow",
                limit.as_secs_f64()
            )
        })),
    }
}

/// A child process spoken to over stdio, like rmcp's `TokioChildProcess` but with the message
/// limit set (rmcp drops, and never answers, any message over 16 MiB by default, which would
/// turn a large result into a timeout) and its own receive side (`stdio_decode.rs`), which
/// decodes a large tool result without copying its text. Sending is rmcp's.
pub(crate) struct ChildTransport {
    child: Option<Box<dyn process_wrap::tokio::ChildWrapper>>,
    transport: AsyncRwTransport<RoleClient, tokio::io::Empty, tokio::process::ChildStdin>,
    lines: LineReader<tokio::io::BufReader<tokio::process::ChildStdout>>,
    calls: ToolCalls,
    /// The tools the child's tool lists say run as tasks, which rmcp's reading drops.
    tasks: super::tasks::TaskTools,
}

/// Lines of at least this many bytes are logged with their timing.
const LARGE_MESSAGE: usize = 1024 * 1024;

/// The bytes read from the child's stdout at a time.
const READ_BUFFER: usize = 64 * 1024;

/// How long a closed child gets to exit by itself before SIGTERM, then SIGKILL.
const CHILD_EXIT_WAIT: Duration = Duration::from_secs(3);

impl ChildTransport {
    /// Spawn `command` with piped stdio; its stderr comes back to be read.
    fn spawn(
        mut command: process_wrap::tokio::CommandWrap,
        max_message: usize,
    ) -> std::io::Result<(Self, Option<tokio::process::ChildStderr>)> {
        command
            .command_mut()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (
            child.inner_mut().stdin().take(),
            child.inner_mut().stdout().take(),
        ) else {
            return Err(std::io::Error::other("the child's stdio was not piped"));
        };
        let stderr = child.inner_mut().stderr().take();
        let transport = AsyncRwTransport::new_client(tokio::io::empty(), stdin);
        let lines = LineReader::new(
            tokio::io::BufReader::with_capacity(READ_BUFFER, stdout),
            max_message,
        );
        Ok((
            ChildTransport {
                child: Some(child),
                transport,
                lines,
                calls: ToolCalls::default(),
                tasks: super::tasks::TaskTools::default(),
            },
            stderr,
        ))
    }

    fn id(&self) -> Option<u32> {
        self.child.as_ref()?.id()
    }
}

impl rmcp::transport::Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.calls.sent(&item);
        self.transport.send(item)
    }

    /// The next message from the child, with rmcp's rules: a line over the limit is dropped
    /// (logged), input that is not JSON is ignored, JSON that is no MCP message is answered
    /// with an Invalid Request error, end of output or a read error ends the connection.
    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<RoleClient>> {
        loop {
            let (line, started) = self.lines.next_line().await;
            let line = match line {
                LineRead::Line(line) => line,
                LineRead::Oversized => {
                    tracing::error!(
                        max_line_length = self.lines.max(),
                        "a message from the MCP server exceeded the maximum message size (twice --result-store-size), discarding it"
                    );
                    continue;
                }
                LineRead::Eof => return None,
                LineRead::Io(err) => {
                    tracing::error!("Error reading from the MCP server's stdout: {err}");
                    return None;
                }
            };
            let received = std::time::Instant::now();
            let bytes = line.len();
            self.tasks.note(&line);
            let decoded = stdio_decode::decode(line, &self.calls);
            if bytes >= LARGE_MESSAGE {
                tracing::info!(
                    bytes,
                    read_ms = started.map_or(0.0, |s| (received - s).as_secs_f64() * 1e3),
                    decode_ms = received.elapsed().as_secs_f64() * 1e3,
                    "large message from the MCP server"
                );
            }
            match decoded {
                Decoded::Message(message) => return Some(*message),
                Decoded::Skip => {}
                Decoded::Unparsable(err) => {
                    tracing::debug!("Ignoring unparsable incoming message: {err}");
                }
                Decoded::Invalid(err) => {
                    tracing::debug!("Protocol error on incoming message: {err}");
                    // Sent on its own, so a cancelled receive does not cut it short.
                    tokio::spawn(self.transport.send(ClientJsonRpcMessage::error(
                        ErrorData::invalid_request("Invalid request", None),
                        None,
                    )));
                }
            }
        }
    }

    /// Close stdin, give the child a moment to exit, then SIGTERM, then SIGKILL (the MCP
    /// stdio shutdown sequence).
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.transport.close().await?;
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        if tokio::time::timeout(CHILD_EXIT_WAIT, child.wait())
            .await
            .is_ok()
        {
            return Ok(());
        }
        #[cfg(unix)]
        if child.signal(libc::SIGTERM).is_ok()
            && tokio::time::timeout(CHILD_EXIT_WAIT, child.wait())
                .await
                .is_ok()
        {
            return Ok(());
        }
        Box::into_pin(child.kill()).await
    }
}

impl Drop for ChildTransport {
    fn drop(&mut self) {
        // Killed (and reaped) in the background, so no zombie is left.
        if let Some(mut child) = self.child.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                let _ = Box::into_pin(child.kill()).await;
            });
        }
    }
}
