//! Tool annotations through the real `mcp-bridge` binary: each tool of `GET /tools?serverName=`
//! and `GET /tool-detail` carries the `annotations` its server declared — `mcp-server-time`
//! (PyPI) marks its tools read-only, the demo server tells which of its tools change anything.

mod common;

use common::BridgeProcess;
use serde_json::{Value, json};

const TIME_HINT: &str = "run ./build.sh setup (pip install mcp-server-time into .tools/venv)";

fn tools_of(listing: &Value) -> Vec<Value> {
    listing["tools"]["tools"].as_array().expect("tools").clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_carry_the_annotations_their_servers_declare() {
    let config = json!({"mcpServers": {
        "demo": BridgeProcess::demo_entry(),
        "time": BridgeProcess::path_entry("mcp-server-time", TIME_HINT, &["--local-timezone", "UTC"]),
    }});
    let bridge = BridgeProcess::start(Some(config), &[]);

    let (status, listing) = bridge.get("/tools?serverName=time").await;
    assert_eq!(status, 200, "{listing}");
    let tools = tools_of(&listing);
    assert!(tools.len() >= 2, "{listing}");
    for tool in &tools {
        let annotations = &tool["annotations"];
        assert_eq!(annotations["readOnlyHint"], true, "{tool}");
        assert_eq!(annotations["destructiveHint"], false, "{tool}");
        assert_eq!(annotations["openWorldHint"], false, "{tool}");
    }

    let (status, listing) = bridge.get("/tools?serverName=demo").await;
    assert_eq!(status, 200, "{listing}");
    let hints = |name: &str| {
        let tool = tools_of(&listing)
            .into_iter()
            .find(|tool| tool["name"] == name)
            .unwrap_or_else(|| panic!("no tool {name}"));
        let annotations = tool["annotations"].clone();
        (
            annotations["readOnlyHint"].clone(),
            annotations["destructiveHint"].clone(),
        )
    };
    for read_only in [
        "echo",
        "add",
        "get_time",
        "read_text_file",
        "fail_validation",
        "fail_runtime",
        "fail_logical",
    ] {
        assert_eq!(hints(read_only), (json!(true), json!(false)), "{read_only}");
    }
    assert_eq!(hints("slow"), (json!(false), json!(false)));
    assert_eq!(hints("crash"), (json!(false), json!(true)));

    // Only the hints declared, in MCP's camelCase.
    let (status, detail) = bridge.get("/tool-detail?toolName=crash").await;
    assert_eq!(status, 200, "{detail}");
    assert_eq!(
        detail["tool"]["annotations"],
        json!({"title": "Crash the demo server", "readOnlyHint": false, "destructiveHint": true,
               "idempotentHint": true, "openWorldHint": false})
    );
    let (_, detail) = bridge
        .get("/tool-detail?toolName=get_current_time&serverName=time")
        .await;
    assert_eq!(
        detail["tool"]["annotations"]["readOnlyHint"], true,
        "{detail}"
    );
}
