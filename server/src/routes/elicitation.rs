//! `POST /calls/{id}/elicitation`: the user's answer to the question a server asks during a
//! call — `{"action": "accept", "content": {...}}`, `{"action": "decline"}` or
//! `{"action": "cancel"}`. An accepted form answer is checked against the question's schema
//! first, and fields the schema does not name are left out, so a server never gets an answer
//! it did not ask for.

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::response::{IntoResponse as _, Response};
use mcp_bridge_protocol::answers::ElicitationAnswered;
use mcp_bridge_protocol::answers::ElicitationMode;
use mcp_bridge_protocol::requests::ElicitationAnswer;
use rmcp::model::{ElicitResult, ElicitationAction};
use serde_json::{Map, Value};

use super::calls::{call_id, unknown};
use crate::error::BridgeError;
use crate::state::AppState;
use crate::validation::{Fields, JsonBody, body_object, error};

fn invalid(field: &str, kind: &str, message: &str, input: Value) -> BridgeError {
    BridgeError::InvalidRequest(vec![error(kind, ["body", field], message, input)])
}

pub(crate) async fn answer(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    JsonBody(body): JsonBody,
) -> Result<Response, BridgeError> {
    let call_id = call_id(path)?;
    let map = body_object(body)?;
    let body = answer_body(&map)?;
    let question_id = body.question_id;
    let content = body.content.map(Value::Object).or_else(|| {
        // Not an object: refused below, naming it, when the answer needs one.
        map.get("content").cloned().filter(|c| !c.is_null())
    });
    let action = match body.action {
        "accept" => ElicitationAction::Accept,
        "decline" => ElicitationAction::Decline,
        "cancel" => ElicitationAction::Cancel,
        // Also a `null` action, echoed as it came.
        _ => {
            return Err(invalid(
                "action",
                "enum",
                "Input should be 'accept', 'decline' or 'cancel'",
                map.get("action").cloned().unwrap_or(Value::Null),
            ));
        }
    };
    let call = state.calls.get(&call_id).ok_or_else(|| unknown(&call_id))?;
    // A call that ended (cancelled, say) has nobody left to hear the answer.
    let question = (!call.finished())
        .then(|| call.activity.snapshot().elicitation)
        .flatten();
    let Some(question) = question else {
        return Err(invalid(
            "action",
            "no_question",
            &format!(
                "Call `{call_id}` has no question waiting for an answer (it was answered, withdrawn, or timed out, or the call has ended)"
            ),
            Value::from(action_name(&action)),
        ));
    };
    if question_id.is_some_and(|id| id != question.asked.id) {
        return Err(invalid(
            "question_id",
            "stale_question",
            "This answer is for an earlier question; the call now asks another one",
            question_id.map_or(Value::Null, Value::from),
        ));
    }
    let mut result = ElicitResult::new(action.clone());
    if action == ElicitationAction::Accept && question.asked.mode == ElicitationMode::Form {
        let Some(content) = content else {
            return Err(invalid(
                "content",
                "missing",
                "An accepted answer needs `content`, the form's values",
                Value::Null,
            ));
        };
        if !content.is_object() {
            return Err(invalid(
                "content",
                "dict_type",
                "Input should be a valid dictionary",
                content,
            ));
        }
        // Checked with the defaults in place (a required field may be left to its default);
        // a refusal echoes the answer as it was sent.
        let completed = match &question.asked.requested_schema {
            Some(schema) => with_defaults(schema, content.clone()),
            None => content.clone(),
        };
        if let Some(schema) = &question.asked.requested_schema
            && let Some((at, why)) = crate::calls::schema::mismatch(schema, &completed)
        {
            let field = at.trim_start_matches("$.").to_owned();
            return Err(invalid(
                "content",
                "schema_mismatch",
                &format!("Field `{field}` {why}"),
                content,
            ));
        }
        let content = completed;
        let content = match &question.asked.requested_schema {
            Some(schema) => asked_fields(schema, content),
            None => content,
        };
        result = result.with_content(content);
    }
    if !question.pending().answer(result) {
        return Err(invalid(
            "action",
            "no_question",
            "The question was already answered or has timed out",
            Value::from(action_name(&action)),
        ));
    }
    call.activity.settle(&question.asked.id);
    tracing::info!(
        call_id,
        action = action_name(&action),
        "the user answered the server's question"
    );
    Ok(Json(ElicitationAnswered {
        success: true,
        call_id: &call_id,
        question_id: &question.asked.id,
        action: action_name(&action),
    })
    .into_response())
}

/// The body `{action, question_id?, content?}`; `content` is checked once the question is
/// known (a URL question's answer has none).
fn answer_body(map: &Map<String, Value>) -> Result<ElicitationAnswer<'_>, BridgeError> {
    let mut fields = Fields::new(map, "body");
    let action = fields.required_str("action");
    let question_id = fields.optional_str("question_id");
    fields.finish(|| ElicitationAnswer {
        action: action.unwrap_or_default(),
        question_id,
        content: map.get("content").and_then(Value::as_object).cloned(),
    })
}

/// `content` without the fields `schema` (a form's flat object schema) does not name.
fn asked_fields(schema: &Value, content: Value) -> Value {
    let (Some(properties), Value::Object(mut fields)) =
        (schema.get("properties").and_then(Value::as_object), content)
    else {
        return Value::Object(serde_json::Map::new());
    };
    fields.retain(|name, _| properties.contains_key(name));
    Value::Object(fields)
}

/// `content` with each field the answer leaves out set to its `default` in `schema`, as MCP
/// asks of the client: the server gets the values the user was shown as preset, whether or
/// not the page that asked sent them back. Fields the answer holds keep their values.
fn with_defaults(schema: &Value, content: Value) -> Value {
    let (Some(properties), Value::Object(mut fields)) = (
        schema.get("properties").and_then(Value::as_object),
        content.clone(),
    ) else {
        return content;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default")
            && !fields.contains_key(name)
        {
            fields.insert(name.clone(), default.clone());
        }
    }
    Value::Object(fields)
}

fn action_name(action: &ElicitationAction) -> &'static str {
    match action {
        ElicitationAction::Accept => "accept",
        ElicitationAction::Decline => "decline",
        _ => "cancel",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn omitted_fields_get_their_defaults_and_given_ones_stay() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "note": {"type": "string"},
        }});
        assert_eq!(
            with_defaults(&schema, json!({"age": 41})),
            json!({"name": "John Doe", "age": 41})
        );
        assert_eq!(with_defaults(&json!({}), json!({"a": 1})), json!({"a": 1}));
    }

    #[test]
    fn fields_the_schema_does_not_name_are_left_out() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        assert_eq!(
            asked_fields(&schema, json!({"name": "Ada", "admin": true})),
            json!({"name": "Ada"})
        );
        assert_eq!(
            asked_fields(&json!({"type": "object"}), json!({"a": 1})),
            json!({})
        );
    }
}
