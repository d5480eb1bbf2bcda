//! Property tests of the whole pipeline: whatever a bridge answers, the report names the
//! tool, gives a message, stays within its cap, and keeps exactly the last stack lines.
#![cfg(not(target_arch = "wasm32"))]

use mcp_bridge_core::domain::outcome::from_http;
use mcp_bridge_core::domain::report::{Lang, ReportOptions, render, stack_tail};
use mcp_bridge_core::domain::toolcall::find_last_call;
use proptest::prelude::*;
use serde_json::{Value, json};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<String>().prop_map(Value::String),
        "(error|type|traceback|detail|code|retryable|trace_id|isError|is_error|content|result|success|pending|call_id)"
            .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                "(error|type|traceback|detail|code|retryable|trace_id|server|isError|is_error|content|result|success|pending|call_id|text|loc|msg|input|message|[a-z]{1,6})",
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn status() -> impl Strategy<Value = u16> {
    prop_oneof![
        Just(200u16),
        Just(202),
        Just(400),
        Just(401),
        Just(404),
        Just(422),
        Just(429),
        Just(500),
        Just(502),
        Just(504),
        100u16..600
    ]
}

fn check_report(tool: &str, status: u16, body: &[u8], lang: Lang) -> Result<(), TestCaseError> {
    let o = from_http(status, None, body);
    let opts = ReportOptions {
        lang,
        ..Default::default()
    };
    let r = render(tool, &json!({}), &o, &opts);
    let t = r.chat_text.as_str();
    prop_assert!(t.starts_with("<tool_result>\n") && t.ends_with("\n</tool_result>"));
    prop_assert!(t.len() <= opts.max_len);
    prop_assert!(t.contains(&format!("`{tool}`")), "tool not named: {}", t);
    // A failure's float says what went wrong; every float has a title.
    prop_assert!(
        !r.float.title.as_str().trim().is_empty(),
        "no title: {:?}",
        r.float
    );
    prop_assert_eq!(r.float.error.is_some(), !o.is_success());
    if let Some(e) = &r.float.error {
        prop_assert!(
            !e.message.as_str().trim().is_empty(),
            "empty message: {:?}",
            r.float
        );
    }
    if !o.is_success() {
        // `**错误信息**: [Type] message` with a non-empty message.
        let line = t
            .lines()
            .find(|l| l.starts_with("**错误信息**: [") || l.starts_with("**Error**: ["))
            .unwrap_or("");
        let msg = line.split_once("] ").map(|x| x.1).unwrap_or("");
        prop_assert!(!msg.trim().is_empty(), "no message in {}", t);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn any_bytes_give_a_report(status in status(), body in prop::collection::vec(any::<u8>(), 0..400), zh in any::<bool>()) {
        check_report("some_tool", status, &body, if zh { Lang::Zh } else { Lang::En })?;
    }

    #[test]
    fn any_json_gives_a_report(status in status(), body in arb_json(), zh in any::<bool>()) {
        check_report("get_tickets", status, body.to_string().as_bytes(), if zh { Lang::Zh } else { Lang::En })?;
    }

    #[test]
    fn any_error_object_gives_a_report(detail in arb_json(), tb in any::<String>(), status in 400u16..600) {
        let mut d = match detail { Value::Object(m) => Value::Object(m), other => json!({"error": other}) };
        d["traceback"] = Value::String(tb);
        check_report("read_file", status, json!({"detail": d}).to_string().as_bytes(), Lang::Zh)?;
    }

    /// The trimmed stack is exactly the last min(n, k) non-empty lines (secret-free text).
    #[test]
    fn stack_is_exact_tail(lines in prop::collection::vec("[a-z0-9 ,()]{0,60}", 0..60), n in 0usize..15, crlf in any::<bool>()) {
        let sep = if crlf { "\r\n" } else { "\n" };
        let tb = lines.join(sep);
        let expected: Vec<String> = {
            let ne: Vec<String> = lines.iter().filter(|l| !l.trim().is_empty()).map(|l| l.trim_end().to_string()).collect();
            ne[ne.len().saturating_sub(n)..].to_vec()
        };
        prop_assert_eq!(stack_tail(&tb, n), expected.clone());
        // And through the whole pipeline.
        let body = json!({"detail": {"error": "boom", "type": "RuntimeError", "traceback": tb}});
        let opts = ReportOptions { max_stack_lines: n, ..Default::default() };
        let r = render("t", &json!({}), &from_http(500, None, body.to_string().as_bytes()), &opts);
        let got: Vec<String> = r.float.error.as_ref().unwrap().stack.iter().map(|m| m.as_str().to_string()).collect();
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn parser_never_panics(s in any::<String>()) {
        let _ = find_last_call(&s);
        let _ = find_last_call(&format!("<tool_code>{s}</tool_code>"));
        let _ = find_last_call(&format!("tool_code\n{{{s}"));
    }

    /// A valid call survives every rendering variant.
    #[test]
    fn parser_finds_calls_in_all_variants(
        name in "[a-z_][a-z0-9_-]{0,20}",
        key in "[a-z]{1,8}",
        val in "[^\"\\\\<>&]{0,30}",
        variant in 0usize..6,
    ) {
        let call = json!({"tool_name": name, "arguments": {key.clone(): val.clone()}}).to_string();
        let text = match variant {
            0 => format!("Sure.\n<tool_code>\n{call}\n</tool_code>"),
            1 => format!("Sure.\n&lt;tool_code&gt;\n{}\n&lt;/tool_code&gt;", call.replace('"', "&quot;")),
            2 => format!("Sure.\ntool_code\n{call}\ntool_code"),
            3 => format!("Sure.\n<tool_code>\njson\nCopy code\n{call}\n</tool_code>"),
            4 => format!("Sure.\ntool_code\n复制\n{call}"),
            _ => format!("Sure.\n```tool_code\n{call}\n```"),
        };
        let got = find_last_call(&text);
        let Some(Ok(c)) = got else { return Err(TestCaseError::fail(format!("{text:?} -> {got:?}"))) };
        prop_assert_eq!(c.tool_name, name.trim());
        prop_assert_eq!(&c.arguments[&key], &json!(val));
    }
}

/// A 10 MB traceback (the benchmark's input) still renders within the cap with the last
/// lines, and quickly enough even in a debug build.
#[test]
fn huge_traceback() {
    let mut tb = String::with_capacity(10 << 20);
    let mut i = 0;
    while tb.len() < 10 << 20 {
        tb.push_str(&format!("  File \"/srv/app/module_{i}.py\", line {i}, in handler_{i}\n    result = handler_{}(payload)\n", i + 1));
        i += 1;
    }
    tb.push_str("ValueError: the last line");
    let body = json!({"detail": {"error": "x", "type": "ValueError", "traceback": tb}}).to_string();
    let r = render(
        "t",
        &json!({}),
        &from_http(500, None, body.as_bytes()),
        &ReportOptions::default(),
    );
    assert!(r.chat_text.as_str().len() <= 8192);
    assert_eq!(
        r.float
            .error
            .as_ref()
            .unwrap()
            .stack
            .last()
            .map(|m| m.as_str()),
        Some("ValueError: the last line")
    );
    assert_eq!(r.float.error.as_ref().unwrap().stack.len(), 10);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A secret anywhere in a message or traceback never reaches the page — also when
    /// the report cuts the text right at the secret.
    #[test]
    fn secrets_never_reach_the_page(
        body in "[A-Za-z0-9]{40}",
        pad in 0usize..12_000,
        in_stack in any::<bool>(),
        zh in any::<bool>(),
    ) {
        let secret = format!("sk-proj-{body}");
        let filler = "x ".repeat(pad / 2);
        let (error, tb) = if in_stack {
            ("boom".to_string(), format!("Traceback\n{filler}\n  key = {secret}\nRuntimeError: {filler}"))
        } else {
            (format!("{filler} {secret} {filler}"), String::new())
        };
        let json_body = json!({"detail": {"error": error, "type": "RuntimeError", "traceback": tb}});
        let lang = if zh { Lang::Zh } else { Lang::En };
        let r = render("t", &json!({}), &from_http(500, None, json_body.to_string().as_bytes()), &ReportOptions { lang, ..Default::default() });
        let page = serde_json::to_string(&(&r.chat_text, &r.float)).unwrap();
        // No 12-character piece of the key survives.
        for start in 0..=(body.len() - 12) {
            prop_assert!(!page.contains(&body[start..start + 12]), "leak of {} in report", &body[start..start + 12]);
        }
    }
}
