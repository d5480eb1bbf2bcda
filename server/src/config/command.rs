//! `mcp-bridge config …`: where the config file is (`path`), whether it is valid (`check`), and
//! importing servers from Claude Desktop, Cursor and VS Code (`import`). A running bridge picks
//! up the written file by itself.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;

use crate::config;
use crate::config::import;
use crate::config::manage::{edit_file, servers_of};

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// Print where the config file is on this machine.
    Path,
    /// Check a config file (default: the bridge's): the file, line and field of the first
    /// problem and a non-zero exit, or "ok: N servers".
    Check {
        /// The file to check.
        file: Option<PathBuf>,
    },
    /// Import servers from the MCP configs of Claude Desktop, Cursor and VS Code (or one
    /// file): shows what would be added and asks for each; names already in the config are
    /// reported, never overwritten.
    Import {
        /// Import from this file (`mcpServers` or VS Code's `servers`) instead.
        #[arg(long)]
        from: Option<PathBuf>,
        /// Import every server that can be, without asking.
        #[arg(long)]
        yes: bool,
    },
}

/// Run `mcp-bridge config …`; `explicit` is `--config`.
pub(crate) fn run(command: ConfigCommand, explicit: Option<&Path>) -> ExitCode {
    let path = match config::config_path(explicit) {
        Ok(path) => path,
        Err(err) => {
            eprintln!("mcp-bridge config: {err}");
            return ExitCode::FAILURE;
        }
    };
    match command {
        ConfigCommand::Path => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        ConfigCommand::Check { file } => check(file.as_deref().unwrap_or(&path)),
        ConfigCommand::Import { from, yes } => {
            let stdin = std::io::stdin();
            import_into(&path, from.as_deref(), yes, &mut stdin.lock())
        }
    }
}

fn check(path: &Path) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) => {
            eprintln!("{}: cannot read: {err}", path.display());
            return ExitCode::FAILURE;
        }
    };
    match config::parse(&text, path) {
        Ok(specs) => {
            let total = import::servers_in(&text).map(|s| s.len()).unwrap_or(0);
            let disabled = total.saturating_sub(specs.len());
            let note = if disabled > 0 {
                format!(" ({disabled} disabled)")
            } else {
                String::new()
            };
            println!("ok: {} servers{note} in {}", specs.len(), path.display());
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{err}");
            ExitCode::FAILURE
        }
    }
}

fn import_into(
    path: &Path,
    from: Option<&Path>,
    yes: bool,
    input: &mut dyn std::io::BufRead,
) -> ExitCode {
    let mut existing = match std::fs::read_to_string(path) {
        Ok(text) => match config::parse(&text, path) {
            Ok(_) => serde_json::from_str(&text).unwrap_or_default(),
            Err(err) => {
                eprintln!("mcp-bridge config import: fix the config file first: {err}");
                return ExitCode::FAILURE;
            }
        },
        Err(_) => serde_json::json!({}),
    };
    let found = import::find(from, servers_of(&mut existing));
    for source in &found.sources {
        match (&source.error, source.exists) {
            (Some(err), _) => println!("{} ({}): {err}", source.client, source.path.display()),
            (None, true) => println!("{}: {}", source.client, source.path.display()),
            (None, false) => println!("{}: none at {}", source.client, source.path.display()),
        }
    }
    let mut picked = Vec::new();
    for candidate in &found.servers {
        let from = format!("{} ({})", candidate.client, candidate.path.display());
        if let Some(clash) = &candidate.clash {
            println!("  = {}: not imported, {clash}", candidate.name);
            continue;
        }
        if let Some(problem) = &candidate.problem {
            println!("  ! {}: not imported, {problem}", candidate.name);
            continue;
        }
        let shown = crate::config::manage::mask_definition(&candidate.definition);
        println!("  + {} from {from}: {shown}", candidate.name);
        if yes || ask(&format!("    import `{}`? [y/N] ", candidate.name), input) {
            picked.push(candidate);
        }
    }
    if picked.is_empty() {
        println!("nothing imported");
        return ExitCode::SUCCESS;
    }
    match edit_file(path, |doc| Ok(import::add(servers_of(doc), &picked))) {
        Ok((_, _, added)) => {
            println!(
                "imported {} into {} (a running bridge starts them within a second)",
                added.join(", "),
                path.display()
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("mcp-bridge config import: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Ask a yes/no question; anything but y/yes (or the end of input) is no.
fn ask(question: &str, input: &mut dyn std::io::BufRead) -> bool {
    print!("{question}");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    if input.read_line(&mut answer).unwrap_or(0) == 0 {
        println!();
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_asks_for_each_server_and_keeps_clashes() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("mcp-config.json");
        std::fs::write(&target, r#"{"mcpServers": {"time": {"command": "mine"}}}"#).unwrap();
        let from = dir.path().join("other.json");
        std::fs::write(
            &from,
            r#"{"mcpServers": {"time": {"command": "theirs"}, "a": {"command": "a"}, "b": {"command": "b"}}}"#,
        )
        .unwrap();
        let mut answers = std::io::Cursor::new("y\nn\n");
        assert_eq!(
            import_into(&target, Some(&from), false, &mut answers),
            ExitCode::SUCCESS
        );
        let text = std::fs::read_to_string(&target).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let names: Vec<&String> = doc["mcpServers"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["time", "a"]);
        assert_eq!(doc["mcpServers"]["time"]["command"], "mine");
    }
}
