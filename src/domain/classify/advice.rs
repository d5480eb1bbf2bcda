//! What the AI (or the user) should do next about a failure, chosen from its category, its
//! type and the kind of tool; `report::text` words each piece of advice.

use mcp_bridge_protocol::errors::{ErrorType, tool_failure};
use mcp_bridge_protocol::rpc;
use serde::{Deserialize, Serialize};

use super::signals::{is_server_not_found, short_type};
use super::{Category, Draft};

/// One recommendation; rendered per language by `report::text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Advice {
    CheckSchema,
    RequiredArgs,
    ArgTypes,
    FixListedArgs,
    AskUser,
    /// Call `list_tools_in_service` to see the real tool names.
    ListTools {
        server: Option<String>,
    },
    CheckServerName,
    /// File tools: list the directory or search for the path.
    ListPaths,
    CheckPermission,
    RetryLater,
    CheckUrl,
    CheckQuery,
    ReadToolMessage,
    VerifyState,
    NarrowRequest,
    UserStopped,
    TryOtherTool,
    TellUser,
    /// How to start the bridge (`./build.sh run` or `mcp-bridge`).
    StartBridge,
    CheckServerConfig {
        server: Option<String>,
    },
    CheckToken,
    StopRetrying,
    /// "Reset call history" in the options page or `POST /reset-history`.
    ResetHistory,
    UpdateBridge,
    /// The bridge refused the request itself (origin or host check).
    BridgeRefused,
    /// `read_result` past the end: the whole result has been read.
    ResultRead,
    /// `read_result` for a result the bridge no longer keeps: run the tool again.
    RunToolAgain,
}

/// What kind of tool this is, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ToolKind {
    File,
    Network,
    Database,
    Other,
}

fn tool_kind(tool: &str) -> ToolKind {
    let t = tool.to_ascii_lowercase();
    let has = |ws: &[&str]| ws.iter().any(|w| t.contains(w));
    if has(&[
        "file",
        "fs_",
        "dir",
        "path",
        "folder",
        "glob",
        "grep",
        "ls_",
        "list_allowed",
    ]) {
        ToolKind::File
    } else if has(&[
        "fetch", "http", "url", "web", "browse", "download", "request", "search", "api",
    ]) {
        ToolKind::Network
    } else if has(&["sql", "query", "db_", "database", "table"]) {
        ToolKind::Database
    } else {
        ToolKind::Other
    }
}

pub(super) fn advice(tool: &str, d: &Draft) -> Vec<Advice> {
    use Advice as A;
    let kind = tool_kind(tool);
    let t = short_type(&d.error_type);
    let mut v = Vec::new();
    match ErrorType::parse(t) {
        Some(ErrorType::OffsetOutOfRange) => return vec![A::ResultRead],
        Some(ErrorType::ResultNotFound | ErrorType::ResultExpired) => {
            return vec![A::RunToolAgain, A::TellUser];
        }
        _ => {}
    }
    match d.category {
        Category::Validation => {
            if d.tool_not_found && is_server_not_found(t) {
                v.push(A::CheckServerName);
                v.push(A::ListTools { server: None });
            } else if d.tool_not_found {
                v.push(A::ListTools {
                    server: d.server.clone(),
                });
                v.push(A::CheckServerName);
            } else if d.validation_list {
                v.push(A::FixListedArgs);
                v.push(A::CheckSchema);
            } else {
                v.push(A::CheckSchema);
                v.push(A::RequiredArgs);
                v.push(A::ArgTypes);
                if kind == ToolKind::File {
                    v.push(A::ListPaths);
                }
                v.push(A::AskUser);
            }
        }
        Category::Runtime => {
            let perm = t.contains("Permission")
                || d.status == Some(403)
                || d.code == Some(i64::from(rpc::PERMISSION_DENIED));
            if kind == ToolKind::File || t.contains("FileNotFound") || t.contains("Directory") {
                v.push(A::ListPaths);
            }
            if perm {
                v.push(A::CheckPermission);
            }
            if t.contains("Connect")
                || t.contains("HTTP")
                || t.contains("URL")
                || kind == ToolKind::Network
            {
                v.push(A::CheckUrl);
                v.push(A::RetryLater);
            }
            if kind == ToolKind::Database {
                v.push(A::CheckQuery);
            }
            v.push(A::TryOtherTool);
            v.push(A::TellUser);
        }
        Category::Logical => {
            v.push(A::ReadToolMessage);
            if kind == ToolKind::File {
                v.push(A::ListPaths);
            }
            if kind == ToolKind::Database {
                v.push(A::CheckQuery);
            }
            v.push(A::VerifyState);
            v.push(A::TryOtherTool);
        }
        Category::Aborted => {
            if d.user_abort {
                v.push(A::UserStopped);
            } else {
                v.push(A::NarrowRequest);
                v.push(A::RetryLater);
                v.push(A::TellUser);
            }
        }
        Category::Exception => {
            if matches!(d.status, Some(404 | 405))
                || d.error_type == tool_failure::UNEXPECTED_RESPONSE
            {
                v.push(A::UpdateBridge);
            }
            v.push(A::TryOtherTool);
            v.push(A::TellUser);
        }
        Category::Unavailable => {
            if d.status == Some(401) || t == "Unauthorized" {
                v.push(A::CheckToken);
            } else if t == "Forbidden" {
                v.push(A::BridgeRefused);
            } else if d.bridge_down || matches!(d.status, Some(502 | 503)) && d.server.is_none() {
                v.push(A::StartBridge);
            } else {
                v.push(A::CheckServerConfig {
                    server: d.server.clone(),
                });
            }
            v.push(A::TellUser);
        }
        Category::Limit => {
            v.push(A::StopRetrying);
            v.push(A::TryOtherTool);
            v.push(A::ResetHistory);
        }
    }
    v
}
