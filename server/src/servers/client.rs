//! The bridge's side of an MCP connection: what it tells a server it can do (elicitation and
//! roots; never sampling, since the AI in the chat is no API the bridge can call), and how it
//! answers what a server sends it — list changes reload that server's lists, progress reaches
//! the call it belongs to, a question waits for the user's answer, `roots/list` gets the roots
//! configured for the server.
// Roots and sampling are deprecated in newer MCP revisions, which servers still use.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationCapability, ErrorCode, ErrorData,
    FormElicitationCapability, Implementation, ListRootsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, Prompt, ProtocolVersion, Resource, ResourceTemplate,
    Root, RootsCapabilities, Tool, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, ServiceError};
use rmcp::{ClientHandler, Peer};

use crate::calls::activity::{CallActivity, PendingQuestion, decline};
use crate::servers::icons::IconSource;
use crate::servers::spec::{DEFAULT_ANSWER_TIMEOUT, ServerSpec};
use mcp_bridge_protocol::answers::ElicitationMode;

/// A server's lists, as last fetched.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lists {
    pub tools: Arc<Vec<Tool>>,
    pub prompts: Arc<Vec<Prompt>>,
    pub resources: Arc<Vec<Resource>>,
    pub templates: Arc<Vec<ResourceTemplate>>,
    /// The icon of each tool that has one, by tool name, as a `data:` URL (`icons`).
    pub tool_icons: Arc<HashMap<String, String>>,
}

/// Which list a `list_changed` notification (or a list's `ttlMs`) is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
}

/// The most questions one server may have waiting for the user at once; a question past them is
/// declined at once. A call shows one question at a time, so more could not be answered anyway,
/// and a server asking thousands would otherwise hold each for `answer_timeout`.
pub const MAX_WAITING_QUESTIONS: usize = 4;

/// Where the reload of one list stands. A burst of `list_changed` notifications costs one
/// reload running and at most one more after it, never a fetch per notification.
#[derive(Debug, Default)]
enum Reload {
    #[default]
    Idle,
    Running,
    /// The list changed again while it was being reloaded: reload once more, on this
    /// connection (the latest that announced a change).
    Again(Peer<RoleClient>),
}

/// What one server's connections share with the bridge; it outlives a connection (a restarted
/// server keeps its lists until the new ones arrive).
#[derive(Debug)]
pub(crate) struct Shared {
    name: String,
    lists: RwLock<Lists>,
    /// The fetches of each list started so far, and the latest one stored: an older fetch that
    /// finishes late never overwrites a newer one.
    tickets: [AtomicU64; 3],
    stored: [AtomicU64; 3],
    /// How many times a list changed while the bridge ran (a notification that reloaded it).
    changes: AtomicU64,
    reloads: Mutex<[Reload; 3]>,
    /// The questions waiting for the user, at most [`MAX_WAITING_QUESTIONS`]; whether the last
    /// one asked past them was declined (so that a flood is logged once, not per question).
    questions: AtomicUsize,
    flooded: AtomicBool,
    /// The calls in flight, by the progress token their request carries.
    calls: Mutex<HashMap<ProgressToken, Arc<CallActivity>>>,
    roots: Vec<Root>,
    answer_timeout: Duration,
    /// The revision the user pinned the server to (`ServerSpec`'s `protocol_version`).
    pinned: Option<ProtocolVersion>,
    /// Where its icons may come from, and its own icon (`serverInfo.icons`) as a `data:` URL.
    icons: IconSource,
    server_icon: RwLock<Option<String>>,
    /// Until when each list may be used without listing it again: `None` while the server
    /// gave no `ttlMs` (the list holds until it announces a change).
    expires: Mutex<[Option<tokio::time::Instant>; 3]>,
    /// One refresh of an expired list at a time; readers that waited for it use its list.
    refreshing: [tokio::sync::Mutex<()>; 3],
    refreshes: [AtomicU64; 3],
}

impl Shared {
    pub(crate) fn new(spec: &ServerSpec) -> Self {
        Shared {
            name: spec.name.clone(),
            lists: RwLock::new(Lists::default()),
            tickets: Default::default(),
            stored: Default::default(),
            changes: AtomicU64::new(0),
            reloads: Mutex::default(),
            questions: AtomicUsize::new(0),
            flooded: AtomicBool::new(false),
            calls: Mutex::new(HashMap::new()),
            roots: spec
                .mcp
                .roots
                .iter()
                .map(|root| {
                    let mut out = Root::new(root.uri());
                    out.name = root.name().map(str::to_owned);
                    out
                })
                .collect(),
            answer_timeout: spec.mcp.answer_timeout.unwrap_or(DEFAULT_ANSWER_TIMEOUT),
            pinned: spec.mcp.protocol_version.clone(),
            icons: IconSource::new(spec),
            server_icon: RwLock::new(None),
            expires: Mutex::default(),
            refreshing: Default::default(),
            refreshes: Default::default(),
        }
    }

    /// The server's own icon, as a `data:` URL, when its `serverInfo` declares one that can be
    /// had.
    pub(crate) fn server_icon(&self) -> Option<String> {
        self.server_icon
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Resolve the icon of the server's `serverInfo` (at each connection).
    pub(crate) async fn set_server_icon(&self, info: Option<&Implementation>) {
        let icon = self
            .icons
            .listing()
            .pick(info.and_then(|info| info.icons.as_deref()))
            .await;
        *self
            .server_icon
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = icon;
    }

    /// Whether list `kind` is older than the `ttlMs` it was listed with.
    fn expired(&self, kind: ListKind) -> bool {
        lock(&self.expires)[Self::slot(kind)]
            .is_some_and(|expires| expires <= tokio::time::Instant::now())
    }

    /// List `kind` again from `peer` when it is older than its `ttlMs`. One refresh runs at a
    /// time: a reader that waited for one uses the list it fetched. A failed refresh keeps the
    /// old list (and is logged); the next reader tries again.
    pub(crate) async fn refresh_if_expired(&self, peer: &Peer<RoleClient>, kind: ListKind) {
        if !self.expired(kind) {
            return;
        }
        let slot = Self::slot(kind);
        let before = self.refreshes[slot].load(Ordering::SeqCst);
        let _one = self.refreshing[slot].lock().await;
        if self.refreshes[slot].load(Ordering::SeqCst) != before || !self.expired(kind) {
            return;
        }
        match self.reload(peer, kind).await {
            Ok(()) => {
                tracing::debug!(server = %self.name, list = ?kind, "the list's ttl ran out; listed again")
            }
            Err(err) => {
                tracing::warn!(server = %self.name, error = %err, "listing again after the list's ttl ran out failed; the old list is kept")
            }
        }
        self.refreshes[slot].fetch_add(1, Ordering::SeqCst);
    }

    /// Note when list `kind`, listed now with the smallest `ttlMs` of its pages, expires.
    fn listed(&self, kind: ListKind, ttl_ms: Option<u64>) {
        lock(&self.expires)[Self::slot(kind)] =
            ttl_ms.map(|ms| tokio::time::Instant::now() + Duration::from_millis(ms));
    }

    pub(crate) fn lists(&self) -> Lists {
        self.lists
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// How many list changes the server announced (and the bridge reloaded) so far.
    pub(crate) fn changes(&self) -> u64 {
        self.changes.load(Ordering::SeqCst)
    }

    fn slot(kind: ListKind) -> usize {
        match kind {
            ListKind::Tools => 0,
            ListKind::Prompts => 1,
            ListKind::Resources => 2,
        }
    }

    /// A ticket for a fetch of `kind` about to start.
    pub(crate) fn ticket(&self, kind: ListKind) -> u64 {
        self.tickets[Self::slot(kind)].fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Store a fetched list unless a newer fetch was stored already.
    fn store(&self, kind: ListKind, ticket: u64, update: impl FnOnce(&mut Lists)) {
        let mut lists = self
            .lists
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let stored = &self.stored[Self::slot(kind)];
        if stored.load(Ordering::SeqCst) > ticket {
            return;
        }
        stored.store(ticket, Ordering::SeqCst);
        update(&mut lists);
    }

    /// Store a fetched tool list, without the tools no client should be shown: a name with a
    /// control or invisible character, or one listed before (the first of a name is kept).
    pub(crate) fn set_tools(
        &self,
        ticket: u64,
        tools: Vec<Tool>,
        mut icons: HashMap<String, String>,
    ) {
        let mut seen = std::collections::HashSet::new();
        let tools: Vec<Tool> = tools
            .into_iter()
            .filter(|tool| {
                if let Some(why) = crate::names::tool_name_problem(&tool.name) {
                    tracing::warn!(server = %self.name, tool = %crate::names::escaped(&tool.name), "a tool of the server is not listed: its name {why}");
                    return false;
                }
                if !seen.insert(tool.name.clone()) {
                    tracing::warn!(server = %self.name, tool = %tool.name, "the server lists a tool name twice; only the first is listed");
                    return false;
                }
                true
            })
            .collect();
        icons.retain(|name, _| tools.iter().any(|tool| tool.name == name.as_str()));
        self.store(ListKind::Tools, ticket, |lists| {
            lists.tools = Arc::new(tools);
            lists.tool_icons = Arc::new(icons);
        });
    }

    /// Fetch the list `kind` from `peer` and store it; a server without that capability has
    /// an empty list.
    pub(crate) async fn reload(
        &self,
        peer: &Peer<RoleClient>,
        kind: ListKind,
    ) -> Result<(), ListFailure> {
        let ticket = self.ticket(kind);
        let capabilities = peer.peer_info().map(|info| info.capabilities.clone());
        let offers = |kind: ListKind| {
            capabilities.as_ref().is_some_and(|c| match kind {
                ListKind::Tools => c.tools.is_some(),
                ListKind::Prompts => c.prompts.is_some(),
                ListKind::Resources => c.resources.is_some(),
            })
        };
        let ttl_ms = match kind {
            ListKind::Tools => {
                let (tools, ttl_ms) = if offers(kind) {
                    all_pages(|cursor| async {
                        let page = peer.list_tools(Some(page_params(cursor))).await?;
                        Ok((page.tools, page.next_cursor, page.ttl_ms))
                    })
                    .await
                    .map_err(|err| ListFailure::new("listing its tools", &err))?
                } else {
                    (Vec::new(), None)
                };
                let mut listing = self.icons.listing();
                let mut icons = HashMap::new();
                for tool in &tools {
                    if let Some(icon) = listing.pick(tool.icons.as_deref()).await {
                        icons.insert(tool.name.to_string(), icon);
                    }
                }
                self.set_tools(ticket, tools, icons);
                ttl_ms
            }
            ListKind::Prompts => {
                let (prompts, ttl_ms) = if offers(kind) {
                    all_pages(|cursor| async {
                        let page = peer.list_prompts(Some(page_params(cursor))).await?;
                        Ok((page.prompts, page.next_cursor, page.ttl_ms))
                    })
                    .await
                    .map_err(|err| ListFailure::new("listing its prompts", &err))?
                } else {
                    (Vec::new(), None)
                };
                self.store(kind, ticket, |lists| lists.prompts = Arc::new(prompts));
                ttl_ms
            }
            ListKind::Resources => {
                let (resources, templates, ttl_ms) = if offers(kind) {
                    let (resources, ttl_resources) = all_pages(|cursor| async {
                        let page = peer.list_resources(Some(page_params(cursor))).await?;
                        Ok((page.resources, page.next_cursor, page.ttl_ms))
                    })
                    .await
                    .map_err(|err| ListFailure::new("listing its resources", &err))?;
                    let (templates, ttl_templates) = all_pages(|cursor| async {
                        let page = peer
                            .list_resource_templates(Some(page_params(cursor)))
                            .await?;
                        Ok((page.resource_templates, page.next_cursor, page.ttl_ms))
                    })
                    .await
                    .map_err(|err| ListFailure::new("listing its resource templates", &err))?;
                    (resources, templates, smallest(ttl_resources, ttl_templates))
                } else {
                    (Vec::new(), Vec::new(), None)
                };
                self.store(kind, ticket, |lists| {
                    lists.resources = Arc::new(resources);
                    lists.templates = Arc::new(templates);
                });
                ttl_ms
            }
        };
        self.listed(kind, ttl_ms);
        Ok(())
    }

    /// Follow the progress of a call whose request carries `token`, until the guard drops.
    pub(crate) fn track(
        self: &Arc<Self>,
        token: ProgressToken,
        activity: Arc<CallActivity>,
    ) -> Tracked {
        self.calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(token.clone(), activity);
        Tracked {
            shared: self.clone(),
            token,
        }
    }

    fn in_flight(&self) -> Vec<Arc<CallActivity>> {
        self.calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .values()
            .cloned()
            .collect()
    }

    fn progress(&self, params: ProgressNotificationParam) {
        let activity = self
            .calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(&params.progress_token)
            .cloned();
        if let Some(activity) = activity {
            activity.progress(params.progress, params.total, params.message);
        }
    }

    /// The server's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The roots configured for the server, which `roots/list` answers.
    pub(crate) fn roots(&self) -> &[Root] {
        &self.roots
    }

    /// Ask the user `request`, a question a server sent as a request of its own, through the
    /// calls in flight on this server that a client can see (such a request names no call).
    async fn ask(
        &self,
        request: ElicitRequestParams,
        withdrawn: tokio_util::sync::CancellationToken,
    ) -> ElicitResult {
        let calls: Vec<_> = self
            .in_flight()
            .into_iter()
            .filter(|call| call.visible())
            .collect();
        self.ask_through(calls, request, withdrawn).await
    }

    /// Ask the user `request`, a question in the result of `call`'s own request (a 2026-07-28
    /// server's `InputRequiredResult`), through that call alone.
    pub(crate) async fn ask_for_call(
        &self,
        call: &Arc<CallActivity>,
        request: ElicitRequestParams,
    ) -> ElicitResult {
        let calls = if call.visible() {
            vec![call.clone()]
        } else {
            Vec::new()
        };
        // Nothing withdraws it but dropping the call, which drops this question with it.
        let withdrawn = tokio_util::sync::CancellationToken::new();
        self.ask_through(calls, request, withdrawn).await
    }

    /// Ask the user `request` through `calls`; their answer, or a decline when there is no
    /// call or nobody answers in time.
    async fn ask_through(
        &self,
        calls: Vec<Arc<CallActivity>>,
        request: ElicitRequestParams,
        withdrawn: tokio_util::sync::CancellationToken,
    ) -> ElicitResult {
        if calls.is_empty() {
            tracing::info!(server = %self.name, "a question came with no call in flight that a client can show it for; declined");
            return decline();
        }
        let Some(_waiting) = self.wait_for_answer() else {
            return decline();
        };
        let limit = self.answer_timeout;
        let (mode, message, schema, url) = match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => (
                ElicitationMode::Form,
                message,
                serde_json::to_value(&requested_schema).ok(),
                None,
            ),
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                if let Some(why) = unopenable(&url) {
                    tracing::info!(server = %self.name, "a question's URL {why}; declined");
                    return decline();
                }
                (ElicitationMode::Url, message, None, Some(url))
            }
            _ => {
                tracing::info!(server = %self.name, "a question of an unknown kind; declined");
                return decline();
            }
        };
        let (question, answer) =
            PendingQuestion::new(&self.name, mode, message, schema, url, limit.as_secs_f64());
        for call in &calls {
            call.ask(question.clone());
        }
        // The question leaves the calls however this ends, dropped with its call included.
        let _shown = Shown {
            calls: &calls,
            id: question.asked.id.clone(),
        };
        tracing::info!(server = %self.name, mode = mode.word(), calls = calls.len(), "the server asks the user a question");
        let answered = tokio::select! {
            answered = tokio::time::timeout(limit, answer) => answered,
            // The server gave up its question (its call was cancelled, say).
            _ = withdrawn.cancelled() => Ok(Ok(decline())),
        };
        match answered {
            Ok(Ok(answer)) => answer,
            _ => {
                tracing::info!(server = %self.name, "the question got no answer in time; declined");
                // Nobody may answer it any more.
                question.pending().answer(decline());
                decline()
            }
        }
    }
}

/// A question shown in calls: it is taken from them when this drops.
struct Shown<'a> {
    calls: &'a [Arc<CallActivity>],
    id: String,
}

impl Drop for Shown<'_> {
    fn drop(&mut self) {
        for call in self.calls {
            call.settle(&self.id);
        }
    }
}

impl Shared {
    /// A place among the questions waiting, or `None` (logged) when the server has
    /// [`MAX_WAITING_QUESTIONS`] waiting already.
    fn wait_for_answer(&self) -> Option<Waiting<'_>> {
        let taken = self
            .questions
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |waiting| {
                (waiting < MAX_WAITING_QUESTIONS).then_some(waiting + 1)
            });
        if taken.is_ok() {
            self.flooded.store(false, Ordering::SeqCst);
            return Some(Waiting(self));
        }
        if !self.flooded.swap(true, Ordering::SeqCst) {
            tracing::warn!(server = %self.name, waiting = MAX_WAITING_QUESTIONS, "the server asks more questions than may wait for the user; the ones past them are declined");
        }
        None
    }
}

/// The longest URL a question may ask the user to open.
pub(crate) const MAX_QUESTION_URL: usize = 8 * 1024;

/// Why a browser should not be asked to open a question's `url`, if it should not: only an
/// absolute `http(s)` URL with a host, of at most [`MAX_QUESTION_URL`] bytes and with nothing a
/// browser reads another way (spaces, control characters, backslashes), is shown. The
/// extension checks the same before it offers a link.
fn unopenable(url: &str) -> Option<String> {
    if url.len() > MAX_QUESTION_URL {
        return Some(format!("is longer than {MAX_QUESTION_URL} bytes"));
    }
    if url
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
    {
        return Some("holds a space, a control character or a backslash".to_owned());
    }
    match url::Url::parse(url) {
        Ok(parsed)
            if matches!(parsed.scheme(), "http" | "https")
                && parsed.host_str().is_some_and(|host| !host.is_empty()) =>
        {
            None
        }
        _ => Some("is no absolute http or https URL".to_owned()),
    }
}

/// A question's place among those waiting; freed when it drops.
struct Waiting<'a>(&'a Shared);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.questions.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A call followed for progress and questions; dropping it stops that.
pub(crate) struct Tracked {
    shared: Arc<Shared>,
    token: ProgressToken,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.shared
            .calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&self.token);
    }
}

/// The handler of one connection (one generation of one server).
#[derive(Debug, Clone)]
pub(crate) struct BridgeClient {
    shared: Arc<Shared>,
}

impl BridgeClient {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        BridgeClient { shared }
    }

    /// Reload list `kind` after the server announced a change: at once when no reload of it
    /// runs, else once more after the running one, however many changes came meanwhile.
    pub(crate) fn reload_on_change(&self, peer: Peer<RoleClient>, kind: ListKind) {
        let slot = Shared::slot(kind);
        {
            let mut reloads = lock(&self.shared.reloads);
            match reloads[slot] {
                Reload::Idle => reloads[slot] = Reload::Running,
                _ => {
                    reloads[slot] = Reload::Again(peer);
                    return;
                }
            }
        }
        let shared = self.shared.clone();
        tokio::spawn(async move {
            let mut peer = peer;
            loop {
                match shared.reload(&peer, kind).await {
                    Ok(()) => {
                        shared.changes.fetch_add(1, Ordering::SeqCst);
                        tracing::info!(server = %shared.name, list = ?kind, "the server's list changed; reloaded");
                    }
                    Err(err) => {
                        tracing::warn!(server = %shared.name, error = %err, "reloading a changed list failed")
                    }
                }
                let mut reloads = lock(&shared.reloads);
                match std::mem::replace(&mut reloads[slot], Reload::Running) {
                    Reload::Again(latest) => peer = latest,
                    _ => {
                        reloads[slot] = Reload::Idle;
                        return;
                    }
                }
            }
        });
    }
}

/// The request for the page after `cursor` (the first page for `None`).
fn page_params(cursor: Option<String>) -> PaginatedRequestParams {
    PaginatedRequestParams::default().with_cursor(cursor)
}

/// The smaller of two `ttlMs`, either of which may be absent.
fn smallest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (one, other) => one.or(other),
    }
}

/// Every page of a list, page by page as `page(cursor)` answers `(items, next cursor, ttlMs)`,
/// and the smallest `ttlMs` of its pages (rmcp's `list_all_*` drop it).
async fn all_pages<T, F, Fut>(mut page: F) -> Result<(Vec<T>, Option<u64>), ServiceError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, Option<String>, Option<u64>), ServiceError>>,
{
    let mut items = Vec::new();
    let mut ttl_ms = None;
    let mut cursor = None;
    loop {
        let (more, next, ttl) = page(cursor).await?;
        items.extend(more);
        ttl_ms = smallest(ttl_ms, ttl);
        cursor = next;
        if cursor.is_none() {
            return Ok((items, ttl_ms));
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Why a list could not be read: the message, and the server's sign-in challenge when it
/// answered that the request needs a (wider) sign-in.
#[derive(Debug)]
pub(crate) struct ListFailure {
    pub message: String,
    pub challenge: Option<String>,
}

impl ListFailure {
    fn new(what: &str, err: &ServiceError) -> Self {
        ListFailure {
            message: format!("{what} failed: {err}"),
            challenge: super::challenge::of(err),
        }
    }
}

impl std::fmt::Display for ListFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What the bridge tells every server it can do.
pub(crate) fn capabilities() -> ClientCapabilities {
    let mut capabilities = ClientCapabilities::default();
    let mut elicitation = ElicitationCapability::default();
    elicitation.form = Some(FormElicitationCapability::default());
    elicitation.url = Some(UrlElicitationCapability::default());
    capabilities.elicitation = Some(elicitation);
    capabilities.roots = Some(RootsCapabilities::default());
    capabilities
}

impl ClientHandler for BridgeClient {
    /// The `initialize` the bridge sends names the newest revision that still has one
    /// (rmcp's default, its newest revision, replaced `initialize` with per-request `_meta`,
    /// so a client must not name it in an `initialize`).
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            capabilities(),
            Implementation::new("mcp-bridge", crate::VERSION),
        )
        .with_protocol_version(
            self.shared
                .pinned
                .clone()
                .filter(ProtocolVersion::has_initialize)
                .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE),
        )
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        tracing::info!(server = %self.shared.name, "the server asked for sampling; declined");
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "MCP Bridge does not support sampling (sampling/createMessage): the AI it serves runs in a \
             web chat, which the bridge cannot send requests to",
            None,
        ))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(self.shared.roots.clone()))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(self.shared.ask(request, context.ct).await)
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.shared.progress(params);
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        self.reload_on_change(context.peer, ListKind::Tools);
    }

    async fn on_prompt_list_changed(&self, context: NotificationContext<RoleClient>) {
        self.reload_on_change(context.peer, ListKind::Prompts);
    }

    async fn on_resource_list_changed(&self, context: NotificationContext<RoleClient>) {
        self.reload_on_change(context.peer, ListKind::Resources);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_fetch_never_overwrites_a_newer_one() {
        let shared = Shared::new(&ServerSpec::demo(
            std::path::Path::new("x"),
            std::path::Path::new("y"),
        ));
        let old = shared.ticket(ListKind::Tools);
        let new = shared.ticket(ListKind::Tools);
        shared.set_tools(
            new,
            vec![Tool::new("new", "", rmcp::model::JsonObject::new())],
            HashMap::new(),
        );
        shared.set_tools(
            old,
            vec![Tool::new("old", "", rmcp::model::JsonObject::new())],
            HashMap::new(),
        );
        assert_eq!(shared.lists().tools[0].name, "new");
    }

    #[test]
    fn only_an_absolute_http_url_may_be_opened() {
        for good in ["https://example.com/a?b=1#c", "http://127.0.0.1:8080/cb"] {
            assert_eq!(unopenable(good), None, "{good}");
        }
        let long = format!("https://example.com/{}", "a".repeat(MAX_QUESTION_URL));
        for bad in [
            "javascript:alert(1)",
            "data:text/html,x",
            "file:///etc/passwd",
            "/relative",
            "//example.com/x",
            "https://exa mple.com",
            "https:\\\\example.com",
            "ftp://example.com",
            long.as_str(),
        ] {
            assert!(unopenable(bad).is_some(), "{bad:.40}");
        }
    }

    #[test]
    fn tools_with_odd_or_repeated_names_are_not_stored() {
        let shared = Shared::new(&ServerSpec::demo(
            std::path::Path::new("x"),
            std::path::Path::new("y"),
        ));
        let tool = |name: &str| Tool::new(name.to_owned(), "", rmcp::model::JsonObject::new());
        let ticket = shared.ticket(ListKind::Tools);
        shared.set_tools(
            ticket,
            vec![tool("a"), tool("b\n"), tool("a"), tool("c")],
            HashMap::new(),
        );
        let names: Vec<_> = shared
            .lists()
            .tools
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names, ["a", "c"]);
    }

    #[test]
    fn sampling_is_not_advertised_but_elicitation_and_roots_are() {
        let value = serde_json::to_value(capabilities()).unwrap();
        assert!(value.get("sampling").is_none(), "{value}");
        assert!(value["elicitation"]["form"].is_object(), "{value}");
        assert!(value["roots"].is_object(), "{value}");
    }
}
