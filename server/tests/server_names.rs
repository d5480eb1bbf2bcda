//! Server names that could pass for another, hide part of themselves or read as a path (real
//! binary): refused for a new entry by `PUT /servers/{name}` and by the import; in an existing
//! config file, loaded all the same, shown escaped with a warning.

mod common;

use axum::http::Method;
use std::time::Duration;

use common::{BridgeProcess, Launch, START_LIMIT, TOKEN, http_raw};
use serde_json::{Value, json};

/// `name` as one path segment: every byte but ASCII letters and digits percent-encoded.
fn segment(name: &str) -> String {
    name.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn odd_names() -> Vec<String> {
    vec![
        "a\u{202E}b".to_owned(),
        "a\u{200B}b".to_owned(),
        "c\u{430}t".to_owned(),
        "name ".to_owned(),
        "Demo".to_owned(),
        "..".to_owned(),
        "a/b".to_owned(),
        "x".repeat(5000),
    ]
}

/// `PUT /servers/{name}` sent as raw HTTP, so that no client library resolves a `..` segment.
fn put_raw(bridge: &BridgeProcess, name: &str, entry: &Value) -> String {
    let body = entry.to_string();
    let port = bridge.port;
    http_raw(
        port,
        &format!(
            "PUT /servers/{} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            segment(name),
            body.len()
        ),
        Duration::from_secs(10),
    )
}

fn config_text(bridge: &BridgeProcess) -> String {
    std::fs::read_to_string(bridge.dir.path().join("mcp-config.json")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_names_are_refused_for_new_servers_and_shown_escaped_when_already_there() {
    // An existing file with a look-alike name (a Cyrillic `е`) beside the demo server.
    let bridge = BridgeProcess::start(
        Some(json!({"mcpServers": {
            "demo": BridgeProcess::demo_entry(),
            "d\u{435}mo": BridgeProcess::demo_entry(),
        }})),
        &[],
    );
    let stderr = bridge.stderr();
    assert!(
        stderr.contains("d\\u{435}mo") && stderr.contains("would be refused for a new server"),
        "{stderr}"
    );
    let (status, servers) = bridge.get("/servers").await;
    assert_eq!(status, 200, "{servers}");
    let odd = servers["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "d\u{435}mo")
        .unwrap_or_else(|| panic!("the odd server is not listed: {servers}"));
    let warning = odd["name_warning"].as_str().unwrap_or_default();
    assert!(warning.contains("d\\u{435}mo"), "{odd}");

    let before = config_text(&bridge);
    let entry = json!({"command": "unused", "enabled": false});
    for name in odd_names() {
        let reply = put_raw(&bridge, &name, &entry);
        assert!(
            reply.starts_with("HTTP/1.1 422"),
            "{name:.40?} was not refused: {reply}"
        );
        assert!(reply.contains("cannot name a new server"), "{reply}");
    }
    assert_eq!(config_text(&bridge), before, "a refused name was written");
    // A plain name is taken, and an existing odd one may still be changed.
    let (status, body) = bridge
        .request(Method::PUT, "/servers/plain-name_2.x", Some(&entry))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = bridge
        .request(
            Method::PUT,
            &format!("/servers/{}", segment("d\u{435}mo")),
            Some(&json!({"command": "still-unused", "enabled": false})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_import_refuses_odd_names() {
    let source = tempfile::tempdir().unwrap();
    let mut servers = serde_json::Map::new();
    for name in odd_names() {
        servers.insert(name, json!({"command": "unused"}));
    }
    servers.insert("fine".to_owned(), json!({"command": "unused"}));
    let file = source.path().join("other.json");
    std::fs::write(&file, json!({"mcpServers": servers}).to_string()).unwrap();
    let bridge = BridgeProcess::launch(Launch {
        config: Some(json!({"mcpServers": {"demo": BridgeProcess::demo_entry()}})),
        args: &["--token", TOKEN],
        ..Launch::default()
    });
    bridge.wait_started(START_LIMIT);
    let (status, preview) = bridge
        .request(
            Method::POST,
            "/servers/import",
            Some(&json!({"from": file})),
        )
        .await;
    assert_eq!(status, 200, "{preview}");
    let found = preview["found"]["servers"].as_array().unwrap();
    for name in odd_names() {
        let candidate = found
            .iter()
            .find(|c| c["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name:?} not found: {preview}"));
        assert_eq!(candidate["addable"], false, "{candidate}");
    }
    let fine = found.iter().find(|c| c["name"] == "fine").unwrap();
    assert_eq!(fine["addable"], true, "{fine}");
    let mut names: Vec<Value> = odd_names().into_iter().map(Value::from).collect();
    names.push(json!("fine"));
    let (status, report) = bridge
        .request(
            Method::POST,
            "/servers/import",
            Some(&json!({"from": file, "names": names})),
        )
        .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["added"], json!(["fine"]), "{report}");
}
