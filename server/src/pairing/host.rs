//! The native messaging host: this binary, started by the browser for our extension, reading
//! requests and writing answers on stdin/stdout (each a 4-byte native-endian length, then
//! that many bytes of JSON). It answers one question — where is the bridge, and with which
//! token — and starts the bridge when it is not running. It names only an address whose
//! server proved it holds the token (`crate::proof`), and never sends the token anywhere else.

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use mcp_bridge_protocol::pairing::{self, HostError, Paired, Unavailable};
use serde_json::Value;

use super::probe::{Probe, probe};
use crate::error::to_value;

/// The browser's limit for a message to the host is 4 GiB; ours are tiny, and anything larger
/// than this is not from our extension.
const MAX_REQUEST: u32 = 64 * 1024;

/// How long the host waits for a bridge it started to answer `/health`.
const START_WAIT: Duration = Duration::from_secs(15);

/// One message from `input`: `Ok(None)` at the end of the stream.
pub(crate) fn read_message(input: &mut impl Read) -> std::io::Result<Option<Value>> {
    let mut length = [0u8; 4];
    match input.read_exact(&mut length) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(err) => return Err(err),
    }
    let length = u32::from_ne_bytes(length);
    if length > MAX_REQUEST {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a {length}-byte message is larger than any request this host answers"),
        ));
    }
    let mut body = vec![0u8; length as usize];
    input.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|err| std::io::Error::new(std::io::ErrorKind::InvalidData, err))
}

/// Writes one message to `output`.
pub(crate) fn write_message(output: &mut impl Write, message: &Value) -> std::io::Result<()> {
    let body = serde_json::to_vec(message)?;
    output.write_all(&(body.len() as u32).to_ne_bytes())?;
    output.write_all(&body)?;
    output.flush()
}

/// How to reach the bridge, and how to start it.
pub(crate) trait Bridge {
    /// The address the bridge listens on (what it last recorded, or the default).
    fn url(&self) -> String;
    /// The token it requires: `Ok(None)` for a bridge started with `--no-auth`; `Err` with
    /// the words when it cannot be read (e.g. the bridge takes a `--token` from its command line).
    fn token(&self) -> Result<Option<String>, String>;
    /// Start the bridge detached from this process; `Err` with the reason when it cannot.
    fn start(&self) -> Result<(), String>;
    /// The exact command for the user to run, when the host cannot start it.
    fn command(&self) -> String;
}

/// The answer to one request. Only an address that proved itself is named (`paired`): an
/// `unavailable` answer carries no address, and its reason names none, so the extension never
/// learns (nor shows) where a stranger listens.
pub(crate) fn answer(request: &Value, bridge: &impl Bridge) -> Value {
    if request["type"] != pairing::PAIR {
        return to_value(HostError {
            kind: pairing::ERROR,
            message: "this host answers only {\"type\": \"pair\"}",
        });
    }
    let unavailable = |reason: String| {
        to_value(Unavailable {
            kind: pairing::UNAVAILABLE,
            reason,
            command: bridge.command(),
        })
    };
    let url = bridge.url();
    let token = match bridge.token() {
        Ok(token) => token,
        Err(reason) => return unavailable(reason),
    };
    let mut started = false;
    match probe(&url, token.as_deref()) {
        Probe::Bridge { .. } => {}
        Probe::Unproved => {
            return unavailable("something at the bridge's address answers like MCP Bridge but cannot prove it holds this bridge's token (another program, or a bridge started with --token); the token was not handed out".into());
        }
        Probe::NotOurBridge => {
            return unavailable("something else answers at the bridge's address".into());
        }
        Probe::NotRunning => {
            if let Err(reason) = bridge.start() {
                return unavailable(reason);
            }
            let deadline = Instant::now() + START_WAIT;
            loop {
                if matches!(probe(&url, token.as_deref()), Probe::Bridge { .. }) {
                    break;
                }
                if Instant::now() > deadline {
                    return unavailable(format!(
                        "the bridge was started but did not answer at its address within {} s",
                        START_WAIT.as_secs()
                    ));
                }
                std::thread::sleep(Duration::from_millis(150));
            }
            started = true;
        }
    }
    to_value(Paired {
        kind: pairing::PAIRED,
        url: &url,
        token: token.as_deref(),
        started,
    })
}

/// Serve requests until the browser closes stdin.
pub(crate) fn serve(
    input: &mut impl Read,
    output: &mut impl Write,
    bridge: &impl Bridge,
) -> std::io::Result<()> {
    while let Some(request) = read_message(input)? {
        write_message(output, &answer(&request, bridge))?;
    }
    Ok(())
}

/// Start `exe` (the bridge) in a session of its own, so that it outlives the browser that
/// started the host; its messages and logs go to `log` (`--log-file`: private, rotated, and
/// without the token).
pub(crate) fn start_detached(exe: &Path, log: &Path) -> Result<(), String> {
    use std::process::{Command, Stdio};
    let mut command = Command::new(exe);
    command
        .arg("--log-file")
        .arg(log)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt as _;
        const DETACHED_PROCESS: u32 = 0x0000_0008;
        const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
        const CREATE_BREAKAWAY_FROM_JOB: u32 = 0x0100_0000;
        // Chrome runs hosts in a job that ends with the browser; breaking away keeps the bridge.
        command.creation_flags(
            DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_BREAKAWAY_FROM_JOB,
        );
    }
    command
        .spawn()
        .map(drop)
        .map_err(|err| format!("cannot start {}: {err}", exe.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::cell::Cell;

    struct Fake {
        url: String,
        token: Result<Option<String>, String>,
        start: Result<(), String>,
        started: Cell<bool>,
    }

    impl Bridge for Fake {
        fn url(&self) -> String {
            self.url.clone()
        }
        fn token(&self) -> Result<Option<String>, String> {
            self.token.clone()
        }
        fn start(&self) -> Result<(), String> {
            self.started.set(true);
            self.start.clone()
        }
        fn command(&self) -> String {
            "/opt/mcp-bridge".into()
        }
    }

    fn free_url() -> String {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        format!("http://127.0.0.1:{port}")
    }

    #[test]
    fn frames_round_trip() {
        let mut buffer = Vec::new();
        write_message(&mut buffer, &json!({"type": "pair"})).unwrap();
        assert_eq!(&buffer[..4], &(15u32).to_ne_bytes());
        let mut input = &buffer[..];
        assert_eq!(
            read_message(&mut input).unwrap(),
            Some(json!({"type": "pair"}))
        );
        assert_eq!(read_message(&mut input).unwrap(), None);
    }

    #[test]
    fn oversized_or_broken_messages_are_refused() {
        let mut input = &(MAX_REQUEST + 1).to_ne_bytes()[..];
        assert!(read_message(&mut input).is_err());
        let mut framed = 3u32.to_ne_bytes().to_vec();
        framed.extend_from_slice(b"{{{");
        assert!(read_message(&mut &framed[..]).is_err());
    }

    #[test]
    fn a_bridge_that_cannot_start_gets_the_command() {
        let fake = Fake {
            url: free_url(),
            token: Ok(Some("t".into())),
            start: Err("no permission".into()),
            started: Cell::new(false),
        };
        let answer = answer(&json!({"type": "pair"}), &fake);
        assert!(fake.started.get());
        assert_eq!(answer["type"], "unavailable");
        assert_eq!(answer["reason"], "no permission");
        assert_eq!(answer["command"], "/opt/mcp-bridge");
        assert!(answer.get("token").is_none());
    }

    #[test]
    fn an_unreadable_token_is_explained() {
        let fake = Fake {
            url: free_url(),
            token: Err("started with --token".into()),
            start: Ok(()),
            started: Cell::new(false),
        };
        let answer = answer(&json!({"type": "pair"}), &fake);
        assert_eq!(answer["type"], "unavailable");
        assert!(!fake.started.get());
    }

    #[test]
    fn other_requests_are_refused() {
        let fake = Fake {
            url: free_url(),
            token: Ok(None),
            start: Ok(()),
            started: Cell::new(false),
        };
        assert_eq!(answer(&json!({"type": "token"}), &fake)["type"], "error");
        assert!(!fake.started.get());
    }
}
