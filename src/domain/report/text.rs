//! Renders what classification found — categories, advice, notes, 422 lists — in the
//! reader's language, from the catalog (`crate::domain::i18n`). No sentence lives here:
//! only which catalog entry says what, and the values it is filled with.

use mcp_bridge_protocol::errors::{Refused, ResultGone};
use serde_json::Value;

use crate::domain::classify::{Advice, BridgeSaid, Category, Note, Said};
pub use crate::domain::i18n::Lang;
use crate::domain::i18n::fill;
use crate::domain::outcome::{BodyKind, ValidationItem, cut_chars, display_value};

/// Where the bridge is, as the reports name it.
#[derive(Debug, Clone, Copy)]
pub struct Address<'a> {
    /// `http://127.0.0.1:3849`.
    pub url: &'a str,
}

impl<'a> Address<'a> {
    /// `127.0.0.1:3849`.
    pub fn host(&self) -> &'a str {
        let rest = self.url.split_once("://").map_or(self.url, |(_, r)| r);
        rest.trim_end_matches('/')
    }
}

/// `validation（参数错误，修正参数后再调用）`.
pub fn category_label(c: Category, lang: Lang) -> String {
    let says = lang.says();
    let template = match c {
        Category::Validation => says.category_validation,
        Category::Runtime => says.category_runtime,
        Category::Logical => says.category_logical,
        Category::Aborted => says.category_aborted,
        Category::Exception => says.category_exception,
        Category::Unavailable => says.category_unavailable,
        Category::Limit => says.category_limit,
    };
    fill(template, &[("code", c.as_str())])
}

pub fn retryable_word(r: bool, lang: Lang) -> &'static str {
    if r {
        lang.says().retryable_yes
    } else {
        lang.says().retryable_no
    }
}

pub fn advice(a: &Advice, lang: Lang, bridge: Address<'_>) -> String {
    use Advice as A;
    let says = lang.says();
    let server = |s: &Option<String>| s.clone().unwrap_or_else(|| says.service_placeholder.into());
    let plain = match a {
        A::CheckSchema => says.advice_check_schema,
        A::RequiredArgs => says.advice_required_args,
        A::ArgTypes => says.advice_arg_types,
        A::FixListedArgs => says.advice_fix_listed_args,
        A::AskUser => says.advice_ask_user,
        A::ListTools { server: s } => {
            return fill(says.advice_list_tools, &[("server", &server(s))]);
        }
        A::CheckServerName => says.advice_check_server_name,
        A::ListPaths => says.advice_list_paths,
        A::CheckPermission => says.advice_check_permission,
        A::RetryLater => says.advice_retry_later,
        A::CheckUrl => says.advice_check_url,
        A::CheckQuery => says.advice_check_query,
        A::ReadToolMessage => says.advice_read_tool_message,
        A::VerifyState => says.advice_verify_state,
        A::NarrowRequest => says.advice_narrow_request,
        A::UserStopped => says.advice_user_stopped,
        A::TryOtherTool => says.advice_try_other_tool,
        A::TellUser => says.advice_tell_user,
        A::StartBridge => says.advice_start_bridge,
        A::CheckServerConfig { server: s } => {
            return fill(says.advice_check_server_config, &[("server", &server(s))]);
        }
        A::CheckToken => says.advice_check_token,
        A::StopRetrying => says.advice_stop_retrying,
        A::ResetHistory => {
            return fill(says.advice_reset_history, &[("address", bridge.url)]);
        }
        A::ResultRead => says.advice_result_read,
        A::RunToolAgain => says.advice_run_tool_again,
        A::BridgeRefused => {
            return fill(says.advice_bridge_refused, &[("address", bridge.host())]);
        }
        A::UpdateBridge => says.advice_update_bridge,
    };
    plain.to_string()
}

/// What a failure said: the tool's or the bridge's words as they are, or our note on a
/// situation that has none, in the reader's language.
pub fn said(s: &Said, lang: Lang, bridge: Address<'_>) -> String {
    match s {
        Said::Quoted(text) => text.clone(),
        Said::Note(note) => self::note(note, lang, bridge),
    }
}

fn note(n: &Note, lang: Lang, bridge: Address<'_>) -> String {
    let says = lang.says();
    match n {
        Note::NotJson {
            status,
            body,
            snippet,
        } => {
            let template = match body {
                BodyKind::Empty => says.note_empty_body,
                BodyKind::TruncatedJson => says.note_truncated_json,
                _ => says.note_not_json,
            };
            let status = status.to_string();
            fill(template, &[("status", &status), ("snippet", snippet)])
        }
        Note::BadShape { status, snippet } => fill(
            says.note_bad_shape,
            &[("status", &status.to_string()), ("snippet", snippet)],
        ),
        Note::StillRunning { call_id } => fill(says.note_still_running, &[("call_id", call_id)]),
        Note::Unreachable { why } => fill(
            says.note_unreachable,
            &[("address", bridge.host()), ("why", why)],
        ),
        Note::TimedOut { after_ms } => {
            fill(says.note_timed_out, &[("seconds", &seconds(*after_ms))])
        }
        Note::UserAborted => says.note_user_aborted.into(),
        Note::EmptyToolError => says.note_empty_tool_error.into(),
        Note::NoMessage { status } => {
            fill(says.note_no_message, &[("status", &status.to_string())])
        }
        Note::Validation { items } => validation_message(items, lang),
        Note::Bridge(said) => bridge_said(said, lang),
    }
}

/// Our bridge's own failure in the reader's language.
fn bridge_said(said: &BridgeSaid, lang: Lang) -> String {
    let says = lang.says();
    let names = |list: &[String]| {
        if list.is_empty() {
            says.bridge_none.to_string()
        } else {
            list.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    match said {
        BridgeSaid::TokenMissing => says.bridge_token_missing.into(),
        BridgeSaid::TokenWrong => says.bridge_token_wrong.into(),
        BridgeSaid::Refused { what, value } => {
            let template = match what {
                Refused::Origin => says.bridge_refused_origin,
                Refused::Host => says.bridge_refused_host,
                Refused::NoAuth => says.bridge_refused_no_auth,
                Refused::Ambiguous => says.bridge_refused_ambiguous,
            };
            fill(template, &[("value", value)])
        }
        BridgeSaid::TooLarge { limit } => {
            fill(says.bridge_too_large, &[("limit", &limit.to_string())])
        }
        BridgeSaid::NoServer { server, available } => fill(
            says.bridge_no_server,
            &[("server", server), ("available", &names(available))],
        ),
        BridgeSaid::NoTool {
            tool,
            server,
            closest,
            services,
        } => {
            let closest = if closest.is_empty() {
                String::new()
            } else {
                let list: Vec<String> = closest
                    .iter()
                    .map(|(tool, on)| match server {
                        Some(_) => format!("`{tool}`"),
                        None => fill(says.bridge_tool_on, &[("tool", tool), ("server", on)]),
                    })
                    .collect();
                fill(says.bridge_closest, &[("names", &list.join(", "))])
            };
            match (server, services.first()) {
                (Some(server), Some((_, tools))) => fill(
                    says.bridge_no_tool_on_server,
                    &[
                        ("tool", tool),
                        ("server", server),
                        ("closest", &closest),
                        ("tools", &names(tools.as_deref().unwrap_or_default())),
                    ],
                ),
                _ => {
                    let list: Vec<String> = services
                        .iter()
                        .map(|(name, tools)| match tools {
                            Some(tools) => fill(
                                says.bridge_service_tools,
                                &[("server", name), ("tools", &names(tools))],
                            ),
                            None => fill(says.bridge_service_not_running, &[("server", name)]),
                        })
                        .collect();
                    let services = if list.is_empty() {
                        says.bridge_none.to_string()
                    } else {
                        list.join("; ")
                    };
                    fill(
                        says.bridge_no_tool,
                        &[
                            ("tool", tool),
                            ("closest", &closest),
                            ("services", &services),
                        ],
                    )
                }
            }
        }
        BridgeSaid::CallLimit {
            server,
            tool,
            failures,
            limit,
        } => fill(
            says.bridge_call_limit,
            &[
                ("tool", tool),
                ("server", server),
                ("failures", &failures.to_string()),
                ("limit", &limit.to_string()),
            ],
        ),
        BridgeSaid::TimedOut {
            server,
            tool,
            seconds,
        } => fill(
            says.bridge_timed_out,
            &[("tool", tool), ("server", server), ("seconds", seconds)],
        ),
        BridgeSaid::Crashed { server, tool } => {
            fill(says.bridge_crashed, &[("tool", tool), ("server", server)])
        }
        BridgeSaid::ShuttingDown { server, tool } => fill(
            says.bridge_shutting_down,
            &[("tool", tool), ("server", server)],
        ),
        BridgeSaid::CancelledByUser { tool } => {
            fill(says.bridge_cancelled_by_user, &[("tool", tool)])
        }
        BridgeSaid::NoCall { call_id } => fill(says.bridge_no_call, &[("call_id", call_id)]),
        BridgeSaid::NoResult {
            result_id,
            reason,
            limit,
        } => {
            let template = match reason {
                ResultGone::Expired => says.bridge_result_expired,
                ResultGone::Evicted => says.bridge_result_evicted,
                ResultGone::Unknown => says.bridge_no_result,
            };
            fill(
                template,
                &[("result_id", result_id), ("limit", &limit.to_string())],
            )
        }
        BridgeSaid::PastEnd {
            result_id,
            offset,
            total,
        } => fill(
            says.bridge_past_end,
            &[
                ("result_id", result_id),
                ("offset", &offset.to_string()),
                ("total", &total.to_string()),
            ],
        ),
    }
}

/// Seconds with up to three decimals, without float formatting.
fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{}.{:03}", ms / 1000, ms % 1000)
            .trim_end_matches('0')
            .to_string()
    }
}

/// FastAPI/pydantic 422 items as readable lines, one per item.
pub fn validation_message(items: &[ValidationItem], lang: Lang) -> String {
    let mut lines = vec![lang.says().validation_header.to_string()];
    for item in items.iter().take(20) {
        lines.push(format!("- {}", validation_line(item, lang)));
    }
    if items.len() > 20 {
        lines.push(format!("- … (+{})", items.len() - 20));
    }
    lines.join("\n")
}

/// One item: "argument `quantity`: expected an integer, got 'five'".
pub fn validation_line(item: &ValidationItem, lang: Lang) -> String {
    let says = lang.says();
    let path = arg_path(&item.loc);
    let at = |template: &str| fill(template, &[("path", &path)]);
    let got = item.input.as_ref().map(python_repr);
    let ctx = |k: &str| item.ctx.as_ref().and_then(|c| c.get(k)).map(display_value);
    let expected = match item.kind.as_str() {
        "missing" => return at(says.arg_required),
        "json_invalid" => {
            let why = ctx("error").unwrap_or_else(|| item.msg.clone());
            return match item.loc.iter().rev().find_map(Value::as_u64) {
                Some(p) => fill(
                    says.json_invalid_at,
                    &[("position", &p.to_string()), ("why", &why)],
                ),
                None => fill(says.json_invalid, &[("why", &why)]),
            };
        }
        "extra_forbidden" => return at(says.arg_unexpected),
        k if k.starts_with("int") => says.kind_int.into(),
        k if k.starts_with("float") => says.kind_float.into(),
        k if k.starts_with("bool") => says.kind_bool.into(),
        k if k.starts_with("string")
            && k != "string_too_short"
            && k != "string_too_long"
            && k != "string_pattern_mismatch" =>
        {
            says.kind_string.into()
        }
        "dict_type" | "model_type" | "model_attributes_type" => says.kind_object.into(),
        "list_type" | "tuple_type" | "set_type" => says.kind_array.into(),
        "date_parsing" | "date_from_datetime_parsing" | "date_type" => says.kind_date.into(),
        "datetime_parsing" | "datetime_type" | "datetime_from_date_parsing" => {
            says.kind_datetime.into()
        }
        "literal_error" | "enum" => {
            let allowed = ctx("expected").unwrap_or_default();
            fill(says.expected_one_of, &[("allowed", &allowed)])
        }
        // The validator's own words.
        _ => item.msg.clone(),
    };
    match got {
        Some(g) if item.kind != "value_error" && !item.kind.is_empty() => fill(
            says.arg_expected_got,
            &[("path", &path), ("expected", &expected), ("got", &g)],
        ),
        _ => fill(says.arg_plain, &[("path", &path), ("what", &expected)]),
    }
}

/// `["body", "arguments", "items", 0, "qty"]` → `items[0].qty`.
fn arg_path(loc: &[Value]) -> String {
    let mut parts = loc;
    if parts
        .first()
        .and_then(Value::as_str)
        .is_some_and(|s| matches!(s, "body" | "query" | "path" | "header"))
    {
        parts = &parts[1..];
    }
    if parts.len() > 1 && parts.first().and_then(Value::as_str) == Some("arguments") {
        parts = &parts[1..];
    }
    let mut out = String::new();
    for p in parts {
        match p {
            Value::Number(n) => out.push_str(&format!("[{n}]")),
            other => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&display_value(other));
            }
        }
    }
    if out.is_empty() { "(body)".into() } else { out }
}

/// Python-like repr of an input value: strings in single quotes, others as JSON.
fn python_repr(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", cut_chars(s, 80)),
        other => cut_chars(&other.to_string(), 80),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::outcome::{ErrorDetail, from_http};

    fn items(body: &str) -> Vec<ValidationItem> {
        match from_http(422, None, body.as_bytes()) {
            crate::domain::outcome::CallOutcome::HttpError {
                detail: ErrorDetail::Validation { items },
                ..
            } => items,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn validation_lists_read_in_both_languages() {
        let items = items(
            r#"{"detail":[
            {"type":"int_parsing","loc":["body","arguments","quantity"],"msg":"Input should be a valid integer","input":"five"},
            {"type":"missing","loc":["body","name"],"msg":"Field required","input":{}},
            {"type":"json_invalid","loc":["body",12],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting value"}}]}"#,
        );
        let en = validation_message(&items, Lang::En);
        assert!(
            en.contains("argument `quantity`: expected an integer, got 'five'"),
            "{en}"
        );
        assert!(en.contains("argument `name` is required"), "{en}");
        assert!(en.contains("(at position 12): Expecting value"), "{en}");
        let zh = validation_message(&items, Lang::Zh);
        assert!(
            zh.contains("参数 `quantity`: 应为整数，实际为 'five'"),
            "{zh}"
        );
        assert!(zh.starts_with("请求参数校验失败:"), "{zh}");
    }

    #[test]
    fn notes_name_the_configured_bridge() {
        let bridge = Address {
            url: "http://127.0.0.1:4000/",
        };
        let n = Said::Note(Note::Unreachable {
            why: "refused".into(),
        });
        assert_eq!(
            said(&n, Lang::En, bridge),
            "Cannot reach the bridge service (127.0.0.1:4000): refused"
        );
        let reset = advice(
            &Advice::ResetHistory,
            Lang::En,
            Address {
                url: "http://127.0.0.1:4000",
            },
        );
        assert!(
            reset.contains("POST http://127.0.0.1:4000/reset-history"),
            "{reset}"
        );
        let quoted = Said::Quoted("the tool's own words".into());
        assert_eq!(said(&quoted, Lang::Zh, bridge), "the tool's own words");
    }
}
