//! The `mcp-bridge` binary: parse the command line and hand over to the library — or, when a
//! browser started it as our extension's native messaging host, answer the extension.

use std::process::ExitCode;

use clap::Parser as _;
use mcp_bridge::cli::Cli;
use mcp_bridge::pairing;

/// musl's allocator serialises every allocation behind one lock and returns memory eagerly:
/// in the static Linux build it doubled the bridge's CPU per request (docs/BENCHMARKS.md).
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if pairing::paths::looks_started_by_browser(&args) {
        // The IDs `install --extension-id` added live in the installed host manifests.
        let extra = dirs::home_dir()
            .map(|home| pairing::installed_extra_ids(&home))
            .unwrap_or_default();
        if pairing::paths::started_by_browser(&args, &extra).is_some() {
            return pairing::run_host();
        }
        eprintln!(
            "mcp-bridge: started as a native messaging host for an extension that is not MCP Bridge; refused"
        );
        return ExitCode::FAILURE;
    }
    mcp_bridge::cli::run(Cli::parse())
}
