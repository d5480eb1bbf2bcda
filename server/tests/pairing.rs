//! Pairing through the native messaging host, as the browser does it: `mcp-bridge install`
//! with HOME in a temporary folder writes the manifests, and the binary started with the
//! extension's origin answers framed requests on stdin/stdout — starting the bridge first.
// Unix: the tests stop the bridge the host started with kill(2); the manifest paths checked
// are Linux's (every OS's are unit-tested in `pairing::paths`).
#![cfg(unix)]

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

mod common;

const CHROMIUM_ORIGIN: &str = "chrome-extension://jdbdlgonhioplfeamjjapnhojcagahnf/";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn run(home: &Path, config: &Path, port: u16, args: &[&str]) -> (bool, String) {
    let out = Command::new(common::bridge_exe())
        .args(args)
        .env("HOME", home)
        .env("MCP_BRIDGE_CONFIG_DIR", config)
        .env("MCP_BRIDGE_PORT", port.to_string())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// Starts the host with `args` as a browser would, sends `request`, returns the answer.
fn ask_host(
    home: &Path,
    config: &Path,
    port: u16,
    args: &[&str],
    request: &Value,
) -> (Option<Value>, bool) {
    let mut child = Command::new(common::bridge_exe())
        .args(args)
        .env("HOME", home)
        .env("MCP_BRIDGE_CONFIG_DIR", config)
        .env("MCP_BRIDGE_PORT", port.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let body = serde_json::to_vec(request).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(&(body.len() as u32).to_ne_bytes());
    let _ = stdin.write_all(&body);
    drop(stdin);
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    let ok = child.wait().unwrap().success();
    if out.len() < 4 {
        return (None, ok);
    }
    let length = u32::from_ne_bytes(out[..4].try_into().unwrap()) as usize;
    assert_eq!(out.len(), 4 + length, "one framed answer");
    (Some(serde_json::from_slice(&out[4..]).unwrap()), ok)
}

struct Stop(Option<i32>);
impl Drop for Stop {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            // SAFETY: plain kill(2) on the bridge this test started through the host.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn install_registers_every_browser_and_uninstall_removes_it() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("cfg");
    let port = free_port();
    let (ok, out) = run(home.path(), &config, port, &["install"]);
    assert!(ok, "{out}");
    let exe = common::bridge_exe().canonicalize().unwrap();
    for (dir, origins) in [
        (".config/google-chrome/NativeMessagingHosts", true),
        (".config/chromium/NativeMessagingHosts", true),
        (".config/microsoft-edge/NativeMessagingHosts", true),
        (
            ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            true,
        ),
        (".mozilla/native-messaging-hosts", false),
    ] {
        let file = home.path().join(dir).join("dev.mcp_bridge.host.json");
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(manifest["name"], "dev.mcp_bridge.host");
        assert_eq!(manifest["type"], "stdio");
        assert_eq!(manifest["path"], exe.to_str().unwrap());
        if origins {
            assert_eq!(
                manifest["allowed_origins"],
                json!([CHROMIUM_ORIGIN]),
                "{dir}"
            );
        } else {
            assert_eq!(
                manifest["allowed_extensions"],
                json!(["mcp-bridge@mcp-bridge.dev"])
            );
        }
        assert!(out.contains(file.to_str().unwrap()), "{out}");
    }
    let (ok, status) = run(home.path(), &config, port, &["status"]);
    assert!(ok, "{status}");
    assert_eq!(status.matches(" registered ").count(), 5, "{status}");
    assert!(status.contains("not running"), "{status}");

    let (ok, out) = run(home.path(), &config, port, &["uninstall"]);
    assert!(ok, "{out}");
    assert!(
        !home
            .path()
            .join(".mozilla/native-messaging-hosts/dev.mcp_bridge.host.json")
            .exists()
    );
    let (_, status) = run(home.path(), &config, port, &["status"]);
    assert_eq!(status.matches("not registered").count(), 5, "{status}");
}

#[test]
fn the_host_starts_the_bridge_and_hands_out_its_address_and_token() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("cfg");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");

    let (answer, ok) = ask_host(
        home.path(),
        &config,
        port,
        &[CHROMIUM_ORIGIN],
        &json!({"type": "pair"}),
    );
    let endpoint: Value = std::fs::read_to_string(config.join("endpoint.json"))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let _stop = Stop(endpoint["pid"].as_i64().map(|pid| pid as i32));
    assert!(ok);
    let answer = answer.expect("an answer");
    assert_eq!(answer["type"], "paired", "{answer}");
    assert_eq!(answer["url"], url.as_str());
    assert_eq!(answer["started"], true);
    let token = std::fs::read_to_string(config.join("token")).unwrap();
    assert_eq!(answer["token"], token.trim());
    assert_eq!(endpoint["url"], url.as_str());

    // The token works on an authenticated route of the bridge the host started.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    common::http_ready();
    let status = runtime.block_on(async {
        reqwest::Client::new()
            .get(format!("{url}/tools"))
            .bearer_auth(token.trim())
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .unwrap()
            .status()
    });
    assert_eq!(status, 200);

    // Firefox's way of starting the host; the bridge runs already.
    let manifest = home
        .path()
        .join(".mozilla/native-messaging-hosts/dev.mcp_bridge.host.json");
    let (answer, _) = ask_host(
        home.path(),
        &config,
        port,
        &[manifest.to_str().unwrap(), "mcp-bridge@mcp-bridge.dev"],
        &json!({"type": "pair"}),
    );
    let answer = answer.unwrap();
    assert_eq!(
        (answer["type"].as_str(), answer["started"].as_bool()),
        (Some("paired"), Some(false))
    );
    assert_eq!(answer["token"], token.trim());

    let (_, status) = run(home.path(), &config, port, &["status"]);
    assert!(status.contains("the token is accepted"), "{status}");

    // The bridge the host started logs to a private file that never holds the token.
    let log_path = config.join("bridge.log");
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(log.contains("listening on"), "{log}");
    assert!(
        !log.contains(token.trim()),
        "the token is in bridge.log: {log}"
    );
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&log_path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "bridge.log is private");
    }

    // Stopped, it forgets its address: nothing points the host at a port no one holds.
    let pid = endpoint["pid"].as_i64().unwrap() as i32;
    // SAFETY: plain kill(2) on the bridge this test started through the host.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while common::process_alive(pid as u32) {
        assert!(
            std::time::Instant::now() < deadline,
            "the bridge did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !config.join("endpoint.json").exists(),
        "endpoint.json outlived the bridge"
    );
}

/// A listener on a free port that answers every request the way our `/health` does, and
/// records every request it receives.
fn recording_stranger(body: &'static str) -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            // Read the head (whatever arrives before the blank line or the time limit).
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
                if request.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            record
                .lock()
                .unwrap()
                .push(String::from_utf8_lossy(&request).into_owned());
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            );
        }
    });
    (port, seen)
}

/// The bridge is down; its `endpoint.json` (left by a crash) points at a port where a
/// stranger now listens, looking like the bridge: with a wrong proof, or claiming to be a
/// `--no-auth` bridge that needs none. Neither the host nor `status` sends it the token, and
/// the host does not name its address to the extension.
#[test]
fn a_stranger_listening_on_the_port_learns_nothing() {
    let wrong_proof = r#"{"status":"ok","version":"0.1.0","servers":{"starting":0,"running":1,"failed":0},"proof":"00"}"#;
    let no_auth = r#"{"status":"ok","version":"0.1.0","servers":{"starting":0,"running":1,"failed":0},"auth":"none"}"#;
    for body in [wrong_proof, no_auth] {
        let home = tempfile::tempdir().unwrap();
        let config = home.path().join("cfg");
        std::fs::create_dir_all(&config).unwrap();
        let (port, seen) = recording_stranger(body);
        let url = format!("http://127.0.0.1:{port}");
        std::fs::write(
            config.join("endpoint.json"),
            json!({"url": url, "token": "file", "pid": 1}).to_string(),
        )
        .unwrap();
        let (ok, out) = run(home.path(), &config, free_port(), &["status"]);
        assert!(ok, "{out}");
        assert!(out.contains("cannot prove"), "{body}: {out}");
        let token = std::fs::read_to_string(config.join("token")).unwrap();
        let token = token.trim();
        assert_eq!(token.len(), 64);

        let (answer, _) = ask_host(
            home.path(),
            &config,
            free_port(),
            &[CHROMIUM_ORIGIN],
            &json!({"type": "pair"}),
        );
        let answer = answer.unwrap();
        assert_eq!(answer["type"], "unavailable", "{answer}");
        assert!(answer.get("token").is_none(), "{answer}");
        assert!(!answer.to_string().contains(token), "{answer}");
        assert!(
            answer["reason"].as_str().unwrap().contains("cannot prove"),
            "{answer}"
        );
        // The unproved address is named nowhere in the answer.
        assert!(answer.get("url").is_none(), "{answer}");
        assert!(!answer.to_string().contains(&port.to_string()), "{answer}");

        let seen = seen.lock().unwrap().clone();
        assert!(
            seen.len() >= 2,
            "status and the host both asked the stranger: {seen:?}"
        );
        for request in &seen {
            assert!(
                !request.contains(token),
                "the token reached a stranger: {request}"
            );
            assert!(
                !request.to_ascii_lowercase().contains("authorization"),
                "{request}"
            );
            assert!(request.starts_with("GET /health?challenge="), "{request}");
        }
    }
}

/// `install --extension-id` lets one more extension start the host (the Chrome Web Store
/// build, whose ID the store assigns, or a fork): kept in the manifests, so a plain
/// `install` later keeps it; a malformed ID is refused before anything is written.
#[cfg(target_os = "linux")]
#[test]
fn install_extension_id_allows_one_more_extension() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("cfg");
    let port = free_port();
    let chrome = home
        .path()
        .join(".config/google-chrome/NativeMessagingHosts/dev.mcp_bridge.host.json");
    let firefox = home
        .path()
        .join(".mozilla/native-messaging-hosts/dev.mcp_bridge.host.json");
    let read = |file: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
    };

    let (ok, out) = run(
        home.path(),
        &config,
        port,
        &["install", "--extension-id", "not-an-id"],
    );
    assert!(!ok, "{out}");
    assert!(out.contains("`not-an-id` is not an extension ID"), "{out}");
    assert!(
        !home.path().join(".config").exists() && !home.path().join(".mozilla").exists(),
        "a refused install writes nothing"
    );

    let store_id = "abcdefghijklmnopabcdefghijklmnop";
    let (ok, out) = run(
        home.path(),
        &config,
        port,
        &["install", "--extension-id", store_id],
    );
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("chrome-extension://{store_id}/")),
        "{out}"
    );
    let store_origin = format!("chrome-extension://{store_id}/");
    assert_eq!(
        read(&chrome)["allowed_origins"],
        json!([CHROMIUM_ORIGIN, store_origin])
    );
    assert_eq!(
        read(&firefox)["allowed_extensions"],
        json!(["mcp-bridge@mcp-bridge.dev"])
    );

    // A later install adds a Firefox ID and keeps the Chromium one.
    let (ok, out) = run(
        home.path(),
        &config,
        port,
        &["install", "--extension-id", "fork@example.org"],
    );
    assert!(ok, "{out}");
    assert_eq!(
        read(&chrome)["allowed_origins"],
        json!([CHROMIUM_ORIGIN, store_origin])
    );
    assert_eq!(
        read(&firefox)["allowed_extensions"],
        json!(["mcp-bridge@mcp-bridge.dev", "fork@example.org"])
    );

    // The host, started by the browser for the added ID, answers (the bridge is not running
    // and its port is free, so it says so rather than starting one: the answer proves the
    // caller was accepted, where a stranger gets no answer at all).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let busy = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 2048];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    for args in [
        vec![store_origin.as_str()],
        vec![firefox.to_str().unwrap(), "fork@example.org"],
    ] {
        let (answer, _) = ask_host(home.path(), &config, busy, &args, &json!({"type": "pair"}));
        let answer = answer.unwrap_or_else(|| panic!("no answer for {args:?}"));
        assert_eq!(answer["type"], "unavailable", "{args:?}: {answer}");
    }
    // Still refused: an ID nobody added.
    let (answer, ok) = ask_host(
        home.path(),
        &config,
        busy,
        &["chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba/"],
        &json!({"type": "pair"}),
    );
    assert!(!ok && answer.is_none());

    let (ok, out) = run(home.path(), &config, port, &["uninstall"]);
    assert!(ok, "{out}");
    assert!(!chrome.exists() && !firefox.exists());
}

#[test]
fn another_extension_gets_nothing() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("cfg");
    let port = free_port();
    for args in [
        vec!["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"],
        vec!["/x/dev.mcp_bridge.host.json", "evil@example.com"],
    ] {
        let (answer, ok) = ask_host(home.path(), &config, port, &args, &json!({"type": "pair"}));
        assert!(!ok, "{args:?}");
        assert_eq!(answer, None, "{args:?}");
    }
    assert!(
        !config.join("token").exists(),
        "no token was created for a stranger"
    );
}

#[test]
fn a_stranger_on_the_port_is_not_mistaken_for_the_bridge() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("cfg");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 2048];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    let (answer, _) = ask_host(
        home.path(),
        &config,
        port,
        &[CHROMIUM_ORIGIN],
        &json!({"type": "pair"}),
    );
    let answer = answer.unwrap();
    assert_eq!(answer["type"], "unavailable");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("something else answers"),
        "{answer}"
    );
    assert!(answer["command"].as_str().unwrap().contains("mcp-bridge"));
    assert!(answer.get("token").is_none());
    assert!(answer.get("url").is_none(), "{answer}");
    assert!(!answer.to_string().contains(&port.to_string()), "{answer}");
}

/// The ID the host allows is the one Chromium derives from the manifest's `key`: the first
/// 32 hex digits of the SHA-256 of the key's DER bytes, each digit mapped 0-f → a-p.
#[test]
fn the_allowed_chromium_id_is_the_one_the_manifest_key_gives() {
    use sha2::Digest as _;
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest.json"))
            .unwrap(),
    )
    .unwrap();
    let der = base64_decode(manifest["key"].as_str().unwrap());
    let digest = sha2::Sha256::digest(&der);
    let id: String = digest[..16]
        .iter()
        .flat_map(|byte| [byte >> 4, byte & 15])
        .map(|nibble| (b'a' + nibble) as char)
        .collect();
    assert_eq!(id, mcp_bridge::pairing::paths::CHROMIUM_EXTENSION_ID);
    assert_eq!(
        manifest["browser_specific_settings"]["gecko"]["id"],
        mcp_bridge::pairing::paths::FIREFOX_EXTENSION_ID
    );
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    } as u32;
    let bytes: Vec<u8> = text.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c) << (18 - 6 * i);
        }
        out.extend_from_slice(&acc.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// On start the bridge says what to do next: paste the token, or that it is paired.
#[test]
fn the_bridge_says_what_to_do_next_when_it_starts() {
    let home = tempfile::tempdir().unwrap();
    let home_path = home.path().to_str().unwrap().to_owned();
    let unpaired = common::BridgeProcess::launch(common::Launch {
        env: &[("HOME", home_path.as_str())],
        ..common::Launch::default()
    });
    let token = std::fs::read_to_string(unpaired.dir.path().join("token")).unwrap();
    let said = unpaired.stdout_lines.join("\n");
    assert!(
        said.contains(&format!(
            "Next: paste this token into MCP Bridge → Options → Connection: {}",
            token.trim()
        )),
        "{said}"
    );
    assert!(said.contains("mcp-bridge install"), "{said}");
    drop(unpaired);

    let (ok, out) = run(
        home.path(),
        &home.path().join("cfg"),
        free_port(),
        &["install"],
    );
    assert!(ok, "{out}");
    let paired = common::BridgeProcess::launch(common::Launch {
        env: &[("HOME", home_path.as_str())],
        ..common::Launch::default()
    });
    let said = paired.stdout_lines.join("\n");
    assert!(
        said.contains("Paired with the extension (native host registered for Chrome, Chromium, Edge, Brave, Firefox)"),
        "{said}"
    );
    assert!(!said.contains("paste this token"), "{said}");
}
