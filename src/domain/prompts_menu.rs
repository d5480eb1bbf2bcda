//! The float's *Prompts* menu: what the user's MCP servers offer to put into the chat by hand —
//! their prompts (filled in and typed into the chat input, not sent), their resources and
//! resource templates (attached: text as a quoted block naming the URI, images and sounds as
//! attachments). Built here from the bridge's `GET /prompts`, `GET /resources` and
//! `GET /resource-templates`; the content script only draws the list and the form. What a
//! rendered prompt or a read resource becomes in the chat is decided here too.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::domain::float::FloatLink;
use crate::domain::i18n::{Lang, fill};
use crate::domain::redact::Masked;

/// What an entry of the menu is.
pub const PROMPT: &str = "prompt";
pub const RESOURCE: &str = "resource";
pub const TEMPLATE: &str = "template";

/// The menu: every server's prompts, then resources, then resource templates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct Menu {
    pub items: Vec<MenuItem>,
}

/// One entry: `name` is what the bridge knows it by (a prompt's name, a resource's URI, a
/// template's URI template); `label` what the user reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct MenuItem {
    pub kind: String,
    pub server: String,
    pub name: String,
    pub label: Masked,
    /// The menu's line for it: the label and the server it comes from.
    pub line: Masked,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Masked>,
    /// The form: a prompt's arguments, a template's variables (required ones first).
    pub fields: Vec<MenuField>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct MenuField {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Masked>,
    pub required: bool,
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

fn list<'a>(body: &'a Value, key: &str) -> &'a [Value] {
    body.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The menu from the bridge's three listings (a listing that failed is `Value::Null`).
pub fn menu(prompts: &Value, resources: &Value, templates: &Value) -> Menu {
    let mut items = Vec::new();
    let entry = |kind: &str, v: &Value, id: &str, fields: Vec<MenuField>| {
        let server = text(v, "server")?.to_string();
        let name = text(v, id)?.to_string();
        let label = text(v, "title").or(text(v, "name")).unwrap_or(&name);
        Some(MenuItem {
            kind: kind.to_string(),
            label: Masked::new(label),
            line: Masked::new(&format!("{label} · {server}")),
            description: text(v, "description").map(Masked::new),
            server,
            name,
            fields,
        })
    };
    for p in list(prompts, "prompts") {
        let mut fields: Vec<MenuField> = list(p, "arguments")
            .iter()
            .filter_map(|a| {
                Some(MenuField {
                    name: text(a, "name")?.to_string(),
                    description: text(a, "description").map(Masked::new),
                    required: a.get("required").and_then(Value::as_bool) == Some(true),
                })
            })
            .collect();
        fields.sort_by_key(|f| !f.required);
        items.extend(entry(PROMPT, p, "name", fields));
    }
    for r in list(resources, "resources") {
        items.extend(entry(RESOURCE, r, "uri", Vec::new()));
    }
    for t in list(templates, "resourceTemplates") {
        let fields = text(t, "uriTemplate")
            .map(variables)
            .unwrap_or_default()
            .into_iter()
            .map(|name| MenuField {
                name,
                description: None,
                required: true,
            })
            .collect();
        items.extend(entry(TEMPLATE, t, "uriTemplate", fields));
    }
    Menu { items }
}

/// The variable names of a URI template (`{id}`, `{+path}`, `{a,b}`), in order, once each.
pub fn variables(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for expr in template
        .split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}'))
    {
        let names = expr
            .0
            .trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for name in names.split(',') {
            let name = name.trim_end_matches('*').split(':').next().unwrap_or("");
            if !name.is_empty() && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// The URI a template names with `values` (RFC 6570 simple and reserved expansion, the kinds
/// resource templates use): `Err` names a variable with no value.
pub fn expand(template: &str, values: &Map<String, Value>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return Ok(out);
        };
        let expr = &rest[open + 1..open + close];
        let reserved = expr.starts_with('+');
        let mut parts = Vec::new();
        for name in expr
            .trim_start_matches(['+', '#', '.', '/', ';', '?', '&'])
            .split(',')
        {
            let name = name.trim_end_matches('*').split(':').next().unwrap_or("");
            match values
                .get(name)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
            {
                Some(v) => parts.push(encode(v, reserved)),
                None => return Err(name.to_string()),
            }
        }
        out.push_str(&parts.join(","));
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Percent-encodes all but unreserved characters (and, with `reserved`, the URI's own
/// delimiters too).
fn encode(value: &str, reserved: bool) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || b"-._~".contains(&b)
            || (reserved && b":/?#[]@!$&'()*+,;=".contains(&b));
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The first required field of `item` the user left empty.
pub fn missing<'a>(item: &'a MenuItem, values: &Map<String, Value>) -> Option<&'a str> {
    item.fields
        .iter()
        .filter(|f| f.required)
        .find(|f| {
            values
                .get(&f.name)
                .and_then(Value::as_str)
                .is_none_or(|v| v.trim().is_empty())
        })
        .map(|f| f.name.as_str())
}

/// The arguments the bridge takes: the form's non-empty strings.
pub fn arguments(values: &Map<String, Value>) -> Map<String, Value> {
    values
        .iter()
        .filter(|(_, v)| v.as_str().is_some_and(|s| !s.is_empty()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The links among a result's content, from `server` (a call whose server is unknown has
/// none to offer).
pub fn links(content: &[crate::domain::outcome::Content], server: Option<&str>) -> Vec<FloatLink> {
    let Some(server) = server else {
        return Vec::new();
    };
    content
        .iter()
        .filter_map(|c| match c {
            crate::domain::outcome::Content::ResourceLink { uri, name, .. } => Some(FloatLink {
                server: server.to_string(),
                uri: uri.clone(),
                label: Masked::new(name.as_deref().unwrap_or(uri)),
            }),
            _ => None,
        })
        .take(20)
        .collect()
}

/// What goes into the chat: the text typed into the input (after what the user wrote there),
/// and the binary items (type, base64) for the float, which keeps the images and sounds
/// ([`crate::domain::float::media`]) to offer as attachments.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Typed {
    pub text: String,
    pub media: Vec<(String, String)>,
}

/// A resource's contents (`resources/read`'s `contents`, or a prompt's embedded `resource`)
/// as text: each text as a quoted block under a line naming its URI; a blob named with its
/// type and size, and kept for the float when it is an image or a sound.
fn resource_text(contents: &Value, lang: Lang, out: &mut Typed) -> String {
    let says = lang.says();
    let uri = text(contents, "uri").unwrap_or("");
    let mime = text(contents, "mimeType");
    let label = |mime: Option<&str>| {
        let mime = mime.map(|m| format!(", {m}")).unwrap_or_default();
        fill(says.content_resource, &[("uri", uri), ("mime", &mime)])
    };
    if let Some(body) = contents.get("text").and_then(Value::as_str) {
        let quoted: Vec<String> = body
            .lines()
            .map(|l| format!("> {l}").trim_end().to_string())
            .collect();
        return format!("{}\n{}", label(mime), quoted.join("\n"));
    }
    let blob = contents.get("blob").and_then(Value::as_str).unwrap_or("");
    let mime = mime.unwrap_or("application/octet-stream");
    out.media.push((mime.to_string(), blob.to_string()));
    let bytes = decoded_len(blob);
    format!(
        "{}, {}]",
        label(Some(mime)).trim_end_matches(']'),
        crate::domain::report::size(bytes)
    )
}

/// How many bytes base64 `data` holds.
fn decoded_len(data: &str) -> usize {
    (data.len() / 4 * 3).saturating_sub(data.bytes().rev().take_while(|b| *b == b'=').count())
}

/// A rendered prompt (`POST /prompts/get`'s `messages`) as typed into the chat: each message's
/// text, embedded resources as quoted blocks; images and sounds for the float to attach. When
/// the prompt holds the assistant's words too, each message says whose it is.
pub fn prompt_text(messages: &Value, lang: Lang) -> Typed {
    let mut out = Typed::default();
    let messages = messages.as_array().map(Vec::as_slice).unwrap_or_default();
    let mixed = messages
        .iter()
        .any(|m| text(m, "role") == Some("assistant"));
    let says = lang.says();
    let mut parts = Vec::new();
    for m in messages {
        let Some(content) = m.get("content") else {
            continue;
        };
        let part = match text(content, "type") {
            Some("text") => content
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            Some("resource") => content
                .get("resource")
                .map(|r| resource_text(r, lang, &mut out))
                .unwrap_or_default(),
            Some("image" | "audio") => {
                let mime = text(content, "mimeType").unwrap_or("");
                let data = text(content, "data").unwrap_or("");
                out.media.push((mime.to_string(), data.to_string()));
                let key = if text(content, "type") == Some("image") {
                    says.content_image
                } else {
                    says.content_audio
                };
                let size = crate::domain::report::size(decoded_len(data));
                fill(key, &[("mime", mime), ("size", &size)])
            }
            Some("resource_link") => {
                let uri = text(content, "uri").unwrap_or("");
                let name = text(content, "name")
                    .map(|n| format!("{n} "))
                    .unwrap_or_default();
                fill(says.content_link, &[("name", &name), ("uri", uri)])
            }
            _ => continue,
        };
        if mixed {
            let who = if text(m, "role") == Some("assistant") {
                says.prompt_assistant
            } else {
                says.prompt_user
            };
            parts.push(format!("{who}\n{part}"));
        } else {
            parts.push(part);
        }
    }
    out.text = parts.join("\n\n");
    out
}

/// A read resource (`POST /resources/read`'s answer) as attached to the chat. A large text the
/// bridge paged is cut where the page ends, and says how much was left out.
pub fn resource_attachment(answer: &Value, lang: Lang) -> Typed {
    let mut out = Typed::default();
    let parts: Vec<String> = list(answer, "contents")
        .iter()
        .map(|c| resource_text(c, lang, &mut out))
        .collect();
    out.text = parts.join("\n\n");
    if let Some(page) = answer.get("page")
        && let (Some(next), Some(total)) = (
            page.get("next_offset").and_then(Value::as_u64),
            page.get("total_chars").and_then(Value::as_u64),
        )
    {
        let left = total.saturating_sub(next).to_string();
        out.text.push_str("\n\n");
        out.text
            .push_str(&fill(lang.says().resource_cut, &[("left", &left)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn everything() -> Menu {
        menu(
            &json!({"success": true, "prompts": [
                {"name": "simple-prompt", "title": "Simple Prompt", "server": "everything", "arguments": []},
                {"name": "args-prompt", "description": "Two arguments", "server": "everything",
                 "arguments": [{"name": "state", "required": false}, {"name": "city", "description": "Name of the city", "required": true}]},
                {"name": "nameless-server"}
            ]}),
            &json!({"success": true, "resources": [
                {"uri": "demo://resource/static/document/features.md", "name": "features.md", "server": "everything"}
            ]}),
            &json!({"success": true, "resourceTemplates": [
                {"uriTemplate": "demo://resource/dynamic/text/{resourceId}", "name": "Dynamic Text Resource", "server": "everything"}
            ]}),
        )
    }

    #[test]
    fn the_menu_lists_prompts_resources_and_templates_with_their_forms() {
        let m = everything();
        let names: Vec<(&str, &str)> = m
            .items
            .iter()
            .map(|i| (i.kind.as_str(), i.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                (PROMPT, "simple-prompt"),
                (PROMPT, "args-prompt"),
                (RESOURCE, "demo://resource/static/document/features.md"),
                (TEMPLATE, "demo://resource/dynamic/text/{resourceId}"),
            ]
        );
        assert_eq!(m.items[0].label.as_str(), "Simple Prompt");
        assert_eq!(m.items[1].label.as_str(), "args-prompt");
        // The menu's line names the server the entry comes from.
        assert_eq!(m.items[0].line.as_str(), "Simple Prompt · everything");
        let args: Vec<(&str, bool)> = m.items[1]
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.required))
            .collect();
        assert_eq!(args, [("city", true), ("state", false)], "required first");
        assert_eq!(m.items[3].fields[0].name, "resourceId");
        // A listing that failed leaves its part out.
        assert!(
            menu(&Value::Null, &Value::Null, &Value::Null)
                .items
                .is_empty()
        );
    }

    #[test]
    fn a_required_argument_left_empty_is_named() {
        let m = everything();
        let values = json!({"city": "  ", "state": "CA"});
        assert_eq!(
            missing(&m.items[1], values.as_object().unwrap()),
            Some("city")
        );
        let values = json!({"city": "Paris", "state": ""});
        assert_eq!(missing(&m.items[1], values.as_object().unwrap()), None);
        assert_eq!(
            arguments(values.as_object().unwrap()),
            *json!({"city": "Paris"}).as_object().unwrap()
        );
    }

    #[test]
    fn templates_expand_with_encoded_values() {
        let v = json!({"id": "a b/c", "path": "x/y z"});
        let v = v.as_object().unwrap();
        assert_eq!(expand("demo://r/{id}", v).unwrap(), "demo://r/a%20b%2Fc");
        assert_eq!(expand("file:///{+path}", v).unwrap(), "file:///x/y%20z");
        assert_eq!(expand("demo://r/{missing}", v).unwrap_err(), "missing");
        assert_eq!(variables("a/{x}/{+y}/{x}{?p,q}"), ["x", "y", "p", "q"]);
    }

    #[test]
    fn a_prompt_is_typed_as_text_with_resources_quoted_and_images_kept_for_the_float() {
        let messages = json!([
            {"role": "user", "content": {"type": "text", "text": "Analyse this:"}},
            {"role": "user", "content": {"type": "resource", "resource":
                {"uri": "demo://r/1", "mimeType": "text/plain", "text": "line one\n\nline two"}}},
            {"role": "user", "content": {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}}
        ]);
        let t = prompt_text(&messages, Lang::En);
        assert_eq!(
            t.text,
            "Analyse this:\n\n[resource: demo://r/1, text/plain]\n> line one\n>\n> line two\n\n[image: image/png, 8 B]"
        );
        assert_eq!(t.media.len(), 1);
        let mixed = json!([
            {"role": "user", "content": {"type": "text", "text": "Hi"}},
            {"role": "assistant", "content": {"type": "text", "text": "Hello"}}
        ]);
        let t = prompt_text(&mixed, Lang::En);
        assert!(
            t.text.starts_with("User:\nHi\n\nAssistant:\nHello"),
            "{}",
            t.text
        );
    }

    #[test]
    fn a_resource_is_attached_as_a_quoted_block_naming_its_uri() {
        let answer = json!({"success": true, "contents": [
            {"uri": "demo://doc", "mimeType": "text/markdown", "text": "# Title\nbody"},
            {"uri": "demo://img", "mimeType": "image/png", "blob": "iVBORw0KGgo="},
            {"uri": "demo://zip", "mimeType": "application/gzip", "blob": "H4sIAAAA"}
        ], "page": {"result_id": "r1", "next_offset": 100, "total_chars": 250}});
        let t = resource_attachment(&answer, Lang::En);
        assert!(
            t.text
                .starts_with("[resource: demo://doc, text/markdown]\n> # Title\n> body\n\n"),
            "{}",
            t.text
        );
        assert!(
            t.text
                .contains("[resource: demo://zip, application/gzip, 6 B]"),
            "{}",
            t.text
        );
        assert!(t.text.contains("150 more characters"), "{}", t.text);
        assert_eq!(
            t.media.len(),
            2,
            "the image and the archive, for the float to sort"
        );
        assert!(resource_attachment(&answer, Lang::Zh).text.contains("150"));
    }
}
