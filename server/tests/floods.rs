//! Floods from a hostile stdio MCP server (`tests/support/flood-server.mjs`, raw JSON-RPC run by
//! node) cost the real bridge bounded memory: a burst of `list_changed` notifications is
//! coalesced into a reload or two, and questions past the few a server may have waiting are
//! declined at once instead of being held for `answer_timeout`.
//!
//! Linux only: the peak is /proc's `VmHWM`, which macOS and Windows do not report.
#![cfg(target_os = "linux")]

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{BridgeProcess, require_on_path, status_kib};
use mcp_bridge::servers::client::MAX_WAITING_QUESTIONS;
use serde_json::{Value, json};

/// The most resident memory the bridge may reach under any flood.
const BOUND_MIB: u64 = 64;

/// A bridge running only the flood server, whose questions may wait `answer_timeout` seconds.
fn flood_bridge(answer_timeout: u64) -> BridgeProcess {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/flood-server.mjs");
    BridgeProcess::start(
        Some(
            json!({"mcpServers": {"flood": {"command": node, "args": [script],
            "answer_timeout": answer_timeout, "timeout": 120}}}),
        ),
        &[],
    )
}

fn tool_names(body: &Value) -> Vec<&str> {
    body["tools"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

fn result_json(body: &Value) -> Value {
    let text = body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text result: {body}"));
    serde_json::from_str(text).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_list_changed_notifications_costs_bounded_memory() {
    let bridge = flood_bridge(600);
    let pid = bridge.pid();
    let idle = status_kib(pid, "VmRSS:");
    let (status, body) = bridge
        .execute(json!({"name": "flood_list_changed", "serverName": "flood",
            "arguments": {"count": 60000}}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(result_json(&body)["sent"], 60001, "{body}");

    // The server adds `settled` before its last notification: once it is listed, the bridge
    // has taken in the whole burst. Stop early when the bound is already broken.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (_, tools) = bridge.get("/tools?serverName=flood").await;
        if tool_names(&tools).contains(&"settled") {
            break;
        }
        if status_kib(pid, "VmHWM:") / 1024 >= BOUND_MIB {
            break;
        }
        assert!(Instant::now() < deadline, "the list never settled: {tools}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let peak = status_kib(pid, "VmHWM:");
    eprintln!(
        "60,000 list_changed: idle {idle} KiB, peak {peak} KiB, now {} KiB",
        status_kib(pid, "VmRSS:")
    );
    assert!(
        peak / 1024 < BOUND_MIB,
        "60,000 list_changed notifications took the bridge to {} MiB (idle {} MiB)",
        peak / 1024,
        idle / 1024
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_questions_is_declined_at_once_past_a_few_waiting() {
    let bridge = flood_bridge(600);
    let pid = bridge.pid();
    let idle = status_kib(pid, "VmRSS:");
    // In the background, so that a client could be shown the questions.
    let (status, body) = bridge
        .execute(
            json!({"name": "flood_questions", "serverName": "flood", "wait": 0,
            "arguments": {"count": 20000, "bytes": 1000, "wait_ms": 90000,
                "enough": 20000 - MAX_WAITING_QUESTIONS}}),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let id = body["call_id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(120);
    let done = loop {
        let (status, body) = bridge.get(&format!("/calls/{id}?wait=5")).await;
        if status != 202 {
            break body;
        }
        assert!(Instant::now() < deadline, "the call never finished");
    };
    let peak = status_kib(pid, "VmHWM:");
    eprintln!(
        "20,000 questions of 1 KB: idle {idle} KiB, peak {peak} KiB, now {} KiB",
        status_kib(pid, "VmRSS:")
    );
    let report = result_json(&done);
    // All but the few a server may have waiting come back declined, without waiting for an
    // answer (the server waits 90 s at most for them).
    assert!(
        report["declined"].as_u64() >= Some(20000 - MAX_WAITING_QUESTIONS as u64),
        "the questions were not declined at once: {report}"
    );
    assert!(
        peak / 1024 < BOUND_MIB,
        "20,000 questions took the bridge to {} MiB (idle {} MiB)",
        peak / 1024,
        idle / 1024
    );
}
