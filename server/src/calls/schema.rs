//! A small JSON Schema check for the two places the bridge must hold data to a server's
//! schema: a tool's `structuredContent` against its `outputSchema`, and the user's answer to a
//! question against its `requestedSchema`. It covers what those schemas use — `type`
//! (one or several), `properties`, `required`, `items`, `enum`, `const`, `oneOf`/`anyOf` of
//! `const`s, and `additionalProperties: false` — and reports the first mismatch with the path of
//! the field at fault. Keywords it does not know are not checked.

use serde_json::{Map, Value};

/// The first place `value` does not match `schema`: the field's path (`$` is the whole value,
/// `$.a.b[2]` a nested field) and what is wrong there.
pub(crate) fn mismatch(schema: &Value, value: &Value) -> Option<(String, String)> {
    check(schema, value, "$")
}

/// [`mismatch`] with the schema as an object (a tool's `outputSchema` as the server listed it,
/// not copied into a `Value` for each call).
pub(crate) fn mismatch_object(
    schema: &Map<String, Value>,
    value: &Value,
) -> Option<(String, String)> {
    check_map(schema, value, "$")
}

fn type_matches(name: &str, value: &Value) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|n| n.fract() == 0.0)
        }
        _ => true,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn check(schema: &Value, value: &Value, path: &str) -> Option<(String, String)> {
    check_map(schema.as_object()?, value, path)
}

fn check_map(schema: &Map<String, Value>, value: &Value, path: &str) -> Option<(String, String)> {
    if let Some(expected) = schema.get("type") {
        let names: Vec<&str> = match expected {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !names.is_empty() && !names.iter().any(|name| type_matches(name, value)) {
            return Some((
                path.to_owned(),
                format!("should be {}, but is {}", names.join(" or "), kind(value)),
            ));
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        return Some((
            path.to_owned(),
            format!(
                "should be one of {}, but is {value}",
                Value::Array(allowed.clone())
            ),
        ));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        return Some((
            path.to_owned(),
            format!("should be {constant}, but is {value}"),
        ));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array)
            && !options.is_empty()
            && !options
                .iter()
                .any(|option| check(option, value, path).is_none())
        {
            return Some((
                path.to_owned(),
                format!("matches none of the allowed choices ({value})"),
            ));
        }
    }
    match value {
        Value::Object(fields) => check_object(schema, fields, path),
        Value::Array(items) => {
            let item_schema = schema.get("items")?;
            items
                .iter()
                .enumerate()
                .find_map(|(n, item)| check(item_schema, item, &format!("{path}[{n}]")))
        }
        _ => None,
    }
}

fn check_object(
    schema: &Map<String, Value>,
    fields: &Map<String, Value>,
    path: &str,
) -> Option<(String, String)> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !fields.contains_key(name) {
                return Some((
                    format!("{path}.{name}"),
                    "is required but missing".to_owned(),
                ));
            }
        }
    }
    for (name, field) in fields {
        let field_path = format!("{path}.{name}");
        match properties.and_then(|p| p.get(name)) {
            Some(field_schema) => {
                if let Some(found) = check(field_schema, field, &field_path) {
                    return Some(found);
                }
            }
            None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                return Some((field_path, "is not an allowed field".to_owned()));
            }
            None => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn weather() -> Value {
        json!({
            "type": "object",
            "properties": {
                "temperature": {"type": "number"},
                "conditions": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "unit": {"enum": ["C", "F"]},
            },
            "required": ["temperature", "conditions"],
        })
    }

    #[test]
    fn a_matching_value_passes() {
        let value = json!({"temperature": 22.5, "conditions": "sunny", "tags": ["a"], "unit": "C", "extra": 1});
        assert_eq!(mismatch(&weather(), &value), None);
    }

    #[test]
    fn each_mismatch_names_its_field() {
        let cases = [
            (json!({"conditions": "x"}), "$.temperature", "required"),
            (
                json!({"temperature": "hot", "conditions": "x"}),
                "$.temperature",
                "should be number",
            ),
            (
                json!({"temperature": 1, "conditions": "x", "tags": ["a", 2]}),
                "$.tags[1]",
                "string",
            ),
            (
                json!({"temperature": 1, "conditions": "x", "unit": "K"}),
                "$.unit",
                "one of",
            ),
            (json!([1]), "$", "should be object"),
        ];
        for (value, path, words) in cases {
            let (at, why) = mismatch(&weather(), &value).expect("a mismatch");
            assert_eq!(at, path, "{value}");
            assert!(why.contains(words), "{why}");
        }
    }

    #[test]
    fn integers_closed_objects_and_const_choices() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "n": {"type": "integer"},
                "size": {"oneOf": [{"const": "s"}, {"const": "m"}]},
            },
        });
        assert_eq!(mismatch(&schema, &json!({"n": 3, "size": "m"})), None);
        assert_eq!(mismatch(&schema, &json!({"n": 3.5})).unwrap().0, "$.n");
        assert_eq!(
            mismatch(&schema, &json!({"size": "l"})).unwrap().0,
            "$.size"
        );
        assert_eq!(
            mismatch(&schema, &json!({"other": 1})).unwrap().0,
            "$.other"
        );
    }
}
