//! The in-memory host behind the seam, and a `World` that drives one background worker
//! with it: storage that survives a worker restart, a clock the test moves, chat tabs that
//! record what the core told them, and a scripted bridge whose answers can be held back.

use futures::channel::oneshot;
use futures::executor::{LocalPool, LocalSpawner};
use futures::task::LocalSpawnExt;
use mcp_bridge_core::domain::messages::{Command, CommandResult, Origin, Response};
use mcp_bridge_core::runtime::dispatch::{Background, Pages};
use mcp_bridge_core::runtime::host::{
    Area, Host, HttpFailure, HttpRequest, HttpResponse, Level, Method,
};
use serde_json::{Value, json};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::future::Future;
use std::rc::Rc;

/// What a scripted bridge does with one request.
pub enum Answer {
    Now(Result<HttpResponse, HttpFailure>),
    /// Parked until the test answers it with [`World::release`].
    Hold,
}

type Script = Box<dyn FnMut(&HttpRequest) -> Answer>;

/// How the scripted bridge answers a challenge (`/health?challenge=…`): scripts see a plain
/// `/health`, and the world adds what [`Prover`] says to their answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Prover {
    /// A bridge holding whatever token the extension's settings hold (the usual case; with
    /// none, a `--no-auth` bridge).
    Settings,
    /// A bridge holding this token.
    Token(String),
    /// A `--no-auth` bridge: `"auth": "none"`, no proof.
    NoAuth,
    /// Something that looks like the bridge but holds no token: no proof.
    Stranger,
}
/// Where the answer of a message sent with [`World::send_waiting`] lands.
pub type Answered = Rc<RefCell<Option<Response>>>;

/// Where a held request's answer goes.
type Reply = oneshot::Sender<Result<HttpResponse, HttpFailure>>;

pub struct Inner {
    storage: RefCell<BTreeMap<(Area, String), Value>>,
    /// Every storage access, in order: written or read, the area and the key.
    pub storage_ops: RefCell<Vec<(bool, Area, String)>>,
    now: Cell<f64>,
    ui_language: RefCell<String>,
    files: RefCell<BTreeMap<String, String>>,
    /// Every command sent to a tab, in order.
    pub commands: RefCell<Vec<(i32, Command)>>,
    /// Tabs whose content script fails to type (the reason it gives).
    pub typing_fails: RefCell<BTreeMap<i32, String>>,
    /// Tabs whose page does not take an attached file.
    pub files_refused: RefCell<std::collections::BTreeSet<i32>>,
    /// Every HTTP request, in order.
    pub requests: RefCell<Vec<HttpRequest>>,
    script: RefCell<Script>,
    held: RefCell<Vec<(HttpRequest, Reply)>>,
    spawner: RefCell<LocalSpawner>,
    pub logs: RefCell<Vec<(Level, String)>>,
    /// Sleeping tasks: when each wakes (on the test's clock), and how to wake it.
    timers: RefCell<Vec<(f64, oneshot::Sender<()>)>>,
    /// Storage reads that fail before one succeeds again.
    pub failing_reads: Cell<u32>,
    pub options_opened: Cell<u32>,
    pub granted: Cell<bool>,
    pub registered: RefCell<Vec<(String, Vec<String>)>>,
    /// The native messaging host's answer to a pairing request; `None`: no host registered.
    pub native: RefCell<Option<Value>>,
    /// How often the core asked the native host.
    pub native_asks: Cell<u32>,
    /// What the scripted bridge proves.
    pub prover: RefCell<Prover>,
    nonces: Cell<u64>,
}

impl MemoryHost {
    /// The proof the scripted bridge adds to its `/health` answer for `request`, if asked.
    fn prove(&self, request: &HttpRequest, answer: &mut Result<HttpResponse, HttpFailure>) {
        let Some((_, nonce)) = request.url.split_once("/health?challenge=") else {
            return;
        };
        let Ok(response) = answer else { return };
        let Ok(mut body) = serde_json::from_slice::<Value>(&response.body) else {
            return;
        };
        if response.status != 200
            || body["status"] != "ok"
            || body.get("proof").is_some()
            || body.get("auth").is_some()
        {
            return;
        }
        let token = match self.0.prover.borrow().clone() {
            // A bridge without a token is a `--no-auth` one, which says so.
            Prover::Settings => {
                let token = self
                    .0
                    .storage
                    .borrow()
                    .get(&(Area::Local, "settings".to_string()))
                    .and_then(|s| s["token"].as_str().map(str::to_string))
                    .filter(|t| !t.is_empty());
                if token.is_none() {
                    body["auth"] = json!("none");
                }
                token
            }
            Prover::Token(token) => Some(token),
            Prover::NoAuth => {
                body["auth"] = json!("none");
                None
            }
            Prover::Stranger => None,
        };
        if let Some(token) = token {
            let port = mcp_bridge_core::domain::proof::port_of(&request.url).unwrap_or_default();
            let message = mcp_bridge_core::domain::proof::message(port, nonce);
            body["auth"] = json!("token");
            body["proof"] = json!(hmac_hex(&token, &message));
        }
        response.body = body.to_string().into_bytes();
    }
}

/// HMAC-SHA256 in hex, as WebCrypto computes it in the browser.
pub fn hmac_hex(key: &str, message: &str) -> String {
    use hmac::{KeyInit as _, Mac as _};
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()).unwrap();
    mac.update(message.as_bytes());
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Clone)]
pub struct MemoryHost(pub Rc<Inner>);

impl Host for MemoryHost {
    async fn storage_get(&self, area: Area, key: &str) -> Result<Option<Value>, String> {
        let op = (false, area, key.to_string());
        self.0.storage_ops.borrow_mut().push(op);
        let failing = self.0.failing_reads.get();
        if failing > 0 {
            self.0.failing_reads.set(failing - 1);
            return Err("reading extension storage failed: quota".into());
        }
        Ok(self
            .0
            .storage
            .borrow()
            .get(&(area, key.to_string()))
            .cloned())
    }

    async fn storage_set(&self, area: Area, key: &str, json: String) -> Result<(), String> {
        self.0
            .storage_ops
            .borrow_mut()
            .push((true, area, key.to_string()));
        let value: Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
        self.0
            .storage
            .borrow_mut()
            .insert((area, key.into()), value);
        Ok(())
    }

    async fn tab_command(&self, tab: i32, command: &Command) -> Result<CommandResult, String> {
        self.0.commands.borrow_mut().push((tab, command.clone()));
        if matches!(command, Command::AttachFile { .. })
            && self.0.files_refused.borrow().contains(&tab)
        {
            return Ok(CommandResult {
                ok: false,
                reason: None,
            });
        }
        if let (Command::TypeText { .. }, Some(why)) =
            (command, self.0.typing_fails.borrow().get(&tab))
        {
            return Ok(CommandResult {
                ok: false,
                reason: Some(why.clone()),
            });
        }
        Ok(CommandResult {
            ok: true,
            reason: None,
        })
    }

    async fn http(&self, request: HttpRequest) -> Result<HttpResponse, HttpFailure> {
        self.0.requests.borrow_mut().push(request.clone());
        // Scripts answer a plain `/health`; the proof is added below.
        let mut scripted = request.clone();
        if let Some((plain, _)) = request.url.split_once("?challenge=") {
            scripted.url = plain.to_string();
        }
        let answer = (self.0.script.borrow_mut())(&scripted);
        let mut answer = match answer {
            Answer::Now(r) => r,
            Answer::Hold => {
                let (tx, rx) = oneshot::channel();
                self.0.held.borrow_mut().push((scripted, tx));
                // A dropped sender (a worker that died) never answers.
                match rx.await {
                    Ok(r) => r,
                    Err(_) => std::future::pending().await,
                }
            }
        };
        self.prove(&request, &mut answer);
        answer
    }

    async fn hmac_sha256(&self, key: &str, message: &str) -> Result<String, String> {
        Ok(hmac_hex(key, message))
    }

    fn random_nonce(&self) -> String {
        let n = self.0.nonces.get() + 1;
        self.0.nonces.set(n);
        format!("{n:032x}")
    }

    async fn own_file(&self, path: &str) -> Option<String> {
        self.0.files.borrow().get(path).cloned()
    }

    async fn open_options_page(&self) -> Result<(), String> {
        self.0.options_opened.set(self.0.options_opened.get() + 1);
        Ok(())
    }

    async fn origins_granted(&self, _origins: &[String]) -> bool {
        self.0.granted.get()
    }

    async fn register_content_script(&self, id: &str, origins: &[String]) -> Result<(), String> {
        let entry = (id.to_string(), origins.to_vec());
        self.0.registered.borrow_mut().push(entry);
        Ok(())
    }

    async fn unregister_content_script(&self, id: &str) {
        self.0.registered.borrow_mut().retain(|(i, _)| i != id);
    }

    /// A real Ed25519 check (the browser's is WebCrypto's).
    async fn verify_signature(
        &self,
        public_key: &str,
        signed: &[u8],
        signature: &str,
    ) -> Result<bool, String> {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD;
        let key: [u8; 32] = b64
            .decode(public_key)
            .ok()
            .and_then(|k| k.try_into().ok())
            .ok_or("the key is not 32 bytes of base64")?;
        let key = ed25519_dalek::VerifyingKey::from_bytes(&key).map_err(|e| e.to_string())?;
        let Some(sig) = b64
            .decode(signature)
            .ok()
            .and_then(|s| <[u8; 64]>::try_from(s).ok())
        else {
            return Ok(false);
        };
        let sig = ed25519_dalek::Signature::from_bytes(&sig);
        Ok(key.verify_strict(signed, &sig).is_ok())
    }

    async fn native_pair(&self) -> Result<Value, String> {
        self.0.native_asks.set(self.0.native_asks.get() + 1);
        self.0
            .native
            .borrow()
            .clone()
            .ok_or_else(|| "Specified native messaging host not found.".to_string())
    }

    async fn sleep(&self, ms: u32) {
        let (tx, rx) = oneshot::channel();
        let wake_at = self.0.now.get() + f64::from(ms);
        self.0.timers.borrow_mut().push((wake_at, tx));
        // A dropped timer (a worker that died) never wakes.
        if rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    fn now_ms(&self) -> f64 {
        self.0.now.get()
    }

    fn ui_language(&self) -> String {
        self.0.ui_language.borrow().clone()
    }

    fn spawn(&self, task: impl Future<Output = ()> + 'static) {
        self.0
            .spawner
            .borrow()
            .spawn_local(task)
            .expect("the executor is gone");
    }

    fn log(&self, level: Level, message: &str) {
        self.0.logs.borrow_mut().push((level, message.to_string()));
    }
}

/// The shipped site configs, read from `extension/sites/` as the extension ships them.
fn shipped_files() -> BTreeMap<String, String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/extension/sites");
    std::fs::read_dir(dir)
        .expect("extension/sites")
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (
                format!("sites/{name}"),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

pub fn ok_json(status: u16, body: Value) -> Answer {
    Answer::Now(Ok(HttpResponse {
        status,
        trace_id: None,
        body: body.to_string().into_bytes(),
    }))
}

pub fn success(text: &str) -> Answer {
    ok_json(
        200,
        json!({"success": true, "result": {"content": [{"type": "text", "text": text}]}}),
    )
}

pub fn pending(call_id: &str) -> Answer {
    ok_json(202, json!({"pending": true, "call_id": call_id}))
}

/// The tools each server of [`healthy_bridge`] offers.
pub const SERVERS: [(&str, &[&str]); 2] = [
    ("time", &["get_current_time", "convert_time"]),
    ("demo", &["echo", "crash", "slow", "check", "write_note"]),
];

/// What a tool of the scripted bridge declares: most only read and stay on this machine
/// (`openWorldHint: false`); `fetch` reads the web; `crash` is destructive; the writers do
/// not say they only read (so, per MCP, they may change things).
pub fn annotations_of(tool: &str) -> Value {
    match tool {
        "crash" => json!({"readOnlyHint": false, "destructiveHint": true}),
        "fetch" => json!({"readOnlyHint": true, "openWorldHint": true}),
        // Says only that it stays on this machine.
        "write_note" => json!({"openWorldHint": false}),
        "write_file" | "append_file" => json!({}),
        _ => json!({"readOnlyHint": true, "openWorldHint": false}),
    }
}

/// The icons the scripted bridge gives: `write_note`'s and the `time` server's are images,
/// `echo`'s is a page the extension must never load.
pub const NOTE_ICON: &str = "data:image/png;base64,iVBORw0KGgo=";
pub const TIME_ICON: &str = "data:image/svg+xml;base64,PHN2Zy8+";

fn icon_of(tool: &str) -> Option<&'static str> {
    match tool {
        "write_note" => Some(NOTE_ICON),
        "echo" => Some("data:text/html;base64,PGI+aGk8L2I+"),
        _ => None,
    }
}

/// A bridge that is up, serves the [`SERVERS`], and answers every call with "ok".
pub fn healthy_bridge(req: &HttpRequest) -> Answer {
    bridge_with(&SERVERS, req)
}

/// The path and query of a request to the bridge (`tools`, `prompts?serverName=demo`).
pub fn route(req: &HttpRequest) -> String {
    req.url
        .splitn(4, '/')
        .nth(3)
        .unwrap_or_default()
        .to_string()
}

/// A bridge serving `servers`, each with its tools, answering every call with "ok".
pub fn bridge_with(servers: &[(&str, &[&str])], req: &HttpRequest) -> Answer {
    let path = route(req);
    match (req.method, path.as_str()) {
        (Method::Get, "health") => ok_json(200, json!({"status": "ok", "version": "0.1.0"})),
        (Method::Get, "tools") => {
            let list: Vec<Value> = servers
                .iter()
                .map(|(name, tools)| {
                    let mut service =
                        json!({"name": name, "status": "running", "tool_count": tools.len()});
                    if *name == "time" {
                        service["icon"] = json!(TIME_ICON);
                    }
                    service
                })
                .collect();
            ok_json(200, json!({"success": true, "services": list}))
        }
        (Method::Get, p) if p.starts_with("tools?serverName=") => {
            let name = &p[17..];
            let Some((_, tools)) = servers.iter().find(|(n, _)| *n == name) else {
                return ok_json(
                    404,
                    json!({"detail": {"error": {"message": "no such service"}}}),
                );
            };
            let tools: Vec<Value> = tools
                .iter()
                .map(|t| {
                    let mut tool = json!({"name": t, "description": format!("The {t} tool"),
                           "parameters": {"type": "object"}, "annotations": annotations_of(t)});
                    if let Some(icon) = icon_of(t) {
                        tool["icon"] = json!(icon);
                    }
                    tool
                })
                .collect();
            ok_json(
                200,
                json!({"success": true, "tools": {"service_name": name, "tools": tools}}),
            )
        }
        (Method::Post, "execute") => success("ok"),
        (Method::Delete, _) => ok_json(200, json!({"cancelled": true})),
        _ => ok_json(404, json!({"detail": "not found"})),
    }
}

/// One background worker over a [`MemoryHost`], and the tabs talking to it.
pub struct World {
    pool: LocalPool,
    pub host: MemoryHost,
    background: Rc<Background<MemoryHost>>,
    /// The options page's own core: a separate instance over the same storage.
    pages: Rc<Pages<MemoryHost>>,
}

pub const URL: &str = "https://chat.deepseek.com/a/chat/s/1";
/// Another conversation on the same site.
pub const OTHER_URL: &str = "https://chat.deepseek.com/a/chat/s/2";
/// DeepSeek's settle window (`extension/sites/deepseek.json`).
pub const STABLE_MS: f64 = 500.0;

impl World {
    pub fn new() -> World {
        let pool = LocalPool::new();
        let host = MemoryHost(Rc::new(Inner {
            storage: RefCell::new(BTreeMap::new()),
            storage_ops: RefCell::new(Vec::new()),
            now: Cell::new(1_700_000_000_000.0),
            ui_language: RefCell::new("en-US".into()),
            files: RefCell::new(shipped_files()),
            commands: RefCell::new(Vec::new()),
            typing_fails: RefCell::new(BTreeMap::new()),
            files_refused: RefCell::default(),
            requests: RefCell::new(Vec::new()),
            script: RefCell::new(Box::new(healthy_bridge)),
            held: RefCell::new(Vec::new()),
            spawner: RefCell::new(pool.spawner()),
            logs: RefCell::new(Vec::new()),
            timers: RefCell::new(Vec::new()),
            failing_reads: Cell::new(0),
            options_opened: Cell::new(0),
            granted: Cell::new(true),
            registered: RefCell::new(Vec::new()),
            native: RefCell::new(None),
            native_asks: Cell::new(0),
            prover: RefCell::new(Prover::Settings),
            nonces: Cell::new(0),
        }));
        let background = Rc::new(Background::new(host.clone()));
        let pages = Rc::new(Pages::new(host.clone()));
        let w = World {
            pool,
            host,
            background,
            pages,
        };
        // The scripted user trusts `time`, as the quick start has them do, so its read-only
        // tools run unasked; settings saved later are laid over this.
        w.store(Area::Local, "settings", json!({"trustedServers": ["time"]}));
        w
    }

    /// Puts a file into the extension (as `build.sh` would have).
    pub fn file(&self, path: &str, text: &str) {
        let files = &self.host.0.files;
        files.borrow_mut().insert(path.into(), text.into());
    }

    /// One of the worker's alarms goes off (`background.js` hands it to the core); runs
    /// until every task is idle.
    pub fn alarm(&mut self, name: &str) {
        let background = Rc::clone(&self.background);
        let name = name.to_string();
        self.run(async move {
            background.alarm(&name).await;
            Response::Ack { recheck_ms: None }
        });
    }

    /// The bridge answers with `script` from now on.
    pub fn bridge(&self, script: impl FnMut(&HttpRequest) -> Answer + 'static) {
        *self.host.0.script.borrow_mut() = Box::new(script);
    }

    /// The scripted bridge proves from now on what `prover` says.
    pub fn proves(&self, prover: Prover) {
        *self.host.0.prover.borrow_mut() = prover;
    }

    pub fn ui_language(&self, lang: &str) {
        *self.host.0.ui_language.borrow_mut() = lang.into();
    }

    /// Moves the clock on, and lets every task whose sleep ended run.
    pub fn advance(&mut self, ms: f64) {
        let now = self.host.0.now.get() + ms;
        self.host.0.now.set(now);
        let due: Vec<_> = {
            let mut timers = self.host.0.timers.borrow_mut();
            let (due, later) = timers.drain(..).partition(|(at, _)| *at <= now);
            *timers = later;
            due
        };
        for (_, tx) in due {
            let _ = tx.send(());
        }
        self.pool.run_until_stalled();
    }

    /// Sends one message as the browser would deliver it and runs until everything stalls.
    /// `None` when the answer is still waiting (on a held bridge request).
    pub fn send(&mut self, origin: Origin, tab: Option<i32>, message: Value) -> Option<Response> {
        let background = Rc::clone(&self.background);
        let text = message.to_string();
        self.run(async move { background.handle(&text, origin, tab).await })
    }

    pub fn tab(&mut self, tab: i32, message: Value) -> Response {
        self.send(Origin::ContentScript, Some(tab), message)
            .expect("the tab's message got no answer")
    }

    /// A request of the options page, answered by the page's own core ([`Pages`]).
    pub fn page(&mut self, message: Value) -> Response {
        let pages = Rc::clone(&self.pages);
        let text = message.to_string();
        self.run(async move { pages.handle(&text).await })
            .expect("the page's request got no answer")
    }

    /// Runs `task` until everything stalls: its answer, or `None` while it waits.
    fn run(&mut self, task: impl Future<Output = Response> + 'static) -> Option<Response> {
        let out = self.start(task);
        self.pool.run_until_stalled();
        out.borrow_mut().take()
    }

    /// Starts `task` without running anything yet; its answer lands in the slot.
    fn start(&mut self, task: impl Future<Output = Response> + 'static) -> Answered {
        let out = Rc::new(RefCell::new(None));
        let slot = Rc::clone(&out);
        self.pool
            .spawner()
            .spawn_local(async move { *slot.borrow_mut() = Some(task.await) })
            .unwrap();
        out
    }

    /// Sends one message from a chat tab and runs until everything stalls, keeping where
    /// its answer will land: for a message whose answer waits (`None` in the slot until it
    /// comes).
    pub fn send_waiting(&mut self, tab: i32, message: Value) -> Answered {
        let background = Rc::clone(&self.background);
        let text = message.to_string();
        let out = self.start(async move {
            background
                .handle(&text, Origin::ContentScript, Some(tab))
                .await
        });
        self.pool.run_until_stalled();
        out
    }

    /// How often the tab's state was read and written since the last call.
    pub fn tab_state_accesses(&self, tab: i32) -> (usize, usize) {
        let key = format!("tab:{tab}");
        let ops = std::mem::take(&mut *self.host.0.storage_ops.borrow_mut());
        let of_tab = ops
            .iter()
            .filter(|(_, area, k)| *area == Area::Session && *k == key);
        let writes = of_tab.clone().filter(|(write, _, _)| *write).count();
        (of_tab.count() - writes, writes)
    }

    pub fn page_ready(&mut self, tab: i32, url: &str) -> Response {
        self.tab(tab, json!({"type": "page-ready", "url": url}))
    }

    pub fn message(&mut self, tab: i32, index: u32, text: &str, generating: bool) -> Response {
        self.tab(
            tab,
            json!({"type": "message-updated", "url": URL, "index": index, "text": text,
                   "generating": generating}),
        )
    }

    /// A finished answer: reported, the settle window passes, reported again.
    pub fn answer(&mut self, tab: i32, index: u32, text: &str) -> Response {
        self.message(tab, index, text, false);
        self.advance(STABLE_MS + 1.0);
        self.message(tab, index, text, false)
    }

    /// A chat tab at `url` with one message of the user's already there.
    pub fn open_chat_at(&mut self, tab: i32, url: &str) {
        self.page_ready(tab, url);
        self.tab(
            tab,
            json!({"type": "message-updated", "url": url, "index": 0, "text": "hello",
                   "generating": false, "baseline": true}),
        );
    }

    /// A finished answer at `url` ([`Self::answer`] is at [`URL`]).
    pub fn answer_at(&mut self, tab: i32, url: &str, index: u32, text: &str) {
        let report = json!({"type": "message-updated", "url": url, "index": index,
                            "text": text, "generating": false});
        self.tab(tab, report.clone());
        self.advance(STABLE_MS + 1.0);
        self.tab(tab, report);
    }

    /// A chat tab on DeepSeek with one message of the user's already there.
    pub fn open_chat(&mut self, tab: i32) {
        self.page_ready(tab, URL);
        self.tab(
            tab,
            json!({"type": "message-updated", "url": URL, "index": 0, "text": "hello",
                   "generating": false, "baseline": true}),
        );
    }

    pub fn action(&mut self, tab: i32, action: Value) -> Option<Response> {
        self.send(
            Origin::ContentScript,
            Some(tab),
            json!({"type": "user-action", "action": action}),
        )
    }

    /// The service worker is stopped and started again: memory and running tasks are
    /// gone, storage (local and session) stays.
    pub fn restart_worker(&mut self) {
        self.pool = LocalPool::new();
        *self.host.0.spawner.borrow_mut() = self.pool.spawner();
        self.host.0.held.borrow_mut().clear();
        self.host.0.timers.borrow_mut().clear();
        self.background = Rc::new(Background::new(self.host.clone()));
    }

    /// Answers the held request number `i` (in the order they were held).
    pub fn release(&mut self, i: usize, answer: Answer) {
        let (_, tx) = self.host.0.held.borrow_mut().remove(i);
        let Answer::Now(r) = answer else {
            panic!("release needs an answer")
        };
        let _ = tx.send(r);
        self.pool.run_until_stalled();
    }

    /// At most one task sleeps between two checks of the bridge.
    pub fn held_watch_is_single(&self) -> bool {
        self.host.0.timers.borrow().len() <= 1
    }

    pub fn held(&self) -> Vec<HttpRequest> {
        self.host
            .0
            .held
            .borrow()
            .iter()
            .map(|(r, _)| r.clone())
            .collect()
    }

    /// Bodies of every `POST /execute`.
    pub fn executes(&self) -> Vec<Value> {
        self.host
            .0
            .requests
            .borrow()
            .iter()
            .filter(|r| r.method == Method::Post && r.url.ends_with("/execute"))
            .map(|r| r.json.clone().unwrap_or_default())
            .collect()
    }

    pub fn requests_to(&self, path: &str) -> usize {
        let requests = self.host.0.requests.borrow();
        requests.iter().filter(|r| r.url.contains(path)).count()
    }

    /// Every text typed into a tab's chat input.
    pub fn typed(&self, tab: i32) -> Vec<String> {
        let commands = self.host.0.commands.borrow();
        let typed = commands.iter().filter_map(|(t, c)| match c {
            Command::TypeText { text } if *t == tab => Some(text.clone()),
            _ => None,
        });
        typed.collect()
    }

    /// The MCP App views a tab was told to show (`show-view`): their ids.
    pub fn shown_views(&self, tab: i32) -> Vec<String> {
        let commands = self.host.0.commands.borrow();
        let shown = commands.iter().filter_map(|(t, c)| match c {
            Command::ShowView { view, .. } if *t == tab => Some(view.clone()),
            _ => None,
        });
        shown.collect()
    }

    pub fn submits(&self, tab: i32) -> usize {
        let commands = self.host.0.commands.borrow();
        commands
            .iter()
            .filter(|(t, c)| *t == tab && matches!(c, Command::Submit))
            .count()
    }

    /// Every float a tab was told to draw, as JSON.
    pub fn floats(&self, tab: i32) -> Vec<Value> {
        let commands = self.host.0.commands.borrow();
        let floats = commands.iter().filter_map(|(t, c)| match c {
            Command::FloatState { float } if *t == tab => {
                Some(serde_json::to_value(float).unwrap())
            }
            _ => None,
        });
        floats.collect()
    }

    pub fn last_float(&self, tab: i32) -> Value {
        self.floats(tab).pop().expect("no float drawn")
    }

    pub fn stored(&self, area: Area, key: &str) -> Option<Value> {
        let storage = self.host.0.storage.borrow();
        storage.get(&(area, key.to_string())).cloned()
    }

    pub fn store(&self, area: Area, key: &str, value: Value) {
        let mut storage = self.host.0.storage.borrow_mut();
        storage.insert((area, key.to_string()), value);
    }

    /// Saves settings the way the options page does (and checks it was accepted).
    pub fn settings(&mut self, settings: Value) {
        let r = self.page(json!({"type": "save-settings", "settings": settings}));
        assert!(matches!(r, Response::Data { .. }), "{r:?}");
    }

    /// The tab's stored state.
    pub fn tab_state(&self, tab: i32) -> Value {
        self.stored(Area::Session, &format!("tab:{tab}"))
            .unwrap_or_default()
    }
}

/// A `<tool_code>` block calling `tool` with `args`.
pub fn call(tool: &str, args: Value) -> String {
    format!(
        "Let me check.\n<tool_code>\n{}\n</tool_code>",
        json!({"tool_name": tool, "arguments": args})
    )
}

pub fn call_on(server: &str, tool: &str, args: Value) -> String {
    format!(
        "<tool_code>\n{}\n</tool_code>",
        json!({"tool_name": tool, "server_name": server, "arguments": args})
    )
}

/// A bridge whose remote server `wiki` needs the user to sign in until `signed_in` is set:
/// its calls are refused with `SignInRequired` and `GET /tools` lists it as unavailable.
pub fn needs_sign_in(signed_in: Rc<Cell<bool>>) -> impl FnMut(&HttpRequest) -> Answer {
    move |req| {
        let path = route(req);
        if signed_in.get() {
            return bridge_with(&[("wiki", &["search"])], req);
        }
        match path.as_str() {
            "execute" => ok_json(
                503,
                json!({"detail": {
                    "error": "MCP server `wiki` needs the user to sign in again: its authorization server refused to renew the sign-in. This is for the user, not for you.",
                    "type": "SignInRequired",
                    "server": "wiki",
                    "retryable": false
                }}),
            ),
            "tools" => ok_json(
                200,
                json!({"success": true, "services": [{"name": "wiki", "status": "unavailable", "tool_count": 0}]}),
            ),
            _ => bridge_with(&[("wiki", &["search"])], req),
        }
    }
}

/// A chat whose AI called `search` on `wiki`, a trusted remote server that needs the user to
/// sign in: the call is held. Returns the switch that signs the user in.
pub fn call_needing_a_sign_in() -> (World, Rc<Cell<bool>>) {
    let mut w = World::new();
    let signed_in = Rc::new(Cell::new(false));
    w.settings(json!({"trustedServers": ["wiki"]}));
    w.open_chat(1);
    w.bridge(needs_sign_in(Rc::clone(&signed_in)));
    w.answer(1, 1, &call("search", json!({"q": "x"})));
    (w, signed_in)
}
