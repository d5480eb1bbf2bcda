//! The bridge client in a real browser, inside a service worker (no `window`, like the
//! extension's background), against the canned bridge `tests/support/canned_server.mjs`:
//! every response shape becomes the right [`CallOutcome`], and the whole error pipeline
//! (classify, mask, report) runs in wasm.
//!
//! ```text
//! CANNED_PORT=$port node tests/support/canned_server.mjs &
//! CANNED_URL=http://127.0.0.1:$port CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome -- --test web_client
//! ```
//! The server address is fixed at compile time: `CANNED_URL` (build.sh picks a free port and
//! starts the canned bridge on it).
#![cfg(target_arch = "wasm32")]

use mcp_bridge_core::domain::classify::Category;
use mcp_bridge_core::domain::outcome::{BodyKind, CallOutcome, ErrorDetail};
use mcp_bridge_core::domain::report::{ReportOptions, render, render_tool_list};
use mcp_bridge_core::runtime::bridge_client::BridgeApiClient;
use mcp_bridge_core::web::WebHost;
use serde_json::{Value, json};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_service_worker);

fn base() -> &'static str {
    env!(
        "CANNED_URL",
        "CANNED_URL: the canned bridge's address, on a free port"
    )
}

fn client() -> BridgeApiClient<'static, WebHost> {
    BridgeApiClient::new(&WebHost, base(), "test-token")
}

async fn exec(tool: &str) -> CallOutcome {
    client().execute(tool, &json!({}), None, None).await
}

/// The category the float shows for this outcome (its wire name), if it is a failure.
fn category(tool: &str, o: &CallOutcome) -> Option<Category> {
    let shown = render(tool, &json!({}), o, &ReportOptions::default())
        .float
        .error?
        .category;
    Category::ALL.into_iter().find(|c| c.as_str() == shown)
}

#[wasm_bindgen_test]
fn no_window_here() {
    // The point of running in a service worker: the client must not need `window`.
    let global = js_sys::global();
    let has_window = js_sys::Reflect::has(&global, &"window".into()).unwrap_or(false);
    assert!(!has_window, "expected a worker global scope");
}

#[wasm_bindgen_test]
async fn health_and_services() {
    let h = client().health().await.expect("health");
    assert_eq!(h["status"], "ok");
    let s = client().services().await.expect("services");
    assert_eq!(s["services"][0]["name"], "time");
    let h = client().history().await.expect("history");
    assert_eq!(h["success"], true);
    let r = client()
        .reset_history(Some("tickets"), Some("get_tickets"))
        .await
        .expect("reset");
    assert_eq!(
        r["body"],
        json!({"serverName": "tickets", "toolName": "get_tickets"})
    );
}

#[wasm_bindgen_test]
async fn success_sends_token_and_reads_trace_id() {
    match exec("ok").await {
        CallOutcome::Success {
            result, trace_id, ..
        } => {
            assert_eq!(result.text(), "hello from canned");
            assert_eq!(trace_id.as_deref(), Some("canned-trace"));
        }
        other => panic!("{other:?}"),
    }
    match exec("whoami").await {
        CallOutcome::Success { result, .. } => assert_eq!(result.text(), "Bearer test-token"),
        other => panic!("{other:?}"),
    }
    let o = client()
        .execute("echo_args", &json!({"a": [1, "二"]}), Some("tickets"), None)
        .await;
    let CallOutcome::Success { result, .. } = o else {
        panic!("{o:?}")
    };
    let echoed: Value = serde_json::from_str(&result.text()).unwrap();
    assert_eq!(
        echoed,
        json!({"arguments": {"a": [1, "二"]}, "serverName": "tickets"})
    );
}

#[wasm_bindgen_test]
async fn tool_errors_in_both_serialisations() {
    for tool in ["is_error_camel", "is_error_snake"] {
        let o = exec(tool).await;
        assert!(matches!(o, CallOutcome::ToolError { .. }), "{tool}: {o:?}");
        assert_eq!(category(tool, &o), Some(Category::Logical));
    }
}

#[wasm_bindgen_test]
async fn http_error_shapes() {
    let o = exec("detail_string").await;
    assert!(
        matches!(&o, CallOutcome::HttpError { status: 404, detail: ErrorDetail::Text { message }, .. } if message == "Not Found"),
        "{o:?}"
    );

    let o = exec("detail_object").await;
    let CallOutcome::HttpError {
        status: 500,
        detail: ErrorDetail::Object { error },
        ..
    } = &o
    else {
        panic!("{o:?}")
    };
    assert_eq!(
        (error.error_type.as_deref(), error.code),
        (Some("ValueError"), Some(-32602))
    );
    let r = render(
        "get_tickets",
        &json!({"date": "2025-13-45"}),
        &o,
        &ReportOptions::default(),
    );
    assert_eq!(
        r.float.error.unwrap().category,
        Category::Validation.as_str()
    );
    assert!(
        r.chat_text
            .as_str()
            .contains("**错误信息**: [ValueError] Invalid date format: 2025-13-45")
    );
    // The home directory in the traceback is masked in the page, kept in the record.
    assert!(!r.chat_text.as_str().contains("/home/alice"));
    assert!(r.record.unwrap().traceback.unwrap().contains("/home/alice"));

    let o = exec("detail_list").await;
    assert!(
        matches!(&o, CallOutcome::HttpError { status: 422, detail: ErrorDetail::Validation { items }, .. } if items[0].kind == "missing"),
        "{o:?}"
    );
    let o = exec("other_json").await;
    assert!(
        matches!(
            &o,
            CallOutcome::HttpError {
                detail: ErrorDetail::Other { .. },
                ..
            }
        ),
        "{o:?}"
    );
    let o = exec("limit").await;
    assert_eq!(category("get_tickets", &o), Some(Category::Limit));
    let o = exec("no_such_tool").await;
    assert!(
        matches!(&o, CallOutcome::HttpError { status: 404, .. }),
        "{o:?}"
    );
}

#[wasm_bindgen_test]
async fn non_json_and_wrong_shapes() {
    let cases = [
        ("html_502", BodyKind::Html, 502),
        ("text_500", BodyKind::Text, 500),
        ("empty_500", BodyKind::Empty, 500),
        ("truncated", BodyKind::TruncatedJson, 200),
    ];
    for (tool, kind, code) in cases {
        let o = exec(tool).await;
        assert!(
            matches!(&o, CallOutcome::NotJson { status, body, .. } if *status == code && *body == kind),
            "{tool}: {o:?}"
        );
    }
    let o = exec("html_502").await;
    assert_eq!(category("x", &o), Some(Category::Unavailable));
    let o = exec("wrong_shape").await;
    assert!(
        matches!(o, CallOutcome::BadShape { status: 200, .. }),
        "{o:?}"
    );
}

#[wasm_bindgen_test]
async fn refused_connection_is_unreachable() {
    // Nothing listens there: a port the canned bridge was just handed by the system and let go.
    let closed = gloo_net_get(&format!("{}/closed-port", base())).await;
    let url = format!("http://127.0.0.1:{}", closed["port"]);
    let c = BridgeApiClient::new(&WebHost, &url, "t");
    let o = c.execute("ok", &json!({}), None, None).await;
    assert!(matches!(o, CallOutcome::Unreachable { .. }), "{o:?}");
    let r = render("ok", &json!({}), &o, &ReportOptions::default());
    assert_eq!(
        r.float.error.unwrap().category,
        Category::Unavailable.as_str()
    );
    assert!(r.chat_text.as_str().contains("mcp-bridge"));
    assert!(c.health().await.is_err());
}

#[wasm_bindgen_test]
async fn stuck_bridge_times_out() {
    // With `wait = 1` the client allows 1 s + its slack; the canned bridge never answers.
    let o = client().execute("slow", &json!({}), None, Some(1)).await;
    assert!(matches!(o, CallOutcome::Timeout { .. }), "{o:?}");
    assert_eq!(category("slow", &o), Some(Category::Aborted));
}

#[wasm_bindgen_test]
async fn long_poll_until_final() {
    let o = client().execute("long", &json!({}), None, Some(1)).await;
    let CallOutcome::Pending { call_id, .. } = o else {
        panic!("{o:?}")
    };
    let mut last = client().poll(&call_id, 1, None).await;
    for _ in 0..5 {
        if !matches!(last, CallOutcome::Pending { .. }) {
            break;
        }
        last = client().poll(&call_id, 1, None).await;
    }
    match last {
        CallOutcome::Success { result, .. } => {
            assert_eq!(result.text(), "long call done after 2 polls")
        }
        other => panic!("{other:?}"),
    }
}

#[wasm_bindgen_test]
async fn cancel_a_pending_call() {
    let o = client().execute("long", &json!({}), None, Some(1)).await;
    let CallOutcome::Pending { call_id, .. } = o else {
        panic!("{o:?}")
    };
    client().cancel(&call_id).await;
    let o = client().poll(&call_id, 1, None).await;
    assert!(
        matches!(o, CallOutcome::HttpError { status: 499, .. }),
        "{o:?}"
    );
    assert_eq!(category("long", &o), Some(Category::Aborted));
}

#[wasm_bindgen_test]
async fn tool_list_report() {
    let answer = client().service_tools_raw("time").await;
    let (status, trace, body) = (answer.status, answer.trace_id, answer.body);
    let r = render_tool_list(
        "time",
        status,
        trace.as_deref(),
        &body,
        &ReportOptions::default(),
    );
    assert!(
        r.chat_text
            .as_str()
            .contains("- `get_current_time`: Get the time"),
        "{}",
        r.chat_text
    );
    let answer = client().service_tools_raw("nope").await;
    let (status, trace, body) = (answer.status, answer.trace_id, answer.body);
    let r = render_tool_list(
        "nope",
        status,
        trace.as_deref(),
        &body,
        &ReportOptions::default(),
    );
    assert_eq!(
        r.float.error.unwrap().category,
        Category::Unavailable.as_str()
    );
}

/// The report from a 10 MB traceback in wasm stays within the chat text's cap; the time it
/// takes is printed here and measured by `./build.sh bench` (a debug build proves nothing).
#[wasm_bindgen_test]
fn report_from_huge_traceback_in_wasm() {
    let mut tb = String::with_capacity(10 << 20);
    let mut i = 0;
    while tb.len() < 10 << 20 {
        tb.push_str(&format!(
            "  File \"/srv/app/module_{i}.py\", line {i}, in handler_{i}\n    handler_{}()\n",
            i + 1
        ));
        i += 1;
    }
    tb.push_str("ValueError: last");
    let body =
        json!({"detail": {"error": "boom", "type": "ValueError", "traceback": tb}}).to_string();
    let outcome = mcp_bridge_core::domain::outcome::from_http(500, None, body.as_bytes());
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = js_sys::Date::now();
        let r = render("t", &json!({}), &outcome, &ReportOptions::default());
        best = best.min(js_sys::Date::now() - t);
        assert!(r.chat_text.as_str().len() <= 8192);
    }
    let t = js_sys::Date::now();
    let _ = mcp_bridge_core::domain::outcome::from_http(500, None, body.as_bytes());
    let decode = js_sys::Date::now() - t;
    let text = "connect to 10.0.0.1 with password=hunter2; all good here, nothing to see. "
        .repeat(100_000);
    let t = js_sys::Date::now();
    let _ = mcp_bridge_core::domain::redact::redact(&text);
    let mask_ms = js_sys::Date::now() - t;
    let mbps = text.len() as f64 / 1048576.0 / (mask_ms.max(1.0) / 1000.0);
    console_log!(
        "wasm: report from a 10 MB traceback {best} ms (+ {decode} ms JSON decode); masking {mbps:.0} MB/s"
    );
}

/// The browser's WebCrypto HMAC gives the bridge's proof (the value the bridge's own test
/// checks, computed independently).
#[wasm_bindgen_test]
async fn webcrypto_computes_the_bridges_proof() {
    use mcp_bridge_core::runtime::host::Host as _;
    let message = mcp_bridge_core::domain::proof::message(3849, "0123456789abcdef0123456789abcdef");
    assert_eq!(
        WebHost.hmac_sha256("T0k", &message).await.unwrap(),
        "d3c8ff5bd17cc1740f6d0e9b726ef0ec7f4aa37c072691f8dabef9d381c916af"
    );
    let a = WebHost.random_nonce();
    assert_eq!(a.len(), 32);
    assert_ne!(a, WebHost.random_nonce());
}

/// A server that cannot prove it holds the client's token never receives it: the canned
/// server holds `test-token`, this client another one.
#[wasm_bindgen_test]
async fn a_token_goes_only_to_a_server_that_proved_it_holds_it() {
    let stranger_token = "a-token-the-canned-server-does-not-hold";
    let o = BridgeApiClient::new(&WebHost, base(), stranger_token)
        .execute("whoami", &json!({}), None, None)
        .await;
    assert_eq!(o.status(), Some(401), "{o:?}");
    let seen: Value = gloo_net_get(&format!("{}/auth-seen", base())).await;
    assert!(
        !seen.to_string().contains(stranger_token),
        "the token reached a server that did not prove it: {seen}"
    );
    // The canned server proves `test-token`: that client's calls carry it.
    assert!(matches!(exec("ok").await, CallOutcome::Success { .. }));
}

async fn gloo_net_get(url: &str) -> Value {
    let resp = gloo_net::http::Request::get(url).send().await.unwrap();
    resp.json().await.unwrap()
}
