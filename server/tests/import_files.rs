//! `POST /servers/import` with `{"from": path}` against the real binary: a FIFO or a device is
//! refused without being read (the bridge keeps answering meanwhile, and its memory stays put),
//! and the answer about a file is the same whether it exists, is not JSON, or is JSON of
//! another kind; a mistyped field is refused without its value echoed.

mod common;

#[cfg(unix)]
use std::time::{Duration, Instant};

use axum::http::Method;
use common::BridgeProcess;
use serde_json::{Value, json};

/// Far more than a refused import takes; far less than a stuck one.
#[cfg(unix)]
const ANSWER_LIMIT: Duration = Duration::from_secs(20);

fn import_body(path: &std::path::Path) -> Value {
    json!({"from": path})
}

#[cfg(unix)]
#[tokio::test]
async fn fifos_and_devices_are_refused_and_health_answers_meanwhile() {
    let bridge = BridgeProcess::start(None, &[]);
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("mcp.json");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);

    // Two imports of a FIFO nobody writes to, and /health asked while they run: on the
    // async threads, the two blocked reads took the runtime's two workers.
    let started = Instant::now();
    let body = import_body(&fifo);
    let first = bridge.request(Method::POST, "/servers/import", Some(&body));
    let second = bridge.request(Method::POST, "/servers/import", Some(&body));
    let health = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let asked = Instant::now();
        let answer = tokio::time::timeout(ANSWER_LIMIT, bridge.get("/health")).await;
        (answer, asked.elapsed())
    };
    let all = tokio::time::timeout(ANSWER_LIMIT, async { tokio::join!(first, second, health) });
    let ((s1, a1), (s2, a2), (health, health_took)) = all
        .await
        .unwrap_or_else(|_| panic!("the imports of a FIFO did not answer within {ANSWER_LIMIT:?}"));
    let (status, _) = health.expect("/health answered");
    assert_eq!(status, 200);
    assert!(
        health_took < Duration::from_secs(5),
        "/health took {health_took:?}"
    );
    for (status, answer) in [(s1, a1), (s2, a2)] {
        assert_eq!(status, 200, "{answer}");
        let source = &answer["found"]["sources"][0];
        assert_eq!(
            source["error"],
            mcp_bridge::config::import::UNREADABLE_GIVEN_FILE
        );
        assert_eq!(source["exists"], Value::Null);
    }
    println!("two FIFO imports answered in {:?}", started.elapsed());

    // /dev/zero is not read at all: the bridge's memory does not grow by its size.
    let before = bridge.rss_kib();
    let (status, answer) = tokio::time::timeout(
        ANSWER_LIMIT,
        bridge.request(
            Method::POST,
            "/servers/import",
            Some(&json!({"from": "/dev/zero"})),
        ),
    )
    .await
    .expect("/dev/zero answered");
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["found"]["sources"][0]["error"],
        mcp_bridge::config::import::UNREADABLE_GIVEN_FILE
    );
    let grown = bridge.rss_kib().saturating_sub(before);
    assert!(grown < 64 * 1024, "the bridge grew by {grown} KiB");
}

#[tokio::test]
async fn a_named_file_is_answered_without_telling_what_it_is() {
    let bridge = BridgeProcess::start(None, &[]);
    let dir = tempfile::tempdir().unwrap();
    let diary = dir.path().join("diary.txt");
    std::fs::write(&diary, "dear diary, my password is hunter2").unwrap();
    let package = dir.path().join("package.json");
    std::fs::write(&package, r#"{"name": "private-project"}"#).unwrap();
    let big = dir.path().join("big.json");
    std::fs::write(&big, vec![b' '; 4 * 1024 * 1024]).unwrap();
    let missing = dir.path().join("missing.json");
    let mut answers = Vec::new();
    for path in [&diary, &package, &big, &missing] {
        let (status, mut answer) = bridge
            .request(Method::POST, "/servers/import", Some(&import_body(path)))
            .await;
        assert_eq!(status, 200, "{answer}");
        let text = answer.to_string();
        assert!(
            !text.contains("hunter2") && !text.contains("private-project"),
            "{text}"
        );
        answer["found"]["sources"][0]["path"] = Value::Null;
        answers.push(answer);
    }
    for answer in &answers[1..] {
        assert_eq!(answer, &answers[0]);
    }

    // A real client config next to them still imports.
    let claude = dir.path().join("claude_desktop_config.json");
    std::fs::write(
        &claude,
        r#"{"mcpServers": {"echoer": {"command": "uvx", "args": ["mcp-server-time"]}}}"#,
    )
    .unwrap();
    let (status, answer) = bridge
        .request(Method::POST, "/servers/import", Some(&import_body(&claude)))
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["found"]["servers"][0]["name"], "echoer");
    assert_eq!(answer["found"]["sources"][0]["error"], Value::Null);
}

#[tokio::test]
async fn a_mistyped_field_is_refused_without_its_value() {
    let bridge = BridgeProcess::start(None, &[]);
    for body in [
        json!({"from": {"secret": "sk-do-not-echo-0123456789"}}),
        json!({"from": ["sk-do-not-echo-0123456789"]}),
        json!({"names": "sk-do-not-echo-0123456789"}),
    ] {
        let (status, answer) = bridge
            .request(Method::POST, "/servers/import", Some(&body))
            .await;
        assert_eq!(status, 422, "{answer}");
        assert!(
            !answer.to_string().contains("do-not-echo"),
            "the value was echoed: {answer}"
        );
    }
    let (status, answer) = bridge
        .request(
            Method::PATCH,
            "/servers/demo",
            Some(&json!({"enabled": "sk-do-not-echo-0123456789"})),
        )
        .await;
    assert_eq!(status, 422, "{answer}");
    assert!(!answer.to_string().contains("do-not-echo"), "{answer}");
}
