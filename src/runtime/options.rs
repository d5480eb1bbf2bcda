//! The options page's requests, answered in the background: settings, connection test,
//! call history, tools and policies, the error log, custom sites. It sits beside the chat
//! loop over the same [`Store`]; every verdict comes from the pure modules
//! `options_views`, `error_log` and `custom_sites`.

use super::bridge_client::{BridgeApiClient, ServerCall};
use super::host::Host;
use super::site_list;
use super::store::Store;
use crate::domain::call_log;
use crate::domain::custom_sites;
use crate::domain::error_log::{ErrorLog, Filter};
use crate::domain::i18n::fill;
use crate::domain::messages::{PageRequest, Response};
use crate::domain::options_views::answers::{
    Cleared, Download, ExemptSet, PolicySet, ServerChecked, SiteChecked, SiteRemoved, SiteRow,
    SiteRows, SiteSaved, SiteState, SitesImported, TrustedSet, UnmaskedSet,
};
use crate::domain::options_views::{self as views, Lang, Problem};
use crate::domain::outcome::CallOutcome;
use crate::domain::report::text::Address;
use crate::domain::servers;
use crate::domain::settings::{Settings, ToolPolicy};
use crate::domain::sites::SiteConfig;
use crate::domain::status;
use serde::Serialize;
use serde_json::Value;
use std::rc::Rc;

/// A typed answer as the JSON the page reads.
fn data<T: Serialize>(answer: T) -> Value {
    serde_json::to_value(answer).unwrap_or(Value::Null)
}

/// The options page's backend in one worker.
pub struct OptionsBackend<H: Host> {
    host: H,
    store: Rc<Store<H>>,
}

fn storage_problem(e: String) -> Problem {
    Problem::new("storage", None, e)
}

impl<H: Host> OptionsBackend<H> {
    pub fn new(host: H, store: Rc<Store<H>>) -> Self {
        OptionsBackend { host, store }
    }

    /// The options page speaks the interface language, and so do the core's messages to it.
    fn lang(&self) -> Lang {
        Lang::of_ui(&self.host.ui_language())
    }

    fn client<'a>(&'a self, base: &str, token: &str) -> BridgeApiClient<'a, H> {
        BridgeApiClient::new(&self.host, base, token)
    }

    async fn load_settings(&self) -> Result<Settings, Problem> {
        self.store.settings().await.map_err(storage_problem)
    }

    /// The stored address and token, checked before the bridge is called.
    async fn connection(&self) -> Result<(String, String), Problem> {
        let s = self.load_settings().await?;
        views::check_connection_input(self.lang(), &s.bridge_url, &s.token)
    }

    pub async fn handle(&self, req: PageRequest) -> Response {
        // To name a refused field by its label once the request is taken apart.
        let labels = req.field_labels();
        let result = match req {
            PageRequest::GetStatus => Ok(self.status().await),
            PageRequest::GetSettings => self
                .load_settings()
                .await
                .map(|s| data(views::settings_answer(&s, self.lang()))),
            PageRequest::SaveSettings { settings } => self.save_settings(settings).await,
            PageRequest::TestConnection { bridge_url, token } => {
                self.test_connection(&bridge_url, &token).await
            }
            PageRequest::SaveConnection { bridge_url, token } => {
                self.save_connection(&bridge_url, &token).await
            }
            PageRequest::ResetHistory {
                server_name,
                tool_name,
            } => self.reset_history(server_name, tool_name).await,
            PageRequest::GetHistory => self.history().await,
            PageRequest::GetCallLog => {
                let log = self.store.call_log().await;
                Ok(data(call_log::view(&log, self.lang())))
            }
            PageRequest::GetTools => self.tools().await.map(data),
            PageRequest::SetToolPolicy { key, policy, site } => {
                self.set_policy(key, policy, site.as_deref()).await
            }
            PageRequest::SetToolUnmasked { key, unmasked } => {
                self.set_unmasked(key, unmasked).await
            }
            PageRequest::SetToolExempt { key, exempt } => self.set_exempt(key, exempt).await,
            PageRequest::SetServerTrusted { server, trusted } => {
                self.set_trusted(server, trusted).await
            }
            PageRequest::GetErrorLog { filter } => self.error_log(&filter).await,
            PageRequest::ExportErrorLog { filter } => self.export_log(&filter).await,
            PageRequest::ClearErrorLog => self.clear_log().await,
            PageRequest::CheckCustomSite { json } => {
                self.check_site(&json).await.map(|(site, replaces)| {
                    let origins = custom_sites::origins(&site);
                    data(SiteChecked {
                        site,
                        origins,
                        replaces,
                    })
                })
            }
            PageRequest::SaveCustomSite { json } => self.save_site(&json).await,
            PageRequest::RemoveCustomSite { id } => self.remove_site(&id).await,
            PageRequest::ListSites => self.list_sites().await,
            PageRequest::EnableSite { url } => self.enable_site(&url).await,
            PageRequest::SiteState { url } => Ok(data(self.site_state(&url).await)),
            PageRequest::ExportCustomSites => {
                let sites = self.store.custom_sites().await;
                Ok(data(Download {
                    filename: "mcp-bridge-sites.json".into(),
                    json: custom_sites::export(&sites),
                }))
            }
            PageRequest::ImportCustomSites { json, check } => self.import_sites(&json, check).await,
            PageRequest::GetSiteList => Ok(site_list::view(&self.store.site_list().await)),
            PageRequest::SubscribeSiteList { url } => self.subscribe(&url).await,
            PageRequest::CheckSiteList => self.check_list().await,
            PageRequest::UnsubscribeSiteList => {
                let none = crate::domain::site_list::Subscription::default();
                self.store
                    .save_site_list(&none)
                    .await
                    .map(|()| site_list::view(&none))
                    .map_err(storage_problem)
            }
            PageRequest::CheckServer { name, json } => self.check_server(&name, &json),
            PageRequest::ServerTemplate { kind } => self.server_template(&kind).await,
            r @ (PageRequest::ListServers
            | PageRequest::RevealServer { .. }
            | PageRequest::SaveServer { .. }
            | PageRequest::RestartServer { .. }
            | PageRequest::SetServerEnabled { .. }
            | PageRequest::RemoveServer { .. }
            | PageRequest::SignInServer { .. }
            | PageRequest::SignOutServer { .. }
            | PageRequest::ImportServers { .. }) => self.servers(r).await,
        };
        match result {
            Ok(data) => Response::Data { data },
            Err(p) => {
                // `definition.env.KEY` or `hosts[0]` is shown under its form field's label.
                let root = p
                    .field
                    .as_deref()
                    .map(|f| f.split(['.', '[']).next().unwrap_or(f));
                let label = root.and_then(|root| {
                    labels
                        .iter()
                        .find(|(r, _)| *r == root)
                        .map(|(_, label)| *label)
                });
                Response::Error {
                    message: p.sentence(self.lang(), label),
                    field: p.field,
                }
            }
        }
    }

    /// [`views::authed_verdict`] with what `/health` says beside the answer: asked again after
    /// no answer at all (the browser may have hidden a refusal), otherwise what the client's
    /// proof learnt.
    async fn authed(
        &self,
        base: &str,
        client: &BridgeApiClient<'_, H>,
        answer: Result<Value, CallOutcome>,
    ) -> Result<Value, Problem> {
        let version = match &answer {
            Ok(_) => None,
            Err(o) if o.status().is_none() => status::of_health(&client.health().await).ok(),
            Err(_) => {
                // Proved once per client: this asks only when nothing was sent with a token.
                let _ = client.check().await;
                client.version()
            }
        };
        let token_empty = !client.holds_token();
        views::authed_verdict(self.lang(), base, &answer, version.as_deref(), token_empty)
    }

    /// The connection's status for the options header and the popup, pairing through the
    /// native host first where that could help.
    async fn status(&self) -> Value {
        let (status, settings, note) = super::pairing::status_paired(&self.host, &self.store).await;
        let address = Address {
            url: settings.base_url(),
        }
        .host();
        let mut view = status::view(self.lang(), &status, address, &note);
        // Said on the options page itself: where to put the token is the field below.
        if let Some(detail) = views::header_detail(self.lang(), &status, &note, settings.base_url())
        {
            view.detail = Some(detail);
        }
        data(view)
    }

    /// Sets (or, with `None`, clears) one tool's policy and answers the tool's row as it is
    /// now, read again from the bridge, so the page redraws it in place.
    async fn set_policy(
        &self,
        key: String,
        policy: Option<ToolPolicy>,
        site: Option<&str>,
    ) -> Result<Value, Problem> {
        let lang = self.lang();
        let current = self.load_settings().await?;
        let updated = views::set_policy(&current, &key, policy, site, lang)?;
        self.store
            .save_settings(&updated)
            .await
            .map_err(storage_problem)?;
        let (server, name) = key.split_once(':').unwrap_or_default();
        let (base, token) = self.connection().await?;
        let client = self.client(&base, &token);
        let answer = client.service_tools(server).await;
        let tool = self
            .authed(&base, &client, answer)
            .await
            .ok()
            .and_then(|body| {
                let tools = crate::domain::bridge_api::tools(&body)?;
                // The `read_resource` row is the pseudo-tool's unless the server has its own.
                let tool = tools.into_iter().find(|t| t.name == name).or_else(|| {
                    (name == crate::domain::read_resource::READ_RESOURCE)
                        .then(|| views::read_resource_tool(lang))
                })?;
                Some(views::tool_view(server, &tool, &updated, lang))
            });
        Ok(data(PolicySet { key, tool }))
    }

    async fn set_unmasked(&self, key: String, unmasked: bool) -> Result<Value, Problem> {
        let current = self.load_settings().await?;
        let updated = views::set_unmasked(&current, &key, unmasked, self.lang())?;
        self.store
            .save_settings(&updated)
            .await
            .map_err(storage_problem)?;
        Ok(data(UnmaskedSet { key, unmasked }))
    }

    async fn set_exempt(&self, key: String, exempt: bool) -> Result<Value, Problem> {
        let current = self.load_settings().await?;
        let updated = views::set_exempt(&current, &key, exempt, self.lang())?;
        self.store
            .save_settings(&updated)
            .await
            .map_err(storage_problem)?;
        Ok(data(ExemptSet { key, exempt }))
    }

    async fn set_trusted(&self, server: String, trusted: bool) -> Result<Value, Problem> {
        let current = self.load_settings().await?;
        let updated = views::set_trusted(&current, &server, trusted);
        self.store
            .save_settings(&updated)
            .await
            .map_err(storage_problem)?;
        Ok(data(TrustedSet { server, trusted }))
    }

    async fn save_settings(&self, submitted: Value) -> Result<Value, Problem> {
        let current = self.load_settings().await?;
        let merged = views::merge_settings(&current, &submitted, self.lang())?;
        self.store
            .save_settings(&merged)
            .await
            .map_err(storage_problem)?;
        Ok(data(merged))
    }

    async fn test_connection(&self, bridge_url: &str, token: &str) -> Result<Value, Problem> {
        let lang = self.lang();
        let (base, token) = views::check_connection_input(lang, bridge_url, token)?;
        let client = self.client(&base, &token);
        let version = views::health_verdict(lang, &base, &client.health().await)?;
        let body = self.authed(&base, &client, client.services().await).await?;
        let services = views::services(&body, self.lang())?;
        Ok(data(views::connection_report(
            lang, &version, &base, services,
        )))
    }

    /// Tests first, then saves: a failed test still saves, and the answer says what it found.
    async fn save_connection(&self, bridge_url: &str, token: &str) -> Result<Value, Problem> {
        let test = self.test_connection(bridge_url, token).await;
        /// The two settings a connection is.
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Connection<'a> {
            bridge_url: &'a str,
            token: &'a str,
        }
        let submitted = serde_json::to_value(Connection { bridge_url, token }).unwrap_or_default();
        let settings = self.save_settings(submitted).await?;
        let test = test.map(|t| t["summary"].as_str().unwrap_or_default().to_string());
        Ok(data(views::saved_connection(self.lang(), settings, test)))
    }

    async fn history(&self) -> Result<Value, Problem> {
        let (base, token) = self.connection().await?;
        let client = self.client(&base, &token);
        let body = self.authed(&base, &client, client.history().await).await?;
        Ok(data(views::history_view(&body)))
    }

    async fn reset_history(
        &self,
        server: Option<String>,
        tool: Option<String>,
    ) -> Result<Value, Problem> {
        let (base, token) = self.connection().await?;
        let client = self.client(&base, &token);
        let server = server.filter(|s| !s.is_empty());
        let tool = tool.filter(|t| !t.is_empty());
        let answer = client
            .reset_history(server.as_deref(), tool.as_deref())
            .await;
        let done = self.authed(&base, &client, answer).await?;
        if server.is_none() && tool.is_none() {
            // The whole history: the calls that left go with the failure counters.
            self.store.clear_call_log().await.map_err(storage_problem)?;
        }
        // Show the counters as they are now, so the page never shows a stale refusal.
        let after = client.history().await.ok().map(|b| views::history_view(&b));
        Ok(data(views::reset_view(&done, self.lang(), after)))
    }

    async fn tools(&self) -> Result<views::ToolsAnswer, Problem> {
        let (base, token) = self.connection().await?;
        let client = self.client(&base, &token);
        let settings = self.load_settings().await?;
        let body = self.authed(&base, &client, client.services().await).await?;
        let services = views::services(&body, self.lang())?;
        let mut out = Vec::new();
        for svc in &services {
            let answer = client.service_tools(&svc.name).await;
            let verdict = self.authed(&base, &client, answer).await;
            out.push(views::service_tools(svc, verdict, &settings, self.lang()));
        }
        Ok(views::ToolsAnswer { services: out })
    }

    async fn error_log(&self, filter: &Filter) -> Result<Value, Problem> {
        ErrorLog::check_filter(filter).map_err(|e| Problem::invalid(e, self.lang()))?;
        Ok(data(self.store.error_log().await.view(filter, self.lang())))
    }

    async fn export_log(&self, filter: &Filter) -> Result<Value, Problem> {
        ErrorLog::check_filter(filter).map_err(|e| Problem::invalid(e, self.lang()))?;
        let log = self.store.error_log().await;
        let (filename, text) = log.export(filter, self.host.now_ms());
        Ok(data(Download {
            filename,
            json: text,
        }))
    }

    async fn clear_log(&self) -> Result<Value, Problem> {
        let mut log = self.store.error_log().await;
        let cleared = log.len();
        log.clear();
        self.store
            .save_error_log(&log)
            .await
            .map_err(storage_problem)?;
        Ok(data(Cleared { cleared }))
    }

    async fn check_site(&self, json_text: &str) -> Result<(SiteConfig, bool), Problem> {
        let builtin = self.store.builtin_sites().await;
        self.store
            .custom_sites()
            .await
            .check(json_text, &builtin)
            .map_err(|e| Problem::invalid(e, self.lang()))
    }

    async fn save_site(&self, json_text: &str) -> Result<Value, Problem> {
        let (cfg, replaces) = self.check_site(json_text).await?;
        let origins = self.register(&cfg).await?;
        let mut sites = self.store.custom_sites().await;
        sites.upsert(cfg.clone());
        self.store
            .save_custom_sites(&sites)
            .await
            .map_err(storage_problem)?;
        Ok(data(SiteSaved {
            site: cfg,
            origins,
            replaced: replaces,
            already: false,
        }))
    }

    /// Registers a checked site's content script once its origins are granted; an override
    /// of a shipped site needs neither (the extension runs there already). Answers the
    /// origins the site runs on.
    async fn register(&self, cfg: &SiteConfig) -> Result<Vec<String>, Problem> {
        let origins = custom_sites::origins(cfg);
        if custom_sites::is_override(cfg, &self.store.builtin_sites().await) {
            return Ok(origins);
        }
        if !self.host.origins_granted(&origins).await {
            let origins = origins.join(", ");
            let message = fill(
                self.lang().says().site_not_granted,
                &[("origins", &origins)],
            );
            return Err(Problem::new("permission", Some("hosts"), message));
        }
        let id = custom_sites::script_id(&cfg.id);
        self.host.unregister_content_script(&id).await;
        self.host
            .register_content_script(&id, &origins)
            .await
            .map_err(|e| Problem::new("scripting", None, e))?;
        Ok(origins)
    }

    /// Turns MCP Bridge on for the page at `url` with no selectors. A host the extension
    /// already runs on (shipped, or the user's) is answered with its config, unchanged; a
    /// host only the subscribed list knows gets its script, and the list's config applies.
    /// Whether the page at `url` runs MCP Bridge already, found as `enable_site` finds it,
    /// without changing anything.
    async fn site_state(&self, url: &str) -> SiteState {
        let host = crate::domain::sites::host_of(url);
        let custom = self.store.custom_sites().await;
        let builtin = self.store.builtin_sites().await;
        let runs = crate::domain::sites::for_host(&custom.0, &host)
            .or_else(|| crate::domain::sites::for_host(&builtin, &host));
        let site = match runs {
            Some(_) => self.store.site_for_host(&host).await,
            None => None,
        };
        SiteState {
            on: site.is_some(),
            name: site.map(|s| s.name),
            can_enable: runs.is_none() && custom_sites::for_address(url).is_some(),
        }
    }

    async fn enable_site(&self, url: &str) -> Result<Value, Problem> {
        let host = crate::domain::sites::host_of(url);
        let custom = self.store.custom_sites().await;
        let builtin = self.store.builtin_sites().await;
        let runs = crate::domain::sites::for_host(&custom.0, &host)
            .or_else(|| crate::domain::sites::for_host(&builtin, &host));
        if runs.is_some()
            && let Some(cfg) = self.store.site_for_host(&host).await
        {
            let origins = custom_sites::origins(&cfg);
            return Ok(data(SiteSaved {
                site: cfg,
                origins,
                replaced: false,
                already: true,
            }));
        }
        let Some(cfg) = custom_sites::for_address(url) else {
            let message = fill(self.lang().says().site_no_address, &[("url", url)]);
            return Err(Problem::new("invalid", Some("url"), message));
        };
        let (cfg, _) = self
            .store
            .custom_sites()
            .await
            .check_config(cfg, &self.store.builtin_sites().await)
            .map_err(|e| Problem::invalid(e, self.lang()))?;
        let origins = self.register(&cfg).await?;
        let mut sites = self.store.custom_sites().await;
        sites.upsert(cfg.clone());
        self.store
            .save_custom_sites(&sites)
            .await
            .map_err(storage_problem)?;
        Ok(data(SiteSaved {
            site: cfg,
            origins,
            replaced: false,
            already: false,
        }))
    }

    /// An exported file of custom sites: checked as a whole (`check`: answers the sites and
    /// the origins to grant), or added as a whole.
    async fn import_sites(&self, text: &str, check: bool) -> Result<Value, Problem> {
        let builtin = self.store.builtin_sites().await;
        let mut sites = self.store.custom_sites().await;
        let found = custom_sites::check_import(&sites, text, &builtin)
            .map_err(|e| Problem::invalid(e, self.lang()))?;
        let origins: Vec<String> = found
            .iter()
            .filter(|c| !custom_sites::is_override(c, &builtin))
            .flat_map(custom_sites::origins)
            .collect();
        let ids: Vec<String> = found.iter().map(|c| c.id.clone()).collect();
        if check {
            return Ok(data(SitesImported {
                sites: ids,
                origins,
            }));
        }
        if !self.host.origins_granted(&origins).await {
            let origins = origins.join(", ");
            let message = fill(
                self.lang().says().site_not_granted,
                &[("origins", &origins)],
            );
            return Err(Problem::new("permission", Some("hosts"), message));
        }
        for cfg in &found {
            self.register(cfg).await?;
        }
        for cfg in found.iter().cloned() {
            sites.upsert(cfg);
        }
        self.store
            .save_custom_sites(&sites)
            .await
            .map_err(storage_problem)?;
        Ok(data(SitesImported {
            sites: ids,
            origins,
        }))
    }

    async fn subscribe(&self, url: &str) -> Result<Value, Problem> {
        let url = site_list::check_url(self.lang(), url)
            .map_err(|m| Problem::new("invalid", Some("url"), m))?;
        let mut list = self.store.site_list().await;
        if list.url != url {
            // Another list: its versions are its own.
            list = crate::domain::site_list::Subscription {
                url,
                ..Default::default()
            };
            self.store
                .save_site_list(&list)
                .await
                .map_err(storage_problem)?;
        }
        self.check_list().await
    }

    async fn check_list(&self) -> Result<Value, Problem> {
        let (list, _) = site_list::check(&self.host, &self.store, self.lang())
            .await
            .map_err(|m| Problem::new("site-list", None, m))?;
        Ok(site_list::view(&list))
    }

    async fn remove_site(&self, id: &str) -> Result<Value, Problem> {
        let mut sites = self.store.custom_sites().await;
        let origins = sites.get(id).map(custom_sites::origins).unwrap_or_default();
        if !sites.remove(id) {
            let message = fill(self.lang().says().no_custom_site, &[("id", id)]);
            return Err(Problem::new("invalid", Some("id"), message));
        }
        self.host
            .unregister_content_script(&custom_sites::script_id(id))
            .await;
        self.store
            .save_custom_sites(&sites)
            .await
            .map_err(storage_problem)?;
        Ok(data(SiteRemoved {
            removed: id.to_string(),
            origins,
        }))
    }

    async fn list_sites(&self) -> Result<Value, Problem> {
        let settings = self.load_settings().await?;
        let custom = self.store.custom_sites().await;
        let builtin = self.store.builtin_sites().await;
        let overridden: Vec<String> = builtin.iter().map(|b| b.id.clone()).collect();
        let mut rows = Vec::new();
        let all = builtin
            .into_iter()
            .map(|c| (c, true))
            .chain(custom.0.into_iter().map(|c| (c, false)));
        for (cfg, builtin) in all {
            let s = settings.site(&cfg.id);
            let json = (!builtin).then(|| serde_json::to_string_pretty(&cfg).unwrap_or_default());
            rows.push(SiteRow {
                overrides: !builtin && overridden.contains(&cfg.id),
                id: cfg.id,
                name: cfg.name,
                hosts: cfg.hosts,
                builtin,
                enabled: !s.disabled,
                auto_insert: s.auto_insert_instructions,
                json,
            });
        }
        Ok(data(SiteRows { sites: rows }))
    }

    fn check_server(&self, name: &str, text: &str) -> Result<Value, Problem> {
        servers::check_name(name)
            .and_then(|()| servers::check_definition(text))
            .map(|definition| {
                data(ServerChecked {
                    name: name.to_string(),
                    definition,
                })
            })
            .map_err(|e| Problem::invalid(e, self.lang()))
    }

    /// A template for the editor, saying whether saving it sets the demo server aside (the
    /// list cannot be read: nothing is said about the demo).
    async fn server_template(&self, kind: &str) -> Result<Value, Problem> {
        let lang = self.lang();
        let first = match self.servers(PageRequest::ListServers).await {
            Ok(list) => servers::first_server(&list),
            Err(_) => servers::FirstServer::No,
        };
        servers::template(kind, first, lang)
            .map(data)
            .ok_or_else(|| Problem::new("invalid", Some("kind"), kind.to_string()))
    }

    /// The requests about the bridge's MCP servers: each is one route of the bridge, whose
    /// refusals [`servers::refusal`] puts into words before the general verdict.
    async fn servers(&self, req: PageRequest) -> Result<Value, Problem> {
        let (base, token) = self.connection().await?;
        let client = self.client(&base, &token);
        let (mut list, mut reveal, mut saving_first) = (false, false, false);
        let call = match &req {
            PageRequest::ListServers => {
                list = true;
                ServerCall::List { reveal: None }
            }
            PageRequest::RevealServer { name } => {
                reveal = true;
                ServerCall::List { reveal: Some(name) }
            }
            PageRequest::SaveServer {
                name,
                json,
                keep_demo,
            } => {
                let entry = self.check_server(name, json)?["definition"].take();
                // Whether the demo server is the only one, for the message after the save.
                let before = client.manage(ServerCall::List { reveal: None }).await;
                let first = before.map_or(servers::FirstServer::No, |body| {
                    servers::first_server(&body)
                });
                saving_first = first != servers::FirstServer::No;
                let keep = *keep_demo && first == servers::FirstServer::DemoKeepable;
                ServerCall::Put { name, entry, keep }
            }
            PageRequest::RestartServer { name } => ServerCall::Restart { name },
            PageRequest::SetServerEnabled { name, enabled } => {
                ServerCall::Enable { name, on: *enabled }
            }
            PageRequest::RemoveServer { name } => ServerCall::Delete { name },
            PageRequest::SignInServer { name } => ServerCall::SignIn { name },
            PageRequest::SignOutServer { name } => ServerCall::SignOut { name },
            PageRequest::ImportServers { names } => ServerCall::Import {
                names: names.as_deref(),
            },
            // `handle` sends only the requests above here.
            _ => return Ok(Value::Null),
        };
        let name = call.server();
        let answer = client.manage(call).await;
        let lang = self.lang();
        if let Err(refused) = &answer
            && let Some(p) = servers::refusal(lang, name, refused)
        {
            return Err(p);
        }
        let body = self.authed(&base, &client, answer).await?;
        Ok(if list {
            data(servers::list_view(&body, lang))
        } else if reveal {
            data(servers::revealed(&body, name))
        } else if matches!(req, PageRequest::SignInServer { .. }) {
            data(servers::sign_in_started(&body, name, lang))
        } else if matches!(req, PageRequest::ImportServers { .. }) {
            servers::import_view(body, lang)
        } else if matches!(req, PageRequest::SaveServer { .. }) {
            let created = body["created"].as_bool().unwrap_or(false);
            let kept = body["kept"].as_str().map(str::to_string);
            let mut body = body;
            let said = servers::saved_message(name, created, saving_first, kept.as_deref(), lang);
            body["message"] = Value::from(said);
            body
        } else {
            body
        })
    }
}
