//! The `mcp-bridge` binary: parse the command line and hand over to the library.

use std::process::ExitCode;

use clap::Parser as _;
use mcp_bridge::cli::Cli;

fn main() -> ExitCode {
    mcp_bridge::cli::run(Cli::parse())
}
