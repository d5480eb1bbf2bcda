//! Two bridges on one config file take turns: 30 concurrent changes sent through both, and
//! every change answered as done is in the file (before the lock, about a third were lost to
//! a read-modify-write of the other bridge), `mcp-bridge config import` beside a running bridge
//! loses nothing either, and a change that cannot get the lock in time is refused, never
//! reported as done — real processes, real file.

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
        async move { put_disabled(bridge, format!("s{i:02}")).await }
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

/// Several servers, each in a file of its own to import from.
fn import_sources(dir: &std::path::Path, count: usize) -> Vec<std::path::PathBuf> {
    (0..count)
        .map(|i| {
            let file = dir.join(format!("client-{i}.json"));
            std::fs::write(
                &file,
                json!({"mcpServers": {format!("imported{i:02}"): {"command": "unused", "enabled": false}}})
                    .to_string(),
            )
            .unwrap();
            file
        })
        .collect()
}

fn config_import(config_dir: &std::path::Path, from: &std::path::Path) -> std::process::Child {
    std::process::Command::new(common::bridge_exe())
        .args(["config", "import", "--yes", "--from"])
        .arg(from)
        .env("MCP_BRIDGE_CONFIG_DIR", config_dir)
        .env_remove("MCP_BRIDGE_CONFIG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// `mcp-bridge config import` beside a running bridge on the same file: imports and changes
/// through the bridge, run at the same time, are all in the file.
#[tokio::test(flavor = "multi_thread")]
async fn config_import_beside_a_running_bridge_keeps_both_changes() {
    let bridge = BridgeProcess::start(Some(json!({"mcpServers": {}})), &[]);
    let config = bridge.dir.path().join("mcp-config.json");
    let sources = tempfile::tempdir().unwrap();
    let imports: Vec<_> = import_sources(sources.path(), CHANGES / 2)
        .iter()
        .map(|from| config_import(bridge.dir.path(), from))
        .collect();
    let changes = (0..CHANGES / 2).map(|i| {
        let bridge = &bridge;
        async move { put_disabled(bridge, format!("put{i:02}")).await }
    });
    let answers = futures::future::join_all(changes).await;
    for child in imports {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let kept = file["mcpServers"].as_object().unwrap();
    for (name, status, answer) in &answers {
        assert_eq!(*status, 200, "{answer}");
        assert!(kept.contains_key(name), "{name} is missing: {file}");
    }
    for i in 0..CHANGES / 2 {
        let name = format!("imported{i:02}");
        assert!(kept.contains_key(&name), "{name} is missing: {file}");
    }
    assert_eq!(kept.len(), CHANGES, "{file}");
}

/// A change that cannot get `<file>.lock` in time (another process holds it) is refused,
/// saying so, and the file is left as it was; once the lock is free the same change is done.
/// The command line's import waits for the lock rather than writing beside it.
#[tokio::test(flavor = "multi_thread")]
async fn a_change_that_cannot_get_the_lock_is_refused_not_reported_as_done() {
    let bridge = BridgeProcess::start(Some(json!({"mcpServers": {}})), &[]);
    let config = bridge.dir.path().join("mcp-config.json");
    let before = std::fs::read_to_string(&config).unwrap();
    let held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(mcp_bridge::config::manage::lock_path(&config))
        .unwrap();
    held.lock().unwrap();

    let sources = tempfile::tempdir().unwrap();
    let from = &import_sources(sources.path(), 1)[0];
    let mut import = config_import(bridge.dir.path(), from);

    let started = std::time::Instant::now();
    let (status, answer) = bridge
        .request(
            Method::PUT,
            "/servers/late",
            Some(&json!({"command": "unused", "enabled": false})),
        )
        .await;
    let waited = started.elapsed();
    assert_ne!(status, 200, "{answer}");
    assert_ne!(answer["success"], true, "{answer}");
    assert!(
        answer.to_string().contains("could not be locked"),
        "{answer}"
    );
    assert!(
        waited >= mcp_bridge::config::manage::LOCK_WAIT,
        "refused only after waiting: {waited:?}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
    assert!(
        import.try_wait().unwrap().is_none(),
        "the import waits for the lock"
    );

    held.unlock().unwrap();
    drop(held);
    let output = import.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let (status, answer) = bridge
        .request(
            Method::PUT,
            "/servers/late",
            Some(&json!({"command": "unused", "enabled": false})),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert!(file["mcpServers"]["late"].is_object(), "{file}");
    assert!(file["mcpServers"]["imported00"].is_object(), "{file}");
}

/// `PUT /servers/{name}` of a disabled server (the change is the file alone, no process
/// starts): the name, with the status and answer.
async fn put_disabled(bridge: &BridgeProcess, name: String) -> (String, u16, Value) {
    let (status, answer) = bridge
        .request(
            Method::PUT,
            &format!("/servers/{name}"),
            Some(&json!({"command": "unused", "enabled": false})),
        )
        .await;
    (name, status, answer)
}
