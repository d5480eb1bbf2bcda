//! What a running call shows the user while it runs: its server's progress and the question
//! the server asks (MCP elicitation), read from the bridge's `202` answer, turned into the
//! float's progress line and form, and the user's answer turned into the body of
//! `POST /calls/{id}/elicitation`. None of it ever reaches the AI.

use mcp_bridge_protocol::requests::ElicitationAnswer;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::domain::i18n::{Lang, fill};
use crate::domain::redact::Masked;

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

/// The body of `POST /calls/{id}/elicitation` for the user's `answer` (`accept`, `decline`,
/// `cancel`) to question `id`, with the form's `content` when accepted, read by `schema`
/// (the question's `requested_schema`; `Null` when the question is not known here) as
/// [`coerce_content`] reads it. `Err`: a sentence in `lang` saying which field holds what
/// is not of its type; nothing is sent then.
pub fn answer_body<'a>(
    id: &'a str,
    answer: &'a str,
    content: Option<&Value>,
    schema: &Value,
    lang: Lang,
) -> Result<ElicitationAnswer<'a>, String> {
    let content = match content {
        Some(Value::Object(fields)) if answer == "accept" => {
            Some(coerce_content(fields, schema, lang)?)
        }
        _ => None,
    };
    Ok(ElicitationAnswer {
        action: answer,
        question_id: Some(id),
        content,
    })
}

/// The form's values in the types the question's schema asks for. The content script sends
/// what the user typed (text, `true`/`false` from a checkbox, a list from several boxes);
/// a field whose `type` is `number`, `integer` or `boolean` is read as one (blanks around
/// it ignored; `1e3` is a number, and a whole one), a choice as the member of its `enum` (or
/// `oneOf`/`anyOf` `const`) it names, a list item by item. An empty field is left out; a
/// field the schema does not name, or of another type, passes as typed. `Err`: which field
/// holds what is not of its type, in `lang`.
pub fn coerce_content(
    fields: &Map<String, Value>,
    schema: &Value,
    lang: Lang,
) -> Result<Map<String, Value>, String> {
    let props = schema.get("properties");
    let mut out = Map::new();
    for (name, value) in fields {
        let prop = props.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        let coerced = coerce(value, prop).map_err(|wrong| {
            let label = prop.get("title").and_then(Value::as_str);
            let label = label.filter(|t| !t.is_empty()).unwrap_or(name);
            let typed = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            let says = lang.says();
            let template = match wrong {
                Wrong::Number => says.float_answer_not_number,
                Wrong::Integer => says.float_answer_not_integer,
                Wrong::Boolean => says.float_answer_not_boolean,
            };
            fill(template, &[("field", label), ("value", &typed)])
        })?;
        if let Some(v) = coerced {
            out.insert(name.clone(), v);
        }
    }
    Ok(out)
}

/// The type a value was not.
enum Wrong {
    Number,
    Integer,
    Boolean,
}

/// The largest whole number a JSON reader keeps exactly (2^53).
const EXACT: f64 = 9_007_199_254_740_992.0;

/// One field's value read by its property's schema (`Null`: not named, passed as typed);
/// `None` when it is empty.
fn coerce(value: &Value, prop: &Value) -> Result<Option<Value>, Wrong> {
    if value.is_null() || value.as_str() == Some("") {
        return Ok(None);
    }
    if let Some(member) = member_named(value, prop) {
        return Ok(Some(member));
    }
    let kind = match prop.get("type") {
        Some(Value::String(t)) => t.as_str(),
        // `["integer", "null"]`: the type besides `null`.
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or_default(),
        _ => "",
    };
    // A number or yes/no typed as text, blanks around it ignored; only blanks is empty.
    let typed = value.as_str().map(str::trim);
    if typed == Some("") && matches!(kind, "number" | "integer" | "boolean") {
        return Ok(None);
    }
    let number = || match (value, typed) {
        (Value::Number(n), _) => n.as_f64(),
        // Read as JSON reads a number, not by `str::parse`: the core has serde_json's
        // reader already, and `str::parse::<f64>` would add ~16 KB (gzip) to the wasm.
        (_, Some(text)) => serde_json::from_str::<f64>(text)
            .ok()
            .filter(|f| f.is_finite()),
        _ => None,
    };
    let whole = |f: f64| (f.fract() == 0.0 && f.abs() <= EXACT).then(|| Value::from(f as i64));
    Ok(Some(match kind {
        "number" => match value {
            Value::Number(_) => value.clone(),
            _ => {
                let f = number().ok_or(Wrong::Number)?;
                // `3` stays `3`, as the user wrote it.
                whole(f).unwrap_or_else(|| Value::from(f))
            }
        },
        "integer" => match value {
            Value::Number(n) if n.is_i64() || n.is_u64() => value.clone(),
            // Parsed whole first: a long one stays exact.
            _ => match typed.and_then(|t| t.parse::<i64>().ok()) {
                Some(i) => Value::from(i),
                None => number().and_then(whole).ok_or(Wrong::Integer)?,
            },
        },
        "boolean" => match (value, typed.map(str::to_ascii_lowercase).as_deref()) {
            (Value::Bool(_), _) => value.clone(),
            (_, Some("true")) => Value::Bool(true),
            (_, Some("false")) => Value::Bool(false),
            _ => return Err(Wrong::Boolean),
        },
        "array" => match value {
            Value::Array(items) => {
                let item = prop.get("items").unwrap_or(&Value::Null);
                let mut read = Vec::with_capacity(items.len());
                for v in items {
                    read.extend(coerce(v, item)?);
                }
                Value::Array(read)
            }
            _ => value.clone(),
        },
        _ => value.clone(),
    }))
}

/// The member of a choice's `enum` (or `oneOf`/`anyOf` `const`) that `value` names as the
/// form shows it (`2` for the member `2`), when it names one.
fn member_named(value: &Value, prop: &Value) -> Option<Value> {
    let text = value.as_str()?;
    let consts = ["oneOf", "anyOf"]
        .iter()
        .filter_map(|key| prop.get(*key).and_then(Value::as_array))
        .flatten()
        .filter_map(|option| option.get("const"));
    let enums = prop
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    enums.chain(consts).find(|m| shown(m) == text).cloned()
}

/// Why the bridge refused an answer, from its 422 (`detail[].msg`) or other error body.
pub fn refusal(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let detail = value.get("detail")?;
    match detail {
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i.get("msg").and_then(Value::as_str))
            .next()
            .map(str::to_owned),
        Value::String(text) => Some(text.clone()),
        Value::Object(o) => o.get("error").and_then(Value::as_str).map(str::to_owned),
        _ => None,
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

    #[test]
    fn answers_and_refusals() {
        let body = answer_body(
            "q1",
            "accept",
            Some(&json!({"name": "Ada", "email": "", "n": null})),
            &Value::Null,
            Lang::En,
        );
        assert_eq!(
            serde_json::to_value(body.unwrap()).unwrap(),
            json!({"action": "accept", "question_id": "q1", "content": {"name": "Ada"}})
        );
        let declined = answer_body(
            "q1",
            "decline",
            Some(&json!({"name": "x", "n": "not read"})),
            &schema(),
            Lang::En,
        );
        assert_eq!(
            serde_json::to_value(declined.unwrap()).unwrap(),
            json!({"action": "decline", "question_id": "q1"})
        );
        let refused = br#"{"detail": [{"type": "schema_mismatch", "loc": ["body", "content"], "msg": "Field `name` is required but missing"}]}"#;
        assert_eq!(
            refusal(refused).unwrap(),
            "Field `name` is required but missing"
        );
        assert_eq!(refusal(b"nope"), None);
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "n": {"type": "number", "title": "Favourite number"},
            "i": {"type": "integer"},
            "maybe": {"type": ["integer", "null"]},
            "ok": {"type": "boolean"},
            "name": {"type": "string"},
            "size": {"type": "integer", "enum": [1, 2, 3]},
            "hero": {"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}]},
            "fish": {"type": "array", "items": {"enum": [1, 2]}}
        }})
    }

    /// The form's content read by [`schema`], or the refusal's sentence.
    fn read(content: Value, lang: Lang) -> Result<Value, String> {
        let Value::Object(fields) = content else {
            panic!("not an object")
        };
        coerce_content(&fields, &schema(), lang).map(Value::Object)
    }

    #[test]
    fn what_the_user_typed_is_read_in_the_types_the_question_asks_for() {
        let en = Lang::En;
        assert_eq!(
            read(
                json!({"n": "2.5", "i": "42", "ok": true, "name": "Ada"}),
                en
            )
            .unwrap(),
            json!({"n": 2.5, "i": 42, "ok": true, "name": "Ada"})
        );
        // Blanks around a number are the paste's; `1e3` is a number, and a whole one.
        assert_eq!(
            read(json!({"n": " 7 ", "i": "1e3", "maybe": "-3"}), en).unwrap(),
            json!({"n": 7, "i": 1000, "maybe": -3})
        );
        assert_eq!(read(json!({"n": "1e3"}), en).unwrap()["n"], json!(1000));
        assert_eq!(read(json!({"n": "-0.5"}), en).unwrap()["n"], json!(-0.5));
        // A long whole number stays exact.
        assert_eq!(
            read(json!({"i": "9007199254740993"}), en).unwrap()["i"],
            json!(9_007_199_254_740_993_i64)
        );
        // Numbers the form kept as numbers (a schema's default) pass; a whole float is whole.
        assert_eq!(
            read(json!({"n": 2.5, "i": 42, "maybe": 4.0}), en).unwrap(),
            json!({"n": 2.5, "i": 42, "maybe": 4})
        );
        // Yes or no: a checkbox's boolean, or the words.
        assert_eq!(
            read(json!({"ok": false}), en).unwrap(),
            json!({"ok": false})
        );
        assert_eq!(
            read(json!({"ok": " True "}), en).unwrap(),
            json!({"ok": true})
        );
        assert_eq!(
            read(json!({"ok": "false"}), en).unwrap(),
            json!({"ok": false})
        );
        // Choices are the members they name, in the member's own type.
        assert_eq!(
            read(
                json!({"size": "2", "hero": "hero-1", "fish": ["2", "1"]}),
                en
            )
            .unwrap(),
            json!({"size": 2, "hero": "hero-1", "fish": [2, 1]})
        );
        // Empty fields are left out; blanks alone are empty where a number is asked for.
        assert_eq!(
            read(json!({"n": "", "i": "   ", "ok": null, "name": ""}), en).unwrap(),
            json!({})
        );
        // Text is passed as typed, blanks and all; a field the schema does not name too.
        assert_eq!(
            read(json!({"name": " 12 ", "extra": "5", "other": 3}), en).unwrap(),
            json!({"name": " 12 ", "extra": "5", "other": 3})
        );
    }

    #[test]
    fn a_value_that_is_not_of_its_fields_type_is_refused_in_the_users_language() {
        let en = Lang::En;
        assert_eq!(
            read(json!({"n": "abc"}), en).unwrap_err(),
            "“Favourite number” needs a number; “abc” is not one."
        );
        assert_eq!(
            read(json!({"i": "3.5"}), en).unwrap_err(),
            "“i” needs a whole number; “3.5” is not one."
        );
        for bad in ["1,5", "NaN", "inf", "12abc", "0x10"] {
            assert!(read(json!({"n": bad}), en).is_err(), "{bad}");
            assert!(read(json!({"i": bad}), en).is_err(), "{bad}");
        }
        assert!(read(json!({"i": 2.5}), en).is_err());
        assert!(read(json!({"i": "1e30"}), en).is_err(), "not exact");
        assert!(read(json!({"maybe": "x"}), en).is_err());
        assert_eq!(
            read(json!({"ok": "yes"}), en).unwrap_err(),
            "“ok” needs yes or no; “yes” is neither."
        );
        assert_eq!(
            read(json!({"i": "3.5"}), Lang::Zh).unwrap_err(),
            "“i”需要填写整数，“3.5”不是整数。"
        );
        assert_eq!(
            read(json!({"n": "abc"}), Lang::Zh).unwrap_err(),
            "“Favourite number”需要填写数字，“abc”不是数字。"
        );
        // The whole answer is refused: nothing is sent.
        let refused = answer_body(
            "q",
            "accept",
            Some(&json!({"name": "Ada", "i": "x"})),
            &schema(),
            en,
        );
        assert!(refused.is_err());
    }
}
