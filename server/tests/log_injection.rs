//! What others write cannot forge the bridge's log: a tool's error text (which the AI steers
//! through its arguments) and a server's name (from the config) are logged with their control
//! characters escaped — against the real binary and its real stderr. (A name with control
//! characters is refused outright: `config_errors`; one with a bidirectional override, which is
//! no control character, is escaped.)

mod common;

use std::time::Duration;

use common::BridgeProcess;
use serde_json::json;

#[tokio::test]
async fn tool_errors_and_server_names_cannot_forge_log_lines() {
    let name = "demo\u{202e}2026-01-01T00:00:00.000000Z  INFO reversed by the name";
    let bridge = BridgeProcess::start(
        Some(json!({"mcpServers": {name: BridgeProcess::demo_entry()}})),
        &[],
    );
    let message = "boom\nFORGED  WARN the tool wrote this line\u{1b}]0;pwned\u{7}\r";
    let (status, body) = bridge
        .execute(json!({"name": "fail_runtime", "arguments": {"message": message}}))
        .await;
    assert_eq!(status, 500, "{body}");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let log = loop {
        let log = bridge.stderr();
        if log.contains("tool call failed") || std::time::Instant::now() > deadline {
            break log;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(log.contains("tool call failed"), "{log}");
    // The text is there, escaped, on the line that logged it.
    assert!(log.contains("boom\\nFORGED"), "{log}");
    assert!(log.contains("demo\\u{202e}2026-01-01"), "{log}");
    for line in log.lines() {
        assert!(
            !line.starts_with("FORGED") && !line.starts_with("2026-01-01"),
            "a forged line: {line:?}"
        );
    }
    assert!(
        !log.contains(['\u{1b}', '\u{7}', '\r', '\u{202e}']),
        "{log:?}"
    );
}
