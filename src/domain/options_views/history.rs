//! The failure counters of `GET /history` and what a reset did, as the page shows them.

use super::Lang;
use serde::Serialize;
use serde_json::Value;

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// One failure counter row of `GET /history`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterView {
    pub server: String,
    pub tool: String,
    pub failures: u64,
    pub refused: u64,
    /// The next call of this tool is refused until a reset or a success.
    pub blocked: bool,
}

/// The failure counters as the page shows them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryView {
    /// Failures in a row after which a tool is refused.
    pub limit: u64,
    pub counters: Vec<CounterView>,
    /// `server:tool` of each refused tool.
    pub blocked: Vec<String>,
}

/// `GET /history`: the counters with the tools that are refused first.
pub fn history_view(body: &Value) -> HistoryView {
    let limit = body.get("limit").and_then(Value::as_u64).unwrap_or(3);
    let mut rows: Vec<CounterView> = body
        .get("counters")
        .and_then(Value::as_array)
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    let failures = r.get("failures").and_then(Value::as_u64).unwrap_or(0);
                    CounterView {
                        server: str_of(r, "server"),
                        tool: str_of(r, "tool"),
                        failures,
                        refused: r.get("refused").and_then(Value::as_u64).unwrap_or(0),
                        blocked: failures >= limit,
                    }
                })
                .filter(|r| r.failures > 0 || r.refused > 0)
                .collect()
        })
        .unwrap_or_default();
    // Blocked tools first, then by name.
    rows.sort_by(|a, b| (!a.blocked, &a.server, &a.tool).cmp(&(!b.blocked, &b.server, &b.tool)));
    let blocked: Vec<String> = rows
        .iter()
        .filter(|r| r.blocked)
        .map(|r| format!("{}:{}", r.server, r.tool))
        .collect();
    HistoryView {
        limit,
        counters: rows,
        blocked,
    }
}

/// What a reset of the call history did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResetView {
    pub message: String,
    /// How many counters were cleared, as the bridge says (none from an older bridge).
    pub cleared: Option<u64>,
    /// The counters as they are after the reset, when they could be read.
    pub history: Option<HistoryView>,
}

/// `POST /reset-history`: what was done, in the page's language (the bridge's own words
/// are in its language, not the user's).
pub fn reset_view(body: &Value, lang: Lang, history: Option<HistoryView>) -> ResetView {
    ResetView {
        message: lang.says().history_reset.to_string(),
        cleared: body.get("cleared").and_then(Value::as_u64),
        history,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const EN: Lang = Lang::En;

    #[test]
    fn the_bridges_own_history_answer_reads_back_whole() {
        use mcp_bridge_protocol::answers::{Counter, History};
        let counter = |tool: &str, failures| Counter {
            server: "demo".into(),
            tool: tool.into(),
            failures,
            refused: 1,
        };
        let sent = History {
            success: true,
            counters: vec![counter("a", 1), counter("b", 2)],
            limit: 2,
        };
        let view = history_view(&serde_json::to_value(sent).unwrap());
        assert_eq!(view.limit, 2);
        assert_eq!(view.blocked, ["demo:b"]);
        let read: Vec<_> = view
            .counters
            .iter()
            .map(|c| (c.tool.as_str(), c.failures, c.refused))
            .collect();
        assert_eq!(read, [("b", 2, 1), ("a", 1, 1)]);
    }

    #[test]
    fn history_puts_refused_tools_first() {
        let v = json!(history_view(&json!({"success":true,"limit":3,"counters":[
            {"server":"a","tool":"ok","failures":1,"refused":0},
            {"server":"demo","tool":"fail_runtime","failures":3,"refused":2},
            {"server":"z","tool":"clean","failures":0,"refused":0}
        ]})));
        assert_eq!(v["counters"][0]["tool"], "fail_runtime");
        assert_eq!(v["counters"][0]["blocked"], true);
        assert_eq!(v["counters"][1]["blocked"], false);
        assert_eq!(
            v["counters"].as_array().unwrap().len(),
            2,
            "zero rows hidden"
        );
        assert_eq!(v["blocked"], json!(["demo:fail_runtime"]));
        assert_eq!(history_view(&json!({})).counters, vec![]);
        let v = json!(history_view(&json!({"limit":3,"counters":[
            {"server":"s","tool":"d","failures":1},
            {"server":"s","tool":"c","failures":3},
            {"server":"r","tool":"z","failures":2},
            {"server":"a","tool":"b","failures":4},
            {"server":"s","tool":"a","failures":1}
        ]})));
        let order: Vec<String> = v["counters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{}:{}",
                    r["server"].as_str().unwrap(),
                    r["tool"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(order, ["a:b", "s:c", "r:z", "s:a", "s:d"]);
        // The bridge's words are in its language; the page says it in the user's.
        let done = json!({"message":"调用历史已重置","cleared":2});
        assert_eq!(reset_view(&done, EN, None).message, "call history reset");
        assert_eq!(reset_view(&done, EN, None).cleared, Some(2));
    }
}
