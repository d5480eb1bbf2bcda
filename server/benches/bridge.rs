//! The bridge's performance, printed as figures (run by `./build.sh bench`): against the demo
//! MCP server in one run — a direct rmcp call, the same call through `mcp-bridge`, and through
//! `mcpo` (PyPI), sequentially and at 16 concurrent clients — plus the bridge's idle RSS; then
//! large results: a 50 MB file read by the demo server (the bridge's peak and kept memory above
//! its idle RSS against the result's size; the time to the first page against a 1 KB result,
//! end to end and split into the MCP server's part — measured alone through a pipe — and the
//! bridge's own) and every `read_result` page of it.
//!
//! `MCPO` names the mcpo executable (default: `mcpo` on PATH); `BENCH_REQUESTS` the number of
//! requests per measurement (default 2000); `BENCH_ONLY=large` runs the large results alone.

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
        unsafe {
            libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM);
        }
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
        command
            .args(["--log-format", "json"])
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

async fn direct(exe: &Path, requests: usize) -> (Stats, Stats) {
    let mut command = tokio::process::Command::new(exe);
    command.arg("demo-server");
    let transport = TokioChildProcess::new(command).expect("spawn demo server");
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bench", "0"),
    )
    .serve(transport)
    .await
    .expect("handshake");
    let call = |n: usize| {
        let args = json!({"text": format!("direct-{n}")});
        CallToolRequestParams::new("echo").with_arguments(args.as_object().unwrap().clone())
    };
    for n in 0..200 {
        client.call_tool(call(n)).await.unwrap();
    }
    let client = std::sync::Arc::new(client);
    let run = |clients: usize| {
        let shared = client.clone();
        concurrently("direct rmcp (stdio)", clients, requests, move |n| {
            let client = shared.clone();
            async move {
                client.call_tool(call(n)).await.unwrap();
            }
        })
    };
    // One call at a time, then 16 in flight on the same connection: the ceiling for any
    // HTTP front.
    let one = run(1).await;
    let sixteen = run(16).await;
    if let Ok(client) = std::sync::Arc::try_unwrap(client) {
        let _ = client.cancel().await;
    }
    (one, sixteen)
}

#[derive(Clone)]
enum Target {
    Bridge(u16),
    Mcpo(u16),
}

impl Target {
    fn request(&self, client: &reqwest::Client, n: usize) -> reqwest::RequestBuilder {
        match self {
            Target::Bridge(port) => client
                .post(format!("http://127.0.0.1:{port}/execute"))
                .bearer_auth(TOKEN)
                .json(&json!({"name": "echo", "serverName": "demo", "arguments": {"text": format!("bridge-{n}")}})),
            Target::Mcpo(port) => client
                .post(format!("http://127.0.0.1:{port}/echo"))
                .json(&json!({"text": format!("mcpo-{n}")})),
        }
    }
}

async fn load(label: &str, target: &Target, clients: usize, requests: usize) -> Stats {
    let client = reqwest::Client::new();
    // Warm up the connections.
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
    concurrently(label, clients, requests, move |n| {
        let request = target.request(&client, n);
        async move {
            let response = request.send().await.unwrap();
            assert!(response.status().is_success());
            response.bytes().await.unwrap();
        }
    })
    .await
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

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_mcp-bridge"));
    let requests: usize = std::env::var("BENCH_REQUESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000);
    let mcpo = std::env::var_os("MCPO")
        .map(PathBuf::from)
        .or_else(|| find_on_path("mcpo"));
    let dir = tempfile::tempdir().unwrap();
    if std::env::var("BENCH_ONLY").as_deref() == Ok("large") {
        large_results(&exe).await;
        return;
    }
    println!("MCP Bridge benchmark: tool `echo` of the demo server, {requests} requests per row");
    println!(
        "machine: {} CPUs",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );

    let (direct, direct_16) = direct(&exe, requests).await;
    direct.print();
    direct_16.print();

    let (bridge, port) = start_bridge(&exe, dir.path());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle_rss = rss_kib(bridge.0.id());
    let bridge_target = Target::Bridge(port);
    let bridge_1 = load("mcp-bridge (HTTP)", &bridge_target, 1, requests).await;
    bridge_1.print();
    let bridge_16 = load("mcp-bridge (HTTP)", &bridge_target, 16, requests).await;
    bridge_16.print();
    let loaded_rss = rss_kib(bridge.0.id());

    let mcpo_rows = match &mcpo {
        Some(mcpo) => {
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
                .arg(&exe)
                .arg("demo-server")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start mcpo");
            let guard = Guard(child);
            let target = Target::Mcpo(port);
            wait_ready(&target, Duration::from_secs(90)).await;
            let one = load("mcpo (HTTP)", &target, 1, requests).await;
            one.print();
            let sixteen = load("mcpo (HTTP)", &target, 16, requests).await;
            sixteen.print();
            drop(guard);
            Some((one, sixteen))
        }
        None => {
            println!("mcpo: not found (set MCPO or put it on PATH) — comparison skipped");
            None
        }
    };
    drop(bridge);

    println!();
    let added_p50 = micros(bridge_1.percentile(0.5)) - micros(direct.percentile(0.5));
    let added_p99 = micros(bridge_1.percentile(0.99)) - micros(direct.percentile(0.99));
    println!(
        "added latency of the bridge over a direct rmcp call: p50 {added_p50:.1} µs, p99 {added_p99:.1} µs (target p50 ≤ 200 µs)"
    );
    if let Some((mcpo_1, mcpo_16)) = &mcpo_rows {
        println!(
            "throughput vs mcpo: {:.1}× at 1 client, {:.1}× at 16 clients (target ≥ 5× at 16); p99 at 16 clients: bridge {:.0} µs, mcpo {:.0} µs",
            bridge_1.throughput() / mcpo_1.throughput(),
            bridge_16.throughput() / mcpo_16.throughput(),
            micros(bridge_16.percentile(0.99)),
            micros(mcpo_16.percentile(0.99)),
        );
    }
    match (idle_rss, loaded_rss) {
        (Some(idle), Some(loaded)) => println!(
            "bridge RSS without its children: idle {:.1} MiB (target ≤ 15 MiB), after the load {:.1} MiB",
            idle as f64 / 1024.0,
            loaded as f64 / 1024.0
        ),
        _ => println!("bridge RSS: unavailable (no /proc)"),
    }
    large_results(&exe).await;
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
