//! The float's *Prompts* menu ([`crate::domain::prompts_menu`] decides): lists what the
//! servers offer, asks a server for completions, and puts a prompt or a resource into the
//! chat input after what the user wrote there, never sending it.

use serde_json::{Map, Value};

use super::Errands;
use crate::domain::float::{self, FloatStatus};
use crate::domain::i18n::fill;
use crate::domain::messages::{Command, Response};
use crate::domain::prompts_menu::{self as menu, PROMPT, RESOURCE, TEMPLATE};
use crate::domain::redact::redact_owned;
use crate::domain::settings::Settings;
use crate::domain::setup::setup_problem;
use crate::runtime::bridge_client::{OfferRefused, body, encode};
use crate::runtime::host::{Host, Method};
use mcp_bridge_protocol::requests::{self, Completed};

/// The most suggestions passed on for one field.
const MAX_COMPLETIONS: usize = 100;

/// One `use-item` request: which entry, and the form's values.
pub struct Use {
    pub server: String,
    pub kind: String,
    pub name: String,
    pub values: Option<Value>,
}

impl<H: Host> Errands<H> {
    /// Why a route gave nothing, in the user's words.
    fn refused(&self, why: OfferRefused, settings: &Settings) -> String {
        let ui = self.ui();
        let says = ui.says();
        let text = match why {
            OfferRefused::Said(why) => fill(says.menu_refused, &[("why", &why)]),
            OfferRefused::NoAnswer(outcome) => match setup_problem(&outcome, settings) {
                Some(setup) => match setup.say(ui) {
                    (sentence, Some(command)) => format!("{sentence} `{command}`"),
                    (sentence, None) => sentence,
                },
                None => says.ui_not_running.into(),
            },
        };
        redact_owned(&text)
    }

    /// Every server's prompts, resources and resource templates.
    pub(super) async fn menu(&self, settings: &Settings) -> Response {
        let client = self.client(settings);
        let mut bodies = Vec::new();
        for path in ["/prompts", "/resources", "/resource-templates"] {
            match client.offered(Method::Get, path, None).await {
                Ok(body) => bodies.push(body),
                Err(OfferRefused::NoAnswer(o)) => {
                    return Response::error(self.refused(OfferRefused::NoAnswer(o), settings));
                }
                // An older bridge without the route, or one listing that failed: left out.
                Err(OfferRefused::Said(_)) => bodies.push(Value::Null),
            }
        }
        Response::Menu {
            menu: menu::menu(&bodies[0], &bodies[1], &bodies[2]),
        }
    }

    /// The server's suggestions for one field; none when it offers none.
    pub(super) async fn complete(
        &self,
        settings: &Settings,
        (server, kind, name): (String, String, String),
        (argument, value, context): (String, String, Option<Value>),
    ) -> Response {
        let of = if kind == TEMPLATE {
            Completed::Template(&name)
        } else {
            Completed::Prompt(&name)
        };
        let body = body(requests::Complete {
            server_name: &server,
            of,
            argument: &argument,
            value: &value,
            context: match context {
                Some(Value::Object(context)) => Some(menu::arguments(&context)),
                _ => None,
            },
        });
        let client = self.client(settings);
        let answer = client.offered(Method::Post, "/complete", body).await;
        let values = answer
            .ok()
            .and_then(|v| v.get("values").and_then(Value::as_array).cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .take(MAX_COMPLETIONS)
            .collect();
        Response::Completions { values }
    }

    /// Puts a prompt or a resource into the chat input; a refusal names the empty field or
    /// says why, and the form keeps what the user typed.
    pub(super) async fn use_item(&self, tab: i32, settings: &Settings, item: Use) -> Response {
        let lang = self.lang(settings);
        let says = lang.says();
        let client = self.client(settings);
        let values = match &item.values {
            Some(Value::Object(map)) => map.clone(),
            _ => Map::new(),
        };
        let missing = |field: &str| Response::Error {
            message: fill(says.menu_missing, &[("field", field)]),
            field: Some(field.to_string()),
        };
        let (typed, label) = match item.kind.as_str() {
            PROMPT => {
                let path = format!("/prompts?serverName={}", encode(&item.server));
                let listed = match client.offered(Method::Get, &path, None).await {
                    Ok(body) => menu::menu(&body, &Value::Null, &Value::Null),
                    Err(why) => return Response::error(self.refused(why, settings)),
                };
                let entry = listed.items.iter().find(|i| i.name == item.name);
                if let Some(field) = entry.and_then(|e| menu::missing(e, &values)) {
                    return missing(field);
                }
                let body = body(requests::GetPrompt {
                    server_name: &item.server,
                    name: &item.name,
                    arguments: menu::arguments(&values),
                });
                match client.offered(Method::Post, "/prompts/get", body).await {
                    Ok(answer) => {
                        let messages = answer.get("messages").unwrap_or(&Value::Null);
                        let label = entry.map_or(item.name.clone(), |e| e.label.to_string());
                        (menu::prompt_text(messages, lang), label)
                    }
                    Err(why) => return Response::error(self.refused(why, settings)),
                }
            }
            RESOURCE | TEMPLATE => {
                let uri = if item.kind == TEMPLATE {
                    match menu::expand(&item.name, &values) {
                        Ok(uri) => uri,
                        Err(field) => return missing(&field),
                    }
                } else {
                    item.name.clone()
                };
                let body = body(requests::ReadResource {
                    server_name: Some(&item.server),
                    uri: &Value::String(uri.clone()),
                });
                match client.offered(Method::Post, "/resources/read", body).await {
                    Ok(answer) => (menu::resource_attachment(&answer, lang), uri),
                    Err(why) => return Response::error(self.refused(why, settings)),
                }
            }
            _ => return Response::error(format!("no menu entry of kind `{}`", item.kind)),
        };
        let cmd = Command::AppendText {
            text: redact_owned(&typed.text),
        };
        let done = self.command(tab, &cmd).await;
        if !done.ok {
            let why = done.reason.unwrap_or_else(|| says.typing_failed.into());
            return Response::error(fill(says.menu_not_typed, &[("why", &why)]));
        }
        let title = fill(says.menu_typed, &[("name", &label)]);
        let mut f = float::new(FloatStatus::Ready, &title, lang);
        f.media = float::media(typed.media.iter().map(|(m, d)| (m.as_str(), d.as_str())));
        self.show(tab, f).await;
        Response::Ack { recheck_ms: None }
    }
}
