//! The bridge's performance, printed as figures (run by `./build.sh bench`), in parts:
//!
//! - `start`: from starting the process to its first `/health` answer, and its idle RSS;
//! - `demo`: the demo MCP server's `echo` through a direct rmcp client (1 and 16 calls in flight,
//!   the latter the ceiling of any HTTP front) and through `mcp-bridge` (1 and 16 clients), in
//!   alternating rounds, with the CPU per request of the bridge and of the server; then `mcpo`;
//! - `time`: `mcp-server-time` (Python, PyPI) behind a direct client, the bridge and mcpo at 16
//!   clients, with the server's CPU per call against a direct client with one call in flight;
//! - `large`: a 50 MB file read by the demo server (the bridge's peak and kept memory above its
//!   idle RSS against the result's size; the time to the first page against a 1 KB result, end
//!   to end and split into the MCP server's part — measured alone through a pipe — and the
//!   bridge's own) and every `read_result` page of it;
//! - `floods`: the bridge's peak RSS under each flood of a hostile stdio server
//!   (`tests/support/flood-server.mjs`, run by node): 60,000 `list_changed` notifications in one
//!   burst, and 20,000 questions of 1 KB during one call.
//!
//! Every row also prints the CPU other processes used meanwhile (the machine may be shared):
//! compare ratios within a run, and distrust rounds flagged NOISY.
//!
//! `BENCH_ONLY` lists the parts to run (`demo,time`; default all); `MCPO` names the mcpo
//! executable (default: `mcpo` on PATH); `BENCH_REQUESTS` the requests per demo row (default
//! 20000), `BENCH_TIME_REQUESTS` per `mcp-server-time` row (default 2000); `BENCH_ROUNDS` the
//! rounds (default 3); `BENCH_COMPARE` another `mcp-bridge` executable (an earlier build) whose
//! bridge rows (demo, and `mcp-server-time` with its default limit) are measured in the same
//! rounds; `BENCH_EXE` an executable measured in place of the one cargo built (the release's
//! static musl binary, say).

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::transport::TokioChildProcess;
use serde_json::json;

const TOKEN: &str = "bench-token";

struct Stats {
    label: String,
    clients: usize,
    requests: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Stats {
    fn percentile(&self, p: f64) -> Duration {
        let mut sorted = self.latencies.clone();
        sorted.sort();
        let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
        sorted[index.min(sorted.len() - 1)]
    }
    fn throughput(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }
    fn print(&self) {
        println!(
            "{:<28} {:>3} clients  {:>9.0} req/s   p50 {:>9.1} µs   p99 {:>9.1} µs",
            self.label,
            self.clients,
            self.throughput(),
            micros(self.percentile(0.50)),
            micros(self.percentile(0.99)),
        );
    }
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kib| kib.parse().ok())
}

struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        // SAFETY: sends SIGTERM to a child this program started.
        #[cfg(unix)]
        unsafe {
            libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM);
        }
        // Windows has no signal to send another process: kill it.
        #[cfg(not(unix))]
        let _ = self.0.kill();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_bridge(exe: &Path, dir: &Path) -> (Guard, u16) {
    let config = json!({"mcpServers": {"demo": {"command": exe, "args": ["demo-server"]}}});
    start_bridge_with(exe, dir, &config)
}

fn start_bridge_with(exe: &Path, dir: &Path, config: &serde_json::Value) -> (Guard, u16) {
    start_bridge_logging(exe, dir, config, None)
}

/// The bridge's log events (`--log-format json`) about large results: those whose message
/// starts with "large", and calls that took 20 ms or more.
type LargeEvents = Arc<Mutex<Vec<serde_json::Value>>>;

fn start_bridge_logging(
    exe: &Path,
    dir: &Path,
    config: &serde_json::Value,
    events: Option<LargeEvents>,
) -> (Guard, u16) {
    std::fs::write(dir.join("mcp-config.json"), config.to_string()).unwrap();
    let mut command = Command::new(exe);
    command
        .args(["--port", "0", "--token", TOKEN])
        .env("MCP_BRIDGE_CONFIG_DIR", dir)
        .stdout(Stdio::piped());
    if events.is_some() {
        // Successful calls are logged at `debug`.
        command
            .args(["--log-format", "json"])
            .env("RUST_LOG", "info,rmcp=warn,mcp_bridge::execute=debug")
            .stderr(Stdio::piped());
    } else {
        command.stderr(Stdio::null());
    }
    let mut child = command.spawn().expect("start mcp-bridge");
    if let (Some(events), Some(stderr)) = (events, child.stderr.take()) {
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(event) = serde_json::from_str::<serde_json::Value>(&line)
                    && (event["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with("large"))
                        || (event["message"] == "tool call succeeded"
                            && event["elapsed_ms"].as_u64() >= Some(20)))
                {
                    events.lock().unwrap().push(event);
                }
            }
        });
    }
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let port = loop {
        let line = lines
            .next()
            .expect("mcp-bridge exited before listening")
            .unwrap();
        if let Some((_, port)) = line.split_once("listening on http://127.0.0.1:") {
            break port.trim().parse().unwrap();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    (Guard(child), port)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// CPU time used by a process, all its live threads, from `/proc/<pid>/task/*/schedstat`
/// (nanoseconds on the CPU; finer than the clock ticks of `/proc/<pid>/stat`).
fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|line| line.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// The processes whose parent is `pid`, and theirs, from `/proc/*/stat`.
fn descendants(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.filter_map(Result::ok) {
            let Some(child) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
                continue;
            };
            // The command name may hold spaces: the fields after it follow the last ')'.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
            if let Some(ppid) = ppid {
                parents.push((child, ppid));
            }
        }
    }
    let mut found = vec![pid];
    let mut n = 0;
    while n < found.len() {
        let parent = found[n];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        n += 1;
    }
    found.remove(0);
    found
}

/// The machine's busy time in seconds, all CPUs (`/proc/stat`, clock ticks of 10 ms).
fn machine_busy_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .filter_map(|n| n.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
    let busy: u64 = fields
        .iter()
        .enumerate()
        .take(8)
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, n)| n)
        .sum();
    busy as f64 / 100.0
}

/// CPU used over one measured window by groups of processes (the bridge; an MCP server and its
/// children), and by everything else on the machine besides them and this bench (other builds
/// on a shared VM), to flag a noisy round.
struct CpuWindow {
    groups: Vec<Vec<u32>>,
    start: Vec<u64>,
    own: u64,
    busy: f64,
    started: Instant,
}

/// What [`CpuWindow::finish`] measured.
struct CpuUse {
    /// CPU seconds of each group.
    groups: Vec<f64>,
    /// Other processes' CPU over the window, in cores (0.5: half a CPU on average).
    others: f64,
    /// This bench's own CPU seconds: the load generator (HTTP or direct rmcp client).
    own: f64,
}

impl CpuWindow {
    fn start(groups: Vec<Vec<u32>>) -> Self {
        let start = groups
            .iter()
            .map(|g| g.iter().map(|&p| cpu_ns(p)).sum())
            .collect();
        CpuWindow {
            groups,
            start,
            own: cpu_ns(std::process::id()),
            busy: machine_busy_secs(),
            started: Instant::now(),
        }
    }

    fn finish(self) -> CpuUse {
        let wall = self.started.elapsed().as_secs_f64();
        let groups: Vec<f64> = self
            .groups
            .iter()
            .zip(&self.start)
            .map(|(g, start)| {
                g.iter()
                    .map(|&p| cpu_ns(p))
                    .sum::<u64>()
                    .saturating_sub(*start) as f64
                    / 1e9
            })
            .collect();
        let own = cpu_ns(std::process::id()).saturating_sub(self.own) as f64 / 1e9;
        let busy = machine_busy_secs() - self.busy;
        let others = ((busy - own - groups.iter().sum::<f64>()) / wall).max(0.0);
        CpuUse {
            groups,
            others,
            own,
        }
    }
}

/// Rounds in which other processes used more than this many cores are flagged as noisy.
const NOISY: f64 = 0.25;

/// One measured row: its latencies and the CPU per request of the processes watched.
struct Row {
    stats: Stats,
    cpu: CpuUse,
}

impl Row {
    /// µs of CPU per request of the processes in group `g`.
    fn cpu_per_request(&self, g: usize) -> f64 {
        self.cpu.groups[g] * 1e6 / self.stats.requests as f64
    }

    /// µs of CPU per request of the load generator (this bench's process).
    fn client_cpu_per_request(&self) -> f64 {
        self.cpu.own * 1e6 / self.stats.requests as f64
    }

    /// µs of CPU per request of everything the row ran: the watched groups and the client.
    fn total_cpu_per_request(&self) -> f64 {
        let groups: f64 = (0..self.cpu.groups.len())
            .map(|g| self.cpu_per_request(g))
            .sum();
        groups + self.client_cpu_per_request()
    }

    /// Print the row with the CPU per request of each named group and of the client.
    fn print(&self, names: &[&str]) {
        self.stats.print();
        let mut groups: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(g, name)| format!("{name} {:.1} µs", self.cpu_per_request(g)))
            .collect();
        groups.push(format!("client {:.1} µs", self.client_cpu_per_request()));
        println!(
            "{:<33} CPU per request: {}; other processes {:.2} cores{}",
            "",
            groups.join(", "),
            self.cpu.others,
            if self.cpu.others > NOISY {
                " (NOISY)"
            } else {
                ""
            }
        );
    }
}

/// One round of the demo rows: direct at 1 and 16 in flight, the bridge at 1 and 16 clients.
type DemoRound = (Row, Row, Row, Row);

/// An MCP server spoken to directly by an rmcp client over stdio.
struct Direct {
    client: Arc<rmcp::service::RunningService<rmcp::RoleClient, ClientConfig>>,
    pid: u32,
}

async fn direct_client(program: &Path, args: &[&str]) -> Direct {
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    let transport = TokioChildProcess::new(command).expect("spawn the MCP server");
    let pid = transport.id().expect("the MCP server's pid");
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bench", "0"),
    )
    .serve(transport)
    .await
    .expect("handshake");
    Direct {
        client: Arc::new(client),
        pid,
    }
}

impl Direct {
    /// `requests` calls of `tool`, `clients` in flight at once on the one connection (after
    /// 200 to warm up); the server's CPU per call is group 0.
    async fn row(
        &self,
        label: &str,
        tool: &'static str,
        args: fn(usize) -> serde_json::Value,
        clients: usize,
        requests: usize,
    ) -> Row {
        let call = move |n: usize| {
            CallToolRequestParams::new(tool).with_arguments(args(n).as_object().unwrap().clone())
        };
        for n in 0..200 {
            self.client.call_tool(call(n)).await.unwrap();
        }
        let window = CpuWindow::start(vec![vec![self.pid]]);
        let shared = self.client.clone();
        let stats = concurrently(label, clients, requests, move |n| {
            let client = shared.clone();
            async move {
                let result = client.call_tool(call(n)).await.unwrap();
                assert!(!result.is_error.unwrap_or(false));
            }
        })
        .await;
        Row {
            stats,
            cpu: window.finish(),
        }
    }

    async fn stop(self) {
        if let Ok(client) = Arc::try_unwrap(self.client) {
            let _ = client.cancel().await;
        }
    }
}

fn echo_args(n: usize) -> serde_json::Value {
    json!({"text": format!("call-{n}")})
}

fn time_args(_: usize) -> serde_json::Value {
    json!({"timezone": "UTC"})
}

/// Where a tool is called over HTTP: the bridge's `/execute` naming `server`, or mcpo's route
/// for the tool.
#[derive(Clone)]
struct Target {
    url: String,
    /// The bridge's server name; `None` for mcpo.
    server: Option<&'static str>,
    tool: &'static str,
    args: fn(usize) -> serde_json::Value,
}

impl Target {
    fn bridge(
        port: u16,
        server: &'static str,
        tool: &'static str,
        args: fn(usize) -> serde_json::Value,
    ) -> Self {
        Target {
            url: format!("http://127.0.0.1:{port}/execute"),
            server: Some(server),
            tool,
            args,
        }
    }

    fn mcpo(port: u16, tool: &'static str, args: fn(usize) -> serde_json::Value) -> Self {
        Target {
            url: format!("http://127.0.0.1:{port}/{tool}"),
            server: None,
            tool,
            args,
        }
    }

    fn request(&self, client: &reqwest::Client, n: usize) -> reqwest::RequestBuilder {
        let args = (self.args)(n);
        match self.server {
            Some(server) => client
                .post(&self.url)
                .bearer_auth(TOKEN)
                .json(&json!({"name": self.tool, "serverName": server, "arguments": args})),
            None => client.post(&self.url).json(&args),
        }
    }
}

/// `requests` calls through `target` from `clients` HTTP clients at once, after warming up the
/// connections; the CPU of each group of `watch` over the measured part.
async fn load(
    label: &str,
    target: &Target,
    clients: usize,
    requests: usize,
    watch: Vec<Vec<u32>>,
) -> Row {
    let client = reqwest::Client::new();
    for n in 0..(clients * 20).max(100) {
        let response = target.request(&client, n).send().await.unwrap();
        assert!(
            response.status().is_success(),
            "{label}: {}",
            response.status()
        );
        response.bytes().await.unwrap();
    }
    let target = target.clone();
    let window = CpuWindow::start(watch);
    let stats = concurrently(label, clients, requests, move |n| {
        let request = target.request(&client, n);
        async move {
            let response = request.send().await.unwrap();
            assert!(response.status().is_success());
            response.bytes().await.unwrap();
        }
    })
    .await;
    Row {
        stats,
        cpu: window.finish(),
    }
}

/// `clients` loops running at once, each making its share of `requests` calls one after
/// another (`call(n)` makes call number `n`): every call's latency and the whole run's time.
async fn concurrently<F, Fut>(label: &str, clients: usize, requests: usize, call: F) -> Stats
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let per_client = requests / clients;
    let started = Instant::now();
    let workers = (0..clients).map(|worker| {
        let call = call.clone();
        tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(per_client);
            for n in 0..per_client {
                let t = Instant::now();
                call(worker * per_client + n).await;
                latencies.push(t.elapsed());
            }
            latencies
        })
    });
    let mut latencies = Vec::with_capacity(requests);
    for worker in futures::future::join_all(workers).await {
        latencies.extend(worker.unwrap());
    }
    Stats {
        label: label.to_owned(),
        clients,
        requests: per_client * clients,
        elapsed: started.elapsed(),
        latencies,
    }
}

async fn wait_ready(target: &Target, limit: Duration) {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(response) = target.request(&client, 0).send().await
            && response.status().is_success()
        {
            return;
        }
        assert!(Instant::now() < deadline, "server did not become ready");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// mcpo serving `command` on a free port, ready for `tool`.
async fn start_mcpo(
    mcpo: &Path,
    command: &[&std::ffi::OsStr],
    tool: &'static str,
    args: fn(usize) -> serde_json::Value,
) -> (Guard, Target) {
    let port = free_port();
    let child = Command::new(mcpo)
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--log-level",
            "WARNING",
            "--",
        ])
        .args(command)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start mcpo");
    let guard = Guard(child);
    let target = Target::mcpo(port, tool, args);
    wait_ready(&target, Duration::from_secs(90)).await;
    (guard, target)
}

fn median_of(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// `values` over the rounds, as "a, b, c (median m)".
fn over_rounds(values: &[f64], digits: usize) -> String {
    let each: Vec<String> = values.iter().map(|v| format!("{v:.digits$}")).collect();
    format!(
        "{} (median {:.digits$})",
        each.join(", "),
        median_of(values.to_vec())
    )
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

/// Whether `part` of the bench runs: all of them, or those `BENCH_ONLY` lists.
fn runs(part: &str) -> bool {
    std::env::var("BENCH_ONLY")
        .ok()
        .is_none_or(|only| only.split(',').any(|p| p.trim() == part))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // reqwest has rustls without a crypto provider of its own (the bridge uses `ring`).
    let _ = rustls::crypto::ring::default_provider().install_default();
    // `BENCH_EXE`: another build to measure in place of this one (the static musl release, say).
    let exe = std::env::var_os("BENCH_EXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_mcp-bridge")));
    let number = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    };
    let requests = number("BENCH_REQUESTS", 20_000);
    let rounds = number("BENCH_ROUNDS", 3).max(1);
    let mcpo = std::env::var_os("MCPO")
        .map(PathBuf::from)
        .or_else(|| find_on_path("mcpo"));
    println!(
        "MCP Bridge benchmark on {} CPUs; other processes' CPU is printed per row, rows above {NOISY} cores flagged NOISY",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    if runs("start") {
        startup(&exe).await;
    }
    if runs("demo") {
        demo(&exe, requests, rounds, mcpo.as_deref()).await;
    }
    if runs("time") {
        time_server(
            &exe,
            number("BENCH_TIME_REQUESTS", 2000),
            rounds,
            mcpo.as_deref(),
        )
        .await;
    }
    if runs("large") {
        large_results(&exe).await;
    }
    if runs("floods") {
        floods(&exe).await;
    }
}

/// A field of `/proc/<pid>/status`, in KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|line| line.starts_with(field))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kib| kib.parse().ok())
}

/// The bridge's peak RSS under each flood of the hostile test server
/// (`tests/support/flood-server.mjs`, run by node), a fresh bridge per flood: 60,000
/// `list_changed` notifications in one burst, and 20,000 questions of 1 KB during one call.
async fn floods(exe: &Path) {
    println!();
    println!("floods from a hostile stdio server: the bridge's RSS (a fresh bridge per flood)");
    let Some(node) = find_on_path("node") else {
        println!("  skipped: node is not on PATH");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/flood-server.mjs");
    let floods = [
        (
            "60,000 list_changed in one burst",
            json!({"name": "flood_list_changed", "serverName": "flood", "arguments": {"count": 60000}}),
        ),
        (
            "20,000 questions of 1 KB",
            json!({"name": "flood_questions", "serverName": "flood", "wait": 0,
                "arguments": {"count": 20000, "bytes": 1000, "wait_ms": 90000,
                    "enough": 20000 - mcp_bridge::servers::client::MAX_WAITING_QUESTIONS}}),
        ),
    ];
    let client = reqwest::Client::new();
    for (label, body) in floods {
        let dir = tempfile::tempdir().unwrap();
        let config = json!({"mcpServers": {"flood": {"command": node, "args": [script],
            "answer_timeout": 600, "timeout": 120}}});
        let (bridge, port) = start_bridge_with(exe, dir.path(), &config);
        let pid = bridge.0.id();
        let base = format!("http://127.0.0.1:{port}");
        let get = |path: String| {
            let request = client.get(format!("{base}{path}")).bearer_auth(TOKEN);
            async move {
                let response = request.send().await.ok()?;
                let status = response.status().as_u16();
                Some((status, response.json::<serde_json::Value>().await.ok()?))
            }
        };
        // Ready when the server's tools are listed.
        let deadline = Instant::now() + Duration::from_secs(60);
        while get("/tools?serverName=flood".to_owned())
            .await
            .is_none_or(|(_, body)| body["tools"]["tools"].as_array().is_none_or(Vec::is_empty))
        {
            assert!(Instant::now() < deadline, "the flood server did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let idle = status_kib(pid, "VmRSS:").unwrap_or(0);
        let started = Instant::now();
        let answer: serde_json::Value = client
            .post(format!("{base}/execute"))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        // Settled: the list shows the tool added after the burst, or the call has finished.
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let settled = match answer["call_id"].as_str() {
                Some(id) => get(format!("/calls/{id}?wait=5"))
                    .await
                    .is_some_and(|(status, _)| status != 202),
                None => get("/tools?serverName=flood".to_owned())
                    .await
                    .is_some_and(|(_, body)| body.to_string().contains("\"settled\"")),
            };
            if settled || Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let took = started.elapsed();
        let mib = |kib: Option<u64>| kib.unwrap_or(0) as f64 / 1024.0;
        println!(
            "  {label:34} idle {:5.1} MiB, peak {:5.1} MiB, after {:5.1} MiB, settled in {:.1} s",
            idle as f64 / 1024.0,
            mib(status_kib(pid, "VmHWM:")),
            mib(status_kib(pid, "VmRSS:")),
            took.as_secs_f64()
        );
        drop(bridge);
    }
}

/// From starting the bridge (with the demo server configured) to its first `/health` answer,
/// and its RSS once idle, over 10 starts.
async fn startup(exe: &Path) {
    println!();
    println!("start-up: process start → first /health answer, then idle RSS (10 starts)");
    let dir = tempfile::tempdir().unwrap();
    let client = reqwest::Client::new();
    let mut times = Vec::new();
    let mut rss = Vec::new();
    for _ in 0..10 {
        let started = Instant::now();
        let (bridge, port) = start_bridge(exe, dir.path());
        let url = format!("http://127.0.0.1:{port}/health");
        loop {
            if let Ok(response) = client.get(&url).send().await
                && response.status().is_success()
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        times.push(ms(started.elapsed()));
        tokio::time::sleep(Duration::from_secs(1)).await;
        rss.push(rss_kib(bridge.0.id()).unwrap_or(0) as f64 / 1024.0);
    }
    println!(
        "  start → first /health: {} ms (target ≤ 20 ms: {})",
        over_rounds(&times, 1),
        verdict(median_of(times.clone()) <= 20.0)
    );
    println!(
        "  idle RSS without its MCP servers: {} MiB (target ≤ 15 MB: {})",
        over_rounds(&rss, 1),
        verdict(median_of(rss.clone()) * 1.048_576 <= 15.0)
    );
}

/// The demo server's `echo`: a direct rmcp client (1 and 16 calls in flight: the ceiling of
/// any HTTP front) and the bridge at 1 and 16 clients, `rounds` times alternating, with the
/// bridge's and the server's CPU per request; then mcpo once.
async fn demo(exe: &Path, requests: usize, rounds: usize, mcpo: Option<&Path>) {
    println!();
    println!("the demo server's `echo`: {requests} requests per row, {rounds} rounds");
    let dir = tempfile::tempdir().unwrap();
    let direct = direct_client(exe, &["demo-server"]).await;
    let (bridge, port) = start_bridge(exe, dir.path());
    let bridge_pid = bridge.0.id();
    let target = Target::bridge(port, "demo", "echo", echo_args);
    wait_ready(&target, Duration::from_secs(30)).await;
    let watch = |pid: u32| vec![vec![pid], descendants(pid)];
    // Another build of the bridge measured in the same rounds (an earlier commit, say).
    let other = match std::env::var_os("BENCH_COMPARE") {
        Some(other) => {
            let other = PathBuf::from(other);
            let dir = dir.path().join("compare");
            std::fs::create_dir_all(&dir).unwrap();
            let (guard, port) = start_bridge(&other, &dir);
            let target = Target::bridge(port, "demo", "echo", echo_args);
            wait_ready(&target, Duration::from_secs(30)).await;
            println!("also measured: {} (BENCH_COMPARE)", other.display());
            Some((guard, target))
        }
        None => None,
    };
    let mut summary = Vec::new();
    let mut compared = Vec::new();
    for round in 1..=rounds {
        println!("round {round}");
        let d1 = direct
            .row("direct rmcp (stdio)", "echo", echo_args, 1, requests)
            .await;
        d1.print(&["server"]);
        let d16 = direct
            .row("direct rmcp (stdio)", "echo", echo_args, 16, requests)
            .await;
        d16.print(&["server"]);
        let b1 = load("mcp-bridge (HTTP)", &target, 1, requests, watch(bridge_pid)).await;
        b1.print(&["bridge", "server"]);
        let b16 = load(
            "mcp-bridge (HTTP)",
            &target,
            16,
            requests,
            watch(bridge_pid),
        )
        .await;
        b16.print(&["bridge", "server"]);
        if let Some((guard, target)) = &other {
            let pid = guard.0.id();
            let c1 = load("BENCH_COMPARE (HTTP)", target, 1, requests, watch(pid)).await;
            c1.print(&["bridge", "server"]);
            let c16 = load("BENCH_COMPARE (HTTP)", target, 16, requests, watch(pid)).await;
            c16.print(&["bridge", "server"]);
            compared.push((c1, c16));
        }
        summary.push((d1, d16, b1, b16));
    }
    let loaded_rss = rss_kib(bridge_pid);
    drop(bridge);
    drop(other);
    direct.stop().await;

    let field = |f: &dyn Fn(&DemoRound) -> f64| -> Vec<f64> { summary.iter().map(f).collect() };
    let noisy: Vec<String> = summary
        .iter()
        .enumerate()
        .filter(|(_, (a, b, c, d))| [a, b, c, d].iter().any(|r| r.cpu.others > NOISY))
        .map(|(n, _)| (n + 1).to_string())
        .collect();
    println!();
    println!(
        "summary over {rounds} rounds{}:",
        if noisy.is_empty() {
            String::new()
        } else {
            format!(" (noisy: round {})", noisy.join(", "))
        }
    );
    let cpu16 = field(&|r| r.3.cpu_per_request(0));
    let cpu1 = field(&|r| r.2.cpu_per_request(0));
    let share = field(&|r| 100.0 * r.3.stats.throughput() / r.1.stats.throughput());
    let p99_16 = field(&|r| ms(r.3.stats.percentile(0.99)));
    let p99_1 = field(&|r| ms(r.2.stats.percentile(0.99)));
    println!(
        "  bridge CPU per request, 16 clients: {} µs (target ≤ 40 µs: {})",
        over_rounds(&cpu16, 1),
        verdict(median_of(cpu16.clone()) <= 40.0)
    );
    println!(
        "  bridge CPU per request, 1 client: {} µs",
        over_rounds(&cpu1, 1)
    );
    println!(
        "  bridge throughput at 16 clients: {} req/s = {} % of the direct ceiling (16 in flight: {} req/s) (target ≥ 50 %: {})",
        over_rounds(&field(&|r| r.3.stats.throughput()), 0),
        over_rounds(&share, 0),
        over_rounds(&field(&|r| r.1.stats.throughput()), 0),
        verdict(median_of(share.clone()) >= 50.0)
    );
    println!(
        "  p99 at 16 clients: {} ms (target ≤ 2 ms: {}); at 1 client: {} ms (target ≤ 0.5 ms: {})",
        over_rounds(&p99_16, 2),
        verdict(median_of(p99_16.clone()) <= 2.0),
        over_rounds(&p99_1, 2),
        verdict(median_of(p99_1.clone()) <= 0.5)
    );
    // Who spends the CPU of a request at 16: the load generator (this process), the bridge and
    // the server share the cores with each other.
    println!(
        "  CPU per request at 16, all parts: direct {} µs (of it the rmcp client {} µs), bridge {} µs (of it the HTTP client {} µs)",
        over_rounds(&field(&|r| r.1.total_cpu_per_request()), 1),
        over_rounds(&field(&|r| r.1.client_cpu_per_request()), 1),
        over_rounds(&field(&|r| r.3.total_cpu_per_request()), 1),
        over_rounds(&field(&|r| r.3.client_cpu_per_request()), 1),
    );
    let added = field(&|r| micros(r.2.stats.percentile(0.5)) - micros(r.0.stats.percentile(0.5)));
    println!(
        "  added latency over a direct rmcp call, p50: {} µs (target ≤ 200 µs)",
        over_rounds(&added, 0)
    );
    if !compared.is_empty() {
        let cpu16: Vec<f64> = compared.iter().map(|c| c.1.cpu_per_request(0)).collect();
        let cpu1: Vec<f64> = compared.iter().map(|c| c.0.cpu_per_request(0)).collect();
        let share: Vec<f64> = compared
            .iter()
            .zip(&summary)
            .map(|(c, r)| 100.0 * c.1.stats.throughput() / r.1.stats.throughput())
            .collect();
        let p99_16: Vec<f64> = compared
            .iter()
            .map(|c| ms(c.1.stats.percentile(0.99)))
            .collect();
        let p99_1: Vec<f64> = compared
            .iter()
            .map(|c| ms(c.0.stats.percentile(0.99)))
            .collect();
        println!(
            "  BENCH_COMPARE: CPU per request {} µs at 16 clients, {} µs at 1; {} % of the direct ceiling; p99 {} ms at 16, {} ms at 1",
            over_rounds(&cpu16, 1),
            over_rounds(&cpu1, 1),
            over_rounds(&share, 0),
            over_rounds(&p99_16, 2),
            over_rounds(&p99_1, 2)
        );
    }
    if let Some(kib) = loaded_rss {
        println!(
            "  bridge RSS after the load: {:.1} MiB",
            kib as f64 / 1024.0
        );
    }

    if let Some(mcpo) = mcpo {
        let (guard, target) = start_mcpo(
            mcpo,
            &[exe.as_os_str(), "demo-server".as_ref()],
            "echo",
            echo_args,
        )
        .await;
        let pid = guard.0.id();
        let watch = || vec![vec![pid], descendants(pid)];
        let mcpo_requests = (requests / 10).max(1000);
        let one = load("mcpo (HTTP)", &target, 1, mcpo_requests, watch()).await;
        one.print(&["mcpo", "server"]);
        let sixteen = load("mcpo (HTTP)", &target, 16, mcpo_requests, watch()).await;
        sixteen.print(&["mcpo", "server"]);
        drop(guard);
        let (_, _, b1, b16) = summary.last().unwrap();
        println!(
            "  throughput vs mcpo (last round): {:.1}× at 1 client, {:.1}× at 16 clients; p99 at 16 clients: bridge {:.2} ms, mcpo {:.2} ms",
            b1.stats.throughput() / one.stats.throughput(),
            b16.stats.throughput() / sixteen.stats.throughput(),
            ms(b16.stats.percentile(0.99)),
            ms(sixteen.stats.percentile(0.99)),
        );
    } else {
        println!("mcpo: not found (set MCPO or put it on PATH) — comparison skipped");
    }
}

/// `mcp-server-time` (Python, from PyPI) in `.tools/venv`, found from the bench's crate.
fn time_server_program() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/venv/bin/mcp-server-time");
    path.is_file().then_some(path)
}

/// `mcp-server-time`'s `get_current_time`: the server's CPU per call behind a direct client
/// with one call in flight, with 16, behind the bridge at 16 clients (its default limit of
/// calls in flight, and one at a time), and behind mcpo at 16 clients.
async fn time_server(exe: &Path, requests: usize, rounds: usize, mcpo: Option<&Path>) {
    println!();
    let Some(program) = time_server_program() else {
        println!("mcp-server-time: not found in .tools/venv (./build.sh setup) — skipped");
        return;
    };
    println!("mcp-server-time's `get_current_time`: {requests} requests per row, {rounds} rounds");
    let dir = tempfile::tempdir().unwrap();
    let compare = std::env::var_os("BENCH_COMPARE").map(PathBuf::from);
    let bridge_with = |exe: &Path, limit: Option<u64>| {
        let mut entry = json!({"command": program});
        if let Some(limit) = limit {
            entry["max_concurrent_calls"] = json!(limit);
        }
        let sub = dir.path().join(format!("limit-{limit:?}"));
        std::fs::create_dir_all(&sub).unwrap();
        start_bridge_with(exe, &sub, &json!({"mcpServers": {"time": entry}}))
    };
    let mut compared = Vec::new();
    let mut summary = Vec::new();
    for round in 1..=rounds {
        println!("round {round}");
        let direct = direct_client(&program, &[]).await;
        let d1 = direct
            .row(
                "direct rmcp (stdio)",
                "get_current_time",
                time_args,
                1,
                requests,
            )
            .await;
        d1.print(&["server"]);
        let d16 = direct
            .row(
                "direct rmcp (stdio)",
                "get_current_time",
                time_args,
                16,
                requests,
            )
            .await;
        d16.print(&["server"]);
        direct.stop().await;
        let mut bridge_rows = Vec::new();
        for (label, limit) in [
            ("mcp-bridge (default limit)", None),
            ("mcp-bridge (1 in flight)", Some(1)),
        ] {
            let (bridge, port) = bridge_with(exe, limit);
            let pid = bridge.0.id();
            let target = Target::bridge(port, "time", "get_current_time", time_args);
            wait_ready(&target, Duration::from_secs(60)).await;
            let row = load(
                label,
                &target,
                16,
                requests,
                vec![vec![pid], descendants(pid)],
            )
            .await;
            row.print(&["bridge", "server"]);
            bridge_rows.push(row);
        }
        if let Some(other) = &compare {
            let (bridge, port) = bridge_with(other, None);
            let pid = bridge.0.id();
            let target = Target::bridge(port, "time", "get_current_time", time_args);
            wait_ready(&target, Duration::from_secs(60)).await;
            let row = load(
                "BENCH_COMPARE (default)",
                &target,
                16,
                requests,
                vec![vec![pid], descendants(pid)],
            )
            .await;
            row.print(&["bridge", "server"]);
            compared.push(row);
        }
        let mcpo_row = match mcpo {
            Some(mcpo) => {
                let (guard, target) =
                    start_mcpo(mcpo, &[program.as_os_str()], "get_current_time", time_args).await;
                let pid = guard.0.id();
                let row = load(
                    "mcpo (HTTP)",
                    &target,
                    16,
                    requests,
                    vec![vec![pid], descendants(pid)],
                )
                .await;
                row.print(&["mcpo", "server"]);
                Some(row)
            }
            None => None,
        };
        summary.push((d1, d16, bridge_rows, mcpo_row));
    }
    println!();
    println!(
        "summary over {rounds} rounds (the server's CPU per call; behind the bridge at 16 clients):"
    );
    let alone: Vec<f64> = summary.iter().map(|r| r.0.cpu_per_request(0)).collect();
    println!("  direct, 1 call in flight: {} µs", over_rounds(&alone, 0));
    let sixteen: Vec<f64> = summary.iter().map(|r| r.1.cpu_per_request(0)).collect();
    println!(
        "  direct, 16 calls in flight: {} µs",
        over_rounds(&sixteen, 0)
    );
    for (n, name) in ["the default limit", "1 call in flight"].iter().enumerate() {
        let server: Vec<f64> = summary.iter().map(|r| r.2[n].cpu_per_request(1)).collect();
        let ratio: Vec<f64> = server.iter().zip(&alone).map(|(s, a)| s / a).collect();
        print!(
            "  bridge, {name}: {} µs = {}× direct alone (target ≤ 1.10×: {})",
            over_rounds(&server, 0),
            over_rounds(&ratio, 2),
            verdict(median_of(ratio.clone()) <= 1.10)
        );
        if summary.iter().all(|r| r.3.is_some()) {
            let vs: Vec<f64> = summary
                .iter()
                .map(|r| r.2[n].stats.throughput() / r.3.as_ref().unwrap().stats.throughput())
                .collect();
            println!(
                "; throughput {} req/s = {}× mcpo (target ≥ 2.5×: {})",
                over_rounds(
                    &summary
                        .iter()
                        .map(|r| r.2[n].stats.throughput())
                        .collect::<Vec<_>>(),
                    0
                ),
                over_rounds(&vs, 2),
                verdict(median_of(vs.clone()) >= 2.5)
            );
        } else {
            println!();
        }
    }
    if !compared.is_empty() {
        let server: Vec<f64> = compared.iter().map(|r| r.cpu_per_request(1)).collect();
        let ratio: Vec<f64> = server.iter().zip(&alone).map(|(s, a)| s / a).collect();
        println!(
            "  BENCH_COMPARE, its default limit: {} µs = {}× direct alone; throughput {} req/s; the bridge's own CPU {} µs per call (this build: {} µs)",
            over_rounds(&server, 0),
            over_rounds(&ratio, 2),
            over_rounds(
                &compared
                    .iter()
                    .map(|r| r.stats.throughput())
                    .collect::<Vec<_>>(),
                0
            ),
            over_rounds(
                &compared
                    .iter()
                    .map(|r| r.cpu_per_request(0))
                    .collect::<Vec<_>>(),
                0
            ),
            over_rounds(
                &summary
                    .iter()
                    .map(|r| r.2[0].cpu_per_request(0))
                    .collect::<Vec<_>>(),
                0
            ),
        );
    }
    if summary.iter().all(|r| r.3.is_some()) {
        let server: Vec<f64> = summary
            .iter()
            .map(|r| r.3.as_ref().unwrap().cpu_per_request(1))
            .collect();
        println!(
            "  mcpo: {} µs; {} req/s",
            over_rounds(&server, 0),
            over_rounds(
                &summary
                    .iter()
                    .map(|r| r.3.as_ref().unwrap().stats.throughput())
                    .collect::<Vec<_>>(),
                0
            )
        );
        // The server is the limit here: what no front can beat is a client with no HTTP at all
        // keeping 16 calls in flight, so the bridge's multiple of mcpo is read against it.
        let direct: Vec<f64> = summary
            .iter()
            .map(|r| r.1.stats.throughput() / r.3.as_ref().unwrap().stats.throughput())
            .collect();
        let share: Vec<f64> = summary
            .iter()
            .map(|r| 100.0 * r.2[0].stats.throughput() / r.1.stats.throughput())
            .collect();
        println!(
            "  the direct client, 16 in flight: {}× mcpo (the most any front can reach against this server); the bridge delivers {} % of it",
            over_rounds(&direct, 2),
            over_rounds(&share, 0)
        );
    }
}

/// The peak resident memory of a process (VmHWM), in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kib| kib.parse().ok())
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The demo server alone, spoken to through a pipe with no decoding: for each of `runs` calls
/// of `read_text_file` on `path`, the time from writing the `tools/call` line to reading the
/// last byte of its answer; and the answer's size on the wire.
fn server_alone(exe: &Path, root: &Path, path: &str, runs: usize) -> (Vec<Duration>, usize) {
    let mut child = Command::new(exe)
        .arg("demo-server")
        .arg("--root")
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the demo server");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::with_capacity(64 * 1024, child.stdout.take().unwrap());
    let guard = Guard(child);
    let mut line = Vec::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}});
    writeln!(stdin, "{initialize}").unwrap();
    stdout.read_until(b'\n', &mut line).unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    let mut times = Vec::new();
    for id in 1..=runs {
        line.clear();
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "read_text_file", "arguments": {"path": path}}});
        let started = Instant::now();
        writeln!(stdin, "{call}").unwrap();
        stdin.flush().unwrap();
        stdout.read_until(b'\n', &mut line).unwrap();
        times.push(started.elapsed());
        assert!(
            line.starts_with(b"{") && has_result(&line),
            "the demo server did not answer with a result"
        );
    }
    drop(stdin);
    drop(guard);
    (times, line.len())
}

/// Whether a JSON-RPC line carries a `result` (not an `error`).
fn has_result(line: &[u8]) -> bool {
    line.windows(9).take(200).any(|w| w == b"\"result\":")
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The median of a numeric field over the bridge's log events with `message`.
fn event_median(events: &LargeEvents, message: &str, field: &str) -> Option<f64> {
    let mut values: Vec<f64> = events
        .lock()
        .unwrap()
        .iter()
        .filter(|event| event["message"] == message)
        .filter_map(|event| event[field].as_f64())
        .collect();
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// What masking secrets in a successful result costs, in process: per call on a 1 KB result
/// (with one secret in it, the common case being none), and on the 50 MB one.
fn masking_cost(large: &str) {
    let token = "0123456789abcdef".repeat(4);
    let small = format!(
        "{} Authorization: Bearer {token} {}",
        "a line of a tool's answer. ".repeat(18),
        "done."
    );
    let mut times = Vec::with_capacity(10_000);
    for _ in 0..10_000 {
        let started = Instant::now();
        let masked = mcp_bridge::redact::mask_result(std::hint::black_box(&small), &[&token]);
        std::hint::black_box(masked.count);
        times.push(started.elapsed());
    }
    let per_call = median(times);
    let mut times = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        let masked = mcp_bridge::redact::mask_result(std::hint::black_box(large), &[&token]);
        std::hint::black_box(masked.count);
        times.push(started.elapsed());
    }
    let whole = median(times);
    println!(
        "masking secrets in a result (in process): {} B result {:.1} µs per call (median of 10000); \
         {:.1} MB result {:.1} ms (median of 3), {:.0} MB/s",
        small.len(),
        micros(per_call),
        large.len() as f64 / 1e6,
        ms(whole),
        large.len() as f64 / 1e6 / whole.as_secs_f64()
    );
}

/// A 50 MB text result from the demo server's `read_text_file`, through the bridge: the
/// bridge's memory against the result's size, and the time to its first page split into the
/// MCP server's part and the bridge's own.
///
/// Memory, from `/proc/<bridge pid>/status` (the bridge alone, not its MCP server): idle is its
/// RSS (VmRSS) once started and warmed up by 50 small calls, just before the large one; peak is
/// its high-water mark (VmHWM) after the large call; kept is its RSS after it. The ratios are
/// (peak − idle) / result and (kept − idle) / result, the result being the text's size in bytes.
async fn large_results(exe: &Path) {
    const LARGE: usize = 50 * 1000 * 1000;
    const LARGE_RUNS: usize = 3;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("files");
    std::fs::create_dir_all(&root).unwrap();
    let mut text = String::with_capacity(LARGE + 100);
    let mut n = 0u64;
    while text.len() < LARGE {
        text.push_str(&format!(
            "{n:08} a line of the large file, with ünïcødé and € in it\n"
        ));
        n += 1;
    }
    std::fs::write(root.join("large.txt"), &text).unwrap();
    let large_chars = text.chars().count();
    let large_bytes = text.len();
    masking_cost(&text);
    drop(text);
    std::fs::write(root.join("small.txt"), "x".repeat(1000)).unwrap();
    let config =
        json!({"mcpServers": {"demo": {"command": exe, "args": ["demo-server", "--root", root]}}});
    let events = LargeEvents::default();
    let (bridge, port) = start_bridge_logging(exe, dir.path(), &config, Some(events.clone()));
    let pid = bridge.0.id();
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/execute");
    let call = |body: serde_json::Value| {
        let request = client.post(&url).bearer_auth(TOKEN).json(&body);
        async move {
            let started = Instant::now();
            let response = request.send().await.unwrap();
            assert!(response.status().is_success(), "{}", response.status());
            let body: serde_json::Value = response.json().await.unwrap();
            (started.elapsed(), body)
        }
    };
    let read = |path: &str| json!({"name": "read_text_file", "arguments": {"path": path}});
    let ready = Instant::now() + Duration::from_secs(90);
    while client
        .post(&url)
        .bearer_auth(TOKEN)
        .json(&read("small.txt"))
        .send()
        .await
        .map(|r| r.status().is_success())
        .ok()
        != Some(true)
    {
        assert!(Instant::now() < ready, "the bridge did not become ready");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut small = Vec::new();
    for _ in 0..50 {
        small.push(call(read("small.txt")).await.0);
    }
    let small_p50 = median(small);
    let idle = rss_kib(pid).unwrap_or(0);

    println!();
    let result = large_bytes as f64 / (1024.0 * 1024.0);
    println!(
        "large results: read_text_file of a {:.1} MB file ({large_chars} characters) from the demo server; \
         result size {result:.1} MiB (its text)",
        large_bytes as f64 / 1e6
    );
    let (first_time, first) = call(read("large.txt")).await;
    let kept = rss_kib(pid).unwrap_or(0);
    let peak = peak_rss_kib(pid).unwrap_or(0);
    assert_eq!(
        first["page"]["total_chars"], large_chars,
        "{}",
        first["page"]
    );
    let peak_ratio = (mib(peak) - mib(idle)) / result;
    println!(
        "bridge memory (/proc/{pid}/status, the bridge alone): idle RSS {:.1} MiB (before the call), \
         peak RSS (VmHWM) {:.1} MiB, RSS with the result kept {:.1} MiB",
        mib(idle),
        mib(peak),
        mib(kept),
    );
    println!(
        "  peak above idle / result: {peak_ratio:.2}× (target ≤ 2×: {}); kept above idle / result: {:.2}×",
        if peak_ratio <= 2.0 { "met" } else { "NOT met" },
        (mib(kept) - mib(idle)) / result,
    );
    let mut large = vec![first_time];
    for _ in 1..LARGE_RUNS {
        large.push(call(read("large.txt")).await.0);
    }
    let large_p50 = median(large);
    let (alone, wire_bytes) = server_alone(exe, &root, "large.txt", LARGE_RUNS);
    let server_p50 = median(alone);
    let own = large_p50.saturating_sub(server_p50);
    println!("time to the first page (HTTP round trip, as the extension sees it):");
    println!(
        "  (a) 1 KB result, end to end: {:.2} ms (median of 50)",
        ms(small_p50)
    );
    println!(
        "  (b) 50 MB result, end to end: {:.1} ms (median of {LARGE_RUNS}); {:.0}× (a)",
        ms(large_p50),
        large_p50.as_secs_f64() / small_p50.as_secs_f64()
    );
    println!(
        "  (c) of (b), the MCP server producing and sending its {:.1} MB answer line, alone through a pipe \
         (request → last byte, median of {LARGE_RUNS}): {:.1} ms; the bridge's own work, (b) − (c): {:.1} ms = {:.0}× (a)",
        wire_bytes as f64 / 1e6,
        ms(server_p50),
        ms(own),
        own.as_secs_f64() / small_p50.as_secs_f64()
    );
    match (
        event_median(&events, "tool call succeeded", "elapsed_ms"),
        event_median(&events, "large message from the MCP server", "read_ms"),
        event_median(&events, "large message from the MCP server", "decode_ms"),
        event_median(&events, "large result kept, first page answered", "page_ms"),
    ) {
        (Some(call_ms), Some(read_ms), Some(decode_ms), Some(page_ms)) => {
            // The call's time less its decoding is the request to the answer's last byte.
            let server_ms = call_ms - decode_ms;
            let rest_ms = ms(large_p50) - call_ms - page_ms;
            let own_ms = decode_ms + page_ms + rest_ms;
            println!(
                "      the same split from the bridge's log (medians): request → last byte {server_ms:.1} ms \
                 (the line arriving over its last {read_ms:.1} ms); after the last byte, decoding {decode_ms:.1} ms, \
                 keeping it and the first page {page_ms:.1} ms, HTTP and handing over {rest_ms:.1} ms: \
                 the bridge's own work {own_ms:.1} ms = {:.0}× (a)",
                own_ms / ms(small_p50)
            );
        }
        _ => println!("      the bridge's log: no timing events seen"),
    }
    if let Some(mask_ms) =
        event_median(&events, "large result kept, first page answered", "mask_ms")
    {
        println!(
            "      of which masking secrets in the 50 MB result before paging (bridge's log, median): \
             {mask_ms:.1} ms = {:.0}% of (b)",
            100.0 * mask_ms / ms(large_p50)
        );
    }

    // Every page of the first result, in order.
    let result_id = first["page"]["result_id"].as_str().unwrap().to_owned();
    let mut next = first["page"]["next_offset"].as_u64();
    let mut pages = Vec::new();
    let started = Instant::now();
    while let Some(offset) = next {
        let (elapsed, body) = call(
            json!({"name": "read_result", "arguments": {"result_id": result_id, "offset": offset}}),
        )
        .await;
        pages.push(elapsed);
        next = body["page"]["next_offset"].as_u64();
    }
    let all = started.elapsed();
    pages.sort();
    let at = |p: f64| pages[((pages.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3;
    println!(
        "read_result: {} pages of ≤ 8192 characters in {:.1} s; per page (HTTP round trip) p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms (target ≤ 5 ms)",
        pages.len() + 1,
        all.as_secs_f64(),
        at(0.5),
        at(0.99),
        at(1.0),
    );
    println!(
        "bridge RSS after reading every page ({LARGE_RUNS} results kept): {:.1} MiB",
        mib(rss_kib(pid).unwrap_or(0))
    );
    drop(bridge);
}
