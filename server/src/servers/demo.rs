//! The built-in demo MCP server (`mcp-bridge demo-server`): one tool for every outcome the
//! bridge must handle, so the whole loop works on a fresh machine and the tests have a
//! server whose failures are predictable. `read_text_file` reads only inside the demo folder,
//! which the server creates (with a sample file) and never leaves, not by `..` nor by a link.

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// The demo server's tools. A new value serves one stdio session.
#[derive(Debug, Clone)]
pub(crate) struct DemoServer {
    /// Built once per session: rmcp's `#[tool_handler]` otherwise calls
    /// `Self::tool_router()` on every request, which regenerates every tool's JSON schema
    /// and was most of the demo server's time per call in `./build.sh bench`.
    tool_router: ToolRouter<DemoServer>,
    /// The demo folder, canonical: `read_text_file` reads nothing outside it.
    root: Arc<PathBuf>,
}

/// The sample file the demo folder starts with.
pub(crate) const SAMPLE_FILE: &str = "hello.txt";

impl DemoServer {
    /// A server reading inside `root`, which is created (mode 0700) with a sample file.
    pub(crate) fn new(root: &Path) -> std::io::Result<Self> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt as _;
            builder.mode(0o700);
        }
        builder.create(root)?;
        let root = std::fs::canonicalize(root)?;
        let sample = root.join(SAMPLE_FILE);
        if std::fs::symlink_metadata(&sample).is_err() {
            std::fs::write(
                &sample,
                "Hello from the MCP Bridge demo folder.\nread_text_file reads files in this folder only.\n",
            )?;
        }
        Ok(DemoServer {
            tool_router: Self::tool_router(),
            root: Arc::new(root),
        })
    }

    /// The file `path` names inside the demo folder (relative paths are relative to it), or
    /// the error kind and message when it is outside, directly, by `..` or through a link.
    fn inside(&self, path: &str) -> Result<PathBuf, (&'static str, String)> {
        let outside = || {
            (
                "PermissionError",
                format!(
                    "'{path}' is outside the demo folder {}; read_text_file reads only files in it",
                    self.root.display()
                ),
            )
        };
        let given = Path::new(path);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        // First by the name alone, so nothing is learnt about files outside.
        let mut lexical = PathBuf::new();
        for component in joined.components() {
            match component {
                Component::ParentDir => {
                    lexical.pop();
                }
                Component::CurDir => {}
                other => lexical.push(other),
            }
        }
        if !lexical.starts_with(&*self.root) {
            return Err(outside());
        }
        // Then the real path, with every link followed.
        let real = std::fs::canonicalize(&lexical).map_err(|err| {
            let kind = match err.kind() {
                std::io::ErrorKind::NotFound => "FileNotFoundError",
                std::io::ErrorKind::PermissionDenied => "PermissionError",
                _ => "OSError",
            };
            (kind, format!("{err}: '{path}'"))
        })?;
        if !real.starts_with(&*self.root) {
            return Err(outside());
        }
        Ok(real)
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EchoArgs {
    /// The text to send back.
    pub(crate) text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AddArgs {
    /// First addend.
    pub(crate) a: f64,
    /// Second addend.
    pub(crate) b: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PathArgs {
    /// Path of a UTF-8 text file in the demo folder (relative to it, or absolute).
    pub(crate) path: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DateArgs {
    /// A date in the form YYYY-MM-DD. The tool always rejects it, to show a validation error.
    #[serde(default)]
    pub(crate) date: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct MessageArgs {
    /// Text to put into the error message (tests use it to plant secrets).
    #[serde(default)]
    pub(crate) message: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct QueryArgs {
    /// What to look for. Nothing is ever found.
    #[serde(default)]
    pub(crate) query: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SlowArgs {
    /// How long to work before answering, in seconds.
    pub(crate) seconds: f64,
}

fn python_like_traceback(tool: &str, kind: &str, message: &str) -> String {
    format!(
        "Traceback (most recent call last):\n  File \"demo_server.py\", line 42, in call_tool\n    return await handler(arguments)\n  File \"demo_server.py\", line 97, in {tool}\n    result = process(arguments)\n  File \"demo_server.py\", line 131, in process\n    raise {kind}(message)\n{kind}: {message}"
    )
}

fn write_stderr(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{text}");
    let _ = stderr.flush();
}

#[tool_router]
impl DemoServer {
    #[tool(
        description = "Echo the given text back unchanged.",
        annotations(
            title = "Echo",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        args.text
    }

    #[tool(
        description = "Add two numbers and return the sum.",
        annotations(
            title = "Add",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn add(
        &self,
        Parameters(args): Parameters<AddArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let sum = args.a + args.b;
        let mut result = CallToolResult::structured(json!({ "sum": sum }));
        result.content = vec![ContentBlock::text(sum.to_string())];
        Ok(result)
    }

    #[tool(
        description = "The current time in UTC, ISO 8601.",
        annotations(
            title = "Current time",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn get_time(&self) -> String {
        chrono::Utc::now().to_rfc3339()
    }

    #[tool(
        description = "Read a UTF-8 text file in the demo folder (hello.txt is there) and return its contents.",
        annotations(
            title = "Read a text file",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn read_text_file(
        &self,
        Parameters(args): Parameters<PathArgs>,
    ) -> Result<String, ErrorData> {
        let read = match self.inside(&args.path) {
            Ok(real) => tokio::fs::read_to_string(&real).await.map_err(|err| {
                let kind = match err.kind() {
                    std::io::ErrorKind::NotFound => "FileNotFoundError",
                    std::io::ErrorKind::PermissionDenied => "PermissionError",
                    std::io::ErrorKind::InvalidData => "UnicodeDecodeError",
                    _ => "OSError",
                };
                (kind, format!("{err}: '{}'", args.path))
            }),
            Err(refusal) => Err(refusal),
        };
        match read {
            Ok(text) => Ok(text),
            Err((kind, message)) => Err(ErrorData::internal_error(
                message.clone(),
                Some(
                    json!({ "type": kind, "traceback": python_like_traceback("read_text_file", kind, &message) }),
                ),
            )),
        }
    }

    #[tool(
        description = "Always rejects its argument as invalid (a validation error).",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn fail_validation(
        &self,
        Parameters(args): Parameters<DateArgs>,
    ) -> Result<String, ErrorData> {
        let date = args.date.unwrap_or_default();
        Err(ErrorData::invalid_params(
            format!("Invalid date format: {date:?}. Expected YYYY-MM-DD, e.g. 2025-01-31"),
            Some(json!({ "type": "ValueError", "field": "date" })),
        ))
    }

    #[tool(
        description = "Always fails at run time: writes a backtrace to stderr and returns an MCP error.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn fail_runtime(
        &self,
        Parameters(args): Parameters<MessageArgs>,
    ) -> Result<String, ErrorData> {
        let message = args
            .message
            .unwrap_or_else(|| "division by zero in demo computation".to_owned());
        let traceback = python_like_traceback("fail_runtime", "RuntimeError", &message);
        write_stderr(&traceback);
        Err(ErrorData::internal_error(
            message,
            Some(json!({ "type": "RuntimeError", "traceback": traceback })),
        ))
    }

    #[tool(
        description = "Runs but reports failure in its result (isError: true).",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn fail_logical(&self, Parameters(args): Parameters<QueryArgs>) -> CallToolResult {
        let query = args.query.unwrap_or_default();
        CallToolResult::error(vec![ContentBlock::text(format!(
            "No records match the query {query:?}; try a broader query."
        ))])
    }

    // Says on its stderr when it was cancelled: the one trace a cancellation leaves. Marked
    // not read-only so that the extension's confirmation of writing tools can be tried on it.
    #[tool(
        description = "Waits the given number of seconds, then answers. Honours cancellation.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn slow(
        &self,
        Parameters(args): Parameters<SlowArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<String, ErrorData> {
        let seconds = args.seconds.clamp(0.0, 3600.0);
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs_f64(seconds)) => {
                Ok(format!("finished after {seconds} s"))
            }
            _ = context.ct.cancelled() => {
                write_stderr("slow: cancelled by the client");
                Err(ErrorData::internal_error("cancelled", None))
            }
        }
    }

    #[tool(
        description = "Makes the server process exit in the middle of the call.",
        annotations(
            title = "Crash the demo server",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn crash(&self) -> String {
        write_stderr(
            "thread 'main' panicked at src/demo.rs:1:1:\ndemo crash requested by the `crash` tool\nstack backtrace:\n   0: mcp_bridge::demo::DemoServer::crash\n   1: rmcp::handler::server::call_tool\nnote: the process exits with status 3",
        );
        std::process::exit(3);
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "mcp-bridge-demo",
    instructions = "Demo tools of MCP Bridge: one for every kind of outcome."
)]
impl ServerHandler for DemoServer {}

/// Serve the demo tools on stdin/stdout until the client goes away; files are read in `root`.
pub(crate) async fn run(root: &Path) -> std::io::Result<()> {
    let server = DemoServer::new(root).map_err(|err| {
        std::io::Error::new(
            err.kind(),
            format!("cannot create the demo folder {}: {err}", root.display()),
        )
    })?;
    let running = match stdio_pipes() {
        Some(pipes) => server.serve(pipes).await,
        None => server.serve(rmcp::transport::stdio()).await,
    };
    let service = running.map_err(|err| std::io::Error::other(err.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|err| std::io::Error::other(err.to_string()))?;
    Ok(())
}

/// Stdin and stdout as non-blocking pipes on the runtime's own event loop, when both are
/// pipes (as when the bridge starts this server). `tokio::io::stdin()`/`stdout()` hand every
/// read and write to the blocking thread pool, which made the demo server the slowest link
/// of the bench (two thread hand-offs per message). `None` for a terminal or a file.
#[cfg(unix)]
fn stdio_pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd as _;
    let input = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let receiver = tokio::net::unix::pipe::Receiver::from_file(input.into()).ok()?;
    let sender = tokio::net::unix::pipe::Sender::from_file(output.into()).ok()?;
    Some((receiver, sender))
}

#[cfg(not(unix))]
fn stdio_pipes() -> Option<(tokio::io::Stdin, tokio::io::Stdout)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_every_outcome_tool() {
        let names: Vec<String> = DemoServer::tool_router()
            .list_all()
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect();
        for expected in [
            "echo",
            "add",
            "get_time",
            "read_text_file",
            "fail_validation",
            "fail_runtime",
            "fail_logical",
            "slow",
            "crash",
        ] {
            assert!(
                names.contains(&expected.to_owned()),
                "{expected} missing from {names:?}"
            );
        }
    }

    #[test]
    fn annotations_tell_the_truth() {
        let tools = DemoServer::tool_router().list_all();
        let hints = |name: &str| {
            let tool = tools.iter().find(|tool| tool.name == name).unwrap();
            let annotations = tool
                .annotations
                .clone()
                .unwrap_or_else(|| panic!("{name} has no annotations"));
            (annotations.read_only_hint, annotations.destructive_hint)
        };
        for read_only in [
            "echo",
            "add",
            "get_time",
            "read_text_file",
            "fail_validation",
            "fail_runtime",
            "fail_logical",
        ] {
            assert_eq!(hints(read_only), (Some(true), Some(false)), "{read_only}");
        }
        assert_eq!(hints("slow"), (Some(false), Some(false)));
        assert_eq!(hints("crash"), (Some(false), Some(true)));
    }

    #[test]
    fn reads_stay_inside_the_demo_folder() {
        let dir = tempfile::tempdir().unwrap();
        let server = DemoServer::new(&dir.path().join("demo")).unwrap();
        let root = server.root.clone();
        assert_eq!(server.inside(SAMPLE_FILE).unwrap(), root.join(SAMPLE_FILE));
        std::fs::write(dir.path().join("outside.txt"), "no").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("outside.txt"), root.join("link.txt")).unwrap();
        for path in [
            "/etc/passwd".to_owned(),
            "../outside.txt".to_owned(),
            format!("{}/../outside.txt", root.display()),
            "link.txt".to_owned(),
        ] {
            let (kind, _) = server.inside(&path).unwrap_err();
            assert_eq!(kind, "PermissionError", "{path}");
        }
        assert_eq!(
            server.inside("missing.txt").unwrap_err().0,
            "FileNotFoundError"
        );
    }

    #[test]
    fn traceback_ends_with_the_error_line() {
        let text = python_like_traceback("fail_runtime", "RuntimeError", "boom");
        assert!(text.starts_with("Traceback (most recent call last):"));
        assert!(text.ends_with("RuntimeError: boom"));
    }
}
