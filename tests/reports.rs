//! Golden reports: real-shaped bridge responses and the exact text the AI receives, in
//! Chinese and English, plus the float's structured view.
//!
//! Goldens live in `tests/golden/`. After an intended change of wording or layout, run
//! `UPDATE_GOLDEN=1 cargo test -p mcp-bridge-core --test reports` and review the diff.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use mcp_bridge_core::domain::outcome::{CallOutcome, from_http};
use mcp_bridge_core::domain::report::{
    Lang, Rendered, ReportOptions, render, render_malformed, render_tool_list,
};
use mcp_bridge_core::domain::toolcall::find_last_call;
use serde_json::{Value, json};

/// How a case produces its outcome (a test table: the size difference does not matter).
#[allow(clippy::large_enum_variant)]
enum Src {
    Http(u16, Option<&'static str>, String),
    Direct(CallOutcome),
}

struct Case {
    name: &'static str,
    tool: &'static str,
    args: Value,
    src: Src,
}

fn http(name: &'static str, tool: &'static str, status: u16, body: Value) -> Case {
    Case {
        name,
        tool,
        args: json!({}),
        src: Src::Http(status, None, body.to_string()),
    }
}

fn raw(name: &'static str, tool: &'static str, status: u16, body: &str) -> Case {
    Case {
        name,
        tool,
        args: json!({}),
        src: Src::Http(status, None, body.to_string()),
    }
}

const PYTHON_BRIDGE_TB: &str = "Traceback (most recent call last):\n  File \"/path/to/mcp_server.py\", line 123, in get_tickets\n    date = parse_date(params['date'])\n  File \"/path/to/utils.py\", line 45, in parse_date\n    raise ValueError(f\"Invalid date format: {date_str}\")\nValueError: Invalid date format: 2025-13-45";

fn long_traceback() -> String {
    let mut s = String::from("Traceback (most recent call last):\n");
    for i in 0..40 {
        s.push_str(&format!(
            "  File \"/home/dev/srv/mod{i}.py\", line {}, in step{i}\n    step{}()\n",
            10 + i,
            i + 1
        ));
    }
    s.push_str("RuntimeError: worker pool exhausted\n");
    s
}

fn cases() -> Vec<Case> {
    let mut v = vec![
        http("success_text", "get_current_time", 200, json!({"success": true, "result": {"content": [{"type": "text", "text": "{\"timezone\": \"Asia/Shanghai\", \"datetime\": \"2025-10-25T10:30:15+08:00\", \"is_dst\": false}"}], "isError": false}})),
        http("success_plain_multi", "echo", 200, json!({"success": true, "result": {"content": [{"type": "text", "text": "line one"}, {"type": "text", "text": "line two"}]}})),
        http("success_structured_snake", "add", 200, json!({"success": true, "result": {"content": [], "structured_content": {"sum": 5}, "is_error": false}})),
        http("success_media", "screenshot", 200, json!({"success": true, "result": {"content": [
            {"type": "image", "data": "A".repeat(16384), "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///tmp/report.txt", "mimeType": "text/plain", "text": "report body"}},
            {"type": "resource", "resource": {"uri": "file:///tmp/a.bin", "blob": "AAAA"}},
            {"type": "resource_link", "uri": "file:///tmp/b.md", "name": "b.md"}]}})),
        http("success_empty", "noop", 200, json!({"success": true, "result": {"content": []}})),
        http("tool_error_camel", "query_db", 200, json!({"success": true, "result": {"content": [{"type": "text", "text": "User with ID 42 not found."}], "isError": true}})),
        http("tool_error_snake", "read_text_file", 200, json!({"success": true, "result": {"content": [{"type": "text", "text": "Error: file /home/alice/notes.txt does not exist"}], "is_error": true}})),
        http("tool_error_fastmcp_validation", "add", 200, json!({"success": true, "result": {"content": [{"type": "text", "text": "Error executing tool add: 1 validation error for addArguments\nb\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='five', input_type=str]"}], "isError": true}})),
        http("tool_error_unknown_tool", "fly", 200, json!({"success": true, "result": {"content": [{"type": "text", "text": "Unknown tool: fly"}], "isError": true}})),
        http("fastapi_not_found", "get_time", 404, json!({"detail": "Not Found"})),
        http("fastapi_method_not_allowed", "get_time", 405, json!({"detail": "Method Not Allowed"})),
        http("service_not_loaded_zh", "list_tools_in_service", 404, json!({"detail": "服务 weather 不存在或未成功加载"})),
        http("python_bridge_value_error", "get-interline-tickets", 500, json!({"detail": {"error": "Invalid date format: 2025-13-45", "type": "ValueError", "traceback": PYTHON_BRIDGE_TB}})),
        http("python_bridge_tool_missing", "unknown_tool", 500, json!({"detail": {"error": "工具 unknown_tool 不存在于任何服务中", "type": "ValueError", "traceback": "Traceback (most recent call last):\n  File \"mcp_bridge.py\", line 210, in execute\nValueError: 工具 unknown_tool 不存在于任何服务中"}})),
        http("python_bridge_call_limit", "get_tickets", 500, json!({"detail": {"error": "工具 get_tickets 已达到最大调用次数 (3次)", "type": "ValueError", "traceback": ""}})),
        Case { name: "bridge_call_limit", tool: "get_tickets", args: json!({"date": "x"}), src: Src::Http(429, Some("tr-77"), json!({"detail": {"error": "get_tickets on server 12306 failed 3 times in a row; refusing further calls until a success or POST /reset-history", "type": "CallLimitExceeded", "retryable": false, "trace_id": "tr-77", "server": "12306"}}).to_string()) },
        http("fastapi_422_json_invalid", "echo", 422, json!({"detail": [{"type": "json_invalid", "loc": ["body", 27], "msg": "JSON decode error", "input": {}, "ctx": {"error": "Expecting ',' delimiter"}}]})),
        http("fastapi_422_missing_and_int", "order", 422, json!({"detail": [
            {"type": "missing", "loc": ["body", "name"], "msg": "Field required", "input": {"arguments": {}}},
            {"type": "int_parsing", "loc": ["body", "arguments", "quantity"], "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "five"}]})),
        http("fastapi_422_extra_literal", "order", 422, json!({"detail": [
            {"type": "extra_forbidden", "loc": ["body", "arguments", "colour"], "msg": "Extra inputs are not permitted", "input": "red"},
            {"type": "literal_error", "loc": ["body", "arguments", "size"], "msg": "Input should be 'S', 'M' or 'L'", "input": "XL", "ctx": {"expected": "'S', 'M' or 'L'"}},
            {"type": "list_type", "loc": ["body", "arguments", "items", 0, "tags"], "msg": "Input should be a valid list", "input": "a,b"}]})),
        http("file_not_found", "read_text_file", 500, json!({"detail": {"error": "[Errno 2] No such file or directory: '/home/alice/projects/todo.md'", "type": "FileNotFoundError", "traceback": "Traceback (most recent call last):\n  File \"/home/alice/.local/lib/python3.12/site-packages/fs_server.py\", line 88, in read_text_file\n    with open(path) as f:\nFileNotFoundError: [Errno 2] No such file or directory: '/home/alice/projects/todo.md'", "code": -32002, "server": "filesystem"}})),
        http("permission_denied", "read_text_file", 403, json!({"detail": {"error": "[Errno 13] Permission denied: '/etc/shadow'", "type": "PermissionError", "code": -32008, "retryable": false, "server": "filesystem"}})),
        http("connection_error", "fetch_page", 500, json!({"detail": {"error": "Failed to connect to postgres://app:s3cret@10.1.2.3:5432/prod", "type": "requests.exceptions.ConnectionError", "traceback": "Traceback (most recent call last):\n  File \"C:\\Users\\Bob\\srv\\net.py\", line 9, in fetch\nrequests.exceptions.ConnectionError: HTTPConnectionPool(host='192.168.1.20', port=80): Max retries exceeded"}})),
        Case { name: "bridge_timeout", tool: "slow", args: json!({"seconds": 600}), src: Src::Http(504, Some("tr-504"), json!({"detail": {"error": "slow on server demo did not answer within 120 s; the call was cancelled", "type": "TimeoutError", "code": -32001, "retryable": true, "trace_id": "tr-504", "server": "demo"}}).to_string()) },
        http("server_crashed", "crash", 502, json!({"detail": {"error": "MCP server demo exited during the call (exit status 1)", "type": "ServerCrashed", "code": -32603, "server": "demo", "traceback": long_traceback()}})),
        http("tool_not_found", "get_wether", 404, json!({"detail": {"error": "No tool get_wether on server weather. Closest: get_weather. Tools of weather: get_weather, get_forecast", "type": "ToolNotFound", "code": -32003, "server": "weather", "retryable": false}})),
        http("invalid_params_object", "add", 422, json!({"detail": {"error": "Invalid params: 'b' is a required property", "type": "InvalidParams", "code": -32602, "server": "demo", "retryable": false}})),
        http("internal_error_code_only", "add", 500, json!({"detail": {"error": "Internal error", "code": -32603}})),
        raw("html_502", "get_time", 502, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"),
        raw("empty_body_500", "get_time", 500, ""),
        raw("json_array_body", "get_time", 500, "[\"unexpected\", 1]"),
        raw("plain_text_500", "get_time", 500, "Internal Server Error"),
        raw("truncated_json_200", "get_time", 200, "{\"success\": true, \"result\": {\"content\": [{\"type\": \"text\", \"te"),
        http("wrong_shape_200", "get_time", 200, json!({"status": "ok", "timestamp": 1729852215.5})),
        http("unauthorized_401", "get_time", 401, json!({"detail": "Missing or invalid bearer token"})),
        http("jsonrpc_error_shape", "get_time", 400, json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found: tools/cal"}})),
        http("detail_odd_values", "add", 500, json!({"detail": {"error": {"reason": "overflow", "limit": 100}, "type": 42, "traceback": ["  File \"x.py\", line 1, in f", "OverflowError: too big"], "code": "-32000", "retryable": "true", "extra_field": [1, 2]}})),
        http("secrets_in_message", "call_api", 500, json!({"detail": {"error": "OpenAI rejected key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 (Authorization: Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyzAB)", "type": "HTTPStatusError", "traceback": "Traceback (most recent call last):\n  File \"/Users/carol/app/client.py\", line 3, in call\n    headers = {\"api_key\": \"AIzaSyA-1234567890abcdefghijklmnopqrstu\", \"password\": \"p4ss\"}\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\nhttpx.HTTPStatusError: 401 token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}})),
        http("success_false_200", "get_time", 200, json!({"success": false, "error": "bridge is shutting down"})),
        http("cancelled_error", "long_job", 500, json!({"detail": {"error": "", "type": "asyncio.exceptions.CancelledError", "traceback": "Traceback (most recent call last):\n  File \"job.py\", line 5, in run\nasyncio.exceptions.CancelledError"}})),
        http("key_error", "get_user", 500, json!({"detail": {"error": "'user_id'", "type": "KeyError", "traceback": "Traceback (most recent call last):\n  File \"users.py\", line 12, in get_user\n    uid = params['user_id']\nKeyError: 'user_id'"}})),
    ];
    v.push(http(
        "rmcp_argument_error",
        "add",
        200,
        json!({"success": true, "result": {"content": [{"type": "text", "text": "failed to deserialize parameters: invalid type: string \"five\", expected f64"}], "structuredContent": null, "isError": true}}),
    ));
    v.push(http(
        "bridge_server_not_found",
        "get_weather",
        404,
        json!({"detail": {"error": "No MCP server named wether. Configured: weather, time", "type": "ServerNotFound", "server": "wether"}}),
    ));
    v.push(http(
        "bridge_forbidden_origin",
        "get_time",
        403,
        json!({"detail": {"error": "Requests from origin https://evil.example are refused", "type": "Forbidden"}}),
    ));
    // Our bridge's errors carry `facts`: the report says them in the reader's language.
    let ours = |name, tool, status: u16, detail: Value| {
        http(name, tool, status, json!({ "detail": detail }))
    };
    v.push(ours("ours_no_server", "get_weather", 404, json!({"error": "There is no MCP server named `wether`. The servers are: weather, time.", "type": "ServerNotFound", "code": -32003, "retryable": false, "trace_id": "t1", "server": "wether", "traceback": "", "facts": {"available": ["weather", "time"]}})));
    v.push(ours("ours_no_tool", "get_wether", 404, json!({"error": "No MCP server has a tool named `get_wether`.", "type": "ToolNotFound", "code": -32003, "retryable": false, "trace_id": "t2", "server": null, "tool": "get_wether", "traceback": "", "facts": {"closest": [{"tool": "get_weather", "server": "weather"}], "services": [{"name": "weather", "tools": ["get_weather", "get_forecast"]}, {"name": "db", "tools": null}]}})));
    v.push(ours("ours_no_tool_on_server", "get_wether", 404, json!({"error": "Tool `get_wether` does not exist on server `weather`.", "type": "ToolNotFound", "code": -32003, "retryable": false, "trace_id": "t3", "server": "weather", "tool": "get_wether", "traceback": "", "facts": {"closest": [{"tool": "get_weather", "server": "weather"}], "services": [{"name": "weather", "tools": ["get_weather", "get_forecast"]}]}})));
    v.push(ours("ours_call_limit", "get_tickets", 429, json!({"error": "Tool `get_tickets` on server `12306` failed 3 times in a row and reached the call limit (3).", "type": "CallLimitExceeded", "code": -32000, "retryable": false, "trace_id": "t4", "server": "12306", "tool": "get_tickets", "traceback": "", "facts": {"failures": 3, "limit": 3}})));
    v.push(ours("ours_timeout", "slow", 504, json!({"error": "Tool `slow` on server `demo` did not finish within 120 s.", "type": "TimeoutError", "code": -32001, "retryable": true, "trace_id": "t5", "server": "demo", "tool": "slow", "traceback": "", "facts": {"seconds": 120.0}})));
    v.push(ours("ours_token_wrong", "get_time", 401, json!({"error": "Wrong token: the bearer token does not match this bridge's token.", "type": "Unauthorized", "code": -32010, "retryable": false, "trace_id": "t6", "server": null, "traceback": "", "facts": {"reason": "wrong-token"}})));
    v.push(ours("ours_refused_origin", "get_time", 403, json!({"error": "Origin `https://evil.example` is refused.", "type": "Forbidden", "code": -32008, "retryable": false, "trace_id": "t7", "server": null, "traceback": "", "facts": {"refused": "origin", "value": "https://evil.example"}})));
    v.push(ours("ours_past_end", "read_result", 416, json!({"error": "Offset 90000 is past the end of result `r-1a2b`, which has 81234 characters.", "type": "OffsetOutOfRange", "code": -32602, "retryable": false, "trace_id": "t8", "server": null, "tool": "read_result", "result_id": "r-1a2b", "traceback": "", "facts": {"offset": 90000, "total_chars": 81234}})));
    v.push(ours("ours_result_expired", "read_result", 410, json!({"error": "Result `r-1a2b` has expired.", "type": "ResultExpired", "code": -32002, "retryable": false, "trace_id": "t9", "server": null, "tool": "read_result", "result_id": "r-1a2b", "traceback": "", "facts": {"reason": "expired", "limit": 600}})));
    v.push(ours("ours_bad_params_schema", "get_tickets", 422, json!({"error": "Invalid date format: 2025-13-45", "type": "ValueError", "code": -32602, "retryable": false, "trace_id": "t11", "server": "12306", "tool": "get_tickets", "traceback": "", "input_schema": {"type": "object", "properties": {"date": {"type": "string", "description": "Travel date, YYYY-MM-DD"}, "limit": {"type": "integer"}}, "required": ["date"]}})));
    v.push(ours("ours_crashed", "crash", 502, json!({"error": "MCP server `demo` crashed (its process exited) while running tool `crash`.", "type": "ServerCrashed", "code": -32000, "retryable": true, "trace_id": "t10", "server": "demo", "tool": "crash", "traceback": "panic: out of memory\nexit status 2", "facts": {}})));
    v.push(Case {
        name: "transport_unreachable",
        tool: "get_time",
        args: json!({}),
        src: Src::Direct(CallOutcome::unreachable("TypeError: Failed to fetch")),
    });
    v.push(Case {
        name: "transport_timeout",
        tool: "slow",
        args: json!({"seconds": 90}),
        src: Src::Direct(CallOutcome::timeout(30_000)),
    });
    v.push(ours("ours_refused_no_auth", "get_time", 403, json!({"error": "Managing servers needs the token: the bridge runs with --no-auth.", "type": "Forbidden", "code": -32008, "retryable": false, "trace_id": "t12", "server": null, "traceback": "", "facts": {"refused": "no-auth", "value": ""}})));
    v.push(ours("ours_result_evicted", "read_result", 410, json!({"error": "Result `r-1a2b` was dropped to make room.", "type": "ResultExpired", "code": -32002, "retryable": false, "trace_id": "t13", "server": null, "tool": "read_result", "result_id": "r-1a2b", "traceback": "", "facts": {"reason": "evicted", "limit": 256}})));
    // The user's policy kept the tool from running: its own outcome, not a failure.
    v.push(Case {
        name: "user_denied",
        tool: "delete_file",
        args: json!({"path": "notes.txt"}),
        src: Src::Direct(CallOutcome::denied()),
    });
    v.push(Case {
        name: "transport_aborted",
        tool: "slow",
        args: json!({}),
        src: Src::Direct(CallOutcome::aborted()),
    });
    v.push(Case {
        name: "pending_leftover",
        tool: "slow",
        args: json!({}),
        src: Src::Http(
            202,
            Some("tr-9"),
            json!({"success": true, "pending": true, "call_id": "c-9"}).to_string(),
        ),
    });
    v
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares with (or, under `UPDATE_GOLDEN=1`, writes) one golden file.
fn check(file: &str, actual: &str, failures: &mut Vec<String>) {
    let path = golden_dir().join(file);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    match std::fs::read_to_string(&path) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => failures.push(format!(
            "{file}: differs\n--- expected\n{expected}\n--- actual\n{actual}\n"
        )),
        Err(_) => failures.push(format!("{file}: missing (run with UPDATE_GOLDEN=1)")),
    }
}

fn opts(lang: Lang) -> ReportOptions {
    ReportOptions {
        lang,
        ..Default::default()
    }
}

fn outcome_of(c: &Case) -> CallOutcome {
    match &c.src {
        Src::Http(status, tid, body) => from_http(*status, *tid, body.as_bytes()),
        Src::Direct(o) => o.clone(),
    }
}

fn float_json(r: &Rendered) -> String {
    let mut v = serde_json::to_value(&r.float).unwrap();
    v["hasRecord"] = json!(r.record.is_some());
    // Media data is base64 passed through as the bridge sent it: its length says enough.
    if let Some(media) = v.get_mut("media").and_then(|m| m.as_array_mut()) {
        for m in media {
            let len = m["data"].as_str().map_or(0, str::len);
            m["data"] = json!(format!("<{len} base64 characters>"));
        }
    }
    serde_json::to_string_pretty(&v).unwrap() + "\n"
}

#[test]
fn golden_reports() {
    let cases = cases();
    assert!(cases.len() >= 30, "the table keeps at least 30 responses");
    let mut failures = Vec::new();
    for c in &cases {
        let o = outcome_of(c);
        let zh = render(c.tool, &c.args, &o, &opts(Lang::Zh));
        let en = render(c.tool, &c.args, &o, &opts(Lang::En));
        check(
            &format!("{}.zh.txt", c.name),
            &(zh.chat_text.to_string() + "\n"),
            &mut failures,
        );
        check(
            &format!("{}.en.txt", c.name),
            &(en.chat_text.to_string() + "\n"),
            &mut failures,
        );
        check(
            &format!("{}.float.json", c.name),
            &float_json(&en),
            &mut failures,
        );
        // Invariants that hold for every case.
        for r in [&zh, &en] {
            let t = r.chat_text.as_str();
            assert!(
                t.starts_with("<tool_result>\n# ") && t.ends_with("\n</tool_result>"),
                "{}: {t}",
                c.name
            );
            assert!(t.len() <= 8192, "{}", c.name);
            assert!(
                t.contains(&format!("`{}`", c.tool)),
                "{}: names the tool",
                c.name
            );
            let failed = !o.is_success() && o != CallOutcome::denied();
            assert_eq!(r.record.is_some(), failed, "{}", c.name);
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn golden_malformed_and_tool_lists() {
    let mut failures = Vec::new();
    let malformed = [
        (
            "malformed_bad_json",
            "<tool_code>\n{\"tool_name\": \"add\", \"arguments\": {\"a\": 1, \"b\": }}\n</tool_code>",
        ),
        (
            "malformed_missing_name",
            "<tool_code>{\"name\": \"add\", \"arguments\": {}}</tool_code>",
        ),
        (
            "malformed_args_not_object",
            "tool_code\n{\"tool_name\": \"add\", \"arguments\": [1, 2]}\ntool_code",
        ),
    ];
    for (name, text) in malformed {
        let m = find_last_call(text)
            .expect("complete")
            .expect_err("malformed");
        for (lang, ext) in [(Lang::Zh, "zh"), (Lang::En, "en")] {
            let r = render_malformed(&m, &opts(lang));
            check(
                &format!("{name}.{ext}.txt"),
                &(r.chat_text.to_string() + "\n"),
                &mut failures,
            );
        }
    }
    let list = json!({"success": true, "tools": {"service_name": "time", "service_description": "Time and timezone conversion", "tools": [
        {"name": "get_current_time", "description": "Get current time in a specific timezone", "parameters": {"type": "object",
            "properties": {"timezone": {"type": "string", "description": "IANA timezone name (e.g. 'America/New_York'). Use 'UTC' as local timezone if no timezone provided by the user."}}, "required": ["timezone"]}},
        {"name": "convert_time", "description": "Convert time between timezones\nSecond line is dropped.", "parameters": {"type": "object",
            "properties": {"source_timezone": {"type": "string"}, "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"}, "target_timezone": {"type": "string"}, "precision": {"anyOf": [{"type": "integer"}, {"type": "null"}]}, "mode": {"enum": ["fast", "exact"]}},
            "required": ["source_timezone", "time", "target_timezone"]}}]}});
    let lists: [(&str, u16, String); 3] = [
        ("tools_time", 200, list.to_string()),
        ("tools_empty", 200, json!({"success": true, "tools": {"service_name": "empty", "service_description": "", "tools": []}}).to_string()),
        ("tools_unknown_service", 404, json!({"detail": "服务 nope 不存在或未成功加载"}).to_string()),
    ];
    for (name, status, body) in &lists {
        let service = name.trim_start_matches("tools_");
        for (lang, ext) in [(Lang::Zh, "zh"), (Lang::En, "en")] {
            let r = render_tool_list(service, *status, None, body.as_bytes(), &opts(lang));
            check(
                &format!("{name}.{ext}.txt"),
                &(r.chat_text.to_string() + "\n"),
                &mut failures,
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
