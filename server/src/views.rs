//! MCP App views handed to the extension's sandboxed frame: a server's `ui://` HTML is kept
//! for a moment under an unguessable one-time address on the bridge's loopback port, and
//! served from there with a `Content-Security-Policy` built from what the resource declares
//! and nothing more. The extension cannot run a view's inline scripts in a frame of its own
//! (its pages' CSP forbids them, and Firefox has no sandboxed extension pages), so the bridge
//! serves them; the view never sees the bridge's token, and the address works once.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_bridge_protocol::answers::ToolUi;
use serde_json::Value;

/// How long an address waits for the frame that loads it.
pub(crate) const VIEW_TTL: Duration = Duration::from_secs(60);

/// How many views may wait at once; the oldest goes first when more are asked for.
const MAX_WAITING: usize = 16;

/// The largest view served, in bytes (the HTML with its inlined scripts and styles).
pub(crate) const VIEW_LIMIT: usize = 4 * 1024 * 1024;

/// One view waiting for its frame.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct View {
    pub html: String,
    /// The `Content-Security-Policy` header it is served with.
    pub csp: String,
    /// The `Permissions-Policy` header it is served with.
    pub permissions: String,
}

/// A view waiting, with when it was kept and its place in line (times can tie).
type Waiting = (View, Instant, u64);

/// The views waiting for their frames, by address id, and the next place in line.
#[derive(Default)]
pub(crate) struct Views {
    waiting: Mutex<(HashMap<String, Waiting>, u64)>,
}

impl Views {
    /// Keeps `view` and returns the id of its one-time address (128 random bits as hex).
    pub(crate) fn keep(&self, view: View) -> Result<String, getrandom::Error> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)?;
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let now = Instant::now();
        let mut guard = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let (waiting, next) = &mut *guard;
        waiting.retain(|_, (_, at, _)| now.duration_since(*at) < VIEW_TTL);
        while waiting.len() >= MAX_WAITING {
            let oldest = waiting.iter().min_by_key(|(_, (_, _, n))| *n);
            match oldest.map(|(k, _)| k.clone()) {
                Some(k) => waiting.remove(&k),
                None => break,
            };
        }
        *next += 1;
        waiting.insert(id.clone(), (view, now, *next));
        Ok(id)
    }

    /// The view at `id`, once: a second load, or one after [`VIEW_TTL`], finds nothing.
    pub(crate) fn take(&self, id: &str) -> Option<View> {
        let mut guard = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let (view, at, _) = guard.0.remove(id)?;
        (at.elapsed() < VIEW_TTL).then_some(view)
    }
}

/// The origins of one of the resource's `csp` lists that a policy may name: `http(s)` and
/// `ws(s)` origins (a `*.` subdomain wildcard allowed), nothing else — no keywords, paths,
/// schemes alone or separators a server could smuggle another directive in with.
fn origins(list: Option<&Value>) -> Vec<String> {
    let Some(list) = list.and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(Value::as_str)
        .filter_map(|entry| {
            let (scheme, rest) = entry.trim().split_once("://")?;
            let scheme = scheme.to_ascii_lowercase();
            if !matches!(scheme.as_str(), "http" | "https" | "ws" | "wss") {
                return None;
            }
            let host_port = rest.strip_suffix('/').unwrap_or(rest);
            let (host, port) = match host_port.rsplit_once(':') {
                Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                    (h, Some(p))
                }
                _ => (host_port, None),
            };
            let bare = host.strip_prefix("*.").unwrap_or(host);
            let label_ok = |l: &str| {
                !l.is_empty()
                    && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                    && !l.starts_with('-')
            };
            if bare.is_empty() || !bare.split('.').all(label_ok) {
                return None;
            }
            let host = host.to_ascii_lowercase();
            Some(match port {
                Some(p) => format!("{scheme}://{host}:{p}"),
                None => format!("{scheme}://{host}"),
            })
        })
        .collect()
}

/// The `Content-Security-Policy` of a view whose resource declared `ui` (`_meta.ui`):
/// inline scripts and styles, plus the origins each `csp` list names for its directive;
/// no network, frames or base URL beyond those; sandboxed even if loaded outside our frame.
pub(crate) fn content_security_policy(ui: Option<&Value>) -> String {
    let csp = ui.and_then(|ui| ui.get("csp"));
    let list = |key: &str| origins(csp.and_then(|c| c.get(key)));
    let with = |fixed: &str, extra: &[String]| {
        let mut parts: Vec<&str> = fixed.split(' ').filter(|p| !p.is_empty()).collect();
        parts.extend(extra.iter().map(String::as_str));
        if parts.is_empty() {
            "'none'".to_owned()
        } else {
            parts.join(" ")
        }
    };
    let resources = list("resourceDomains");
    [
        "default-src 'none'".to_owned(),
        format!("script-src {}", with("'unsafe-inline'", &resources)),
        format!("style-src {}", with("'unsafe-inline'", &resources)),
        format!("img-src {}", with("data: blob:", &resources)),
        format!("font-src {}", with("data:", &resources)),
        format!("media-src {}", with("data: blob:", &resources)),
        format!("connect-src {}", with("", &list("connectDomains"))),
        format!("frame-src {}", with("", &list("frameDomains"))),
        format!("base-uri {}", with("", &list("baseUriDomains"))),
        "form-action 'none'".to_owned(),
        "sandbox allow-scripts".to_owned(),
    ]
    .join("; ")
}

/// The `Permissions-Policy` of a view: the features the resource asked for
/// (`_meta.ui.permissions`: `camera`, `microphone`, `geolocation`, `clipboardWrite`) for the
/// view itself, every other of them off.
pub(crate) fn permissions_policy(ui: Option<&Value>) -> String {
    let asked = ui.and_then(|ui| ui.get("permissions"));
    [
        ("camera", "camera"),
        ("microphone", "microphone"),
        ("geolocation", "geolocation"),
        ("clipboardWrite", "clipboard-write"),
    ]
    .iter()
    .map(|(key, feature)| match asked.and_then(|a| a.get(key)) {
        Some(v) if !v.is_null() && v != &Value::Bool(false) => format!("{feature}=(self)"),
        _ => format!("{feature}=()"),
    })
    .collect::<Vec<_>>()
    .join(", ")
}

/// The tool's MCP App view: `_meta.ui.resourceUri` (or the older flat `_meta["ui/resourceUri"]`),
/// a `ui://` address, with `_meta.ui.visibility` (`model`, `app`; both when left out or when
/// it names neither). Anything else is no view.
pub(crate) fn view_of(tool: &rmcp::model::Tool) -> Option<ToolUi> {
    let meta = &tool.meta.as_ref()?.0;
    let nested = meta.get("ui").and_then(Value::as_object);
    let uri = nested
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(Value::as_str)
        .filter(|uri| uri.starts_with("ui://"))?;
    let said: Vec<String> = nested
        .and_then(|ui| ui.get("visibility"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|who| matches!(*who, "model" | "app"))
        .map(str::to_owned)
        .collect();
    let visibility = if said.is_empty() {
        vec!["model".to_owned(), "app".to_owned()]
    } else {
        said
    };
    Some(ToolUi {
        resource_uri: uri.to_owned(),
        visibility,
    })
}

/// Whether the AI may call `tool`: every tool but one whose view is for the view only
/// (`visibility` without `model`). Such a tool is listed (the extension needs its view), but
/// `/execute` does not run it: nothing but its view may, and views do not call through here.
pub(crate) fn for_model(tool: &rmcp::model::Tool) -> bool {
    view_of(tool).is_none_or(|ui| ui.visibility.iter().any(|who| who == "model"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn a_view_is_read_from_either_meta_form_and_only_as_a_ui_address() {
        let with = |meta: Value| {
            let mut tool = rmcp::model::Tool::new("t", "d", Arc::new(serde_json::Map::new()));
            tool.meta = Some(rmcp::model::MetaObject(meta.as_object().unwrap().clone()));
            view_of(&tool)
        };
        let both = ["model".to_owned(), "app".to_owned()];
        let nested = with(json!({"ui": {"resourceUri": "ui://clock/view.html"}})).unwrap();
        assert_eq!(nested.resource_uri, "ui://clock/view.html");
        assert_eq!(nested.visibility, both);
        let flat = with(json!({"ui/resourceUri": "ui://clock/old.html"})).unwrap();
        assert_eq!(flat.resource_uri, "ui://clock/old.html");
        let app_only = with(json!({"ui": {"resourceUri": "ui://a", "visibility": ["app"]}}));
        assert_eq!(app_only.unwrap().visibility, ["app"]);
        let odd = with(json!({"ui": {"resourceUri": "ui://a", "visibility": ["everyone", 3]}}));
        assert_eq!(odd.unwrap().visibility, both, "names neither: both");
        assert_eq!(
            with(json!({"ui": {"resourceUri": "https://evil.example/x"}})),
            None
        );
        assert_eq!(with(json!({"ui": {}})), None);
        assert_eq!(with(json!({"other": 1})), None);
    }

    #[test]
    fn a_tool_for_its_view_only_is_not_the_ais() {
        let tool = |meta: Value| {
            let mut tool =
                rmcp::model::Tool::new("t", "d", std::sync::Arc::new(serde_json::Map::new()));
            tool.meta = Some(rmcp::model::MetaObject(meta.as_object().unwrap().clone()));
            tool
        };
        assert!(for_model(&tool(json!({}))));
        assert!(for_model(&tool(json!({"ui": {"resourceUri": "ui://a"}}))));
        assert!(!for_model(&tool(
            json!({"ui": {"resourceUri": "ui://a", "visibility": ["app"]}})
        )));
        // No view (not a ui:// address): the visibility means nothing.
        assert!(for_model(&tool(
            json!({"ui": {"resourceUri": "https://a", "visibility": ["app"]}})
        )));
    }

    #[test]
    fn a_view_that_declares_nothing_gets_inline_code_and_nothing_else() {
        let csp = content_security_policy(None);
        assert!(
            csp.starts_with("default-src 'none'; script-src 'unsafe-inline';"),
            "{csp}"
        );
        for directive in [
            "connect-src 'none'",
            "frame-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "sandbox allow-scripts",
        ] {
            assert!(csp.contains(directive), "{directive}: {csp}");
        }
        assert_eq!(
            permissions_policy(None),
            "camera=(), microphone=(), geolocation=(), clipboard-write=()"
        );
    }

    #[test]
    fn declared_origins_go_to_their_directive_and_nothing_else_does() {
        let ui = json!({"csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com:8443/", "'unsafe-eval'", "*"],
            "resourceDomains": ["https://*.cdn.example.net", "https://x.example; script-src *", "javascript://x", "https://a.example/path"],
            "frameDomains": ["https://www.youtube.com"],
            "baseUriDomains": "https://not-a-list.example"
        }, "permissions": {"camera": {}, "geolocation": false}});
        let csp = content_security_policy(Some(&ui));
        assert!(
            csp.contains("connect-src https://api.example.com wss://live.example.com:8443;"),
            "{csp}"
        );
        assert!(
            csp.contains("script-src 'unsafe-inline' https://*.cdn.example.net;"),
            "{csp}"
        );
        assert!(csp.contains("frame-src https://www.youtube.com;"), "{csp}");
        assert!(csp.contains("base-uri 'none'"), "{csp}");
        assert!(
            !csp.contains("unsafe-eval") && !csp.contains("javascript") && !csp.contains("path"),
            "{csp}"
        );
        assert_eq!(csp.matches("script-src").count(), 1, "{csp}");
        assert_eq!(
            permissions_policy(Some(&ui)),
            "camera=(self), microphone=(), geolocation=(), clipboard-write=()"
        );
    }

    #[test]
    fn an_address_works_once() {
        let views = Views::default();
        let view = View {
            html: "<p>hi</p>".into(),
            csp: String::new(),
            permissions: String::new(),
        };
        let id = views.keep(view.clone()).unwrap();
        assert_eq!(id.len(), 32);
        assert_ne!(views.keep(view.clone()).unwrap(), id);
        assert_eq!(views.take(&id), Some(view));
        assert_eq!(views.take(&id), None);
    }

    #[test]
    fn the_oldest_waiting_view_makes_room() {
        let views = Views::default();
        let view = |n: usize| View {
            html: n.to_string(),
            csp: String::new(),
            permissions: String::new(),
        };
        let ids: Vec<String> = (0..=MAX_WAITING)
            .map(|n| views.keep(view(n)).unwrap())
            .collect();
        assert_eq!(views.take(&ids[0]), None, "the first made room");
        assert_eq!(views.take(&ids[MAX_WAITING]), Some(view(MAX_WAITING)));
    }
}
