//! Exhaustion (real binary): slow clients are cut off and refused past a connection cap while
//! the bridge keeps answering, a server writing stderr without newlines costs bounded memory,
//! and `/health` answers while a slow server is still starting.

mod common;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{BridgeProcess, Launch, TOKEN, bridge_exe, http_raw};
use serde_json::{Value, json};

fn get_health(port: u16) -> (String, Duration) {
    let started = Instant::now();
    let reply = http_raw(
        port,
        &format!("GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"),
        Duration::from_secs(10),
    );
    (reply, started.elapsed())
}

fn echo(port: u16) -> (String, Duration) {
    let body = json!({"name": "echo", "arguments": {"text": "still here"}}).to_string();
    let started = Instant::now();
    let reply = http_raw(
        port,
        &format!(
            "POST /execute HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
        Duration::from_secs(10),
    );
    (reply, started.elapsed())
}

/// A connection that sends half a request's headers and then nothing.
fn slow_client(port: u16) -> TcpStream {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .write_all(format!("GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ").as_bytes())
        .unwrap();
    stream
}

#[test]
fn slow_clients_are_cut_off_and_refused_past_the_cap_while_the_bridge_answers() {
    let bridge = BridgeProcess::start(None, &["--max-connections", "40", "--header-timeout", "3"]);
    let port = bridge.port;
    let mut slow: Vec<TcpStream> = (0..30).map(|_| slow_client(port)).collect();
    std::thread::sleep(Duration::from_millis(200));
    // Answers at all (each request gives up after 10 s); how fast is the benchmark's figure.
    let (reply, took) = get_health(port);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    eprintln!("/health with 30 slow clients: {took:?}");
    let (reply, took) = echo(port);
    assert!(
        reply.starts_with("HTTP/1.1 200") && reply.contains("still here"),
        "{reply}"
    );
    eprintln!("a call with 30 slow clients: {took:?}");

    // Fill the cap: the next connection is refused with a clear answer.
    // The bridge takes the new connections in its own time (a loaded machine): asked until
    // it refuses, for at most 10 s; a request it answers meanwhile closes and frees its place.
    slow.extend((0..10).map(|_| slow_client(port)));
    let deadline = Instant::now() + Duration::from_secs(10);
    let reply = loop {
        let (reply, _) = get_health(port);
        if reply.starts_with("HTTP/1.1 503") || Instant::now() > deadline {
            break reply;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
    assert!(reply.contains("connections open"), "{reply}");

    // The slow clients are disconnected after the header timeout (3 s); the bridge answers
    // again. Each read ends when the bridge closes that connection, or fails after 10 s.
    let mut closed = 0;
    for stream in &mut slow {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut buffer = Vec::new();
        if stream.read_to_end(&mut buffer).is_ok() {
            closed += 1;
        }
    }
    assert_eq!(closed, slow.len(), "slow clients still connected");
    let (reply, _) = get_health(port);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
}

// Unix only: the bridge's memory is read from /proc or `ps` (BridgeProcess::rss_kib).
#[cfg(unix)]
#[test]
fn a_server_writing_stderr_without_newlines_costs_bounded_memory() {
    // 200 MB on stderr without one newline, then the demo server.
    let script = format!(
        "head -c 200000000 /dev/zero | tr '\\0' x >&2; exec '{}' demo-server --root '{}'",
        bridge_exe().display(),
        common::demo_root().display()
    );
    let bridge = BridgeProcess::start(
        Some(
            json!({"mcpServers": {"noisy": {"command": "sh", "args": ["-c", script], "timeout": 120}}}),
        ),
        &[],
    );
    let (reply, _) = echo(bridge.port);
    assert!(reply.contains("still here"), "{reply}");
    let rss_mib = bridge.rss_kib() / 1024;
    assert!(
        rss_mib < 64,
        "the bridge holds {rss_mib} MiB after 200 MB of stderr without newlines"
    );
}

#[test]
fn health_answers_at_once_while_a_slow_server_starts() {
    let script = format!(
        "sleep 4; exec '{}' demo-server --root '{}'",
        bridge_exe().display(),
        common::demo_root().display()
    );
    let launched = Instant::now();
    let bridge = BridgeProcess::launch(Launch {
        config: Some(json!({"mcpServers": {
            "slow": {"command": "sh", "args": ["-c", script]},
            "demo": BridgeProcess::demo_entry(),
        }})),
        args: &["--token", TOKEN],
        ..Launch::default()
    });
    let (reply, _) = get_health(bridge.port);
    eprintln!("/health answered {:?} after launch", launched.elapsed());
    // The slow server sleeps 4 s before it starts: still `starting` means /health did not wait.
    let body: Value = serde_json::from_str(reply.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert!(body["servers"]["starting"].as_u64() >= Some(1), "{body}");

    let tools = http_raw(
        bridge.port,
        &format!(
            "GET /tools HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n",
            bridge.port
        ),
        Duration::from_secs(10),
    );
    let tools: Value = serde_json::from_str(tools.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(tools["services"][0]["name"], "slow");
    assert_eq!(tools["services"][0]["status"], "starting", "{tools}");

    // A call to the starting server waits for it.
    let (reply, _) = echo(bridge.port);
    assert!(reply.contains("still here"), "{reply}");
    bridge.wait_started(common::START_LIMIT);
    let (reply, _) = get_health(bridge.port);
    let body: Value = serde_json::from_str(reply.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(
        body["servers"],
        json!({"starting": 0, "running": 2, "failed": 0})
    );
}
