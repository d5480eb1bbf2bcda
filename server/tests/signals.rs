//! Stopping (real binary): SIGHUP stops as gracefully as SIGTERM, a bridge killed with SIGKILL
//! leaves no MCP server behind (grandchildren included), and a call still running when the
//! shutdown drain ends is answered as a shutdown, not as a crash.
//!
//! Unix only: these are POSIX signals, sent with `kill`. On Windows the bridge stops on the
//! console's control events and its servers live in a job object that Windows kills with it;
//! no test here sends another process a console event, so that path is covered only by
//! `BridgeProcess`'s stop (a kill) in the other tests and by pairing_smoke.sh's runs.
#![cfg(unix)]

mod common;

use std::time::Duration;

use common::{BridgeProcess, TOKEN, bridge_exe, descendants, process_alive, send_signal};
use serde_json::{Value, json};

/// Wait until none of `pids` is alive; the ones still alive after `limit` are killed (so a
/// failing test leaves nothing behind) and returned.
fn survivors(pids: &[u32], limit: Duration) -> Vec<u32> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let alive: Vec<u32> = pids.iter().copied().filter(|p| process_alive(*p)).collect();
        if alive.is_empty() || std::time::Instant::now() >= deadline {
            for pid in &alive {
                send_signal(*pid, libc::SIGKILL);
            }
            return alive;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A server with a grandchild that ignores stdin: `sh` starts `sleep`, then becomes the demo
/// server (as `npx` starts `node`).
fn server_with_grandchild() -> Value {
    let script = format!(
        "sleep 300 & exec '{}' demo-server --root '{}'",
        bridge_exe().display(),
        common::demo_root().display()
    );
    json!({"command": "sh", "args": ["-c", script]})
}

#[test]
fn sighup_stops_as_gracefully_as_sigterm() {
    let mut bridge = BridgeProcess::start(
        Some(
            json!({"mcpServers": {"demo": BridgeProcess::demo_entry(), "g": server_with_grandchild()}}),
        ),
        &[],
    );
    let children = descendants(bridge.pid());
    assert!(
        children.len() >= 3,
        "servers and the grandchild run: {children:?}"
    );
    send_signal(bridge.pid(), libc::SIGHUP);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Ok(Some(status)) = bridge.child.try_wait() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "SIGHUP did not stop the bridge"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.success(),
        "a clean exit: {status:?}: {}",
        bridge.stderr()
    );
    assert!(bridge.stderr().contains("SIGHUP"), "{}", bridge.stderr());
    let left = survivors(&children, Duration::from_secs(15));
    assert!(left.is_empty(), "processes left after SIGHUP: {left:?}");
}

#[test]
fn a_killed_bridge_leaves_no_mcp_server_behind() {
    let mut bridge = BridgeProcess::start(
        Some(
            json!({"mcpServers": {"demo": BridgeProcess::demo_entry(), "g": server_with_grandchild()}}),
        ),
        &[],
    );
    let children = descendants(bridge.pid());
    assert!(
        children.len() >= 3,
        "servers and the grandchild run: {children:?}"
    );
    send_signal(bridge.pid(), libc::SIGKILL);
    let _ = bridge.child.wait();
    let left = survivors(&children, Duration::from_secs(15));
    assert!(
        left.is_empty(),
        "processes left after kill -9 of the bridge: {left:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cut_short_by_shutdown_is_reported_as_a_shutdown() {
    let bridge = BridgeProcess::start(None, &[]);
    let call = tokio::spawn({
        let url = bridge.url("/execute");
        async move {
            let response = BridgeProcess::client()
                .post(url)
                .bearer_auth(TOKEN)
                .json(&json!({"name": "slow", "arguments": {"seconds": 60}}))
                .send()
                .await
                .map_err(|err| format!("no answer: {err}"))?;
            let status = response.status().as_u16();
            let body: Value = response.json().await.map_err(|err| err.to_string())?;
            Ok::<_, String>((status, body))
        }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    send_signal(bridge.pid(), libc::SIGTERM);
    let (status, body) = tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .expect("the call is answered within the drain")
        .unwrap()
        .unwrap();
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["detail"]["type"], "BridgeShuttingDown", "{body}");
    let error = body["detail"]["error"].as_str().unwrap();
    assert!(error.contains("shutting down"), "{error}");
    assert!(
        !error.contains("crashed") && !error.contains("restarts"),
        "{error}"
    );
}

/// Whoever read the bridge's output has gone (a closed terminal, `mcp-bridge | tee` after `tee`
/// exited): both streams are pipes whose read ends are closed. SIGTERM still stops it, with
/// its MCP servers, within a few seconds.
#[test]
fn a_stop_ends_even_when_no_one_reads_the_output() {
    use std::io::{BufRead as _, BufReader};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcp-config.json"),
        json!({"mcpServers": {"demo": BridgeProcess::demo_entry(), "g": server_with_grandchild()}})
            .to_string(),
    )
    .unwrap();
    let mut child = Command::new(bridge_exe())
        .args(["--port", "0", "--token", TOKEN])
        .env("MCP_BRIDGE_CONFIG_DIR", dir.path())
        .env_remove("MCP_BRIDGE_CONFIG")
        .env_remove("MCP_BRIDGE_PORT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let stderr = child.stderr.take().unwrap();
    // Read until both servers report, so that the bridge is fully up.
    let mut line = String::new();
    let mut reported = 0;
    while reported < 2 {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the bridge ended early"
        );
        if line.trim_start().starts_with("server ") {
            reported += 1;
        }
    }
    let children = descendants(child.id());
    assert!(
        children.len() >= 3,
        "servers and the grandchild run: {children:?}"
    );
    drop(stdout);
    drop(stderr);
    let status = terminate_within(&mut child, Duration::from_secs(10));
    let left = survivors(&children, Duration::from_secs(10));
    assert!(
        status.is_some(),
        "SIGTERM did not stop a bridge whose output no one reads"
    );
    assert!(left.is_empty(), "processes left: {left:?}");
}

/// A server whose grandchild escapes its process group: a subshell starts `setsid sh` (a new
/// session, so a new group), which records its pid in `pid_file` and becomes `sleep`; the
/// subshell exits at once, so the grandchild is an orphan. Then the shell becomes the demo
/// server.
#[cfg(target_os = "linux")]
fn server_with_escaped_grandchild(pid_file: &std::path::Path) -> Value {
    let script = format!(
        "(setsid sh -c 'echo $$ > \"{}\"; exec sleep 300' &); exec '{}' demo-server --root '{}'",
        pid_file.display(),
        bridge_exe().display(),
        common::demo_root().display()
    );
    json!({"command": "sh", "args": ["-c", script]})
}

/// The pid the escaped grandchild recorded (waiting a little for it to be written).
#[cfg(target_os = "linux")]
fn recorded_pid(pid_file: &std::path::Path) -> u32 {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(pid) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok())
        {
            return pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the grandchild never wrote its pid"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_grandchild_that_left_the_process_group_goes_when_the_bridge_stops() {
    let scratch = tempfile::tempdir().unwrap();
    let pid_file = scratch.path().join("grandchild.pid");
    let mut bridge = BridgeProcess::start(
        Some(json!({"mcpServers": {"g": server_with_escaped_grandchild(&pid_file)}})),
        &[],
    );
    let grandchild = recorded_pid(&pid_file);
    assert!(process_alive(grandchild));
    assert!(
        descendants(bridge.pid()).contains(&grandchild),
        "the bridge adopted the orphan (it is a subreaper)"
    );
    assert!(bridge.terminate(Duration::from_secs(30)).is_some());
    let left = survivors(&[grandchild], Duration::from_secs(10));
    assert!(
        left.is_empty(),
        "the setsid grandchild outlived the bridge: {left:?}"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grandchild_that_left_the_process_group_goes_when_its_server_restarts() {
    let scratch = tempfile::tempdir().unwrap();
    let pid_file = scratch.path().join("grandchild.pid");
    let bridge = BridgeProcess::start(
        Some(json!({"mcpServers": {
            "g": server_with_escaped_grandchild(&pid_file),
            "demo": BridgeProcess::demo_entry(),
        }})),
        &[],
    );
    let first = recorded_pid(&pid_file);
    std::fs::remove_file(&pid_file).unwrap();
    let (status, body) = bridge
        .request(axum::http::Method::POST, "/servers/g/restart", None)
        .await;
    assert_eq!(status, 200, "{body}");
    let second = recorded_pid(&pid_file);
    assert_ne!(first, second);
    let left = survivors(&[first], Duration::from_secs(10));
    assert!(
        left.is_empty(),
        "the old grandchild outlived its server's restart"
    );
    assert!(
        process_alive(second),
        "the new generation's grandchild runs"
    );
    // Another server is not touched by this one's restart.
    let (status, body) = bridge
        .execute(json!({"serverName": "demo", "name": "echo", "arguments": {"text": "still here"}}))
        .await;
    assert_eq!(status, 200, "{body}");
    drop(bridge);
    let left = survivors(&[second], Duration::from_secs(10));
    assert!(left.is_empty());
}

/// A pipe whose buffer is already full and which nobody reads: any write to it blocks.
#[cfg(unix)]
fn full_pipe() -> (std::io::PipeReader, std::io::PipeWriter) {
    use std::io::Write as _;
    use std::os::fd::AsRawFd as _;
    let (reader, mut writer) = std::io::pipe().unwrap();
    let fd = writer.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    let chunk = [b'x'; 4096];
    while writer.write(&chunk).is_ok() {}
    // Blocking again: the bridge's writes wait, as with a reader that stopped reading.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
    }
    (reader, writer)
}

/// The bridge's stderr is a pipe that is open but never read (a stalled `tee`, a paused
/// terminal), already full: logging never blocks the bridge — it starts, answers requests
/// that log, and SIGTERM stops it with its servers within a few seconds.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn a_stalled_stderr_blocks_neither_the_bridge_nor_its_stop() {
    use std::io::{BufRead as _, BufReader};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcp-config.json"),
        json!({"mcpServers": {"demo": BridgeProcess::demo_entry(), "g": server_with_grandchild()}})
            .to_string(),
    )
    .unwrap();
    let (stalled, write_end) = full_pipe();
    let mut child = Command::new(bridge_exe())
        .args(["--port", "0", "--token", TOKEN])
        .env("MCP_BRIDGE_CONFIG_DIR", dir.path())
        .env("RUST_LOG", "debug")
        .env_remove("MCP_BRIDGE_CONFIG")
        .env_remove("MCP_BRIDGE_PORT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(write_end))
        .spawn()
        .unwrap();
    // Stdout is read (in a thread, so a bridge that hangs fails the test instead of it).
    let stdout = child.stdout.take().unwrap();
    let (lines, heard) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut port = None;
    let mut reported = 0;
    let deadline = std::time::Instant::now() + common::START_LIMIT;
    while port.is_none() || reported < 2 {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let Ok(line) = heard.recv_timeout(left) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the bridge did not start with its stderr stalled");
        };
        if let Some((_, p)) = line.split_once("listening on http://127.0.0.1:") {
            port = p.trim().parse::<u16>().ok();
        }
        if line.trim_start().starts_with("server ") {
            reported += 1;
        }
    }
    let port = port.unwrap();
    let children = descendants(child.id());
    // Requests that log (a refused token, an unknown tool), far more than the queue holds.
    let client = BridgeProcess::client();
    for i in 0..300 {
        let token = if i % 2 == 0 { TOKEN } else { "wrong" };
        let response = tokio::time::timeout(
            Duration::from_secs(10),
            client
                .post(format!("http://127.0.0.1:{port}/execute"))
                .bearer_auth(token)
                .json(&json!({"name": format!("no_such_tool_{i}"), "arguments": {}}))
                .send(),
        )
        .await;
        assert!(
            matches!(response, Ok(Ok(_))),
            "request {i} was not answered: {response:?}"
        );
    }
    let status = terminate_within(&mut child, Duration::from_secs(10));
    let left = survivors(&children, Duration::from_secs(10));
    drop(stalled);
    assert!(
        status.is_some(),
        "SIGTERM did not stop a bridge whose stderr is stalled"
    );
    assert!(left.is_empty(), "processes left: {left:?}");
}

/// SIGTERM `child` and wait up to `limit` for it to exit; its status, or `None` (then it is
/// killed, so no test leaves it behind).
fn terminate_within(
    child: &mut std::process::Child,
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    send_signal(child.id(), libc::SIGTERM);
    let deadline = std::time::Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() >= deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    status
}
