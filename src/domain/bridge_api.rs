//! The bridge's listing answers as the core reads them, in one place: the services of
//! `GET /tools`, the tools of `GET /tools?serverName=`, and a tool's parameters summarised
//! from its JSON Schema. The instructions, the tool-list report, the options page and the
//! policy resolution all read them through here.

pub use mcp_bridge_protocol::answers::ServerStatus;
use serde_json::Value;

/// One MCP server of `GET /tools`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Service {
    pub name: String,
    pub description: String,
    /// `running`, `failed`, … as the bridge says; `None` for bridges that do not say.
    pub status: Option<String>,
    pub tool_count: Option<u64>,
    /// A core service is described in the instructions; the others are named.
    pub is_core: bool,
    /// What the server (its initialize answer, then its config entry) tells the AI about it.
    pub instructions: String,
    /// How many resources and resource templates it offers; `None` for bridges that do not say.
    pub resource_count: Option<u64>,
    /// Its icon, a `data:image/` URL ([`icon`]).
    pub icon: Option<String>,
}

impl Service {
    /// Its status, when the bridge said one this build knows.
    pub fn state(&self) -> Option<ServerStatus> {
        self.status.as_deref().and_then(ServerStatus::from_word)
    }
}

/// The image types an icon may have, as the bridge writes them (`data:<type>;base64,`).
const ICON_TYPES: [&str; 5] = ["png", "jpeg", "gif", "webp", "svg+xml"];
/// The longest icon URL taken: the bridge's 64 KiB cap in base64, and its prefix.
const MAX_ICON_URL: usize = 90 * 1024;

/// The `icon` of a server or tool in a bridge's answer, when it is what the pages may put in
/// an `<img>`'s `src`: a `data:image/…;base64,` URL of an image type the bridge lets through,
/// of base64 characters only, at most [`MAX_ICON_URL`] long. Anything else (another scheme, a
/// `data:text/html`, a URL the page would fetch) is dropped, so the pages never load it.
pub fn icon(v: &Value) -> Option<String> {
    let url = v.get("icon").and_then(Value::as_str)?;
    let rest = url.strip_prefix("data:image/")?;
    let (kind, data) = rest.split_once(";base64,")?;
    let base64 = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
    (url.len() <= MAX_ICON_URL
        && ICON_TYPES.contains(&kind)
        && !data.is_empty()
        && data.bytes().all(base64))
    .then(|| url.to_string())
}

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The services of a `GET /tools` body; `Err` says what is wrong with it.
pub fn services(body: &Value) -> Result<Vec<Service>, String> {
    let list = body
        .get("services")
        .and_then(Value::as_array)
        .ok_or_else(|| "the bridge's /tools answer has no `services` list".to_string())?;
    Ok(list
        .iter()
        .filter(|s| s.get("name").is_some_and(Value::is_string))
        .map(|s| Service {
            name: text(s, "name"),
            description: text(s, "description"),
            status: s
                .get("status")
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)),
            tool_count: s.get("tool_count").and_then(Value::as_u64),
            is_core: s.get("is_core").and_then(Value::as_bool).unwrap_or(false),
            instructions: text(s, "instructions"),
            resource_count: s.get("resource_count").and_then(Value::as_u64),
            icon: icon(s),
        })
        .collect())
}

/// One tool of `GET /tools?serverName=`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// The input JSON Schema (`parameters`, `inputSchema` or `input_schema`).
    pub schema: Value,
    pub annotations: Annotations,
    /// Whether the AI may call it: `false` for a tool only its MCP App view may call
    /// (`ui.visibility` without `model`), which is never offered to the AI nor run from the
    /// chat.
    pub for_model: bool,
    /// Its icon, a `data:image/` URL ([`icon`]).
    pub icon: Option<String>,
    /// The `ui://` address of its MCP App view, when it has one.
    pub view: Option<String>,
}

/// Whether a listed tool (`GET /tools`) is the AI's to call: every tool but one whose view
/// declares a visibility with `app` and without `model` (one that names neither is both's, as
/// the bridge reads it).
pub fn for_model(tool: &Value) -> bool {
    let who = tool.pointer("/ui/visibility").and_then(Value::as_array);
    let names = |name: &str| who.is_some_and(|w| w.iter().any(|v| v.as_str() == Some(name)));
    names("model") || !names("app")
}

/// What a tool declares about itself (MCP's tool `annotations`). Hints, not guarantees: they
/// decide only what happens when the user has set no policy for the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

impl Annotations {
    fn from_value(v: Option<&Value>) -> Annotations {
        let hint = |k: &str| v.and_then(|a| a.get(k)).and_then(Value::as_bool);
        Annotations {
            read_only: hint("readOnlyHint"),
            destructive: hint("destructiveHint"),
            idempotent: hint("idempotentHint"),
            open_world: hint("openWorldHint"),
        }
    }

    /// Only a tool that says it changes nothing is taken at its word; per MCP, any other
    /// tool may be destructive.
    pub fn read_only(&self) -> bool {
        self.read_only == Some(true)
    }
}

/// The tool list of a `GET /tools?serverName=` body: `{tools: {tools: […]}}`, or a bare list
/// under `tools`. `None` when the body holds no list.
pub fn tools(body: &Value) -> Option<Vec<Tool>> {
    let tools = body.get("tools")?;
    let list = match tools.get("tools") {
        Some(Value::Array(a)) => a,
        _ => tools.as_array()?,
    };
    Some(
        list.iter()
            .map(|t| Tool {
                name: text(t, "name"),
                description: text(t, "description"),
                schema: t
                    .get("parameters")
                    .or_else(|| t.get("inputSchema"))
                    .or_else(|| t.get("input_schema"))
                    .cloned()
                    .unwrap_or(Value::Null),
                annotations: Annotations::from_value(t.get("annotations")),
                for_model: for_model(t),
                icon: icon(t),
                view: crate::domain::views::resource_uri(t).map(str::to_string),
            })
            .collect(),
    )
}

/// One parameter of a tool, summarised from its JSON Schema.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Param {
    pub name: String,
    /// A compact type: `string`, `integer`, `array<string>`, `"a"|"b"`.
    #[serde(rename = "type")]
    pub kind: String,
    pub required: bool,
    pub description: String,
}

/// The parameters of an input schema: the required ones first (in the schema's `required`
/// order), then the optional ones by name.
pub fn params(schema: &Value) -> Vec<Param> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let param = |name: &String, p: &Value, required: bool| Param {
        name: name.clone(),
        kind: type_of(p),
        required,
        description: text(p, "description"),
    };
    let mut out: Vec<Param> = required
        .iter()
        .filter_map(|r| props.get_key_value(*r))
        .map(|(name, p)| param(name, p, true))
        .collect();
    // The optional ones by name: the map keeps its keys in order.
    let optional = props.keys().filter(|k| !required.contains(&k.as_str()));
    out.extend(optional.map(|k| param(k, &props[k], false)));
    out
}

/// A compact type of a JSON schema: `string`, `integer`, `array<string>`, `"a"|"b"`.
pub fn type_of(schema: &Value) -> String {
    if let Some(Value::Array(vals)) = schema.get("enum") {
        let vals: Vec<String> = vals.iter().take(10).map(Value::to_string).collect();
        return vals.join("|");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alts)) = schema.get(key) {
            let ts: Vec<String> = alts.iter().map(type_of).filter(|t| t != "null").collect();
            if !ts.is_empty() {
                return ts.join("|");
            }
        }
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => match schema.get("items") {
            Some(items) => format!("array<{}>", type_of(items)),
            None => "array".into(),
        },
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => {
            let ts: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            ts.join("|")
        }
        _ => "any".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn services_read_the_bridges_list_and_skip_nameless_entries() {
        let body = json!({"services": [
            {"name": "time", "description": "Time", "status": "running", "tool_count": 2, "is_core": true},
            {"name": "old"},
            {"description": "no name"}
        ]});
        let s = services(&body).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].status.as_deref(), Some("running"));
        assert!(s[0].is_core);
        assert_eq!(s[1].status, None);
        assert!(services(&json!({"tools": []})).is_err());
    }

    #[test]
    fn the_bridges_own_answers_read_back_whole() {
        use mcp_bridge_protocol::answers::{
            ServerToolList, ServiceInfo, Services, ToolInfo, ToolList,
        };
        let info = ServiceInfo {
            name: "time".into(),
            description: "Time".into(),
            instructions: "Ask for UTC.".into(),
            is_core: true,
            status: ServerStatus::Starting,
            tool_count: 2,
            prompt_count: 0,
            resource_count: 3,
            list_changes: 0,
            icon: Some("data:image/png;base64,iVBORw0K".into()),
        };
        let sent = Services {
            success: true,
            services: vec![info],
        };
        let read = services(&serde_json::to_value(sent).unwrap()).unwrap();
        let expected = Service {
            name: "time".into(),
            description: "Time".into(),
            status: Some("starting".into()),
            tool_count: Some(2),
            is_core: true,
            instructions: "Ask for UTC.".into(),
            resource_count: Some(3),
            icon: Some("data:image/png;base64,iVBORw0K".into()),
        };
        assert_eq!(read, [expected]);
        assert_eq!(read[0].state(), Some(ServerStatus::Starting));
        let schema = json!({"type": "object", "required": ["tz"]});
        let sent = ServerToolList {
            success: true,
            tools: ToolList {
                service_name: "time".into(),
                service_description: "Time".into(),
                service_icon: None,
                tools: vec![ToolInfo {
                    name: "now".into(),
                    description: "The time".into(),
                    parameters: schema.as_object().unwrap().clone(),
                    annotations: json!({"readOnlyHint": true}),
                    ui: None,
                    icon: Some("data:image/svg+xml;base64,PHN2Zy8+".into()),
                }],
            },
        };
        let read = tools(&serde_json::to_value(sent).unwrap()).unwrap();
        assert_eq!(
            (read[0].name.as_str(), read[0].description.as_str()),
            ("now", "The time")
        );
        assert_eq!(read[0].schema, schema);
        assert!(read[0].annotations.read_only());
        assert_eq!(
            read[0].icon.as_deref(),
            Some("data:image/svg+xml;base64,PHN2Zy8+")
        );
    }

    #[test]
    fn only_a_data_image_url_of_an_image_type_is_an_icon() {
        let of = |url: &str| icon(&json!({ "icon": url }));
        for good in [
            "data:image/png;base64,iVBORw0KGgo=",
            "data:image/svg+xml;base64,PHN2Zy8+",
            "data:image/webp;base64,UklGRg==",
        ] {
            assert_eq!(of(good).as_deref(), Some(good));
        }
        let long = format!("data:image/png;base64,{}", "A".repeat(MAX_ICON_URL));
        for bad in [
            "data:text/html;base64,PHNjcmlwdD4=",
            "data:image/svg+xml,<svg onload=alert(1)>",
            "data:image/png;base64,",
            "data:image/png;base64,AA\"onerror=\"x",
            "data:image/bmp;base64,Qk0=",
            "https://example.com/icon.png",
            "javascript:alert(1)",
            "DATA:image/png;base64,iVBORw0K",
            long.as_str(),
        ] {
            assert_eq!(of(bad), None, "{bad:.40}");
        }
        assert_eq!(icon(&json!({ "icon": 1 })), None);
        assert_eq!(icon(&json!({})), None);
    }

    #[test]
    fn tools_read_both_list_shapes_and_every_schema_key() {
        let nested =
            json!({"tools": {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}});
        assert_eq!(tools(&nested).unwrap()[0].schema["type"], "object");
        let bare = json!({"tools": [{"name": "b", "input_schema": {"x": 1}}]});
        assert_eq!(tools(&bare).unwrap()[0].schema["x"], 1);
        assert_eq!(tools(&json!({"detail": "no"})), None);
    }

    #[test]
    fn annotations_are_read_and_only_a_read_only_hint_counts_as_read_only() {
        let body = json!({"tools": {"tools": [
            {"name": "now", "annotations": {"readOnlyHint": true, "openWorldHint": false}},
            {"name": "rm", "annotations": {"destructiveHint": true}},
            {"name": "plain"}
        ]}});
        let t = tools(&body).unwrap();
        assert!(t[0].annotations.read_only());
        assert_eq!(t[0].annotations.open_world, Some(false));
        assert!(!t[1].annotations.read_only());
        assert_eq!(t[1].annotations.destructive, Some(true));
        assert_eq!(t[2].annotations, Annotations::default());
        assert!(!t[2].annotations.read_only());
    }

    #[test]
    fn params_put_required_first_and_summarise_types() {
        let schema = json!({
            "properties": {
                "z": {"type": "integer"},
                "mode": {"enum": ["fast", "exact"]},
                "tz": {"type": "string", "description": "IANA name"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "required": ["tz"]
        });
        let p = params(&schema);
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["tz", "maybe", "mode", "tags", "z"]);
        assert!(p[0].required && p[0].description == "IANA name");
        assert_eq!(p[1].kind, "string");
        assert_eq!(p[2].kind, "\"fast\"|\"exact\"");
        assert_eq!(p[3].kind, "array<string>");
        assert!(params(&json!(null)).is_empty());
    }

    #[test]
    fn a_tool_is_the_ais_unless_its_view_keeps_it() {
        use serde_json::json;
        assert!(for_model(&json!({"name": "a"})));
        assert!(for_model(
            &json!({"name": "a", "ui": {"resourceUri": "ui://x"}})
        ));
        assert!(for_model(&json!({"ui": {"visibility": ["model", "app"]}})));
        assert!(!for_model(&json!({"ui": {"visibility": ["app"]}})));
        assert!(
            for_model(&json!({"ui": {"visibility": []}})),
            "names neither: both"
        );
    }
}
