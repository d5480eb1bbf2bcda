//! No known secret leaves the bridge on any channel (real binary): a hostile MCP server of the
//! tests' own (`tests/support/hostile_server.py`) sends its configured `env` secret, the
//! bridge's token and, over HTTP, its header credential without the scheme back on every
//! channel MCP gives it, and each channel comes out of the bridge masked; a server behind a
//! sign-in (`common/oauth_server.rs`) echoes the access and refresh tokens the bridge holds
//! for it, and they come out masked too.

mod common;
#[path = "common/https.rs"]
mod https;
#[path = "common/oauth_server.rs"]
mod oauth_server;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axum::http::Method;
use common::{BridgeProcess, TOKEN, require_on_path};
use mcp_bridge_protocol::requests::{
    Complete, Completed, ElicitationAnswer, GetPrompt, ReadResource,
};
use serde_json::{Value, json};

/// The `env` secret configured for the hostile server.
const ENV_SECRET: &str = "env-secret-4711-abcdef";
/// The credential of the remote server's `Authorization: Bearer …` header.
const HEADER_CREDENTIAL: &str = "header-credential-0815-xyz";

const LIMIT: Duration = Duration::from_secs(60);

fn python() -> PathBuf {
    require_on_path(
        "python",
        "run ./build.sh setup (its venv holds the Python MCP SDK, which mcp-server-time brings)",
    )
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/hostile_server.py")
}

/// A file holding `value`, for the hostile server to read (its secrets are named on its
/// command line, never written into the bridge's config).
fn secret_file(dir: &Path, name: &str, value: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, value).unwrap();
    path.to_string_lossy().into_owned()
}

/// What a channel's leak reads once masked: its name, then a mask per secret.
fn masked(channel: &str, secrets: usize) -> String {
    std::iter::once(channel)
        .chain(std::iter::repeat_n("***", secrets))
        .collect::<Vec<_>>()
        .join("_")
}

/// Every channel the hostile server leaks on, with the answer of the bridge it shows up in.
struct Answers(Vec<(&'static str, String)>);

impl Answers {
    fn add(&mut self, channels: &[&'static str], body: &Value) {
        let text = body.to_string();
        self.0
            .extend(channels.iter().map(|channel| (*channel, text.clone())));
    }

    /// Each channel arrived, masked, and no secret is in any answer; every failure named.
    fn check(&self, secrets: &[&str]) {
        let failures: Vec<String> = self
            .0
            .iter()
            .filter_map(|(channel, text)| {
                let leaked: Vec<&&str> = secrets.iter().filter(|s| text.contains(**s)).collect();
                let arrived = text.contains(&masked(channel, secrets.len()));
                (!leaked.is_empty() || !arrived).then(|| {
                    format!("{channel}: leaked {leaked:?}, arrived masked {arrived}: {text}")
                })
            })
            .collect();
        assert!(
            failures.is_empty(),
            "{} of {} channels failed:\n{}",
            failures.len(),
            self.0.len(),
            failures.join("\n")
        );
    }
}

async fn post(bridge: &BridgeProcess, path: &str, body: impl serde::Serialize) -> Value {
    let body = serde_json::to_value(body).unwrap();
    let (status, answer) = bridge.request(Method::POST, path, Some(&body)).await;
    assert_eq!(status, 200, "{path}: {answer}");
    answer
}

async fn get(bridge: &BridgeProcess, path: &str) -> Value {
    let (status, answer) = bridge.get(path).await;
    assert_eq!(status, 200, "{path}: {answer}");
    answer
}

/// What the bridge answers for the lists, a rendered prompt, a completion and a resource.
async fn lists_and_requests(bridge: &BridgeProcess, answers: &mut Answers) {
    let tools = get(bridge, "/tools?serverName=hostile").await;
    answers.add(
        &[
            "instructions",
            "tool-name",
            "tool-description",
            "schema-key",
            "schema-description",
        ],
        &tools,
    );
    let prompts = get(bridge, "/prompts").await;
    answers.add(
        &["prompt-name", "prompt-description", "prompt-argument"],
        &prompts,
    );
    let prompt = GetPrompt {
        server_name: "hostile",
        name: "plain",
        arguments: serde_json::Map::new(),
    };
    let rendered = post(bridge, "/prompts/get", prompt).await;
    answers.add(
        &[
            "rendered-description",
            "rendered-text",
            "rendered-file-uri",
            "rendered-file-text",
        ],
        &rendered,
    );
    let complete = Complete {
        server_name: "hostile",
        of: Completed::Prompt("plain"),
        argument: "topic",
        value: "",
        context: None,
    };
    let completed = post(bridge, "/complete", complete).await;
    answers.add(&["completion-value"], &completed);
    let resources = get(bridge, "/resources").await;
    answers.add(
        &["resource-uri", "resource-name", "resource-description"],
        &resources,
    );
    let templates = get(bridge, "/resource-templates").await;
    answers.add(
        &["template-uri", "template-name", "template-description"],
        &templates,
    );
    let uri = json!("hostile://plain");
    let read = ReadResource {
        server_name: Some("hostile"),
        uri: &uri,
    };
    let read = post(bridge, "/resources/read", read).await;
    answers.add(&["resource-text"], &read);
}

/// A background call of the tool `leak`, let through unmasked (which lets through shapes,
/// never known secrets): its progress, its question and its result.
async fn a_call(bridge: &BridgeProcess, answers: &mut Answers) {
    let (status, started) = bridge
        .execute(
            json!({"name": "leak", "serverName": "hostile", "arguments": {},
                        "wait": 0, "unmasked": true}),
        )
        .await;
    assert_eq!(status, 202, "{started}");
    let id = started["call_id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + LIMIT;
    let asked = loop {
        let (status, polled) = bridge.get(&format!("/calls/{id}?wait=20")).await;
        assert_eq!(status, 202, "{polled}");
        if polled.get("elicitation").is_some() {
            break polled;
        }
        assert!(Instant::now() < deadline, "no question came: {polled}");
    };
    answers.add(
        &["progress-message", "question-message", "question-url"],
        &asked,
    );
    let question_id = asked["elicitation"]["id"].as_str().unwrap();
    let (status, answer) = bridge
        .request(
            Method::POST,
            &format!("/calls/{id}/elicitation"),
            Some(
                &serde_json::to_value(ElicitationAnswer {
                    action: "decline",
                    question_id: Some(question_id),
                    content: None,
                })
                .unwrap(),
            ),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    let done = loop {
        let (status, polled) = bridge.get(&format!("/calls/{id}?wait=20")).await;
        if status != 202 {
            assert_eq!(status, 200, "{polled}");
            break polled;
        }
        assert!(Instant::now() < deadline, "the call never finished");
    };
    answers.add(
        &[
            "result-text",
            "result-embedded-uri",
            "result-embedded-text",
            "result-link-uri",
            "result-link-name",
            "result-link-description",
            "result-meta",
        ],
        &done,
    );
}

/// A local server: its `env` secret and the bridge's token (which it reads from a file; the
/// bridge never gives it) on every channel.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_channel_of_a_local_server_carries_a_configured_secret_or_the_bridge_token() {
    let files = tempfile::tempdir().unwrap();
    let token = secret_file(files.path(), "token", TOKEN);
    let config = json!({"mcpServers": {"hostile": {
        "command": python(),
        "args": [script(), token],
        "env": {"HOSTILE_SECRET": ENV_SECRET},
        "timeout": common::START_LIMIT.as_secs(),
    }}});
    let bridge = BridgeProcess::start(Some(config), &[]);
    let mut answers = Answers(Vec::new());
    lists_and_requests(&bridge, &mut answers).await;
    a_call(&bridge, &mut answers).await;
    answers.check(&[ENV_SECRET, TOKEN]);
}

/// The hostile server over streamable HTTP; stopped when dropped.
struct Remote {
    child: Child,
    url: String,
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Remote {
    /// Serves on a free port of its own choosing, which it prints first.
    fn start(files: &[String]) -> Self {
        let mut child = Command::new(python())
            .arg(script())
            .arg("--http")
            .args(files)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the hostile server");
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let port: u16 = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("no port: {line:?}"));
        Remote {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

/// A remote server: the credential of its configured `Authorization: Bearer …` header comes
/// back without its scheme, and is masked on every channel as the whole header value is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_channel_of_a_remote_server_carries_its_header_credential() {
    let files = tempfile::tempdir().unwrap();
    let credential = secret_file(files.path(), "credential", HEADER_CREDENTIAL);
    let remote = Remote::start(&[credential]);
    let config = json!({"mcpServers": {"hostile": {
        "type": "streamable-http",
        "url": remote.url,
        "headers": {"Authorization": format!("Bearer {HEADER_CREDENTIAL}")},
        "timeout": common::START_LIMIT.as_secs(),
    }}});
    let bridge = BridgeProcess::start(Some(config), &[]);
    let mut answers = Answers(Vec::new());
    lists_and_requests(&bridge, &mut answers).await;
    let (status, result) = bridge
        .execute(
            json!({"name": "plain-result", "serverName": "hostile", "arguments": {},
                        "unmasked": true}),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    answers.add(&["plain-result"], &result);
    answers.check(&[HEADER_CREDENTIAL]);
}

/// A server behind a sign-in: the access and refresh tokens the bridge holds for it, echoed in
/// a result the user lets through unmasked, are masked all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sign_in_tokens_never_come_back_from_the_server_they_are_for() {
    let server = oauth_server::OAuthServer::start().await;
    let config = json!({"mcpServers": {"wiki": {
        "type": "streamable-http",
        "url": server.mcp_url(),
        "timeout": 20,
    }}});
    let bridge = BridgeProcess::start(Some(config), &[]);
    let (status, answer) = bridge
        .request(Method::POST, "/servers/wiki/sign-in", None)
        .await;
    assert_eq!(status, 200, "{answer}");
    // What a browser does: consent at once, then the redirect back to the bridge.
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let consented = browser
        .get(answer["authorization_url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    let back = consented.headers()["location"].to_str().unwrap().to_owned();
    let page = browser.get(&back).send().await.unwrap();
    assert_eq!(page.status(), 200, "{back}");
    let (access, refresh) = {
        let behaviour = server.behaviour.lock().unwrap();
        let access = behaviour.tokens.iter().next().cloned().unwrap();
        (access, behaviour.refresh_tokens_issued()[0].clone())
    };
    let text = format!("access {access} refresh {refresh}");
    let call = json!({"name": "echo", "serverName": "wiki", "arguments": {"text": text},
                      "unmasked": true});
    let deadline = Instant::now() + LIMIT;
    let (status, body) = loop {
        let (status, body) = bridge.execute(call.clone()).await;
        // The server restarts with the tokens after the sign-in.
        if status == 200 || Instant::now() > deadline {
            break (status, body);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"]["content"][0]["text"], "access *** refresh ***",
        "{body}"
    );
    assert_eq!(body["masked"], 2, "{body}");
}
