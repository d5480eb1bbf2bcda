//! Managing servers while the bridge runs (real binary): adding `mcp-server-time` with
//! `PUT /servers/{name}`, breaking, fixing, disabling and deleting it, each change restarting
//! only the server it touches; hand edits of the config file picked up, an invalid one logged
//! while the servers keep running; the refusals (web Origin, no token, `--no-auth`); importing
//! from a Claude Desktop config with a clash; `mcp-bridge config path|check`; a first server
//! added with the built-in demo server kept (`?keep_builtin=true`) or set aside.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use axum::http::Method;
use common::{BridgeProcess, Launch, START_LIMIT, TOKEN, bridge_exe};
use mcp_bridge_protocol::requests::{Import, SetEnabled};
use serde_json::{Value, json};

/// A body as the extension writes it.
fn sent(body: impl serde::Serialize) -> Value {
    serde_json::to_value(body).unwrap()
}

/// How long a change may take to show (servers start in the background; the machine is busy).
const CHANGE_LIMIT: Duration = Duration::from_secs(90);

fn time_entry() -> Value {
    BridgeProcess::path_entry(
        "mcp-server-time",
        "run ./build.sh setup (pip install mcp-server-time into .tools/venv)",
        &["--local-timezone", "UTC"],
    )
}

/// One server of `GET /servers`.
async fn server_info(bridge: &BridgeProcess, name: &str) -> Option<Value> {
    let (status, body) = bridge.get("/servers").await;
    assert_eq!(status, 200, "{body}");
    body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .cloned()
}

/// Poll `GET /servers` until `name` satisfies `wanted`; its last state comes back.
async fn wait_for(bridge: &BridgeProcess, name: &str, wanted: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + CHANGE_LIMIT;
    loop {
        let info = server_info(bridge, name).await.unwrap_or(Value::Null);
        if wanted(&info) {
            return info;
        }
        assert!(
            Instant::now() < deadline,
            "server `{name}` never reached the state wanted; last: {info}; bridge stderr: {}",
            bridge.stderr()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn config_of(bridge: &BridgeProcess) -> Value {
    let text = std::fs::read_to_string(bridge.dir.path().join("mcp-config.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Send a request with these headers (no token unless given).
async fn send(
    bridge: &BridgeProcess,
    method: reqwest::Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = BridgeProcess::client().request(method, bridge.url(path));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_is_added_broken_fixed_disabled_and_deleted_restarting_only_itself() {
    let bridge = BridgeProcess::start(
        Some(
            json!({"globalShortcut": "Ctrl+Q", "mcpServers": {"demo": BridgeProcess::demo_entry()}}),
        ),
        &[],
    );
    let demo_pid = server_info(&bridge, "demo").await.unwrap()["pid"].clone();
    assert!(demo_pid.is_u64(), "{demo_pid}");

    // Add: the tools appear in /tools; the file was written with a backup, unknown keys kept.
    let (status, body) = bridge
        .request(Method::PUT, "/servers/time", Some(&time_entry()))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["created"], true);
    assert_eq!(body["changes"]["added"], json!(["time"]));
    assert_eq!(body["changes"]["unchanged"], json!(["demo"]));
    let info = wait_for(&bridge, "time", |s| s["status"] == "running").await;
    assert!(info["tool_count"].as_u64().unwrap() >= 1, "{info}");
    let (status, tools) = bridge.get("/tools?serverName=time").await;
    assert_eq!(status, 200, "{tools}");
    assert!(tools.to_string().contains("get_current_time"), "{tools}");
    let config = config_of(&bridge);
    assert_eq!(config["globalShortcut"], "Ctrl+Q");
    let backup = bridge.dir.path().join("mcp-config.json.bak");
    let previous: Value = serde_json::from_str(&std::fs::read_to_string(&backup).unwrap()).unwrap();
    assert!(previous["mcpServers"].get("time").is_none(), "{previous}");

    // A definition that does not validate is refused, naming the field; nothing changes.
    let (status, body) = bridge
        .request(Method::PUT, "/servers/time", Some(&json!({"args": []})))
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"]["field"], "mcpServers.time.command", "{body}");
    assert_eq!(body["detail"]["type"], "InvalidServerDefinition");
    assert!(config_of(&bridge)["mcpServers"]["time"]["command"].is_string());

    // Break its command: the failure and its stderr show.
    let broken = json!({"command": "sh", "args": ["-c", "echo time-server-is-broken >&2; exit 3"]});
    let (status, body) = bridge
        .request(Method::PUT, "/servers/time", Some(&broken))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["changes"]["restarted"], json!(["time"]));
    let info = wait_for(&bridge, "time", |s| {
        s["status"] == "unavailable" || s["status"] == "crashed"
    })
    .await;
    assert!(
        info["stderr"]
            .as_str()
            .unwrap()
            .contains("time-server-is-broken"),
        "{info}"
    );
    assert!(info["last_error"].is_string(), "{info}");

    // Fix it.
    let (status, _) = bridge
        .request(Method::PUT, "/servers/time", Some(&time_entry()))
        .await;
    assert_eq!(status, 200);
    let info = wait_for(&bridge, "time", |s| s["status"] == "running").await;
    let time_pid = info["pid"].as_u64().unwrap() as u32;

    // Restart gives a new process.
    let (status, body) = bridge
        .request(Method::POST, "/servers/time/restart", None)
        .await;
    assert_eq!(status, 200, "{body}");
    wait_for(&bridge, "time", |s| {
        s["status"] == "running" && s["pid"].as_u64() != Some(time_pid.into())
    })
    .await;
    let time_pid = server_info(&bridge, "time").await.unwrap()["pid"]
        .as_u64()
        .unwrap() as u32;

    // Disable: stopped, kept in the file.
    let (status, body) = bridge
        .request(
            Method::PATCH,
            "/servers/time",
            Some(&sent(SetEnabled { enabled: false })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["changes"]["removed"], json!(["time"]));
    let info = server_info(&bridge, "time").await.unwrap();
    assert_eq!(info["status"], "disabled", "{info}");
    assert_eq!(info["enabled"], false);
    assert!(
        !common::process_alive(time_pid),
        "the disabled server's process is gone"
    );
    assert_eq!(config_of(&bridge)["mcpServers"]["time"]["enabled"], false);

    // Delete.
    let (status, body) = bridge.request(Method::DELETE, "/servers/time", None).await;
    assert_eq!(status, 200, "{body}");
    assert!(server_info(&bridge, "time").await.is_none());
    assert!(config_of(&bridge)["mcpServers"].get("time").is_none());
    let (status, body) = bridge.request(Method::DELETE, "/servers/time", None).await;
    assert_eq!(status, 404, "{body}");

    // The demo server ran throughout, untouched.
    assert_eq!(server_info(&bridge, "demo").await.unwrap()["pid"], demo_pid);
}

#[tokio::test(flavor = "multi_thread")]
async fn adding_a_first_server_can_keep_the_built_in_demo_server() {
    // No config file: the demo server runs built in, and is listed as such.
    let bridge = BridgeProcess::start(None, &[]);
    let demo = server_info(&bridge, "demo").await.unwrap();
    assert_eq!(demo["builtin"], true, "{demo}");
    assert!(demo["definition"].is_null(), "{demo}");
    let demo_pid = demo["pid"].clone();
    assert!(demo_pid.is_u64(), "{demo_pid}");

    // A keep that is neither true nor false is refused before anything is written.
    let (status, body) = bridge
        .request(
            Method::PUT,
            "/servers/time?keep_builtin=yes",
            Some(&time_entry()),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(body.to_string().contains("keep_builtin"), "{body}");
    assert!(!bridge.dir.path().join("mcp-config.json").exists());

    // The first server, keeping the demo: one write holds both, the demo first, and the demo
    // server keeps running as it was (the entry gives the same server).
    let (status, body) = bridge
        .request(
            Method::PUT,
            "/servers/time?keep_builtin=true",
            Some(&time_entry()),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["created"], true);
    assert_eq!(body["kept"], "demo");
    assert_eq!(body["changes"]["added"], json!(["time"]), "{body}");
    assert_eq!(body["changes"]["unchanged"], json!(["demo"]), "{body}");
    let config = config_of(&bridge);
    let names: Vec<&String> = config["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["demo", "time"], "{config}");
    assert_eq!(
        config["mcpServers"]["demo"]["args"][0], "demo-server",
        "{config}"
    );
    wait_for(&bridge, "time", |s| s["status"] == "running").await;
    let demo = server_info(&bridge, "demo").await.unwrap();
    assert_eq!(demo["pid"], demo_pid, "{demo}");
    assert_eq!(demo["builtin"], false, "{demo}");
    assert_eq!(demo["definition"]["args"][0], "demo-server", "{demo}");
    for (server, tool) in [("time", "get_current_time"), ("demo", "read_text_file")] {
        let (status, tools) = bridge.get(&format!("/tools?serverName={server}")).await;
        assert_eq!(status, 200, "{tools}");
        assert!(tools.to_string().contains(tool), "{server}: {tools}");
    }

    // Now that it is a server of the file, asking to keep it again changes nothing.
    let (status, body) = bridge
        .request(
            Method::PUT,
            "/servers/clock?keep_builtin=true",
            Some(&time_entry()),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["kept"], Value::Null, "{body}");
    drop(bridge);

    // Without keep, the first server replaces the demo.
    let bridge = BridgeProcess::start(None, &[]);
    let (status, body) = bridge
        .request(Method::PUT, "/servers/time", Some(&time_entry()))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["kept"], Value::Null, "{body}");
    assert_eq!(body["changes"]["removed"], json!(["demo"]), "{body}");
    assert!(server_info(&bridge, "demo").await.is_none());
    drop(bridge);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_cut_short_by_a_restart_says_so_and_the_next_call_runs() {
    let bridge = BridgeProcess::start(
        Some(json!({"mcpServers": {"demo": BridgeProcess::demo_entry()}})),
        &[],
    );
    let call = bridge.execute(json!({"name": "slow", "arguments": {"seconds": 60}}));
    let restart = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        bridge
            .request(Method::POST, "/servers/demo/restart", None)
            .await
    };
    let ((status, body), (restart_status, _)) = tokio::join!(call, restart);
    assert_eq!(restart_status, 200);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["detail"]["type"], "ServerUnavailable", "{body}");
    let message = body["detail"]["error"].as_str().unwrap();
    assert!(
        message.contains("restarted") && !message.contains("shutting down"),
        "{message}"
    );
    let (status, body) = bridge
        .execute(json!({"name": "echo", "arguments": {"text": "again"}}))
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn hand_edits_are_applied_and_an_invalid_one_is_logged_while_servers_keep_running() {
    let bridge = BridgeProcess::start(
        Some(json!({"mcpServers": {"demo": BridgeProcess::demo_entry()}})),
        &[],
    );
    let path = bridge.dir.path().join("mcp-config.json");
    let demo_pid = server_info(&bridge, "demo").await.unwrap()["pid"].clone();
    let started = Instant::now();
    let mut entry = BridgeProcess::demo_entry();
    entry["env"] = json!({"DEMO_SECRET": "hand-edit-secret-value"});
    std::fs::write(
        &path,
        serde_json::to_string_pretty(
            &json!({"mcpServers": {"demo": BridgeProcess::demo_entry(), "second": entry}}),
        )
        .unwrap(),
    )
    .unwrap();
    let info = wait_for(&bridge, "second", |s| s["status"] == "running").await;
    eprintln!("hand edit applied in {:?}", started.elapsed());
    assert_eq!(info["definition"]["env"]["DEMO_SECRET"], "***", "{info}");
    let (_, revealed) = bridge.get("/servers?reveal=second").await;
    let revealed = revealed["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "second")
        .unwrap()
        .clone();
    assert_eq!(
        revealed["definition"]["env"]["DEMO_SECRET"],
        "hand-edit-secret-value"
    );
    let second_pid = info["pid"].clone();
    assert_eq!(
        server_info(&bridge, "demo").await.unwrap()["pid"],
        demo_pid,
        "an unchanged server is not restarted"
    );

    // An edit that does not validate: logged with file, line and field; nothing restarts.
    std::fs::write(
        &path,
        "{\"mcpServers\": {\n  \"demo\": {\"command\": \"x\"},\n  \"second\": {\"args\": []}\n}}\n",
    )
    .unwrap();
    let deadline = Instant::now() + CHANGE_LIMIT;
    while !bridge.stderr().contains("does not validate") {
        assert!(Instant::now() < deadline, "{}", bridge.stderr());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let log = bridge.stderr();
    assert!(log.contains(&path.display().to_string()), "{log}");
    assert!(log.contains("mcpServers.second.command"), "{log}");
    assert!(log.contains("line 3"), "{log}");
    assert!(!log.contains("hand-edit-secret-value"), "{log}");
    // The change was read and refused (the log line above says so, and a refused change is
    // not applied later): the servers run as before.
    assert_eq!(server_info(&bridge, "demo").await.unwrap()["pid"], demo_pid);
    assert_eq!(
        server_info(&bridge, "second").await.unwrap()["pid"],
        second_pid
    );
    // The routes do not write over a file that does not validate.
    let (status, body) = bridge
        .request(
            Method::PATCH,
            "/servers/demo",
            Some(&json!({"enabled": false})),
        )
        .await;
    assert_eq!(status, 409, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_routes_refuse_web_origins_missing_tokens_and_no_auth() {
    let bridge = BridgeProcess::start(
        Some(json!({"mcpServers": {"demo": BridgeProcess::demo_entry()}})),
        &[],
    );
    let bearer = format!("Bearer {TOKEN}");
    let routes: [(reqwest::Method, &str, Option<Value>); 6] = [
        (reqwest::Method::GET, "/servers", None),
        (
            reqwest::Method::PUT,
            "/servers/evil",
            Some(json!({"command": "touch", "args": ["/tmp/pwned"]})),
        ),
        (
            reqwest::Method::PATCH,
            "/servers/demo",
            Some(json!({"enabled": false})),
        ),
        (reqwest::Method::DELETE, "/servers/demo", None),
        (reqwest::Method::POST, "/servers/demo/restart", None),
        (
            reqwest::Method::POST,
            "/servers/import",
            Some(json!({"names": ["x"]})),
        ),
    ];
    for (method, path, body) in &routes {
        let (status, answer) = send(
            &bridge,
            method.clone(),
            path,
            &[
                ("Authorization", &bearer),
                ("Origin", "https://evil.example"),
            ],
            body.clone(),
        )
        .await;
        assert_eq!(status, 403, "{method} {path} from a web origin: {answer}");
        assert_eq!(answer["detail"]["type"], "Forbidden");
        let (status, _) = send(&bridge, method.clone(), path, &[], body.clone()).await;
        assert_eq!(status, 401, "{method} {path} without a token");
        let (status, _) = send(
            &bridge,
            method.clone(),
            path,
            &[("Authorization", "Bearer wrong-token-0000000")],
            body.clone(),
        )
        .await;
        assert_eq!(status, 401, "{method} {path} with a wrong token");
    }
    // The extension's options page may use them (CORS allows PUT and PATCH for it).
    let response = BridgeProcess::client()
        .request(reqwest::Method::OPTIONS, bridge.url("/servers/demo"))
        .header("Origin", "chrome-extension://abcdefghijklmnop")
        .header("Access-Control-Request-Method", "PATCH")
        .header(
            "Access-Control-Request-Headers",
            "authorization,content-type",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let allowed = response.headers()["access-control-allow-methods"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        allowed.contains("PATCH") && allowed.contains("PUT"),
        "{allowed}"
    );

    // Nothing was changed by the refused requests.
    assert_eq!(
        config_of(&bridge)["mcpServers"].as_object().unwrap().len(),
        1
    );
    assert_eq!(
        server_info(&bridge, "demo").await.unwrap()["status"],
        "running"
    );

    let open = BridgeProcess::start_raw(
        Some(json!({"mcpServers": {"demo": BridgeProcess::demo_entry()}})),
        &["--no-auth"],
    );
    for (method, path, body) in &routes {
        let (status, answer) = send(&open, method.clone(), path, &[], body.clone()).await;
        assert_eq!(status, 403, "{method} {path} under --no-auth: {answer}");
        assert!(
            answer["detail"]["error"]
                .as_str()
                .unwrap()
                .contains("--no-auth"),
            "{answer}"
        );
    }
    assert!(config_of(&open)["mcpServers"].get("evil").is_none());
}

/// A home directory with a Claude Desktop config holding `demo` (a clash) and `echoer`.
fn home_with_claude_config(home: &Path) {
    let dir = home.join(".config").join("Claude");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("claude_desktop_config.json"),
        serde_json::to_string_pretty(&json!({"mcpServers": {
            "demo": {"command": "claude-own-demo"},
            "echoer": BridgeProcess::demo_entry(),
        }}))
        .unwrap(),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn import_from_claude_desktop_reports_the_clash_and_adds_the_rest() {
    let home = tempfile::tempdir().unwrap();
    home_with_claude_config(home.path());
    let home_str = home.path().to_str().unwrap();
    let xdg = home.path().join(".config");
    let bridge = BridgeProcess::launch(Launch {
        config: Some(json!({"mcpServers": {"demo": BridgeProcess::demo_entry()}})),
        args: &["--token", TOKEN],
        env: &[
            ("HOME", home_str),
            ("XDG_CONFIG_HOME", xdg.to_str().unwrap()),
        ],
        prepare: None,
    });
    bridge.wait_started(START_LIMIT);

    let (status, preview) = bridge
        .request(Method::POST, "/servers/import", Some(&json!({})))
        .await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["dry_run"], true);
    let found = preview["found"]["servers"].as_array().unwrap();
    let demo = found.iter().find(|s| s["name"] == "demo").unwrap();
    assert!(demo["clash"].is_string(), "{demo}");
    assert_eq!(
        found.iter().find(|s| s["name"] == "echoer").unwrap()["addable"],
        true
    );
    assert!(
        config_of(&bridge)["mcpServers"].get("echoer").is_none(),
        "a preview writes nothing"
    );

    let (status, report) = bridge
        .request(
            Method::POST,
            "/servers/import",
            Some(&sent(Import {
                from: None,
                names: Some(&["demo".to_owned(), "echoer".to_owned()]),
            })),
        )
        .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["added"], json!(["echoer"]));
    assert_eq!(report["clashes"][0]["name"], "demo");
    let config = config_of(&bridge);
    assert_ne!(config["mcpServers"]["demo"]["command"], "claude-own-demo");
    wait_for(&bridge, "echoer", |s| s["status"] == "running").await;

    // The CLI finds the same file and reports the clash.
    let target = tempfile::tempdir().unwrap();
    std::fs::write(
        target.path().join("mcp-config.json"),
        r#"{"mcpServers": {"demo": {"command": "mine"}}}"#,
    )
    .unwrap();
    let output = Command::new(bridge_exe())
        .args(["config", "import", "--yes"])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", &xdg)
        .env("MCP_BRIDGE_CONFIG_DIR", target.path())
        .env_remove("MCP_BRIDGE_CONFIG")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("claude_desktop_config.json"), "{stdout}");
    assert!(stdout.contains("demo: not imported"), "{stdout}");
    assert!(stdout.contains("imported echoer"), "{stdout}");
    let text = std::fs::read_to_string(target.path().join("mcp-config.json")).unwrap();
    let config: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(config["mcpServers"]["demo"]["command"], "mine");
    assert!(config["mcpServers"]["echoer"].is_object());
    assert!(target.path().join("mcp-config.json.bak").is_file());
}

#[test]
fn config_path_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let output = Command::new(bridge_exe())
            .args(args)
            .env("MCP_BRIDGE_CONFIG_DIR", dir.path())
            .env_remove("MCP_BRIDGE_CONFIG")
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let path = dir.path().join("mcp-config.json");
    let (code, stdout, _) = run(&["config", "path"]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout.trim(), path.display().to_string());

    std::fs::write(
        &path,
        r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "enabled": false}}}"#,
    )
    .unwrap();
    let (code, stdout, _) = run(&["config", "check"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.starts_with("ok: 1 servers (1 disabled)"), "{stdout}");

    let other = dir.path().join("other.json");
    std::fs::write(
        &other,
        "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",\n    \"timeout\": -1}\n}}\n",
    )
    .unwrap();
    let (code, _, stderr) = run(&["config", "check", other.to_str().unwrap()]);
    assert_ne!(code, Some(0));
    assert!(stderr.contains(&other.display().to_string()), "{stderr}");
    assert!(stderr.contains("line 3"), "{stderr}");
    assert!(stderr.contains("mcpServers.a.timeout"), "{stderr}");
}

/// `GET /servers` (the route, through the real binary) shows secret-looking `args` masked:
/// a flag's value, a `KEY=value` pair, a provider key, a URL's password.
#[tokio::test(flavor = "multi_thread")]
async fn get_servers_masks_secret_looking_args() {
    let key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123";
    let mut entry = BridgeProcess::demo_entry();
    entry["enabled"] = json!(false);
    entry["args"] = json!([
        "--api-key",
        "plainvalue99",
        "GITHUB_TOKEN=gh-value-77",
        key,
        "https://bob:pw1234@db.example/x",
        "--port",
        "8080"
    ]);
    let bridge = BridgeProcess::start(Some(json!({"mcpServers": {"hidden": entry}})), &[]);
    let info = server_info(&bridge, "hidden").await.unwrap();
    let shown = info.to_string();
    for secret in ["plainvalue99", "gh-value-77", "abcdefghijklmnop", "pw1234"] {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
    assert_eq!(
        info["definition"]["args"],
        json!([
            "--api-key",
            "***",
            "GITHUB_TOKEN=***",
            "***",
            "https://bob:***@db.example/x",
            "--port",
            "8080"
        ]),
        "{info}"
    );
    // The file keeps the values.
    assert_eq!(
        config_of(&bridge)["mcpServers"]["hidden"]["args"][1],
        "plainvalue99"
    );
}
