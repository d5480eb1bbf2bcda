//! Two bridges on one config file take turns: 30 concurrent changes sent through both, and
//! every change answered as done is in the file (before the lock, about a third were lost to
//! a read-modify-write of the other bridge) — real processes, real file.

mod common;

use axum::http::Method;
use common::BridgeProcess;
use serde_json::{Value, json};

const CHANGES: usize = 30;

#[tokio::test]
async fn concurrent_changes_through_two_bridges_are_all_kept() {
    let first = BridgeProcess::start(Some(json!({"mcpServers": {}})), &[]);
    let config = first.dir.path().join("mcp-config.json");
    let second = BridgeProcess::start(None, &["--config", config.to_str().unwrap()]);

    // Disabled servers: the change is the file alone, no process starts.
    let changes = (0..CHANGES).map(|i| {
        let bridge = if i % 2 == 0 { &first } else { &second };
        async move {
            let name = format!("s{i:02}");
            let (status, answer) = bridge
                .request(
                    Method::PUT,
                    &format!("/servers/{name}"),
                    Some(&json!({"command": "unused", "enabled": false})),
                )
                .await;
            (name, status, answer)
        }
    });
    let answers = futures::future::join_all(changes).await;
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let kept = file["mcpServers"].as_object().unwrap();
    let mut done = 0;
    for (name, status, answer) in &answers {
        if *status == 200 {
            assert_eq!(answer["success"], true, "{answer}");
            done += 1;
            assert!(
                kept.contains_key(name),
                "{name} was answered as done but is not in the file: {file}"
            );
        } else {
            // Refused: said so, and not claimed.
            assert_ne!(answer["success"], true, "{answer}");
        }
    }
    println!(
        "{done} of {CHANGES} changes done, {} in the file",
        kept.len()
    );
    assert_eq!(
        done, CHANGES,
        "with turns taken, none needs refusing: {answers:?}"
    );
}
