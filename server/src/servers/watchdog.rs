//! The watchdog: a small helper process (`mcp-bridge watchdog`, started by the bridge) that
//! kills the process groups of the MCP servers when the bridge dies in a way it cannot clean up
//! after — `kill -9`, a crash — so that no server, nor a grandchild such as `npx` → `node`, is
//! left behind. The bridge tells it each group it starts (`+PGID`) and stops (`-PGID`) over a
//! pipe; when the pipe closes, the bridge is gone, and the watchdog kills what is left.

use std::collections::BTreeSet;
use std::io::{BufRead as _, Write as _};
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// The hidden subcommand that runs the watchdog.
#[cfg_attr(
    not(unix),
    allow(dead_code, reason = "the bridge starts the watchdog on unix only")
)]
pub(crate) const SUBCOMMAND: &str = "watchdog";

static PIPE: Mutex<Option<ChildStdin>> = Mutex::new(None);
static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();

/// The watchdog's pid, once started.
pub(crate) fn pid() -> Option<u32> {
    PID.get().copied()
}

fn send(line: &str) {
    let mut pipe = PIPE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(stdin) = pipe.as_mut()
        && writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .is_err()
    {
        tracing::warn!("the watchdog is gone; MCP servers may outlive a killed bridge");
        *pipe = None;
    }
}

/// Start the watchdog (from the bridge binary `exe`). Without it everything works, except the
/// clean-up after the bridge is killed.
#[cfg_attr(
    not(unix),
    allow(dead_code, reason = "the bridge starts the watchdog on unix only")
)]
pub(crate) fn start(exe: &Path) {
    let mut command = Command::new(exe);
    command
        .arg(SUBCOMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        // Its own session: Ctrl-C or a closed terminal reach the bridge, not the watchdog,
        // which then goes when the bridge goes.
        // SAFETY: setsid is async-signal-safe and touches only the new process.
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
    }
    match command.spawn() {
        Ok(mut child) => {
            *PIPE.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = child.stdin.take();
            let _ = PID.set(child.id());
            tracing::debug!(pid = child.id(), "watchdog started");
            // Reap it when it exits, so it never lingers as a zombie.
            std::thread::spawn(move || {
                let _ = child.wait();
            });
        }
        Err(err) => {
            tracing::warn!(error = %err, "cannot start the watchdog; MCP servers may outlive a killed bridge")
        }
    }
}

/// An MCP server's process group to kill if the bridge dies.
pub(crate) fn watch(pgid: u32) {
    send(&format!("+{pgid}"));
}

/// A process group the bridge has stopped itself.
pub(crate) fn forget(pgid: u32) {
    send(&format!("-{pgid}"));
}

/// The watchdog itself: follow the bridge's messages on stdin; at their end, kill every group
/// still listed.
pub(crate) fn run() -> std::process::ExitCode {
    let mut groups = BTreeSet::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let (sign, number) = line.split_at(line.len().min(1));
        match (sign, number.trim().parse::<u32>()) {
            ("+", Ok(pgid)) if pgid > 1 => {
                groups.insert(pgid);
            }
            ("-", Ok(pgid)) => {
                groups.remove(&pgid);
            }
            _ => {}
        }
    }
    #[cfg(unix)]
    for pgid in groups {
        if let Ok(pgid) = libc::pid_t::try_from(pgid) {
            // SAFETY: killpg only sends a signal, to a group the bridge started.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
    std::process::ExitCode::SUCCESS
}
