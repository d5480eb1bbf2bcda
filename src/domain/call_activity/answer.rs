//! The user's answer to a server's question: what the form sent, read in the types the
//! question's schema asks for (or refused, in the user's language), as the body of
//! `POST /calls/{id}/elicitation`; and why the bridge refused one.

use mcp_bridge_protocol::requests::ElicitationAnswer;
use serde_json::{Map, Value};

use super::shown;
use crate::domain::i18n::{Lang, fill};

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
