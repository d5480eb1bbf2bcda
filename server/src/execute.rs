//! Executing one tool call: find the server, apply the failure counter, call under the timeout,
//! and turn the outcome into `/execute`'s answer — a result (its first page when it is large,
//! see `results.rs`), or an error a model can act on. The built-in `read_result` is answered
//! here too.

use std::sync::Arc;
use std::time::Instant;

use mcp_bridge_protocol::errors::tool_failure;

use axum::http::StatusCode;
use mcp_bridge_protocol::answers::ToolAnswer;
use rmcp::model::CallToolResult;

use crate::calls::FinalAnswer;
use crate::error::BridgeError;
use crate::servers::client::ListKind;
use crate::servers::{Server, Status};
use crate::state::AppState;
use crate::validation::ExecuteRequest;

/// How many similar names an unknown-tool error suggests.
const SUGGESTIONS: usize = 3;

/// Whether `request` is the built-in `read_result`: called without `serverName`, or naming a
/// server that has no tool of that name (a server's own `read_result` is reached by naming it).
pub(crate) fn is_read_result(state: &AppState, request: &ExecuteRequest) -> bool {
    request.name == crate::calls::results::READ_RESULT
        && request.server_name.as_deref().is_none_or(|name| {
            state
                .servers
                .get(name)
                .is_none_or(|server| !server.has_tool(crate::calls::results::READ_RESULT))
        })
}

/// Run the call and answer as `/execute` does.
pub(crate) async fn execute(
    state: &AppState,
    request: &ExecuteRequest,
) -> Result<ToolAnswer, BridgeError> {
    if is_read_result(state, request) {
        return state.results.read(&request.arguments);
    }
    let started = Instant::now();
    let tool = request.name.as_str();
    let server = resolve_when_started(state, tool, request.server_name.as_deref()).await?;
    let name = server.name().to_owned();
    if let Err(failures) = state.counter.check(&name, tool) {
        let limit = state.counter.limit();
        let refusal = BridgeError::CallLimitExceeded {
            server: name.clone(),
            tool: tool.to_owned(),
            failures,
            limit,
            message: format!(
                "Tool `{tool}` on server `{name}` failed {failures} times in a row and reached the call limit ({limit}), \
                 so the bridge refuses to call it again. Stop retrying this tool: fix the cause, use another tool, \
                 or tell the user. The user can reset the counter with \"Reset call history\" in the extension's options \
                 (POST /reset-history); a successful call or a bridge restart also resets it."
            ),
        };
        log_failure(&refusal, started);
        return Err(refusal);
    }
    let timeout = server.spec().call_timeout.unwrap_or(state.call_timeout);
    let called = server
        .call(tool, request.arguments.clone(), timeout)
        .await
        .and_then(|result| check_output(&server, tool, result));
    match called {
        Ok(result) => {
            let is_error = result.is_error.unwrap_or(false);
            if is_error {
                let failures = state.counter.record_failure(&name, tool);
                tracing::warn!(
                    trace_id = crate::trace::current().unwrap_or_default(),
                    server = %name,
                    tool,
                    failures,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "tool reported an error (isError: true)"
                );
            } else {
                state.counter.record_success(&name, tool);
                // At `debug`: a line formatted, masked and written per successful call was a
                // good part of the bridge's own work per call.
                tracing::debug!(
                    server = %name,
                    tool,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "tool call succeeded"
                );
            }
            // The server's configured secrets, the bridge's token and the sign-in tokens held
            // for the server never leave in a result, whatever the request says; credential
            // shapes only when the user let this tool's results through.
            let masking = crate::calls::masking::Masking {
                known: server.known_secrets().await,
                shapes: !request.unmasked,
            };
            state.results.answer(result, Some(masking)).await
        }
        Err(err) => {
            if err.counts_as_failure() {
                state.counter.record_failure(&name, tool);
            }
            log_failure(&err, started);
            Err(err)
        }
    }
}

/// A successful result of a tool that declares an `outputSchema` must carry
/// `structuredContent` matching it; otherwise the call fails, naming the field at fault.
fn check_output(
    server: &Server,
    tool: &str,
    result: CallToolResult,
) -> Result<CallToolResult, BridgeError> {
    if result.is_error.unwrap_or(false) {
        return Ok(result);
    }
    let Some(schema) = server.output_schema(tool) else {
        return Ok(result);
    };
    let problem = match &result.structured_content {
        None => Some(
            "it returned no structuredContent, though the tool declares an outputSchema".to_owned(),
        ),
        Some(value) => crate::calls::schema::mismatch_object(&schema, value).map(|(at, why)| {
            if at == "$" {
                format!("its structuredContent {why}")
            } else {
                format!(
                    "field `{}` of its structuredContent {why}",
                    at.trim_start_matches("$.")
                )
            }
        }),
    };
    let Some(problem) = problem else {
        return Ok(result);
    };
    let name = server.name();
    Err(BridgeError::ToolFailed {
        server: name.to_owned(),
        tool: tool.to_owned(),
        code: crate::error::code::INTERNAL_ERROR,
        error_type: tool_failure::OUTPUT_SCHEMA_MISMATCH.to_owned(),
        // The problem may quote a key of the result, which comes from the server.
        message: crate::redact::redact(
            &format!(
                "Tool `{tool}` on server `{name}` returned a result that does not match its outputSchema: {problem}. \
                 The result was not used; the tool or its server has a bug. Tell the user if it matters."
            ),
            server.secrets(),
        ),
        traceback: String::new(),
        input_schema: None,
    })
}

/// Render an `/execute` answer for a background call.
pub(crate) fn outcome(result: Result<ToolAnswer, BridgeError>, trace_id: &str) -> FinalAnswer {
    let (status, body) = match result {
        Ok(body) => (StatusCode::OK, crate::error::to_value(body)),
        Err(err) => err.render(trace_id),
    };
    FinalAnswer {
        status,
        body,
        trace_id: trace_id.to_owned(),
    }
}

/// One JSON line per failure (with `--log-format json`), with the request's trace id.
fn log_failure(err: &BridgeError, started: Instant) {
    tracing::warn!(
        trace_id = crate::trace::current().unwrap_or_default(),
        server = err.server().unwrap_or(""),
        tool = err.tool().unwrap_or(""),
        error_type = err.type_name(),
        code = err.code(),
        status = err.status().as_u16(),
        retryable = err.retryable(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        error = %err,
        "tool call failed"
    );
}

/// [`resolve`]; when the tool is not known, again after listing the tool lists whose `ttlMs`
/// ran out, and after waiting (up to the call timeout) for servers still starting, since the
/// tool may be theirs.
pub(crate) async fn resolve_when_started(
    state: &AppState,
    tool: &str,
    server_name: Option<&str>,
) -> Result<Arc<Server>, BridgeError> {
    // A call looks its tool up in the lists the bridge has, however old: a tool the server has
    // dropped since is refused by the server itself, and a server whose lists are never fresh
    // (`ttlMs: 0`, the default of rmcp's servers) would otherwise be listed again before every
    // call. Only a tool found in none of them has the stale lists listed again first.
    let found = match resolve(state, tool, server_name) {
        Err(BridgeError::ToolNotFound { .. }) => {
            let servers = match server_name.and_then(|name| state.servers.get(name)) {
                Some(named) => vec![named],
                None => state.servers.servers(),
            };
            Server::refresh_all(&servers, ListKind::Tools).await;
            resolve(state, tool, server_name)
        }
        other => other,
    };
    match found {
        Err(BridgeError::ToolNotFound { .. }) if state.servers.any_starting() => {
            let deadline = tokio::time::Instant::now() + state.call_timeout;
            state.servers.wait_started(deadline).await;
            resolve(state, tool, server_name)
        }
        other => other,
    }
}

/// The server that runs `tool`: the named one, else the first in config order that has it.
pub(crate) fn resolve(
    state: &AppState,
    tool: &str,
    server_name: Option<&str>,
) -> Result<Arc<Server>, BridgeError> {
    if let Some(server_name) = server_name {
        let Some(server) = state.servers.get(server_name) else {
            let servers = state.servers.servers();
            let names: Vec<&str> = servers.iter().map(|s| s.name()).collect();
            return Err(BridgeError::ServerNotFound {
                server: server_name.to_owned(),
                message: format!(
                    "There is no MCP server named `{server_name}`. The servers are: {}. \
                     Use one of these as serverName, or leave serverName out to let the bridge find the tool.",
                    list_or_none(&names)
                ),
                available: names.iter().map(|n| n.to_string()).collect(),
            });
        };
        // A server whose tools are unknown (never started) gets the call: it starts, or says why not.
        if !server.tools().is_empty() && !server.has_tool(tool) {
            return Err(tool_not_found(state, tool, Some(&server)));
        }
        return Ok(server.clone());
    }
    let candidates = state.servers.with_tool(tool);
    match candidates.as_slice() {
        [] => Err(tool_not_found(state, tool, None)),
        [only] => Ok((*only).clone()),
        [first, ..] => {
            let names: Vec<&str> = candidates.iter().map(|s| s.name()).collect();
            tracing::info!(
                tool,
                servers = ?names,
                chosen = first.name(),
                "several servers have this tool; using the first in config order"
            );
            Ok((*first).clone())
        }
    }
}

fn list_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "(none)".to_owned()
    } else {
        names.join(", ")
    }
}

/// How alike two tool names are, 0 to 1.
fn similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (a.to_lowercase(), b.to_lowercase());
    let normalize = |s: &str| s.replace(['-', '_', ' ', '.'], "");
    let (na, nb) = (normalize(&a), normalize(&b));
    if na == nb {
        return 1.0;
    }
    let edit = strsim::normalized_damerau_levenshtein(&na, &nb);
    let contains = if !na.is_empty() && !nb.is_empty() && (na.contains(&nb) || nb.contains(&na)) {
        0.8
    } else {
        0.0
    };
    edit.max(contains)
        .max(strsim::jaro_winkler(&na, &nb) - 0.15)
}

/// The unknown-tool error: what was asked, the closest names, and the tools there are.
pub(crate) fn tool_not_found(
    state: &AppState,
    tool: &str,
    server: Option<&Arc<Server>>,
) -> BridgeError {
    let mut scored: Vec<(f64, String, String)> = Vec::new();
    let servers: Vec<Arc<Server>> = match server {
        Some(server) => vec![server.clone()],
        None => state.servers.servers(),
    };
    for candidate in &servers {
        for known in candidate
            .tools()
            .iter()
            .filter(|t| crate::views::for_model(t))
        {
            scored.push((
                similarity(tool, &known.name),
                known.name.to_string(),
                candidate.name().to_owned(),
            ));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let closest: Vec<(String, String)> = scored
        .into_iter()
        .filter(|(score, ..)| *score >= 0.5)
        .take(SUGGESTIONS)
        .map(|(_, name, server_name)| (name, server_name))
        .collect();
    // Each server with its tools; a server that never started has none known yet.
    let services: Vec<(String, Option<Vec<String>>)> = servers
        .iter()
        .map(|s| {
            let known = server.is_some() || matches!(s.status(), Status::Running | Status::Crashed);
            let names = known.then(|| {
                let tools = s.tools();
                let for_model = tools.iter().filter(|t| crate::views::for_model(t));
                for_model.map(|t| t.name.to_string()).collect()
            });
            (s.name().to_owned(), names)
        })
        .collect();
    let closest_text = if closest.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = closest
            .iter()
            .map(|(name, server_name)| match server {
                Some(_) => format!("`{name}`"),
                None => format!("`{name}` (server `{server_name}`)"),
            })
            .collect();
        format!(" Closest names: {}.", names.join(", "))
    };
    let message = match server {
        Some(server) => format!(
            "Tool `{tool}` does not exist on server `{}`.{closest_text} Its tools are: {}. \
             Call one of these with its exact name.",
            server.name(),
            services[0].1.clone().unwrap_or_default().join(", ")
        ),
        None => {
            let listed: Vec<String> = services
                .iter()
                .map(|(name, tools)| match tools {
                    Some(tools) => format!("{name} ({})", tools.join(", ")),
                    None => format!("{name} (not running, tools unknown)"),
                })
                .collect();
            format!(
                "No MCP server has a tool named `{tool}`.{closest_text} The services and their tools are: {}. \
                 Call one of these with its exact name, or call list_tools_in_service to see a service's tools and parameters.",
                listed.join("; ")
            )
        }
    };
    BridgeError::ToolNotFound {
        tool: tool.to_owned(),
        server: server.map(|s| s.name().to_owned()),
        closest,
        services,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::results::result_json;
    use rmcp::model::CallToolResult;

    #[test]
    fn similar_names_score_high() {
        assert!(similarity("get_time", "get-time") > 0.99);
        assert!(similarity("get_current_time", "get_time") >= 0.5);
        assert!(similarity("echoo", "echo") >= 0.5);
        assert!(similarity("echo", "read_text_file") < 0.5);
    }

    #[test]
    fn result_json_is_camel_case() {
        let result = CallToolResult::error(vec![rmcp::model::ContentBlock::text("nope")]);
        let value = crate::error::to_value(result_json(&result));
        assert_eq!(value["isError"], true);
        assert_eq!(value["content"][0]["text"], "nope");
        assert!(value.get("structuredContent").is_some());
    }
}
