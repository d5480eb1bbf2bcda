//! Managing the MCP servers: `GET /servers`, `POST /servers/{name}/restart`,
//! `PATCH /servers/{name}`, `PUT /servers/{name}`, `DELETE /servers/{name}` and
//! `POST /servers/import`. These routes can make the bridge run commands, so besides the
//! access checks every route has (token, Host, no web Origin) they refuse under `--no-auth`.
//! Secrets in definitions are masked unless one server is asked for with `?reveal=NAME`. A new
//! server's name is checked (`names.rs`); one already in the file that a new server could not
//! have is listed with a `name_warning` that shows it escaped.
//! The built-in demo server, which runs while there is no config file, is listed with
//! `"builtin": true`; `PUT` with `?keep_builtin=true` writes its entry into the file with the
//! new server, so adding a first server can keep it.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse as _, Response};
use mcp_bridge_protocol::answers::{
    Changed, ImportPreview, Restarted, ServerEntry, ServerList, SignInState, not_running,
};
use mcp_bridge_protocol::requests::{Import, PutServer, SetEnabled};
use serde_json::{Map, Value};

use crate::config;
use crate::config::import;
use crate::config::manage::{Manager, mask_definition, servers_of, unmask_with};
use crate::error::{BridgeError, InvalidField, Refused};
use crate::names::{escaped, new_server_name_problem, odd_server_name};
use crate::servers::{Changes, Server};
use crate::state::AppState;
use crate::validation::parse_json;

/// The manager, if these routes may be used.
fn manager(state: &AppState) -> Result<Arc<Manager>, BridgeError> {
    if !state.security.requires_token() {
        return Err(BridgeError::Forbidden {
            refused: Refused::NoAuth,
            value: String::new(),
            message: "Managing servers needs the token, and the bridge runs with --no-auth; it never runs \
             commands for a caller it cannot authenticate. Restart it without --no-auth."
                .to_owned(),
        });
    }
    state.manager.clone().ok_or_else(|| {
        BridgeError::Internal("this bridge does not manage a config file".to_owned())
    })
}

fn unknown(state: &AppState, name: &str) -> BridgeError {
    let names: Vec<String> = state
        .manager
        .as_ref()
        .and_then(|m| m.document())
        .map(|mut doc| servers_of(&mut doc).keys().cloned().collect())
        .unwrap_or_default();
    BridgeError::ServerNotFound {
        server: name.to_owned(),
        message: format!(
            "There is no MCP server named `{name}` in the config. The servers are: {}.",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        ),
        available: names,
    }
}

/// A refused body field. The value given is never echoed (it may be a secret or a file's
/// path); the message says what kind of value it was.
fn body_error(loc: &str, msg: &str, given: &Value) -> BridgeError {
    let kind = match given {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    };
    BridgeError::InvalidRequest(vec![InvalidField::new(
        "value_error",
        ["body", loc],
        &format!("{msg}; it was {kind}"),
    )])
}

/// The body of `PUT /servers/{name}`: one `mcpServers` entry, an object; the config check
/// names what is wrong inside it.
fn definition_of(body: &Value) -> Result<PutServer<'_>, BridgeError> {
    match body {
        Value::Object(entry) => Ok(PutServer(entry)),
        other => Err(body_error(
            "definition",
            "the body must be one `mcpServers` entry, a JSON object like {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}",
            other,
        )),
    }
}

/// What `GET /servers` says about one server.
fn describe(
    name: &str,
    definition: Option<&Value>,
    running: Option<&Arc<Server>>,
    reveal: bool,
    sign_in: Option<SignInState>,
    builtin: bool,
) -> ServerEntry {
    let enabled = definition.is_none_or(config::entry_enabled);
    let shown = definition.map(|d| {
        if reveal {
            d.clone()
        } else {
            mask_definition(d)
        }
    });
    let mut entry = ServerEntry {
        name: name.to_owned(),
        enabled,
        definition: shown,
        status: not_running::DISABLED,
        pid: None,
        uptime_seconds: None,
        tool_count: 0,
        last_error: None,
        stderr: String::new(),
        sign_in,
        builtin,
        reads_env: definition.map(config::reads_env).unwrap_or_default(),
        name_warning: None,
        icon: None,
    };
    if let Some(server) = running {
        let status = server.status();
        entry.status = status.word();
        entry.pid = server.pid();
        entry.uptime_seconds = server.uptime().map(|u| u.as_secs_f64());
        entry.tool_count = server.tools().len();
        entry.icon = server.icon();
        if !matches!(status, crate::servers::Status::Running) {
            let (reason, stderr) = server.last_failure();
            if !matches!(status, crate::servers::Status::Starting) {
                entry.last_error = Some(reason);
            }
            entry.stderr = stderr;
        }
    } else if enabled {
        // In the file but not running: the file changed and was not applied (it does not
        // validate), or it is being applied.
        entry.status = not_running::NOT_LOADED;
    }
    entry
}

/// A remote server's sign-in state (`null` for a local one).
async fn sign_in_state(state: &AppState, server: Option<&Arc<Server>>) -> Option<SignInState> {
    let server = server?;
    match &server.spec().transport {
        crate::config::Transport::StreamableHttp { url, .. } => {
            Some(state.servers.sign_ins().state(server.name(), url).await)
        }
        _ => None,
    }
}

pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<ServerList>, BridgeError> {
    let manager = manager(&state)?;
    let reveal = query.get("reveal").map(String::as_str);
    let mut doc = manager.document();
    let running = state.servers.servers();
    let mut servers = Vec::new();
    let mut listed = Vec::new();
    if let Some(doc) = doc.as_mut() {
        for (name, definition) in servers_of(doc).iter() {
            let live = running.iter().find(|s| s.name() == name);
            let sign_in = sign_in_state(&state, live).await;
            servers.push(describe(
                name,
                Some(definition),
                live,
                reveal == Some(name.as_str()),
                sign_in,
                false,
            ));
            listed.push(name.clone());
        }
    }
    // Servers running without being in the file: the built-in demo server, or a file that
    // cannot be read as JSON right now.
    let builtin = manager
        .builtin(doc.as_ref())
        .map(|(name, _)| name.to_owned());
    for server in running
        .iter()
        .filter(|s| !listed.iter().any(|n| n == s.name()))
    {
        let sign_in = sign_in_state(&state, Some(server)).await;
        let is_builtin = builtin.as_deref() == Some(server.name());
        servers.push(describe(
            server.name(),
            None,
            Some(server),
            false,
            sign_in,
            is_builtin,
        ));
    }
    // A name a new server could not have (a look-alike, a hidden character) is listed, and
    // said escaped beside it.
    let names: Vec<String> = servers.iter().map(|s| s.name.clone()).collect();
    for entry in &mut servers {
        entry.name_warning = odd_server_name(&entry.name, names.iter().map(String::as_str));
    }
    if let Some(name) = reveal
        && !servers.iter().any(|s| s.name == name)
    {
        return Err(unknown(&state, name));
    }
    Ok(Json(ServerList {
        success: true,
        config_path: manager.path().to_string_lossy().into_owned(),
        config_valid: doc.is_some(),
        servers,
    }))
}

pub(crate) async fn restart(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, BridgeError> {
    manager(&state)?;
    if !state.servers.restart(&name).await {
        return Err(unknown(&state, &name));
    }
    Ok(Json(Restarted {
        success: true,
        server: &name,
        restarted: [&name],
    })
    .into_response())
}

fn changed(name: &str, changes: Changes) -> Changed<'_, Changes> {
    Changed {
        success: true,
        server: name,
        changes,
        created: None,
        kept: None,
    }
}

pub(crate) async fn set_enabled(
    State(state): State<AppState>,
    Path(name): Path<String>,
    body: Bytes,
) -> Result<Response, BridgeError> {
    let manager = manager(&state)?;
    let body = parse_json(&body)?.unwrap_or(Value::Null);
    let Some(SetEnabled { enabled }) = body
        .get("enabled")
        .and_then(Value::as_bool)
        .map(|enabled| SetEnabled { enabled })
    else {
        return Err(body_error(
            "enabled",
            "`enabled` must be true or false",
            body.get("enabled").unwrap_or(&Value::Null),
        ));
    };
    let missing = unknown(&state, &name);
    let (changes, ()) = manager
        .change(&name, |doc| {
            let entry = servers_of(doc).get_mut(&name).ok_or(missing)?;
            if let Some(entry) = entry.as_object_mut() {
                entry.shift_remove("disabled");
                entry.insert("enabled".to_owned(), Value::Bool(enabled));
            }
            Ok(())
        })
        .await?;
    Ok(Json(changed(&name, changes)).into_response())
}

pub(crate) async fn put(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Result<Response, BridgeError> {
    let manager = manager(&state)?;
    let keep_builtin = match query.get("keep_builtin").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => {
            return Err(BridgeError::InvalidRequest(vec![InvalidField::new(
                "value_error",
                ["query", "keep_builtin"],
                "`keep_builtin` must be true or false",
            )]));
        }
    };
    let body = parse_json(&body)?.unwrap_or(Value::Null);
    let PutServer(entry) = definition_of(&body)?;
    let definition = Value::Object(entry.clone());
    let existing: Vec<String> = manager
        .document()
        .map(|mut doc| servers_of(&mut doc).keys().cloned().collect())
        .unwrap_or_default();
    if !existing.contains(&name)
        && let Some(why) = new_server_name_problem(&name, existing.iter().map(String::as_str))
    {
        return Err(BridgeError::InvalidRequest(vec![InvalidField::new(
            "value_error",
            ["path", "name"],
            &format!(
                "\"{}\" (shown escaped) cannot name a new server: {why}",
                escaped(&name)
            ),
        )]));
    }
    // The built-in server is kept only while it runs built in, and not under the new name.
    let keep = keep_builtin
        .then(|| manager.builtin(manager.document().as_ref()))
        .flatten()
        .filter(|(builtin, _)| *builtin != name)
        .map(|(builtin, entry)| (builtin.to_owned(), entry.clone()));
    let (changes, created) = manager
        .change(&name, |doc| {
            let servers = servers_of(doc);
            if let Some((builtin, entry)) = &keep {
                servers
                    .entry(builtin.clone())
                    .or_insert_with(|| entry.clone());
            }
            let definition = unmask_with(definition, servers.get(&name));
            Ok(servers.insert(name.clone(), definition).is_none())
        })
        .await?;
    let answer = Changed {
        created: Some(created),
        kept: Some(keep.map(|(builtin, _)| builtin)),
        ..changed(&name, changes)
    };
    Ok(Json(answer).into_response())
}

pub(crate) async fn delete(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, BridgeError> {
    let manager = manager(&state)?;
    let missing = unknown(&state, &name);
    let (changes, ()) = manager
        .change(&name, |doc| {
            servers_of(doc).shift_remove(&name).ok_or(missing)?;
            Ok(())
        })
        .await?;
    Ok(Json(changed(&name, changes)).into_response())
}

/// `POST /servers/import` with `{"from": path?, "names": [..]?}`: without `names`, what would
/// be imported; with them, those servers are added (a name already in the config is reported,
/// never overwritten).
pub(crate) async fn import(
    State(state): State<AppState>,
    body: Bytes,
) -> Result<Response, BridgeError> {
    let manager = manager(&state)?;
    let body = parse_json(&body)?.unwrap_or_else(|| Value::Object(Map::new()));
    let from = match body.get("from") {
        None | Some(Value::Null) => None,
        Some(Value::String(path)) => Some(path.as_str()),
        Some(other) => return Err(body_error("from", "`from` must be a path", other)),
    };
    let names: Option<Vec<String>> = match body.get("names") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => Some(
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        ),
        Some(other) => {
            return Err(body_error(
                "names",
                "`names` must be a list of server names",
                other,
            ));
        }
    };
    let request = Import {
        from,
        names: names.as_deref(),
    };
    let from = request.from.map(std::path::PathBuf::from);
    let mut existing = manager
        .document()
        .unwrap_or_else(|| Value::Object(Map::new()));
    let existing = servers_of(&mut existing).clone();
    // Reading files blocks (a slow disk, a network mount): never on the async threads.
    let found = tokio::task::spawn_blocking(move || import::find(from.as_deref(), &existing))
        .await
        .map_err(|err| BridgeError::Internal(format!("the import stopped: {err}")))?;
    let Some(names) = request.names else {
        return Ok(Json(ImportPreview {
            success: true,
            dry_run: true,
            found: found.to_answer(),
        })
        .into_response());
    };
    let picked: Vec<&import::FoundServer> = names
        .iter()
        .filter_map(|name| {
            found
                .servers
                .iter()
                .find(|c| &c.name == name && c.addable())
        })
        .collect();
    let mut report = found.report::<Changes>(names);
    if !picked.is_empty() {
        let (changes, added) = manager
            .change("import", |doc| Ok(import::add(servers_of(doc), &picked)))
            .await?;
        report.added = added;
        report.changes = Some(changes);
    }
    Ok(Json(report).into_response())
}
