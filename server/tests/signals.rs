//! Stopping (real binary): SIGHUP stops as gracefully as SIGTERM, a bridge killed with SIGKILL
//! leaves no MCP server behind (grandchildren included), and a call still running when the
//! shutdown drain ends is answered as a shutdown, not as a crash.

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
