//! Every sentence the reports say, in Chinese (the default, as in seed 000) and English.
//!
//! Kept in one place so both languages stay structurally identical and the wording can be
//! reviewed without reading the layout code.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::classify::{Advice, Category};
use crate::domain::outcome::BodyKind;

/// Report language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Lang {
    #[default]
    Zh,
    En,
}

impl Lang {
    /// `"en"`, `"en-US"` → English; anything else → Chinese.
    pub fn parse(s: &str) -> Lang {
        if s.trim().to_ascii_lowercase().starts_with("en") {
            Lang::En
        } else {
            Lang::Zh
        }
    }
}

fn t(lang: Lang, zh: &str, en: &str) -> String {
    match lang {
        Lang::Zh => zh.to_string(),
        Lang::En => en.to_string(),
    }
}

/// The closing instruction of a failure report (seed 000, verbatim in Chinese).
pub fn failure_closing(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => {
            "请分析错误原因。你可以尝试修正参数后重新调用该工具，或者选择其他工具，或者直接告诉用户无法完成任务。"
        }
        Lang::En => {
            "Please analyse the cause of the error. You can correct the arguments and call the tool again, choose another tool, or tell the user that the task cannot be completed."
        }
    }
}

pub fn success_closing(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => {
            "请根据以上结果继续完成用户的任务；如需调用其他工具，请使用同样的 tool_code 格式。"
        }
        Lang::En => {
            "Please continue with the user's task based on this result; to call another tool, use the same tool_code format."
        }
    }
}

pub struct Labels {
    pub failure_title: &'static str,
    pub success_title: &'static str,
    pub malformed_title: &'static str,
    pub tool: &'static str,
    pub error: &'static str,
    pub category: &'static str,
    pub result: &'static str,
    pub stack: &'static str,
    pub advice: &'static str,
    pub trace_id: &'static str,
    pub cut: &'static str,
    pub empty_result: &'static str,
}

pub fn labels(lang: Lang) -> &'static Labels {
    const ZH: Labels = Labels {
        failure_title: "# 工具执行失败",
        success_title: "# 工具执行结果",
        malformed_title: "# 工具调用格式错误",
        tool: "**工具名称**",
        error: "**错误信息**",
        category: "**错误类别**",
        result: "**执行结果**",
        stack: "调用堆栈:",
        advice: "建议:",
        trace_id: "追踪 ID",
        cut: "…[内容过长，已截断]",
        empty_result: "(工具没有返回内容)",
    };
    const EN: Labels = Labels {
        failure_title: "# Tool execution failed",
        success_title: "# Tool execution result",
        malformed_title: "# Malformed tool call",
        tool: "**Tool**",
        error: "**Error**",
        category: "**Category**",
        result: "**Result**",
        stack: "Call stack:",
        advice: "Recommendations:",
        trace_id: "Trace ID",
        cut: "…[too long, truncated]",
        empty_result: "(the tool returned no content)",
    };
    match lang {
        Lang::Zh => &ZH,
        Lang::En => &EN,
    }
}

/// `validation（参数错误，修正参数后再调用）`.
pub fn category_label(c: Category, lang: Lang) -> String {
    let (zh, en) = match c {
        Category::Validation => (
            "参数错误，修正参数后再调用",
            "bad arguments — correct them, then call again",
        ),
        Category::Runtime => (
            "运行时错误，工具执行时出错，可换个方式重试",
            "runtime error — the tool failed while running; a different approach may work",
        ),
        Category::Logical => (
            "逻辑错误，工具已执行但返回失败",
            "logical error — the tool ran and reported a failure",
        ),
        Category::Aborted => ("已中止，超时或被取消", "aborted — timed out or cancelled"),
        Category::Exception => ("意外异常", "unexpected exception"),
        Category::Unavailable => (
            "服务不可用，桥接服务或 MCP 服务未运行",
            "unavailable — the bridge or the MCP server is not running",
        ),
        Category::Limit => (
            "连续失败次数已达上限，请停止重试",
            "failure limit reached — stop retrying",
        ),
    };
    match lang {
        Lang::Zh => format!("{}（{zh}）", c.as_str()),
        Lang::En => format!("{} ({en})", c.as_str()),
    }
}

pub fn retryable_word(r: bool, lang: Lang) -> &'static str {
    match (lang, r) {
        (Lang::Zh, true) => "可以重试",
        (Lang::Zh, false) => "不要用相同参数重试",
        (Lang::En, true) => "retryable",
        (Lang::En, false) => "do not retry with the same arguments",
    }
}

pub fn advice(a: &Advice, lang: Lang) -> String {
    use Advice as A;
    let server_arg = |s: &Option<String>| s.clone().unwrap_or_else(|| t(lang, "服务名", "SERVICE"));
    match a {
        A::CheckSchema => t(
            lang,
            "检查参数是否符合工具的参数说明（schema）",
            "Check the arguments against the tool's parameter schema",
        ),
        A::RequiredArgs => t(
            lang,
            "确认所有必填参数都已提供",
            "Make sure every required argument is given",
        ),
        A::ArgTypes => t(
            lang,
            "检查参数类型和格式（数字、日期、枚举值等）",
            "Check argument types and formats (numbers, dates, allowed values)",
        ),
        A::FixListedArgs => t(
            lang,
            "按上面列出的每一项修正参数后再调用",
            "Fix each argument listed above, then call again",
        ),
        A::AskUser => t(
            lang,
            "如果不确定正确的参数值，请先询问用户",
            "If you are unsure of the right value, ask the user",
        ),
        A::ListTools { server } => match lang {
            Lang::Zh => format!(
                "先调用 list_tools_in_service（参数 {{\"service_name\": \"{}\"}}）查看可用工具，再使用正确的工具名称",
                server_arg(server)
            ),
            Lang::En => format!(
                "Call list_tools_in_service (arguments {{\"service_name\": \"{}\"}}) to see the available tools, then use the exact tool name",
                server_arg(server)
            ),
        },
        A::CheckServerName => t(
            lang,
            "确认 server_name 填写正确，或省略 server_name",
            "Check server_name, or leave it out",
        ),
        A::ListPaths => t(
            lang,
            "先列出目录或搜索文件，确认路径存在且拼写正确（使用允许访问的目录内的完整路径）",
            "List the directory or search for the file first to confirm the path exists (use a full path inside the allowed directories)",
        ),
        A::CheckPermission => t(
            lang,
            "该资源没有访问权限：改用允许访问的路径或资源，或告诉用户需要授予权限",
            "The resource is not accessible: use an allowed path or resource, or tell the user which permission is needed",
        ),
        A::RetryLater => t(
            lang,
            "可能是临时的网络或服务问题，可以稍后重试一次",
            "This may be a temporary network or service problem; you may retry once later",
        ),
        A::CheckUrl => t(
            lang,
            "检查网址、主机名和端口是否正确，或改用其他数据源",
            "Check the URL, host name and port, or use another data source",
        ),
        A::CheckQuery => t(
            lang,
            "检查表名、列名和查询语法，必要时先查询数据库结构",
            "Check table and column names and the query syntax; inspect the schema first if needed",
        ),
        A::ReadToolMessage => t(
            lang,
            "仔细阅读工具返回的错误说明，按其中的提示调整",
            "Read the tool's error message and adjust as it says",
        ),
        A::VerifyState => t(
            lang,
            "确认目标数据或资源的当前状态是否符合预期",
            "Check that the target data or resource is in the state you expect",
        ),
        A::NarrowRequest => t(
            lang,
            "工具执行超时：缩小请求范围（更少的数据、更小的时间段）后再试",
            "The tool timed out: narrow the request (less data, a shorter range) and try again",
        ),
        A::UserStopped => t(
            lang,
            "用户手动停止了这次调用，不要自动重试；请询问用户接下来怎么做",
            "The user stopped this call; do not retry on your own, ask the user how to proceed",
        ),
        A::TryOtherTool => t(
            lang,
            "考虑使用其他工具或其他方式完成任务",
            "Consider another tool or another way to do the task",
        ),
        A::TellUser => t(
            lang,
            "如果无法解决，请如实告诉用户遇到的问题",
            "If it cannot be solved, tell the user plainly what went wrong",
        ),
        A::StartBridge => t(
            lang,
            "桥接服务没有运行：请告诉用户在终端运行 `mcp-bridge`（源码目录中运行 `./build.sh run`）启动服务，然后重试",
            "The bridge is not running: tell the user to start it in a terminal with `mcp-bridge` (or `./build.sh run` in the source directory), then retry",
        ),
        A::CheckServerConfig { server } => match lang {
            Lang::Zh => format!(
                "MCP 服务 {} 不可用：请告诉用户检查桥接服务的配置文件（mcp-config.json）和日志，服务会在下次调用时自动重启",
                server_arg(server)
            ),
            Lang::En => format!(
                "The MCP server {} is unavailable: tell the user to check the bridge's config (mcp-config.json) and log; it restarts on the next call",
                server_arg(server)
            ),
        },
        A::CheckToken => t(
            lang,
            "扩展的访问令牌不正确：请告诉用户在扩展选项页填入桥接服务启动时打印的令牌",
            "The extension's access token is wrong: tell the user to paste the token the bridge prints at start into the extension's options page",
        ),
        A::StopRetrying => t(
            lang,
            "该工具已连续失败多次，桥接服务拒绝继续调用：不要再重试这个工具",
            "This tool failed several times in a row and the bridge refuses further calls: stop retrying it",
        ),
        A::ResetHistory => t(
            lang,
            "如需继续使用，请告诉用户在扩展选项页点击“重置调用历史”，或执行 `POST http://127.0.0.1:3849/reset-history`",
            "To use it again, tell the user to press \"Reset call history\" in the extension's options page, or run `POST http://127.0.0.1:3849/reset-history`",
        ),
        A::BridgeRefused => t(
            lang,
            "桥接服务拒绝了扩展的请求（来源或主机检查未通过）：请告诉用户确认扩展连接的是本机的桥接服务地址（127.0.0.1:3849）",
            "The bridge refused the extension's request (origin or host check): tell the user to make sure the extension points at the local bridge (127.0.0.1:3849)",
        ),
        A::UpdateBridge => t(
            lang,
            "桥接服务的回应不符合预期，可能版本不匹配：请告诉用户更新桥接服务和扩展",
            "The bridge answered in an unexpected way, maybe a version mismatch: tell the user to update the bridge and the extension",
        ),
    }
}

pub fn not_json(status: u16, body: BodyKind, snippet: &str, lang: Lang) -> String {
    match (body, lang) {
        (BodyKind::Empty, Lang::Zh) => format!("桥接服务返回了 HTTP {status}，响应内容为空"),
        (BodyKind::Empty, Lang::En) => {
            format!("The bridge answered HTTP {status} with an empty body")
        }
        (BodyKind::TruncatedJson, Lang::Zh) => {
            format!("桥接服务返回了 HTTP {status}，但响应 JSON 不完整（可能被截断）: {snippet}")
        }
        (BodyKind::TruncatedJson, Lang::En) => {
            format!("The bridge answered HTTP {status} with incomplete (truncated) JSON: {snippet}")
        }
        (_, Lang::Zh) => format!("桥接服务返回了 HTTP {status}，响应不是 JSON: {snippet}"),
        (_, Lang::En) => {
            format!("The bridge answered HTTP {status} with a body that is not JSON: {snippet}")
        }
    }
}

pub fn bad_shape(status: u16, snippet: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("桥接服务返回了 HTTP {status}，但内容格式无法识别: {snippet}"),
        Lang::En => format!(
            "The bridge answered HTTP {status} in a shape that is not understood: {snippet}"
        ),
    }
}

pub fn still_running(call_id: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("工具仍在运行，结果尚未返回（调用 ID {call_id}）"),
        Lang::En => {
            format!("The tool is still running and has not returned yet (call id {call_id})")
        }
    }
}

pub fn unreachable(message: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("无法连接到桥接服务（127.0.0.1:3849）: {message}"),
        Lang::En => format!("Cannot reach the bridge service (127.0.0.1:3849): {message}"),
    }
}

pub fn timed_out(ms: u64, lang: Lang) -> String {
    // Seconds with up to three decimals, without float formatting.
    let secs = if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{}.{:03}", ms / 1000, ms % 1000)
            .trim_end_matches('0')
            .to_string()
    };
    match lang {
        Lang::Zh => format!("工具在 {secs} 秒内没有返回结果，已停止等待"),
        Lang::En => format!("The tool did not answer within {secs} s; stopped waiting"),
    }
}

pub fn user_aborted(lang: Lang) -> String {
    t(
        lang,
        "用户停止了这次工具调用",
        "The user stopped this tool call",
    )
}

pub fn empty_tool_error(lang: Lang) -> String {
    t(
        lang,
        "工具报告失败，但没有给出错误说明",
        "The tool reported a failure without an explanation",
    )
}

pub fn no_message(status: u16, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("HTTP {status}，没有错误说明"),
        Lang::En => format!("HTTP {status} without an error message"),
    }
}

pub fn validation_header(lang: Lang) -> String {
    t(lang, "请求参数校验失败:", "The request failed validation:")
}

pub fn arg_required(path: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("参数 `{path}` 是必填的"),
        Lang::En => format!("argument `{path}` is required"),
    }
}

pub fn arg_unexpected(path: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("参数 `{path}` 不被接受（多余的参数）"),
        Lang::En => format!("argument `{path}` is not accepted (unexpected argument)"),
    }
}

pub fn json_invalid(why: &str, loc: &[Value], lang: Lang) -> String {
    let pos = loc.iter().rev().find_map(Value::as_u64);
    match (lang, pos) {
        (Lang::Zh, Some(p)) => format!("请求体不是合法的 JSON（位置 {p}）: {why}"),
        (Lang::Zh, None) => format!("请求体不是合法的 JSON: {why}"),
        (Lang::En, Some(p)) => {
            format!("the request body is not valid JSON (at position {p}): {why}")
        }
        (Lang::En, None) => format!("the request body is not valid JSON: {why}"),
    }
}

/// "an integer" / "整数".
pub fn expected(kind: &str, lang: Lang) -> String {
    let (zh, en) = match kind {
        "int" => ("整数", "an integer"),
        "float" => ("数字", "a number"),
        "bool" => ("布尔值（true/false）", "a boolean (true/false)"),
        "string" => ("字符串", "a string"),
        "object" => ("对象", "an object"),
        "array" => ("数组", "an array"),
        "date" => ("日期（YYYY-MM-DD）", "a date (YYYY-MM-DD)"),
        "datetime" => ("日期时间（ISO 8601）", "a date-time (ISO 8601)"),
        other => (other, other),
    };
    t(lang, zh, en)
}

pub fn expected_one_of(allowed: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("以下之一: {allowed}"),
        Lang::En => format!("one of {allowed}"),
    }
}

pub fn arg_expected_got(path: &str, expected: &str, got: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("参数 `{path}`: 应为{expected}，实际为 {got}"),
        Lang::En => format!("argument `{path}`: expected {expected}, got {got}"),
    }
}

pub fn arg_plain(path: &str, what: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("参数 `{path}`: {what}"),
        Lang::En => format!("argument `{path}`: {what}"),
    }
}

pub fn float_failure_title(tool: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("工具 {tool} 执行失败"),
        Lang::En => format!("Tool {tool} failed"),
    }
}

pub fn float_success_title(tool: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("工具 {tool} 执行成功"),
        Lang::En => format!("Tool {tool} succeeded"),
    }
}

pub fn float_malformed_title(lang: Lang) -> String {
    t(lang, "工具调用格式错误", "Malformed tool call")
}

pub fn malformed_body(error: &str, raw: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!(
            "**错误信息**: {error}\n\n你写的内容:\n{raw}\n\n正确的格式（必须是合法 JSON；tool_name 必填；arguments 必须是对象；server_name 可选）:\n<tool_code>\n{{\"tool_name\": \"工具名称\", \"arguments\": {{\"参数名\": \"参数值\"}}, \"server_name\": \"服务名称\"}}\n</tool_code>\n\n请修正格式后重新发起调用。"
        ),
        Lang::En => format!(
            "**Error**: {error}\n\nWhat you wrote:\n{raw}\n\nThe correct form (valid JSON; tool_name required; arguments must be an object; server_name optional):\n<tool_code>\n{{\"tool_name\": \"TOOL_NAME\", \"arguments\": {{\"ARGUMENT\": \"VALUE\"}}, \"server_name\": \"SERVICE_NAME\"}}\n</tool_code>\n\nPlease correct the call and send it again."
        ),
    }
}

pub fn tools_title(service: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!("# 服务 `{service}` 的工具"),
        Lang::En => format!("# Tools of service `{service}`"),
    }
}

pub fn tools_description(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "服务说明",
        Lang::En => "Service",
    }
}

pub fn params_label(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "参数",
        Lang::En => "parameters",
    }
}

pub fn no_params(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "无参数",
        Lang::En => "no parameters",
    }
}

pub fn required_mark(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "必填",
        Lang::En => "required",
    }
}

pub fn no_tools(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "(该服务没有工具)",
        Lang::En => "(this service has no tools)",
    }
}

pub fn tools_closing(service: &str, lang: Lang) -> String {
    match lang {
        Lang::Zh => {
            format!("请选择合适的工具，按 tool_code 格式调用（server_name 填 \"{service}\"）。")
        }
        Lang::En => format!(
            "Pick the tool you need and call it in the tool_code format (server_name \"{service}\")."
        ),
    }
}
