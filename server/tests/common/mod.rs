//! Shared helpers for the behaviour tests: an in-process app driven with `oneshot`, a real
//! `mcp-bridge` process on a free port, and checks that the external MCP servers are installed.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt as _;
use mcp_bridge::AppState;
use mcp_bridge::config::{ServerSpec, Transport};
use mcp_bridge::security::Security;
use mcp_bridge::servers::Registry;
use serde_json::Value;
use tower::ServiceExt as _;

/// The token the tests use.
pub const TOKEN: &str = "test-token-0123456789";
/// The port the in-process app believes it listens on (only the Host header uses it).
pub const PORT: u16 = 3849;
/// Generous limits: the test machine may be slow and busy.
pub const START_LIMIT: Duration = Duration::from_secs(90);

/// The `mcp-bridge` binary built for these tests.
pub fn bridge_exe() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp-bridge"))
}

/// The demo folder the tests' demo servers read in.
pub fn demo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("demo-files")
}

/// The demo server spec, run from the test binary.
pub fn demo_spec() -> ServerSpec {
    ServerSpec::demo(&bridge_exe(), &demo_root())
}

/// A demo server spec with another name, env and call timeout.
pub fn demo_spec_with(
    name: &str,
    env: BTreeMap<String, String>,
    call_timeout: Option<Duration>,
) -> ServerSpec {
    let mut spec = demo_spec();
    spec.name = name.to_owned();
    if let Transport::Stdio { env: spec_env, .. } = &mut spec.transport {
        *spec_env = env;
    }
    spec.call_timeout = call_timeout;
    spec
}

/// Panic with a clear message when an external MCP server is not installed.
pub fn require_on_path(program: &str, install_hint: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in program_file_names(program) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!(
        "`{program}` is not on PATH. These tests run real MCP servers: {install_hint}, \
         then put node_modules/.bin and the venv's bin (Scripts on Windows) on PATH \
         (./build.sh test does both)."
    );
}

/// The file names `program` has on this platform. On Windows a program is a file with one of
/// `PATHEXT`'s extensions (pip's `mcp-server-time.exe`, npm's `mcp-server-everything.cmd`);
/// the extensionless file npm writes beside its `.cmd` is a shell script Windows cannot start.
fn program_file_names(program: &str) -> Vec<String> {
    if cfg!(windows) {
        let pathext = std::env::var("PATHEXT")
            .ok()
            .filter(|value| !value.trim().is_empty())
            .unwrap_or_else(|| ".COM;.EXE;.BAT;.CMD".to_owned());
        pathext
            .split(';')
            .map(str::trim)
            .filter(|ext| ext.starts_with('.'))
            .map(|ext| format!("{program}{}", ext.to_ascii_lowercase()))
            .collect()
    } else {
        vec![program.to_owned()]
    }
}

/// `mcp-server-time` from PyPI.
pub fn time_spec(name: &str) -> ServerSpec {
    let exe = require_on_path(
        "mcp-server-time",
        "run ./build.sh setup (pip install mcp-server-time into .tools/venv)",
    );
    stdio_spec(name, &exe, &["--local-timezone", "UTC"])
}

/// `@modelcontextprotocol/server-everything` from npm.
pub fn everything_spec(name: &str) -> ServerSpec {
    let exe = require_on_path(
        "mcp-server-everything",
        "run ./build.sh setup (npm install at the repository root)",
    );
    stdio_spec(name, &exe, &["stdio"])
}

/// A file of `server/tests/support`, as an argument for a server's command line.
pub fn support(file: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(file)
        .to_string_lossy()
        .into_owned()
}

/// The demo server, named `demo`, behind `tee-server.mjs`, which writes every message the
/// bridge sends it to `log` (one JSON per line).
pub fn teed_demo_spec(log: &Path) -> ServerSpec {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let exe = bridge_exe();
    let root = demo_root();
    stdio_spec(
        "demo",
        &node,
        &[
            &support("tee-server.mjs"),
            log.to_str().unwrap(),
            exe.to_str().unwrap(),
            "demo-server",
            "--root",
            root.to_str().unwrap(),
        ],
    )
}

/// The JSON-RPC messages the bridge sent to a server behind `tee-server.mjs`, from its `log`.
pub fn teed_messages(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON-RPC line"))
        .collect()
}

pub fn stdio_spec(name: &str, command: &Path, args: &[&str]) -> ServerSpec {
    let mut spec = demo_spec();
    spec.name = name.to_owned();
    spec.description = format!("{name} (test)");
    spec.is_core = false;
    spec.startup_timeout = START_LIMIT;
    spec.transport = Transport::Stdio {
        command: command.to_string_lossy().into_owned(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: BTreeMap::new(),
        cwd: None,
    };
    spec
}

/// An in-process bridge with these servers started, requiring [`TOKEN`].
pub struct TestApp {
    pub state: AppState,
    pub registry: Arc<Registry>,
}

impl TestApp {
    pub async fn start(specs: Vec<ServerSpec>) -> Self {
        Self::start_with(specs, Some(TOKEN.to_owned()), Duration::from_secs(60)).await
    }

    /// [`TestApp::start`], with calls timing out after `call_timeout`.
    pub async fn start_timing_out(specs: Vec<ServerSpec>, call_timeout: Duration) -> Self {
        Self::start_with(specs, Some(TOKEN.to_owned()), call_timeout).await
    }

    pub async fn start_with(
        specs: Vec<ServerSpec>,
        token: Option<String>,
        call_timeout: Duration,
    ) -> Self {
        let registry = Arc::new(Registry::new(specs));
        tokio::time::timeout(START_LIMIT, registry.start_all())
            .await
            .expect("servers did not start in time");
        let state = AppState::new(
            registry.clone(),
            Security::new(token, PORT, None),
            call_timeout,
        );
        TestApp { state, registry }
    }

    /// The demo server alone.
    pub async fn demo() -> Self {
        Self::start(vec![demo_spec()]).await
    }

    /// Send a request with the right Host and token; `body` is sent as given.
    pub async fn send(&self, method: Method, path: &str, body: Option<&str>) -> Reply {
        let request = Req::new(method, path).body(body).build();
        self.raw(request).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.send(Method::POST, path, Some(&body.to_string())).await
    }

    /// A body as the extension sends it: one of the protocol's request types.
    pub async fn send_as(&self, path: &str, body: impl serde::Serialize) -> Reply {
        let body = serde_json::to_value(body).expect("a request type serializes");
        self.post(path, body).await
    }

    pub async fn execute(&self, body: Value) -> Reply {
        self.post("/execute", body).await
    }

    /// Start `body`'s call in the background (`wait: 0`); its id.
    pub async fn start_call(&self, body: Value) -> String {
        let mut body = body;
        body["wait"] = serde_json::json!(0);
        let reply = self.execute(body).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
        reply.body["call_id"].as_str().unwrap().to_owned()
    }

    /// Poll call `id` until it finishes, for at most `limit`.
    pub async fn finish(&self, id: &str, limit: Duration) -> Reply {
        let deadline = std::time::Instant::now() + limit;
        loop {
            let reply = self.get(&format!("/calls/{id}?wait=5")).await;
            if reply.status != StatusCode::ACCEPTED {
                return reply;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the call never finished"
            );
        }
    }

    pub async fn raw(&self, request: Request<Body>) -> Reply {
        let response = mcp_bridge::app(self.state.clone())
            .oneshot(request)
            .await
            .expect("the router is infallible");
        Reply::from_response(response).await
    }

    /// A CORS preflight: answered by the CORS layer with an empty body (the one non-JSON answer).
    pub async fn preflight(&self, request: Request<Body>) -> (StatusCode, HeaderMap) {
        let response = mcp_bridge::app(self.state.clone())
            .oneshot(request)
            .await
            .expect("the router is infallible");
        (response.status(), response.headers().clone())
    }

    pub async fn stop(self) {
        self.registry.shutdown().await;
    }
}

/// A request under construction (defaults: right Host, right token, JSON body).
pub struct Req {
    method: Method,
    path: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
    host: Option<String>,
    auth: Option<String>,
}

impl Req {
    pub fn new(method: Method, path: &str) -> Self {
        Req {
            method,
            path: path.to_owned(),
            headers: Vec::new(),
            body: None,
            host: Some(format!("127.0.0.1:{PORT}")),
            auth: Some(format!("Bearer {TOKEN}")),
        }
    }
    pub fn body(mut self, body: Option<&str>) -> Self {
        self.body = body.map(str::to_owned);
        self
    }
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
    pub fn host(mut self, host: Option<&str>) -> Self {
        self.host = host.map(str::to_owned);
        self
    }
    pub fn auth(mut self, auth: Option<&str>) -> Self {
        self.auth = auth.map(str::to_owned);
        self
    }
    pub fn build(self) -> Request<Body> {
        let mut builder = Request::builder().method(self.method).uri(&self.path);
        if let Some(host) = &self.host {
            builder = builder.header("host", host);
        }
        if let Some(auth) = &self.auth {
            builder = builder.header("authorization", auth);
        }
        if self.body.is_some() {
            builder = builder.header("content-type", "application/json");
        }
        for (name, value) in &self.headers {
            builder = builder.header(name, value);
        }
        builder
            .body(self.body.map(Body::from).unwrap_or_else(Body::empty))
            .unwrap()
    }
}

/// A response: status, headers, JSON body.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    pub async fn from_response(response: axum::response::Response) -> Self {
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.expect("body").to_bytes();
        let body = serde_json::from_slice(&bytes).unwrap_or_else(|err| {
            panic!(
                "every response must be JSON ({err}): {} {:?}",
                parts.status,
                String::from_utf8_lossy(&bytes)
            )
        });
        Reply {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }

    /// The object-form `detail`, checked to have every documented key.
    pub fn detail(&self) -> &Value {
        let detail = &self.body["detail"];
        for key in [
            "error",
            "type",
            "traceback",
            "code",
            "retryable",
            "trace_id",
            "server",
        ] {
            assert!(
                detail.get(key).is_some(),
                "detail lacks `{key}`: {}",
                self.body
            );
        }
        assert_eq!(
            detail["trace_id"].as_str(),
            self.headers.get("x-trace-id").and_then(|v| v.to_str().ok()),
            "trace_id matches the X-Trace-Id header"
        );
        detail
    }

    /// The text of the first content block of a successful `/execute`.
    /// Every text block of the result, one per line (any status).
    pub fn all_text(&self) -> String {
        self.body["result"]["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub fn text(&self) -> String {
        assert_eq!(self.status, StatusCode::OK, "{}", self.body);
        assert_eq!(self.body["success"], true, "{}", self.body);
        self.body["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

/// Wait until `path` exists, at most `limit`.
pub async fn wait_for_file(path: &Path, limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < deadline {
        if path.exists() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    path.exists()
}

/// A real `mcp-bridge` process on a free port, with its own config directory.
pub struct BridgeProcess {
    pub child: Child,
    pub port: u16,
    pub dir: tempfile::TempDir,
    pub stdout_lines: Vec<String>,
    pub stderr_path: PathBuf,
}

impl BridgeProcess {
    /// Start with `config` written to the config dir (none: the demo server runs), `--token TOKEN`.
    pub fn start(config: Option<Value>, extra_args: &[&str]) -> Self {
        let mut args = vec!["--token", TOKEN];
        args.extend_from_slice(extra_args);
        Self::start_raw(config, &args)
    }

    /// Start with exactly these arguments (plus `--port 0`), and wait until the MCP servers
    /// have started.
    pub fn start_raw(config: Option<Value>, extra_args: &[&str]) -> Self {
        let bridge = Self::launch(Launch {
            config,
            args: extra_args,
            ..Launch::default()
        });
        bridge.wait_started(START_LIMIT);
        bridge
    }

    /// Start as `launch` says; returns once the bridge listens (its servers may be starting).
    pub fn launch(launch: Launch<'_>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        if let Some(prepare) = launch.prepare {
            prepare(dir.path());
        }
        let config = launch.config;
        let extra_args = launch.args;
        if let Some(config) = config {
            std::fs::write(
                dir.path().join("mcp-config.json"),
                serde_json::to_string_pretty(&config).unwrap(),
            )
            .unwrap();
        }
        let stderr_path = dir.path().join("bridge-stderr.log");
        let stderr = std::fs::File::create(&stderr_path).unwrap();
        let mut child = Command::new(bridge_exe())
            .args(["--port", "0"])
            .args(extra_args)
            .env("MCP_BRIDGE_CONFIG_DIR", dir.path())
            .env_remove("MCP_BRIDGE_TOKEN")
            .env_remove("MCP_BRIDGE_CONFIG")
            .env_remove("MCP_BRIDGE_PORT")
            .envs(launch.env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("start mcp-bridge");
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut lines = Vec::new();
        let deadline = std::time::Instant::now() + START_LIMIT;
        let port = loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match receiver.recv_timeout(left) {
                Ok(line) => {
                    let port = line
                        .split_once("listening on http://127.0.0.1:")
                        .and_then(|(_, port)| port.trim().parse::<u16>().ok());
                    lines.push(line);
                    if let Some(port) = port {
                        break port;
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "mcp-bridge did not start; stdout: {lines:?}; stderr: {}",
                        std::fs::read_to_string(&stderr_path).unwrap_or_default()
                    );
                }
            }
        };
        // Keep draining stdout so the bridge never blocks on a full pipe.
        std::thread::spawn(move || while receiver.recv().is_ok() {});
        BridgeProcess {
            child,
            port,
            dir,
            stdout_lines: lines,
            stderr_path,
        }
    }

    /// Wait until `/health` reports no MCP server starting, at most `limit`.
    pub fn wait_started(&self, limit: Duration) {
        let deadline = std::time::Instant::now() + limit;
        loop {
            let reply = http_raw(
                self.port,
                &format!(
                    "GET /health HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
                    self.port
                ),
                Duration::from_secs(10),
            );
            let body = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
            let health = serde_json::from_str::<Value>(body).ok();
            let starting = health
                .as_ref()
                .and_then(|v| v["servers"]["starting"].as_u64());
            // Without the count, a bridge had started its servers before it listened.
            let no_count = health.is_some_and(|v| v.get("servers").is_none());
            if starting == Some(0) || no_count {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "servers still starting: {reply}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The bridge's resident memory, in KiB: from /proc on Linux, from `ps` on other unixes
    /// (macOS has no /proc). Windows has neither; the memory bounds are checked on the unixes.
    #[cfg(unix)]
    pub fn rss_kib(&self) -> u64 {
        let pid = self.pid();
        let rss = if cfg!(target_os = "linux") {
            std::fs::read_to_string(format!("/proc/{pid}/status"))
                .unwrap_or_default()
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        } else {
            Command::new("ps")
                .args(["-o", "rss=", "-p", &pid.to_string()])
                .output()
                .ok()
                .and_then(|output| String::from_utf8_lossy(&output.stdout).trim().parse().ok())
        };
        rss.unwrap_or_else(|| panic!("the resident memory of process {pid} is unreadable"))
    }

    /// A config entry running the demo server.
    pub fn demo_entry() -> Value {
        serde_json::json!({"command": bridge_exe(), "args": ["demo-server", "--root", demo_root()], "description": "demo"})
    }

    /// A config entry for a server found on PATH.
    pub fn path_entry(program: &str, install_hint: &str, args: &[&str]) -> Value {
        let exe = require_on_path(program, install_hint);
        serde_json::json!({"command": exe, "args": args, "timeout": START_LIMIT.as_secs()})
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn client() -> reqwest::Client {
        http_ready();
        reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .build()
            .unwrap()
    }

    /// Send `method path` with the token (and `body` as JSON): the status and the JSON answer.
    pub async fn request(&self, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut request = Self::client()
            .request(
                reqwest::Method::from_bytes(method.as_str().as_bytes()).unwrap(),
                self.url(path),
            )
            .bearer_auth(TOKEN);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.expect("request");
        let status = response.status().as_u16();
        (status, response.json().await.expect("JSON body"))
    }

    /// `POST /execute` with `body`.
    pub async fn execute(&self, body: Value) -> (u16, Value) {
        self.request(Method::POST, "/execute", Some(&body)).await
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.request(Method::GET, path, None).await
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    /// Stop the bridge and wait for the exit (at most `limit`): SIGTERM on unix, its graceful
    /// stop. Windows has no signal one process can send another, so there it is killed; the
    /// graceful stop is tested on Linux and macOS (signals.rs, process.rs).
    pub fn terminate(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        #[cfg(unix)]
        send_signal(self.pid(), libc::SIGTERM);
        #[cfg(not(unix))]
        let _ = self.child.kill();
        let deadline = std::time::Instant::now() + limit;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for BridgeProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.terminate(Duration::from_secs(15));
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// How to launch a bridge process: its config, its arguments (after `--port 0`), extra
/// environment variables, and a step that prepares the config directory first.
#[derive(Default)]
pub struct Launch<'a> {
    pub config: Option<Value>,
    pub args: &'a [&'a str],
    pub env: &'a [(&'a str, &'a str)],
    pub prepare: Option<&'a dyn Fn(&Path)>,
}

/// Send raw bytes to the bridge on 127.0.0.1:`port` and read the answer until the connection
/// closes or `limit` passes (whatever arrived by then is returned).
pub fn http_raw(port: u16, request: &str, limit: Duration) -> String {
    use std::io::{Read as _, Write as _};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(limit));
    let _ = stream.write_all(request.as_bytes());
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// Run the bridge until it exits (for start-up errors): exit code, stdout, stderr.
pub fn run_to_exit(config_text: &str, args: &[&str]) -> (Option<i32>, String, String, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-config.json");
    std::fs::write(&path, config_text).unwrap();
    let mut command = Command::new(bridge_exe());
    command
        .args(["--port", "0", "--token", TOKEN, "--config"])
        .arg(&path)
        .args(args)
        .env("MCP_BRIDGE_CONFIG_DIR", dir.path())
        .stdin(Stdio::null());
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A config that is (wrongly) accepted would run forever: stop it after a while.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if let Ok(None) = child.try_wait() {
        #[cfg(unix)]
        send_signal(child.id(), libc::SIGTERM);
        #[cfg(not(unix))]
        let _ = child.kill();
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        path,
    )
}

/// Send `signal` to `pid`.
#[cfg(unix)]
pub fn send_signal(pid: u32, signal: i32) {
    // SAFETY: kill only sends a signal to a process this test started.
    unsafe {
        libc::kill(pid as libc::pid_t, signal);
    }
}

/// Whether a process exists (and is not a zombie), from /proc.
#[cfg(target_os = "linux")]
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the parenthesised command name.
            let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            !matches!(
                state.and_then(|s| s.chars().next()),
                Some('Z') | Some('X') | None
            )
        }
        Err(_) => false,
    }
}

/// Whether a process exists (and is not a zombie), from `ps`: macOS has no /proc, and
/// `kill(pid, 0)` alone would count a zombie as alive.
#[cfg(all(unix, not(target_os = "linux")))]
pub fn process_alive(pid: u32) -> bool {
    let Ok(output) = Command::new("ps")
        .args(["-o", "stat=", "-p", &pid.to_string()])
        .output()
    else {
        panic!("`ps` could not run");
    };
    let state = String::from_utf8_lossy(&output.stdout);
    let state = state.trim();
    output.status.success() && !state.is_empty() && !state.starts_with('Z')
}

/// Whether a process exists, from `tasklist`.
#[cfg(windows)]
pub fn process_alive(pid: u32) -> bool {
    let output = Command::new("tasklist")
        .args(["/FI", &format!("PID eq {pid}"), "/FO", "CSV", "/NH"])
        .output()
        .expect("`tasklist` runs");
    String::from_utf8_lossy(&output.stdout).contains(&format!("\"{pid}\""))
}

/// All descendants of `pid` (children, grandchildren, …).
#[cfg(unix)]
pub fn descendants(pid: u32) -> Vec<u32> {
    let parents = parent_pids();
    let mut found = Vec::new();
    let mut frontier = vec![pid];
    while let Some(current) = frontier.pop() {
        for (child, parent) in &parents {
            if *parent == current && !found.contains(child) {
                found.push(*child);
                frontier.push(*child);
            }
        }
    }
    found
}

/// Every process with its parent, `(pid, parent)`, from /proc.
#[cfg(target_os = "linux")]
fn parent_pids() -> Vec<(u32, u32)> {
    let mut parents = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
                continue;
            };
            let Some((_, rest)) = stat.rsplit_once(')') else {
                continue;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            if let Some(parent) = fields.get(1).and_then(|p| p.parse::<u32>().ok()) {
                parents.push((child, parent));
            }
        }
    }
    parents
}

/// Every process with its parent, `(pid, parent)`, from `ps` (macOS has no /proc).
#[cfg(all(unix, not(target_os = "linux")))]
fn parent_pids() -> Vec<(u32, u32)> {
    let output = Command::new("ps")
        .args(["-A", "-o", "pid=", "-o", "ppid="])
        .output()
        .expect("`ps` runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace().map(str::parse::<u32>);
            Some((fields.next()?.ok()?, fields.next()?.ok()?))
        })
        .collect()
}

/// reqwest is built with rustls and no crypto provider of its own (the bridge uses `ring`):
/// a client built without one installed panics, so every test client installs it first.
pub fn http_ready() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A field of `/proc/<pid>/status` (Linux), in KiB: `VmRSS`, `VmHWM` (the peak).
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find(|line| line.starts_with(field))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kib| kib.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// The names of the tools a `GET /tools?serverName=` body lists.
pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
