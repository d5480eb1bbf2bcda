//! Secrets stay with the bridge (real binary): MCP servers get a deliberate environment without
//! the bridge's token, a crash report holds only its own call's stderr, credentials are masked
//! in logs, answers and start-up output, the token file is private, and the demo server reads
//! only its own folder.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{BridgeProcess, Launch, TOKEN, bridge_exe};
use serde_json::{Value, json};

async fn execute(bridge: &BridgeProcess, body: Value) -> (u16, Value) {
    let response = BridgeProcess::client()
        .post(bridge.url("/execute"))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON body"))
}

async fn get(bridge: &BridgeProcess, path: &str) -> (u16, String) {
    let response = BridgeProcess::client()
        .get(bridge.url(path))
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("request");
    (response.status().as_u16(), response.text().await.unwrap())
}

/// A stdio server that first writes its whole environment to `out`, then runs the demo server.
fn env_reporting_entry(out: &Path) -> Value {
    let script = format!(
        "env > '{}'; exec '{}' demo-server --root '{}'",
        out.display(),
        bridge_exe().display(),
        common::demo_root().display()
    );
    json!({"command": "sh", "args": ["-c", script]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_servers_do_not_inherit_the_bridge_token_or_its_variables() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("env.txt");
    let holder = format!("prefix-{TOKEN}-suffix");
    let bridge = BridgeProcess::launch(Launch {
        config: Some(json!({"mcpServers": {"envdump": env_reporting_entry(&out)}})),
        args: &[],
        env: &[
            ("MCP_BRIDGE_TOKEN", TOKEN),
            ("MCP_BRIDGE_LOG_SOMETHING", "bridge-only-value"),
            ("HOLDS_THE_TOKEN", &holder),
            ("KEEP_ME", "kept-value"),
        ],
        prepare: None,
    });
    bridge.wait_started(common::START_LIMIT);
    let (status, _) = execute(
        &bridge,
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    )
    .await;
    assert_eq!(status, 200);
    let env = std::fs::read_to_string(&out).unwrap();
    assert!(
        env.contains("KEEP_ME=kept-value"),
        "the user's environment is passed on: {env}"
    );
    assert!(
        env.lines().any(|l| l.starts_with("PATH=")),
        "PATH is passed on"
    );
    assert!(
        !env.contains(TOKEN),
        "the token reached the MCP server: {env}"
    );
    assert!(
        !env.lines().any(|l| l.starts_with("MCP_BRIDGE_")),
        "the bridge's own variables reached the MCP server: {env}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_report_holds_only_the_stderr_of_its_own_call() {
    let bridge = BridgeProcess::start(None, &[]);
    let (status, _) = execute(
        &bridge,
        json!({"name": "fail_runtime", "arguments": {"message": "earlier-call-marker"}}),
    )
    .await;
    assert_eq!(status, 500);
    let (status, body) = execute(&bridge, json!({"name": "crash", "arguments": {}})).await;
    assert_eq!(status, 502, "{body}");
    let traceback = body["detail"]["traceback"].as_str().unwrap();
    assert!(traceback.contains("demo crash requested"), "{traceback}");
    assert!(
        !traceback.contains("earlier-call-marker"),
        "an earlier call's stderr is in this crash report: {traceback}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_are_masked_in_logs_answers_and_start_up_output() {
    let url = "http://bob:s3cretpw@127.0.0.1:1/mcp?api_key=abc123456&x=1";
    let bridge = BridgeProcess::start(
        Some(json!({"mcpServers": {
            "demo": BridgeProcess::demo_entry(),
            "remote": {"type": "streamable-http", "url": url},
        }})),
        &[],
    );
    let (status, body) = execute(
        &bridge,
        json!({"name": "fail_runtime", "arguments": {"message": "login failed: password=hunter2"}}),
    )
    .await;
    assert_eq!(status, 500);
    let (tools_status, tools) = get(&bridge, "/tools?serverName=remote").await;
    assert_eq!(tools_status, 503, "{tools}");
    let (_, services) = get(&bridge, "/tools").await;
    let answers = format!("{body}\n{tools}\n{services}");
    // Every line logged for the requests above is in the log once the line of a later request
    // is (one writer, in order): a refused route is logged with its path.
    let marker = "/log-marker-after-the-secrets";
    let (marker_status, _) = get(&bridge, marker).await;
    assert_eq!(marker_status, 404);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !bridge.stderr().contains(marker) {
        assert!(
            std::time::Instant::now() < deadline,
            "the later request never reached the log: {}",
            bridge.stderr()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let logs = bridge.stderr();
    let startup = bridge.stdout_lines.join("\n");
    for secret in ["hunter2", "s3cretpw", "abc123456"] {
        assert!(
            !answers.contains(secret),
            "`{secret}` in an answer: {answers}"
        );
        assert!(!logs.contains(secret), "`{secret}` in the log: {logs}");
        assert!(
            !startup.contains(secret),
            "`{secret}` printed at start: {startup}"
        );
    }
    assert!(answers.contains("password=***"), "{answers}");
}

// Unix only: POSIX file modes and symbolic links. On Windows the bridge sets no modes (the
// token is as private as the user's profile folder) and making a link needs a privilege.
#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

#[cfg(unix)]
#[test]
fn a_token_file_others_can_read_is_repaired_and_said_so() {
    use std::os::unix::fs::PermissionsExt as _;
    let stored = "ab".repeat(32);
    let prepare = |dir: &Path| {
        std::fs::write(dir.join("token"), format!("{stored}\n")).unwrap();
        std::fs::set_permissions(dir.join("token"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    let bridge = BridgeProcess::launch(Launch {
        config: Some(json!({"mcpServers": {}})),
        args: &[],
        env: &[],
        prepare: Some(&prepare),
    });
    assert_eq!(mode(&bridge.dir.path().join("token")), 0o600);
    assert_eq!(mode(bridge.dir.path()), 0o700);
    let said = bridge.stdout_lines.join("\n");
    assert!(said.contains("Repaired permissions"), "{said}");
    assert!(said.contains("0644") && said.contains("0755"), "{said}");
    assert!(said.contains(&stored), "the stored token is kept");
}

#[cfg(unix)]
#[test]
fn the_token_is_never_written_through_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::os::unix::fs::symlink(&victim, dir.path().join("token")).unwrap();
    std::fs::write(dir.path().join("mcp-config.json"), r#"{"mcpServers": {}}"#).unwrap();
    let mut child = std::process::Command::new(bridge_exe())
        .args(["--port", "0"])
        .env("MCP_BRIDGE_CONFIG_DIR", dir.path())
        .env_remove("MCP_BRIDGE_TOKEN")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    if child.try_wait().unwrap().is_none() {
        common::send_signal(child.id(), libc::SIGTERM);
    }
    let output = child.wait_with_output().unwrap();
    assert!(!victim.exists(), "the token was written through the link");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("symbolic link"), "{stderr}");
}

#[test]
fn a_new_token_has_256_random_bits() {
    // A token made of two UUIDv4 always has the version digit `4` at positions 12 and 44.
    let mut uuid_shaped = 0;
    for _ in 0..4 {
        let bridge = BridgeProcess::launch(Launch {
            config: Some(json!({"mcpServers": {}})),
            ..Launch::default()
        });
        let token = std::fs::read_to_string(bridge.dir.path().join("token")).unwrap();
        let token = token.trim();
        assert_eq!(token.len(), 64);
        assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
        if &token[12..13] == "4" && &token[44..45] == "4" {
            uuid_shaped += 1;
        }
    }
    // For 4 random tokens the chance that all 4 look like this is 2^-32.
    assert!(uuid_shaped < 4, "every token has UUIDv4's fixed digits");
}

// Unix only: it plants a symbolic link (which needs a privilege on Windows) and asks for
// /etc/passwd.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_server_reads_only_inside_its_folder() {
    let bridge = BridgeProcess::start(None, &[]);
    let root = bridge.dir.path().join("demo-files");
    let (status, body) = execute(
        &bridge,
        json!({"name": "read_text_file", "arguments": {"path": "hello.txt"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(root.is_dir(), "the demo server creates its folder");
    let outside = bridge.dir.path().join("outside.txt");
    std::fs::write(&outside, "OUTSIDE-THE-DEMO-FOLDER").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link.txt")).unwrap();
    for path in [
        "/etc/passwd".to_owned(),
        outside.display().to_string(),
        "../outside.txt".to_owned(),
        format!("{}/../outside.txt", root.display()),
        "link.txt".to_owned(),
    ] {
        let (status, body) = execute(
            &bridge,
            json!({"name": "read_text_file", "arguments": {"path": path}}),
        )
        .await;
        assert_eq!(status, 500, "{path}: {body}");
        assert_eq!(body["detail"]["type"], "PermissionError", "{path}: {body}");
        // Three failures in a row would reach the call limit.
        BridgeProcess::client()
            .post(bridge.url("/reset-history"))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap();
        let text = body.to_string();
        assert!(
            !text.contains("OUTSIDE-THE-DEMO-FOLDER") && !text.contains("root:x:0"),
            "{text}"
        );
    }
}

/// A JWT, long enough to straddle a page break.
const JWT: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

#[tokio::test]
async fn secrets_in_successful_results_are_masked_and_counted() {
    let bridge = BridgeProcess::start(None, &[]);
    let echo = |text: String, unmasked: bool| {
        let bridge = &bridge;
        async move {
            let (status, body) = execute(
                bridge,
                json!({"name": "echo", "arguments": {"text": text}, "unmasked": unmasked}),
            )
            .await;
            assert_eq!(status, 200, "{body}");
            body
        }
    };
    // The bridge's own token, echoed back by a tool.
    let body = echo(format!("the token is {TOKEN}"), false).await;
    assert_eq!(body["result"]["content"][0]["text"], "the token is ***");
    assert_eq!(body["masked"], 1);
    // Credential shapes; a key name alone is not enough in a result.
    let pem =
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";
    let text = format!(
        "aws AKIAIOSFODNN7EXAMPLE gh ghp_0123456789abcdefghijklmnopqrstuvwxyzAB jwt {JWT}\n\
         Authorization: Bearer abc123def456ghi789jkl\nclone https://0123456789abcdef0123456789abcdef@github.com/x.git\n{pem}\n\
         generated password: kept-as-asked"
    );
    let body = echo(text.clone(), false).await;
    let shown = body["result"]["content"][0]["text"].as_str().unwrap();
    for secret in [
        "IOSFODNN7EXAMPLE",
        "0123456789abcdefghij",
        "SflKxwRJ",
        "abc123def456",
        "0123456789abcdef0123456789abcdef",
        "MIIEvQ",
    ] {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
    assert!(shown.contains("password: kept-as-asked"), "{shown}");
    assert_eq!(body["masked"], 6, "{body}");
    // The user let this tool's results through: as the tool gave them.
    let body = echo(text.clone(), true).await;
    assert_eq!(body["result"]["content"][0]["text"], text.as_str());
    assert!(body.get("masked").is_none(), "{body}");
}

/// "Pass unmasked" (the user's choice for one tool) lets through only what masking by shape
/// would hide: the bridge's own token and the server's configured secrets (its `env` values)
/// are masked whatever the request says.
#[tokio::test]
async fn a_result_passed_unmasked_still_never_carries_the_token_or_configured_secrets() {
    let configured = "configured-env-value-4711";
    let mut entry = BridgeProcess::demo_entry();
    entry["env"] = json!({"SERVICE_API_KEY": configured});
    let bridge = BridgeProcess::start(Some(json!({"mcpServers": {"demo": entry}})), &[]);
    let shape = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    let text = format!("token {TOKEN} env {configured} shape {shape}");
    let (status, body) = execute(
        &bridge,
        json!({"name": "echo", "arguments": {"text": text}, "unmasked": true}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let shown = body["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(shown, format!("token *** env *** shape {shape}"), "{body}");
    assert_eq!(body["masked"], 2, "{body}");
}

#[tokio::test]
async fn a_secret_is_masked_before_a_large_result_is_paged() {
    let bridge = BridgeProcess::start(None, &[]);
    // No space or line break: the first page ends at its character limit (8192), inside the
    // JWT, were it not masked first.
    let text = format!("{}{JWT}{}", ",".repeat(8150), ",".repeat(9000));
    let (status, body) = execute(
        &bridge,
        json!({"name": "echo", "arguments": {"text": text}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["masked"], 1, "{}", body["page"]);
    let mut joined = body["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = body["page"]["result_id"].as_str().unwrap().to_owned();
    let mut next = body["page"]["next_offset"].as_u64();
    while let Some(offset) = next {
        let (status, page) = execute(
            &bridge,
            json!({"name": "read_result", "arguments": {"result_id": id, "offset": offset}}),
        )
        .await;
        assert_eq!(status, 200, "{page}");
        joined.push_str(page["result"]["content"][0]["text"].as_str().unwrap());
        next = page["page"]["next_offset"].as_u64();
    }
    assert!(
        !joined.contains("eyJ") && !joined.contains("SflKx"),
        "a part of the JWT left"
    );
    assert_eq!(
        joined,
        format!("{}***{}", ",".repeat(8150), ",".repeat(9000))
    );
}
