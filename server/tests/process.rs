//! The real `mcp-bridge` binary with real MCP servers from the package registries — the demo
//! server, `mcp-server-time` (PyPI) and `@modelcontextprotocol/server-everything` (npm): many
//! concurrent calls, clean shutdown without orphans, start-up errors, logs.

mod common;

use std::time::Duration;

use common::{BridgeProcess, TOKEN};
#[cfg(unix)]
use common::{descendants, process_alive, send_signal};
use serde_json::{Value, json};

const TIME_HINT: &str = "run ./build.sh setup (pip install mcp-server-time into .tools/venv)";
const EVERYTHING_HINT: &str = "run ./build.sh setup (npm install at the repository root)";

fn three_servers() -> Value {
    json!({"mcpServers": {
        "demo": BridgeProcess::demo_entry(),
        "time": BridgeProcess::path_entry("mcp-server-time", TIME_HINT, &["--local-timezone", "UTC"]),
        "everything": BridgeProcess::path_entry("mcp-server-everything", EVERYTHING_HINT, &["stdio"]),
    }})
}

async fn execute(bridge: &BridgeProcess, client: &reqwest::Client, body: Value) -> (u16, Value) {
    let response = client
        .post(bridge.url("/execute"))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON body"))
}

fn text_of(body: &Value) -> &str {
    body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn real_servers_answer_through_the_bridge() {
    let bridge = BridgeProcess::start(Some(three_servers()), &[]);
    let client = BridgeProcess::client();

    let (status, body) = execute(
        &bridge,
        &client,
        json!({"name": "get_current_time", "arguments": {"timezone": "Asia/Shanghai"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(text_of(&body).contains("Asia/Shanghai"), "{body}");

    // mcp-server-time reports a bad timezone as a tool error: 200 with isError.
    let (status, body) = execute(
        &bridge,
        &client,
        json!({"name": "get_current_time", "arguments": {"timezone": "Mars/Olympus"}, "serverName": "time"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["isError"], true, "{body}");

    let (status, body) = execute(
        &bridge,
        &client,
        json!({"name": "echo", "arguments": {"message": "hi everything"}, "serverName": "everything"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(text_of(&body).contains("hi everything"), "{body}");

    // `echo` exists on demo and everything: without serverName the first in config order wins.
    let (status, body) = execute(
        &bridge,
        &client,
        json!({"name": "echo", "arguments": {"text": "first"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(text_of(&body), "first");

    let tools: Value = client
        .get(bridge.url("/tools"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let names: Vec<&str> = tools["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["demo", "time", "everything"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_concurrent_calls_across_three_servers() {
    let bridge = BridgeProcess::start(Some(three_servers()), &[]);
    let client = BridgeProcess::client();
    let zones = ["UTC", "Asia/Shanghai", "Europe/Paris", "America/New_York"];
    let calls = (0..100).map(|n| {
        let (client, bridge) = (&client, &bridge);
        async move {
            let (body, expect) = match n % 3 {
                0 => (
                    json!({"name": "echo", "serverName": "demo", "arguments": {"text": format!("demo-{n}")}}),
                    format!("demo-{n}"),
                ),
                1 => {
                    let zone = zones[n % zones.len()];
                    (
                        json!({"name": "get_current_time", "serverName": "time", "arguments": {"timezone": zone}}),
                        zone.to_owned(),
                    )
                }
                _ => (
                    json!({"name": "echo", "serverName": "everything", "arguments": {"message": format!("everything-{n}")}}),
                    format!("everything-{n}"),
                ),
            };
            let (status, reply) = execute(bridge, client, body).await;
            (n, status, reply, expect)
        }
    });
    let results = futures::future::join_all(calls).await;
    assert_eq!(results.len(), 100);
    for (n, status, reply, expect) in results {
        assert_eq!(status, 200, "call {n}: {reply}");
        assert_eq!(reply["result"]["isError"], false, "call {n}: {reply}");
        assert!(
            text_of(&reply).contains(&expect),
            "call {n} got the wrong answer: {reply}"
        );
    }
}

/// Unix only (POSIX signals); signals.rs says what covers Windows.
#[cfg(unix)]
fn stop_leaves_no_orphans(signal: i32, config: Value) {
    let mut bridge = BridgeProcess::start(Some(config), &[]);
    let children = descendants(bridge.pid());
    assert!(
        !children.is_empty(),
        "the bridge runs its MCP servers as children"
    );
    send_signal(bridge.pid(), signal);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Ok(Some(status)) = bridge.child.try_wait() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the bridge did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.success(),
        "clean exit: {status:?}; stderr: {}",
        bridge.stderr()
    );
    // Children may take a moment to be reaped by init after their parent is gone.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let alive: Vec<u32> = children
            .iter()
            .copied()
            .filter(|pid| process_alive(*pid))
            .collect();
        if alive.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "orphaned MCP processes after shutdown: {alive:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(unix)]
#[test]
fn sigterm_stops_every_mcp_process() {
    stop_leaves_no_orphans(libc::SIGTERM, three_servers());
}

#[cfg(unix)]
#[test]
fn sigint_stops_every_mcp_process() {
    stop_leaves_no_orphans(
        libc::SIGINT,
        json!({"mcpServers": {"demo": BridgeProcess::demo_entry(), "demo2": BridgeProcess::demo_entry()}}),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_fails_to_start_is_unavailable_and_the_others_work() {
    let config = json!({"mcpServers": {
        "broken": {"command": "sh", "args": ["-c", "echo 'fatal: DATABASE_URL is not set' >&2; exit 1"]},
        "missing": {"command": "/nonexistent/mcp-server"},
        "demo": BridgeProcess::demo_entry(),
    }});
    let bridge = BridgeProcess::start(Some(config), &[]);
    let client = BridgeProcess::client();

    let (status, body) = execute(
        &bridge,
        &client,
        json!({"name": "echo", "arguments": {"text": "ok"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    let (status, body) = execute(
        &bridge,
        &client,
        json!({"name": "anything", "serverName": "broken"}),
    )
    .await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["detail"]["type"], "ServerUnavailable");
    assert!(
        body["detail"]["traceback"]
            .as_str()
            .unwrap()
            .contains("DATABASE_URL is not set"),
        "its stderr: {body}"
    );
    let (status, body) = execute(
        &bridge,
        &client,
        json!({"name": "anything", "serverName": "missing"}),
    )
    .await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body["detail"]["error"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/mcp-server")
    );

    let tools: Value = client
        .get(bridge.url("/tools"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let statuses: Vec<(&str, &str)> = tools["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("broken", "unavailable"),
            ("missing", "unavailable"),
            ("demo", "running")
        ]
    );
    assert!(
        bridge.stderr().contains("failed to start"),
        "logged: {}",
        bridge.stderr()
    );
}

#[test]
fn a_bad_config_stops_start_up_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp-config.json");
    std::fs::write(
        &path,
        "{\n  \"mcpServers\": {\n    \"time\": {\n      \"command\": \"x\",\n      \"args\": \"not-a-list\"\n    }\n  }\n}\n",
    )
    .unwrap();
    let output = std::process::Command::new(common::bridge_exe())
        .args(["--port", "0", "--token", TOKEN, "--config"])
        .arg(&path)
        .env("MCP_BRIDGE_CONFIG_DIR", dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(stderr.contains("mcpServers.time.args"), "{stderr}");
    assert!(stderr.contains("line 5"), "{stderr}");

    std::fs::write(&path, "{ \"mcpServers\": { ").unwrap();
    let output = std::process::Command::new(common::bridge_exe())
        .args(["--port", "0", "--token", TOKEN, "--config"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not valid JSON"), "{stderr}");
}

#[test]
fn a_port_in_use_gives_one_clear_line() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(common::bridge_exe())
        .args(["--port", &port, "--token", TOKEN])
        .env("MCP_BRIDGE_CONFIG_DIR", dir.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let line = stderr
        .lines()
        .find(|line| line.contains("already in use"))
        .unwrap_or_else(|| panic!("no port-in-use line: {stderr}"));
    assert!(line.contains(&port), "{line}");
    assert!(line.contains("--port"), "says what to do: {line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_run_creates_a_private_token_and_demo_server() {
    let bridge = BridgeProcess::start_raw(None, &[]);
    let token_path = bridge.dir.path().join("token");
    let token = std::fs::read_to_string(&token_path)
        .unwrap()
        .trim()
        .to_owned();
    assert_eq!(token.len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&token_path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(
        bridge.stdout_lines.iter().any(|line| line.contains(&token)),
        "the token is printed at start: {:?}",
        bridge.stdout_lines
    );
    let client = BridgeProcess::client();
    let response = client.get(bridge.url("/tools")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 401);
    let body: Value = client
        .get(bridge.url("/tools"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        body["services"][0]["name"], "demo",
        "no config: the demo server runs"
    );
    assert!(!bridge.stderr().contains(&token), "the token is not logged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_one_line_per_failure_with_the_trace_id() {
    let config = json!({"mcpServers": {"demo": {
        "command": common::bridge_exe(),
        "args": ["demo-server"],
        "env": {"DEMO_TOKEN": "env-secret-value-777"}
    }}});
    let bridge = BridgeProcess::start(Some(config), &["--log-format", "json"]);
    let client = BridgeProcess::client();
    let response = client
        .post(bridge.url("/execute"))
        .bearer_auth(TOKEN)
        .json(
            &json!({"name": "fail_runtime", "arguments": {"message": "bad env-secret-value-777"}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 500);
    let trace_id = response.headers()["x-trace-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["detail"]["trace_id"], trace_id.as_str());
    // The log line is written before the response; allow for buffering anyway.
    let mut found = None;
    for _ in 0..100 {
        let log = bridge.stderr();
        found = log
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .find(|line| {
                line["message"] == "tool call failed" && line["trace_id"] == trace_id.as_str()
            });
        if found.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let line = found.unwrap_or_else(|| panic!("no JSON failure line: {}", bridge.stderr()));
    assert_eq!(line["error_type"], "RuntimeError");
    assert_eq!(line["server"], "demo");
    assert_eq!(line["tool"], "fail_runtime");
    let log = bridge.stderr();
    assert!(
        !log.contains("env-secret-value-777"),
        "env values never reach the log"
    );
    assert!(!log.contains(TOKEN), "the token is not logged");
    for line in log.lines().filter(|line| !line.trim().is_empty()) {
        assert!(
            serde_json::from_str::<Value>(line).is_ok(),
            "not JSON: {line}"
        );
    }
}

/// The demo server speaks MCP whether its stdio are pipes (read on the event loop) or a
/// file and a pipe (tokio's blocking stdio): both paths answer `initialize` and a call.
#[test]
fn demo_server_answers_over_pipes_and_over_a_file() {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::process::{Command, Stdio};

    let lines = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}),
    ]
    .map(|m| m.to_string() + "\n")
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("requests.jsonl");
    std::fs::write(&file, &lines).unwrap();

    for over_pipe in [true, false] {
        let mut command = Command::new(common::bridge_exe());
        command
            .arg("demo-server")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if over_pipe {
            command.stdin(Stdio::piped());
        } else {
            command.stdin(std::fs::File::open(&file).unwrap());
        }
        let mut child = command.spawn().expect("start the demo server");
        // Kept open over the pipe until the answers are read: EOF ends the session.
        let stdin = child.stdin.take();
        if let Some(mut stdin) = stdin.as_ref() {
            stdin.write_all(lines.as_bytes()).unwrap();
        }
        let mut answers = BufReader::new(child.stdout.take().unwrap()).lines();
        let first: Value = serde_json::from_str(&answers.next().unwrap().unwrap()).unwrap();
        assert_eq!(first["id"], 1, "{first}");
        assert_eq!(first["result"]["serverInfo"]["name"], "mcp-bridge-demo");
        let second: Value = serde_json::from_str(&answers.next().unwrap().unwrap()).unwrap();
        assert_eq!(second["id"], 2, "{second}");
        assert_eq!(
            second["result"]["content"][0]["text"], "hi",
            "pipe: {over_pipe}"
        );
        drop(stdin);
        let status = child.wait().unwrap();
        assert!(
            status.code().is_some(),
            "the demo server ends when its input ends"
        );
    }
}

/// At the default log level a successful call writes no line (formatting, masking and writing
/// one per call was a good part of the bridge's work per call), while a refused request still
/// does, with its trace id, method, path and status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_successful_call_logs_nothing_by_default_and_a_refused_request_one_line() {
    let bridge = BridgeProcess::launch(common::Launch {
        args: &["--token", TOKEN, "--log-format", "json"],
        env: &[("RUST_LOG", "info,rmcp=warn")],
        ..common::Launch::default()
    });
    bridge.wait_started(Duration::from_secs(60));
    let client = BridgeProcess::client();
    let ok = client
        .post(bridge.url("/execute"))
        .bearer_auth(TOKEN)
        .json(&json!({"name": "echo", "arguments": {"text": "quiet please"}}))
        .send()
        .await
        .unwrap();
    assert!(ok.status().is_success(), "{}", ok.status());
    let ok_trace = ok.headers()["x-trace-id"].to_str().unwrap().to_owned();
    ok.bytes().await.unwrap();
    let refused = client
        .post(bridge.url("/execute"))
        .json(&json!({"name": "echo", "arguments": {"text": "no token"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 401);
    let refused_trace = refused.headers()["x-trace-id"].to_str().unwrap().to_owned();
    let lines = |log: &str| -> Vec<Value> {
        log.lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .collect()
    };
    // The refused request's line comes after anything the successful one wrote.
    let mut found = None;
    for _ in 0..100 {
        found = lines(&bridge.stderr())
            .into_iter()
            .find(|line| line["trace_id"] == refused_trace.as_str());
        if found.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let line =
        found.unwrap_or_else(|| panic!("no line for the refused request: {}", bridge.stderr()));
    assert_eq!(line["message"], "request answered");
    assert_eq!(line["level"], "INFO");
    assert_eq!(line["status"], 401);
    assert_eq!(line["method"], "POST");
    assert_eq!(line["path"], "/execute");
    let log = bridge.stderr();
    assert!(
        !log.contains(&ok_trace),
        "the successful request was logged: {log}"
    );
    assert!(!log.contains("tool call succeeded"), "{log}");
    assert!(!log.contains("quiet please"), "{log}");
}
