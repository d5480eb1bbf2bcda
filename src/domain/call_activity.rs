//! What a running call shows the user while it runs: its server's progress and the question
//! the server asks (MCP elicitation), read from the bridge's `202` answer, turned into the
//! float's progress line and form, and the user's answer turned into the body of
//! `POST /calls/{id}/elicitation` (`answer`). None of it ever reaches the AI.

use serde::Serialize;
use serde_json::Value;

use crate::domain::i18n::{Lang, fill};
use crate::domain::redact::Masked;

mod answer;

pub use answer::{answer_body, coerce_content, refusal};

/// A call's progress and pending question, as the bridge reported them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Activity {
    pub progress: Option<CallProgress>,
    pub question: Option<Question>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallProgress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Question {
    pub id: String,
    pub server: String,
    /// `form` or `url`.
    pub mode: String,
    pub message: String,
    pub schema: Value,
    pub url: Option<String>,
}

/// The activity in a `202` body (`progress`, `elicitation`); `None` when there is neither.
pub fn from_pending(body: &Value) -> Option<Activity> {
    let progress = body.get("progress").and_then(|p| {
        Some(CallProgress {
            progress: p.get("progress")?.as_f64()?,
            total: p.get("total").and_then(Value::as_f64),
            message: p.get("message").and_then(Value::as_str).map(str::to_owned),
        })
    });
    let question = body.get("elicitation").and_then(|q| {
        let text = |key: &str| q.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(Question {
            id: text("id")?,
            server: text("server").unwrap_or_default(),
            mode: text("mode").unwrap_or_else(|| "form".to_owned()),
            message: text("message").unwrap_or_default(),
            schema: q.get("requested_schema").cloned().unwrap_or(Value::Null),
            url: text("url"),
        })
    });
    (progress.is_some() || question.is_some()).then_some(Activity { progress, question })
}

/// The float's progress: a fraction for the bar when the total is known, and a line of text.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct FloatProgress {
    /// 0 to 100, when the server gave a total.
    pub percent: Option<u32>,
    pub text: Masked,
}

/// One field of a question's form.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct FloatField {
    pub name: String,
    pub label: Masked,
    pub description: Masked,
    /// `text`, `number`, `integer`, `boolean`, `choice` (one of `options`) or `multi` (several).
    pub kind: String,
    pub required: bool,
    pub options: Vec<FloatOption>,
    pub default: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct FloatOption {
    pub value: String,
    pub label: Masked,
}

/// The float's question: who asks, what, and the form (or the URL to open).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct FloatQuestion {
    pub id: String,
    pub title: Masked,
    pub message: Masked,
    pub mode: String,
    /// The address the user may open: only ever an absolute `http`/`https` URL.
    pub url: Option<String>,
    /// Why there is no address to open, when a URL-mode question gave one that cannot be
    /// opened (the user can then only decline or cancel).
    pub url_refused: Option<Masked>,
    pub fields: Vec<FloatField>,
}

/// The progress line: `3 / 12 (25%) — message`.
pub fn float_progress(p: &CallProgress, lang: Lang) -> FloatProgress {
    // One decimal at most, without float formatting (which would grow the wasm).
    let number = |n: f64| {
        let tenths = (n * 10.0).round() as i64;
        let sign = if tenths < 0 { "-" } else { "" };
        let (whole, tenth) = (tenths.abs() / 10, tenths.abs() % 10);
        if tenth == 0 {
            format!("{sign}{whole}")
        } else {
            format!("{sign}{whole}.{tenth}")
        }
    };
    let percent = p
        .total
        .filter(|t| *t > 0.0)
        .map(|t| ((p.progress / t).clamp(0.0, 1.0) * 100.0).round() as u32);
    let amount = match p.total {
        Some(total) => format!("{} / {}", number(p.progress), number(total)),
        None => number(p.progress),
    };
    let mut text = fill(lang.says().float_progress, &[("amount", &amount)]);
    if let Some(message) = p.message.as_deref().filter(|m| !m.trim().is_empty()) {
        text.push_str(" — ");
        text.push_str(message.trim());
    }
    FloatProgress {
        percent,
        text: Masked::new(&text),
    }
}

/// The form of a question, from its JSON schema: one field per property, the required ones
/// first, then by name (the core's JSON objects do not keep the server's order).
pub fn float_question(q: &Question, lang: Lang) -> FloatQuestion {
    let says = lang.says();
    let required: Vec<&str> = q
        .schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields = q
        .schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            // Required ones first, each group by name: the order must not depend on how the
            // JSON map keeps its keys (`preserve_order` may be on in a native build).
            let (mut fields, optional): (Vec<FloatField>, Vec<FloatField>) =
                crate::domain::json_read::sorted_members(props)
                    .into_iter()
                    .map(|(name, p)| field(name, p, required.contains(&name.as_str())))
                    .partition(|f| f.required);
            fields.extend(optional);
            fields
        })
        .unwrap_or_default();
    let url = q.url.as_deref().and_then(openable_url);
    let url_refused =
        (q.mode == "url" && url.is_none()).then(|| Masked::new(says.float_url_refused));
    FloatQuestion {
        id: q.id.clone(),
        title: Masked::new(&fill(says.float_question, &[("server", &q.server)])),
        message: Masked::new(&q.message),
        mode: q.mode.clone(),
        url,
        url_refused,
        fields,
    }
}

/// The server's address if the float may offer to open it: an absolute `http:` or `https:`
/// URL with a host, and nothing a browser would read another way (no spaces, control
/// characters or backslashes). Anything else (`javascript:`, `data:`, `file:`, a relative
/// path) is never opened.
fn openable_url(raw: &str) -> Option<String> {
    let lower = raw.get(..8).unwrap_or(raw).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &raw[8..]
    } else if lower.starts_with("http://") {
        &raw[7..]
    } else {
        return None;
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..host_end];
    let host = authority.rsplit('@').next().unwrap_or_default();
    let clean = !raw
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\\');
    (clean && !host.is_empty() && !host.starts_with(':')).then(|| raw.to_owned())
}

/// A choice's value as the form shows and sends it: a string as it is, anything else as JSON.
fn shown(v: &Value) -> String {
    v.as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| v.to_string())
}

fn choices(schema: &Value) -> Vec<FloatOption> {
    let text = shown;
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .map(|(n, v)| FloatOption {
                value: text(v),
                label: Masked::new(
                    &names
                        .and_then(|names| names.get(n))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .unwrap_or_else(|| text(v)),
                ),
            })
            .collect();
    }
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_array))
        .flatten()
        .filter_map(|option| {
            let value = option.get("const")?;
            let label = option
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| text(value));
            Some(FloatOption {
                value: text(value),
                label: Masked::new(&label),
            })
        })
        .collect()
}

fn field(name: &str, p: &Value, required: bool) -> FloatField {
    let kind_of = p.get("type").and_then(Value::as_str).unwrap_or("string");
    let options = choices(p);
    let item_options = p.get("items").map(choices).unwrap_or_default();
    let (kind, options) = match kind_of {
        "array" => ("multi", item_options),
        _ if !options.is_empty() => ("choice", options),
        "boolean" => ("boolean", Vec::new()),
        "number" => ("number", Vec::new()),
        "integer" => ("integer", Vec::new()),
        _ => ("text", Vec::new()),
    };
    let text = |key: &str| p.get(key).and_then(Value::as_str).unwrap_or_default();
    let label = if text("title").is_empty() {
        name
    } else {
        text("title")
    };
    FloatField {
        name: name.to_owned(),
        label: Masked::new(label),
        description: Masked::new(text("description")),
        kind: kind.to_owned(),
        required,
        options,
        default: p.get("default").cloned().unwrap_or(Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pending() -> Value {
        json!({"pending": true, "call_id": "c1",
        "progress": {"progress": 3, "total": 12, "message": "copying", "updates": 3},
        "elicitation": {"id": "q1", "server": "everything", "mode": "form",
            "message": "Please provide inputs",
            "requested_schema": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string", "title": "String", "description": "Your name"},
                "check": {"type": "boolean"},
                "integer": {"type": "integer", "default": 42},
                "friend": {"type": "string", "enum": ["Monica", "Joey"]},
                "pet": {"type": "string", "enum": ["pet-1"], "enumNames": ["Cats"]},
                "hero": {"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}]},
                "fish": {"type": "array", "items": {"anyOf": [{"const": "fish-1", "title": "Tuna"}]}}
            }}}})
    }

    #[test]
    fn a_pending_answer_gives_progress_and_a_form() {
        let activity = from_pending(&pending()).unwrap();
        let progress = float_progress(activity.progress.as_ref().unwrap(), Lang::En);
        assert_eq!(progress.percent, Some(25));
        assert_eq!(progress.text.as_str(), "Progress 3 / 12 — copying");
        let q = float_question(activity.question.as_ref().unwrap(), Lang::En);
        assert_eq!(q.title.as_str(), "everything asks you");
        assert_eq!(q.mode, "form");
        let kinds: Vec<(&str, &str, bool)> = q
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.kind.as_str(), f.required))
            .collect();
        assert_eq!(
            kinds,
            [
                ("name", "text", true),
                ("check", "boolean", false),
                ("fish", "multi", false),
                ("friend", "choice", false),
                ("hero", "choice", false),
                ("integer", "integer", false),
                ("pet", "choice", false),
            ]
        );
        let by_name = |name: &str| q.fields.iter().find(|f| f.name == name).unwrap();
        assert_eq!(by_name("name").label.as_str(), "String");
        assert_eq!(by_name("integer").default, json!(42));
        assert_eq!(by_name("pet").options[0].label.as_str(), "Cats");
        assert_eq!(by_name("hero").options[0].value, "hero-1");
        assert_eq!(by_name("fish").options[0].label.as_str(), "Tuna");
        assert!(from_pending(&json!({"pending": true, "call_id": "c"})).is_none());
        let zh = float_progress(
            &CallProgress {
                progress: 2.5,
                total: None,
                message: None,
            },
            Lang::Zh,
        );
        assert_eq!((zh.percent, zh.text.as_str()), (None, "进度 2.5"));
    }

    fn url_question(url: Value) -> FloatQuestion {
        let body = json!({"elicitation": {"id": "q2", "server": "auth", "mode": "url",
            "message": "Sign in", "url": url}});
        float_question(
            from_pending(&body).unwrap().question.as_ref().unwrap(),
            Lang::En,
        )
    }

    #[test]
    fn only_an_absolute_http_url_is_offered() {
        for good in [
            "https://example.com/authorize?state=1",
            "http://127.0.0.1:8080/cb",
            "HTTPS://Example.com",
            "https://user@example.com#top",
        ] {
            let q = url_question(json!(good));
            assert_eq!(q.url.as_deref(), Some(good));
            assert_eq!(q.url_refused, None, "{good}");
        }
        for bad in [
            json!("javascript:alert(document.cookie)"),
            json!("JavaScript:alert(1)"),
            json!("data:text/html,<script>alert(1)</script>"),
            json!("file:///etc/passwd"),
            json!("/relative/path"),
            json!("//example.com/no-scheme"),
            json!("example.com"),
            json!("https://"),
            json!("https:///path"),
            json!("https://:443/x"),
            json!("https://exa mple.com"),
            json!("https://example.com/\n"),
            json!("https:\\\\example.com"),
            json!("ftp://example.com"),
            json!("not a url at all"),
            json!(""),
            json!(42),
            Value::Null,
        ] {
            let q = url_question(bad.clone());
            assert_eq!(q.url, None, "{bad}");
            assert!(
                q.url_refused
                    .as_ref()
                    .unwrap()
                    .as_str()
                    .contains("cannot be opened"),
                "{bad}"
            );
        }
        // A form question has no address to refuse.
        let form = float_question(
            from_pending(&pending()).unwrap().question.as_ref().unwrap(),
            Lang::En,
        );
        assert_eq!((form.url, form.url_refused), (None, None));
        let zh = float_question(
            &Question {
                mode: "url".into(),
                url: Some("javascript:void(0)".into()),
                ..Question::default()
            },
            Lang::Zh,
        );
        assert!(zh.url_refused.unwrap().as_str().contains("无法打开"));
    }
}
