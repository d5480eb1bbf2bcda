//! Linux: no descendant of an MCP server outlives it. Killing a server's process group misses
//! a grandchild that called `setsid` (a daemonising helper): it leaves the group, and when its
//! parent exits it would be adopted by init. The bridge is therefore a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`): such orphans are adopted by the bridge instead and stay its
//! descendants. Each server is started with its own tag in [`TAG_VAR`], which its descendants
//! inherit; stopping or restarting the server kills every descendant of the bridge that carries
//! its tag, and the bridge's stop kills every descendant left (the watchdog excepted).
//!
//! Limits: a process that clears its environment is found only while it is in the server's
//! process group; a bridge killed with SIGKILL cannot do any of this (its watchdog kills the
//! process groups it was told of, not a `setsid` grandchild, which init then adopts). Other
//! systems have no subreaper: on macOS a `setsid` grandchild can outlive the bridge; on
//! Windows the job object holds the whole tree.

use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that tags a server's processes.
pub(crate) const TAG_VAR: &str = "MCPBRIDGE_SERVER_TAG";

static NEXT: AtomicU64 = AtomicU64::new(1);

/// A tag for the next server process, unique in this bridge.
pub(crate) fn new_tag() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Make this process the subreaper of its descendants (Linux; elsewhere nothing).
pub(crate) fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this process.
        let done = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
        if done != 0 {
            tracing::warn!(
                error = %std::io::Error::last_os_error(),
                "cannot become a subreaper; a server's detached grandchild may outlive it"
            );
        }
    }
}

/// Kill every descendant of the bridge tagged `tag` (Linux; elsewhere nothing) and reap the
/// ones the bridge adopted. `keep` is left to its owner (the server's own process, which the
/// MCP client waits for).
pub(crate) fn kill_tagged(tag: &str, keep: Option<u32>) {
    #[cfg(target_os = "linux")]
    {
        let wanted = format!("{TAG_VAR}={tag}");
        let found: Vec<u32> = linux::descendants(std::process::id())
            .into_iter()
            .filter(|(pid, _)| Some(*pid) != keep && linux::environ_has(*pid, &wanted))
            .map(|(pid, _)| pid)
            .collect();
        linux::kill_and_reap(&found);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (tag, keep);
}

/// Kill every descendant of the bridge but `spare` (the watchdog), and reap those it adopted.
pub(crate) fn kill_all_but(spare: &[u32]) {
    #[cfg(target_os = "linux")]
    {
        let found: Vec<u32> = linux::descendants(std::process::id())
            .into_iter()
            .map(|(pid, _)| pid)
            .filter(|pid| !spare.contains(pid))
            .collect();
        linux::kill_and_reap(&found);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = spare;
}

#[cfg(target_os = "linux")]
mod linux {
    /// Every descendant of `root` with its parent, from /proc.
    pub(crate) fn descendants(root: u32) -> Vec<(u32, u32)> {
        let mut parents = Vec::new();
        if let Ok(entries) = std::fs::read_dir("/proc") {
            for entry in entries.flatten() {
                let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                    continue;
                };
                if let Some(parent) = parent_of(pid) {
                    parents.push((pid, parent));
                }
            }
        }
        let mut found: Vec<(u32, u32)> = Vec::new();
        let mut frontier = vec![root];
        while let Some(current) = frontier.pop() {
            for &(pid, parent) in &parents {
                if parent == current && !found.iter().any(|(p, _)| *p == pid) {
                    found.push((pid, parent));
                    frontier.push(pid);
                }
            }
        }
        found
    }

    /// The parent pid from `/proc/PID/stat` (the field after the parenthesised name).
    fn parent_of(pid: u32) -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let (_, rest) = stat.rsplit_once(')')?;
        rest.split_whitespace().nth(1)?.parse().ok()
    }

    /// Whether the process started with `entry` (`NAME=value`) in its environment.
    pub(crate) fn environ_has(pid: u32, entry: &str) -> bool {
        std::fs::read(format!("/proc/{pid}/environ"))
            .map(|environ| {
                environ
                    .split(|b| *b == 0)
                    .any(|item| item == entry.as_bytes())
            })
            .unwrap_or(false)
    }

    pub(crate) fn kill_and_reap(pids: &[u32]) {
        let me = std::process::id();
        for &pid in pids {
            if let Ok(pid) = libc::pid_t::try_from(pid)
                && pid > 1
            {
                // SAFETY: kill only sends a signal, to a descendant of this process.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
        // The ones this process adopted are its children now: collect their exit, or they
        // stay zombies until the bridge exits.
        for &pid in pids {
            if parent_of(pid) == Some(me)
                && let Ok(pid) = libc::pid_t::try_from(pid)
            {
                let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
                loop {
                    let mut status = 0;
                    // SAFETY: waitpid on one child of this process, without blocking.
                    let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
                    if done != 0 || std::time::Instant::now() > deadline {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            }
        }
    }
}
