//! A running call's progress and its server's question reach the float, and the user's answer
//! reaches the bridge; none of it is typed for the AI.

use super::world::*;
use mcp_bridge_core::runtime::host::{HttpRequest, Method};
use serde_json::{Value, json};

fn slow_bridge(req: &HttpRequest) -> Answer {
    if req.url.ends_with("/execute") {
        pending("c-7")
    } else if req.url.contains("/calls/c-7?") && req.method == Method::Get {
        Answer::Hold
    } else if req.url.ends_with("/calls/c-7/elicitation") {
        let name = req
            .json
            .as_ref()
            .and_then(|b| b["content"]["name"].as_str())
            .unwrap_or("");
        if name.is_empty() && req.json.as_ref().is_some_and(|b| b["action"] == "accept") {
            ok_json(
                422,
                json!({"detail": [{"type": "schema_mismatch", "loc": ["body", "content"],
                                            "msg": "Field `name` is required but missing"}]}),
            )
        } else {
            ok_json(200, json!({"success": true}))
        }
    } else {
        healthy_bridge(req)
    }
}

fn question() -> Value {
    json!({"elicitation": {"id": "q1", "server": "demo", "mode": "form",
        "message": "Who are you?",
        "requested_schema": {"type": "object", "required": ["name"],
                             "properties": {"name": {"type": "string"}}}}})
}

fn pending_with(extra: Value) -> Answer {
    let mut body = json!({"pending": true, "call_id": "c-7"});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    ok_json(202, body)
}

fn answers(w: &World) -> Vec<Value> {
    w.host
        .0
        .requests
        .borrow()
        .iter()
        .filter(|r| r.url.ends_with("/elicitation"))
        .map(|r| r.json.clone().unwrap_or_default())
        .collect()
}

#[test]
fn progress_and_a_question_are_shown_and_the_answer_goes_to_the_bridge() {
    let mut w = World::new();
    w.bridge(slow_bridge);
    w.open_chat(1);
    w.answer(1, 1, &call("slow", json!({})));
    w.release(
        0,
        pending_with(json!({"progress": {"progress": 2, "total": 8, "message": "copying"}})),
    );
    let f = w.last_float(1);
    assert_eq!(f["status"], "executing");
    assert_eq!(f["progress"]["percent"], 25);
    assert_eq!(f["progress"]["text"], "Progress 2 / 8 — copying");
    w.release(0, pending_with(question()));
    let f = w.last_float(1);
    assert_eq!(f["question"]["title"], "demo asks you");
    assert_eq!(f["question"]["message"], "Who are you?");
    assert_eq!(f["question"]["fields"][0]["name"], "name");
    assert!(f.get("progress").is_none(), "no progress in this answer");
    // The next poll names the question the float shows, so only another one ends it early.
    let polls: Vec<String> = w
        .host
        .0
        .requests
        .borrow()
        .iter()
        .filter(|r| r.url.contains("/calls/c-7?"))
        .map(|r| r.url.clone())
        .collect();
    assert!(polls[..2].iter().all(|u| !u.contains("seen=")), "{polls:?}");
    assert!(polls[2].ends_with("?wait=20&seen=q1"), "{polls:?}");

    // A refused answer is answered with why; the float, and its form, stay as they are.
    let floats = w.floats(1).len();
    let refused = w.action(
        1,
        json!({"action": "answer", "questionId": "q1", "answer": "accept", "content": {}}),
    );
    let refused = serde_json::to_value(refused.unwrap()).unwrap();
    assert_eq!(refused["type"], "error");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("Field `name` is required"),
        "{refused}"
    );
    assert_eq!(w.floats(1).len(), floats);
    w.action(
        1,
        json!({"action": "answer", "questionId": "q1", "answer": "accept",
                       "content": {"name": "Ada", "email": ""}}),
    );
    assert_eq!(
        answers(&w)[1],
        json!({"action": "accept", "question_id": "q1", "content": {"name": "Ada"}})
    );
    w.release(0, success("hello Ada"));
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1);
    assert!(typed[0].contains("hello Ada"));
    assert!(
        !typed[0].contains("Who are you"),
        "the question is not the AI's: {}",
        typed[0]
    );
}

fn url_question(url: &str) -> Value {
    json!({"elicitation": {"id": "q-url", "server": "demo", "mode": "url",
        "message": "Sign in to continue", "url": url}})
}

#[test]
fn a_url_question_offers_its_address_and_nothing_happens_until_the_user_answers() {
    let mut w = World::new();
    w.bridge(slow_bridge);
    w.open_chat(1);
    w.answer(1, 1, &call("slow", json!({})));
    w.release(
        0,
        pending_with(url_question("https://auth.example.com/start?s=1")),
    );
    let f = w.last_float(1);
    assert_eq!(f["question"]["mode"], "url");
    assert_eq!(f["question"]["url"], "https://auth.example.com/start?s=1");
    assert!(f["question"].get("urlRefused").is_none_or(Value::is_null));
    // Shown, not acted on: no answer went to the bridge, nothing was opened or typed.
    assert!(answers(&w).is_empty(), "{:?}", answers(&w));
    assert_eq!(w.host.0.options_opened.get(), 0);
    assert!(w.typed(1).is_empty());
    // The user's "done" is the answer.
    w.action(
        1,
        json!({"action": "answer", "questionId": "q-url", "answer": "accept"}),
    );
    assert_eq!(
        answers(&w),
        [json!({"action": "accept", "question_id": "q-url"})]
    );
}

#[test]
fn a_url_question_with_an_address_that_cannot_be_opened_offers_none() {
    for bad in [
        "javascript:alert(document.domain)",
        "data:text/html,<b>hi</b>",
        "file:///etc/passwd",
        "/relative",
    ] {
        let mut w = World::new();
        w.bridge(slow_bridge);
        w.open_chat(1);
        w.answer(1, 1, &call("slow", json!({})));
        w.release(0, pending_with(url_question(bad)));
        let q = &w.last_float(1)["question"];
        assert_eq!(q["mode"], "url");
        assert!(q["url"].is_null(), "{bad} must not be offered: {q}");
        assert!(
            q["urlRefused"]
                .as_str()
                .unwrap_or_default()
                .contains("cannot be opened"),
            "{bad}: {q}"
        );
        assert!(answers(&w).is_empty());
        w.action(
            1,
            json!({"action": "answer", "questionId": "q-url", "answer": "decline"}),
        );
        assert_eq!(
            answers(&w),
            [json!({"action": "decline", "question_id": "q-url"})]
        );
    }
}

fn typed_question() -> Value {
    json!({"elicitation": {"id": "q-n", "server": "demo", "mode": "form",
        "message": "How many?",
        "requested_schema": {"type": "object", "properties": {
            "count": {"type": "integer", "title": "Count"},
            "score": {"type": "number"},
            "agree": {"type": "boolean"},
            "size": {"type": "integer", "enum": [1, 2, 3]}}}}})
}

#[test]
fn an_answer_reaches_the_bridge_in_the_types_the_question_asks_for_or_is_refused_in_the_form() {
    let mut w = World::new();
    w.bridge(slow_bridge);
    w.open_chat(1);
    w.answer(1, 1, &call("slow", json!({})));
    w.release(0, pending_with(typed_question()));
    assert_eq!(w.last_float(1)["question"]["id"], "q-n");
    let floats = w.floats(1).len();
    // What the content script sends is what the user typed: the core reads it by the schema.
    let refused = w.action(
        1,
        json!({"action": "answer", "questionId": "q-n", "answer": "accept",
               "content": {"count": "3.5", "score": "2"}}),
    );
    let refused = serde_json::to_value(refused.unwrap()).unwrap();
    assert_eq!(refused["type"], "error");
    assert_eq!(
        refused["message"],
        "The answer was not accepted: “Count” needs a whole number; “3.5” is not one."
    );
    assert!(
        answers(&w).is_empty(),
        "nothing was sent: {:?}",
        answers(&w)
    );
    assert_eq!(w.floats(1).len(), floats, "the form stays as typed");
    w.action(
        1,
        json!({"action": "answer", "questionId": "q-n", "answer": "accept",
               "content": {"count": " 7 ", "score": "1e3", "agree": true, "size": "2", "note": "4"}}),
    );
    assert_eq!(
        answers(&w),
        [json!({"action": "accept", "question_id": "q-n",
                "content": {"count": 7, "score": 1000, "agree": true, "size": 2, "note": "4"}})]
    );
}
