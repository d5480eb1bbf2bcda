//! The bridge's memory while it takes in a large result from a real stdio MCP server: its peak
//! above its idle RSS stays within twice the result's text (decoded the way rmcp decodes, the
//! text was held about six times over), and once kept, about once.
//!
//! Linux only: the peak is /proc's `VmHWM`, which macOS and Windows do not report.
#![cfg(target_os = "linux")]

mod common;

use common::{BridgeProcess, bridge_exe, status_kib};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_result_costs_at_most_twice_its_size_at_the_peak() {
    const BYTES: usize = 24 * 1000 * 1000;
    let root = tempfile::tempdir().unwrap();
    // Line breaks and quotes are escaped on the wire; the other characters take 1 to 4 bytes.
    let mut text = String::with_capacity(BYTES + 100);
    let mut n = 0;
    while text.len() < BYTES {
        text.push_str(&format!("{n:07} \"ünïcødé\" € 😀 a line of a large file\n"));
        n += 1;
    }
    std::fs::write(root.path().join("large.txt"), &text).unwrap();
    std::fs::write(root.path().join("small.txt"), "small").unwrap();
    let (bytes, chars) = (text.len(), text.chars().count());
    drop(text);
    let config = json!({"mcpServers": {"demo": {"command": bridge_exe(),
        "args": ["demo-server", "--root", root.path()]}}});
    let bridge = BridgeProcess::start(Some(config), &[]);
    let read = |path: &str| json!({"name": "read_text_file", "arguments": {"path": path}});
    for _ in 0..5 {
        let (status, body) = bridge.execute(read("small.txt")).await;
        assert_eq!(status, 200, "{body}");
    }
    let pid = bridge.pid();
    let idle = status_kib(pid, "VmRSS:");

    let (status, body) = bridge.execute(read("large.txt")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["page"]["total_chars"], chars, "{}", body["page"]);
    let peak = status_kib(pid, "VmHWM:");
    let kept = status_kib(pid, "VmRSS:");

    let result_kib = bytes as f64 / 1024.0;
    let peak_ratio = (peak.saturating_sub(idle)) as f64 / result_kib;
    let kept_ratio = (kept.saturating_sub(idle)) as f64 / result_kib;
    assert!(
        peak_ratio <= 2.0,
        "the bridge's peak RSS rose {peak_ratio:.2}× a {bytes}-byte result above its idle {idle} KiB (peak {peak} KiB)"
    );
    assert!(
        kept_ratio <= 1.3,
        "with the result kept the bridge holds {kept_ratio:.2}× it above idle ({kept} KiB)"
    );
}
