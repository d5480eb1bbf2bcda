//! Tool and server icons, and lists cached for their `ttlMs`, against a remote MCP server of
//! the test's own (rmcp's streamable HTTP server on a free port, which also serves icon files
//! and counts every request), a second origin that must never be asked for anything, and a stdio
//! server (`tests/support/icon-server.mjs`) whose icon URLs point at that second origin.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use base64::Engine as _;
use common::{TestApp, require_on_path, stdio_spec};
use mcp_bridge::config::{ServerSpec, Transport};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, Icon,
    IconTheme, Implementation, JsonObject, ListPromptsResult, ListToolsResult,
    PaginatedRequestParams, Prompt, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

/// The eight bytes every PNG opens with, and four more.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n0000";
const OTHER_PNG: &[u8] = b"\x89PNG\r\n\x1a\n1111";
/// The inline icon of `tests/support/icon-server.mjs`, in base64.
const ONE_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const SVG: &str = r#"<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"/>"#;

fn data(kind: &str, bytes: &[u8]) -> String {
    format!(
        "data:{kind};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// What the test server does and has seen.
#[derive(Default)]
struct World {
    /// `http://127.0.0.1:PORT` of the server itself, and of the origin it must never send the
    /// bridge to.
    own: OnceLock<String>,
    foreign: String,
    /// The `ttlMs` of its lists' last page (the first page says a hundred times more).
    ttl_ms: Option<u64>,
    tool_lists: AtomicUsize,
    prompt_lists: AtomicUsize,
    fail_lists: AtomicBool,
    slow_lists: AtomicBool,
    /// The paths asked for, besides `/mcp`.
    files: Mutex<Vec<String>>,
}

impl World {
    fn own(&self) -> &str {
        self.own.get().unwrap()
    }

    fn files(&self) -> Vec<String> {
        self.files.lock().unwrap().clone()
    }
}

fn tool(name: &str, icons: Vec<Icon>) -> Tool {
    let mut tool = Tool::new(name.to_owned(), "A tool.", JsonObject::new());
    if !icons.is_empty() {
        tool.icons = Some(icons);
    }
    tool
}

#[derive(Clone)]
struct Iconic(Arc<World>);

impl rmcp::ServerHandler for Iconic {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("iconic", "1.0.0").with_icons(vec![
            Icon::new(format!("{}/server.svg", self.0.own())).with_mime_type("image/svg+xml"),
        ]))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let world = &self.0;
        // The last page is counted: its `ttlMs` is the smallest, so every listing asks for
        // it (rmcp's client keeps each page for its own `ttlMs`).
        let first = request.and_then(|r| r.cursor).is_none();
        if !first {
            world.tool_lists.fetch_add(1, Ordering::SeqCst);
        }
        if world.slow_lists.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(400)).await;
        }
        if !first && world.fail_lists.load(Ordering::SeqCst) {
            return Err(ErrorData::internal_error("the list is down", None));
        }
        let own = world.own();
        let foreign = &world.foreign;
        let mut result = if first {
            let mut page = ListToolsResult::with_all_items(vec![
                tool("data-icon", vec![Icon::new(data("image/png", PNG))]),
                tool(
                    "own-icon",
                    vec![Icon::new(format!("{own}/tool.png")).with_sizes(vec!["16x16".into()])],
                ),
                tool("own-icon-too", vec![Icon::new(format!("{own}/tool.png"))]),
                tool(
                    "light-wins",
                    vec![
                        Icon::new(format!("{own}/dark.png"))
                            .with_sizes(vec!["16x16".into()])
                            .with_theme(IconTheme::Dark),
                        Icon::new(data("image/png", OTHER_PNG))
                            .with_sizes(vec!["48x48".into()])
                            .with_theme(IconTheme::Light),
                    ],
                ),
                tool("no-icon", vec![]),
            ]);
            page.next_cursor = Some("2".to_owned());
            page.ttl_ms = world.ttl_ms.map(|ms| ms * 100);
            page
        } else {
            let mut page = ListToolsResult::with_all_items(vec![
                tool(
                    "foreign-icon",
                    vec![Icon::new(format!("{foreign}/tool.png"))],
                ),
                tool("redirected", vec![Icon::new(format!("{own}/redirect.png"))]),
                tool("html-page", vec![Icon::new(format!("{own}/page.html"))]),
                tool("html-data", vec![Icon::new("data:text/html,<b>hi</b>")]),
                tool("too-big", vec![Icon::new(format!("{own}/huge.png"))]),
                tool("on-disk", vec![Icon::new("file:///etc/hosts")]),
                tool(
                    &format!("listed-{}", world.tool_lists.load(Ordering::SeqCst)),
                    vec![],
                ),
            ]);
            page.ttl_ms = world.ttl_ms;
            page
        };
        result.result_type = None;
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(format!("ran {}", request.name)),
        ])))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let n = self.0.prompt_lists.fetch_add(1, Ordering::SeqCst) + 1;
        let mut result = ListPromptsResult::with_all_items(vec![Prompt::new(
            format!("prompt-{n}"),
            Some("A prompt."),
            None,
        )]);
        result.ttl_ms = self.0.ttl_ms;
        Ok(result)
    }
}

/// Note every path asked for but `/mcp`.
async fn record(State(world): State<Arc<World>>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    if !path.starts_with("/mcp") {
        world.files.lock().unwrap().push(path);
    }
    next.run(request).await
}

fn file(kind: &'static str, bytes: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, kind)], bytes).into_response()
}

async fn serve(app: axum::Router) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (format!("http://127.0.0.1:{port}"), task)
}

/// A running test server and the foreign origin beside it; both stop when dropped.
struct Servers {
    world: Arc<World>,
    foreign: Arc<World>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Servers {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Servers {
    async fn start(ttl_ms: Option<u64>) -> Self {
        let foreign = Arc::new(World::default());
        let (foreign_url, foreign_task) = serve(
            axum::Router::new()
                .fallback(|| async { file("image/png", PNG.to_vec()) })
                .layer(axum::middleware::from_fn_with_state(
                    foreign.clone(),
                    record,
                )),
        )
        .await;
        let world = Arc::new(World {
            foreign: foreign_url.clone(),
            ttl_ms,
            ..World::default()
        });
        let handler = world.clone();
        let mcp = StreamableHttpService::new(
            move || Ok(Iconic(handler.clone())),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let redirect_to = format!("{foreign_url}/redirected.png");
        let app = axum::Router::new()
            .route(
                "/server.svg",
                get(|| async { file("image/svg+xml", SVG.into()) }),
            )
            .route(
                "/tool.png",
                get(|| async { file("image/png", PNG.to_vec()) }),
            )
            .route(
                "/dark.png",
                get(|| async { file("image/png", PNG.to_vec()) }),
            )
            .route(
                "/redirect.png",
                get(move || async move { Redirect::temporary(&redirect_to) }),
            )
            .route(
                "/page.html",
                get(|| async { file("text/html", b"<b>hi</b>".to_vec()) }),
            )
            .route(
                "/huge.png",
                get(|| async { file("image/png", [PNG, &vec![0; 70 * 1024]].concat()) }),
            )
            .nest_service("/mcp", mcp)
            .layer(axum::middleware::from_fn_with_state(world.clone(), record));
        let (own, task) = serve(app).await;
        world.own.set(own).unwrap();
        Servers {
            world,
            foreign,
            tasks: vec![foreign_task, task],
        }
    }

    /// A spec for the server spoken to in 2025-11-25, where a list result without `ttlMs`
    /// goes out without one (rmcp's server gives each list `ttlMs: 0` in 2026-07-28).
    fn spec_2025(&self, name: &str) -> ServerSpec {
        let mut spec = self.spec(name);
        spec.mcp.protocol_version = Some(ProtocolVersion::V_2025_11_25);
        spec
    }

    fn spec(&self, name: &str) -> ServerSpec {
        let mut spec = common::demo_spec();
        spec.name = name.to_owned();
        spec.is_core = false;
        spec.startup_timeout = Duration::from_secs(30);
        spec.transport = Transport::StreamableHttp {
            url: format!("{}/mcp", self.world.own()),
            headers: BTreeMap::new(),
            ca_file: None,
            sign_in: Default::default(),
        };
        spec
    }
}

/// The tools of `server` in `GET /tools?serverName=`, by name.
async fn tools(app: &TestApp, server: &str) -> BTreeMap<String, Value> {
    let reply = app.get(&format!("/tools?serverName={server}")).await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body["tools"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| (tool["name"].as_str().unwrap().to_owned(), tool.clone()))
        .collect()
}

fn with_manager(mut app: TestApp, dir: &tempfile::TempDir) -> TestApp {
    let manager = mcp_bridge::config::manage::Manager::new(
        dir.path().join("mcp-config.json"),
        app.registry.clone(),
    );
    app.state = app.state.clone().with_manager(Arc::new(manager));
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn icons_are_data_urls_fetched_only_from_the_servers_own_origin() {
    let servers = Servers::start(None).await;
    let dir = tempfile::tempdir().unwrap();
    let app = with_manager(
        TestApp::start(vec![servers.spec_2025("iconic")]).await,
        &dir,
    );

    // The listing finished (its icons are resolved before the list is stored).
    let listed = tools(&app, "iconic").await;
    assert!(listed.contains_key("on-disk"), "{listed:?}");
    let icon = |name: &str| listed[name].get("icon").cloned();

    assert_eq!(icon("data-icon"), Some(json!(data("image/png", PNG))));
    assert_eq!(icon("own-icon"), Some(json!(data("image/png", PNG))));
    assert_eq!(icon("own-icon-too"), Some(json!(data("image/png", PNG))));
    // Light before dark, whatever the sizes: the dark one is not even fetched.
    assert_eq!(
        icon("light-wins"),
        Some(json!(data("image/png", OTHER_PNG)))
    );
    for none in [
        "no-icon",
        "foreign-icon",
        "redirected",
        "html-page",
        "html-data",
        "too-big",
        "on-disk",
    ] {
        assert_eq!(icon(none), None, "{none}: {}", listed[none]);
    }

    // Each same-origin source was asked for once in the listing; the redirect was not followed
    // and the foreign origin was never asked for anything.
    let mut asked = servers.world.files();
    asked.sort();
    assert_eq!(
        asked,
        [
            "/huge.png",
            "/page.html",
            "/redirect.png",
            "/server.svg",
            "/tool.png"
        ],
        "{asked:?}"
    );
    assert_eq!(servers.foreign.files(), Vec::<String>::new());

    // The server's own icon, in the tools answer, its service and GET /servers.
    let svg = json!(data("image/svg+xml", SVG.as_bytes()));
    let reply = app.get("/tools?serverName=iconic").await;
    assert_eq!(reply.body["tools"]["service_icon"], svg, "{}", reply.body);
    let services = app.get("/tools").await;
    let service = services.body["services"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "iconic")
        .unwrap()
        .clone();
    assert_eq!(service["icon"], svg, "{service}");
    let entries = app.get("/servers").await;
    let entry = entries.body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "iconic")
        .unwrap_or_else(|| panic!("{}", entries.body))
        .clone();
    assert_eq!(entry["icon"], svg, "{entry}");

    // Without a `ttlMs`, reading the list never lists it again.
    assert_eq!(servers.world.tool_lists.load(Ordering::SeqCst), 1);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_servers_icon_urls_are_never_fetched() {
    let servers = Servers::start(None).await;
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/icon-server.mjs");
    let app = TestApp::start(vec![stdio_spec(
        "local",
        &node,
        &[script.to_str().unwrap(), &servers.world.foreign],
    )])
    .await;
    let listed = tools(&app, "local").await;
    // The inline icon (a PNG of one pixel) shows that the listing, icons included, finished.
    assert_eq!(
        listed["inline"]["icon"],
        json!(format!("data:image/png;base64,{ONE_PIXEL_PNG}")),
        "{listed:?}"
    );
    assert_eq!(listed["far"].get("icon"), None);
    assert_eq!(listed["on-disk"].get("icon"), None);
    let reply = app.get("/tools?serverName=local").await;
    assert_eq!(
        reply.body["tools"].get("service_icon"),
        None,
        "{}",
        reply.body
    );
    assert_eq!(servers.foreign.files(), Vec::<String>::new());
    app.stop().await;
}

fn lists(world: &World) -> usize {
    world.tool_lists.load(Ordering::SeqCst)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_with_ttl_zero_is_listed_again_at_each_read() {
    let servers = Servers::start(Some(0)).await;
    let world = &servers.world;
    let app = TestApp::start(vec![servers.spec("iconic")]).await;
    assert_eq!(lists(world), 1);

    // GET /tools lists again first, and answers the new list (and the server's icon, which a
    // 2026-07-28 server gives in its `server/discover` answer).
    let reply = app.get("/tools?serverName=iconic").await;
    assert_eq!(
        reply.body["tools"]["service_icon"],
        json!(data("image/svg+xml", SVG.as_bytes())),
        "{}",
        reply.body
    );
    assert_eq!(lists(world), 2);
    let listed = tools(&app, "iconic").await;
    assert_eq!(lists(world), 3);
    assert!(listed.contains_key("listed-3"), "{listed:?}");
    let _ = app.get("/tools").await;
    assert_eq!(lists(world), 4);

    // A call of a tool the list lacks lists again: `listed-5` exists only in the list fetched
    // for it.
    let reply = app
        .execute(json!({"name": "listed-5", "serverName": "iconic", "arguments": {}}))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.text().contains("ran listed-5"), "{}", reply.body);
    // Also when the call names no server.
    let reply = app
        .execute(json!({"name": "listed-6", "arguments": {}}))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    // A tool the list has is called without listing again, however stale the list.
    let before = lists(world);
    let reply = app
        .execute(json!({"name": "listed-6", "serverName": "iconic", "arguments": {}}))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(lists(world), before, "a call of a listed tool lists again");

    // Prompts too.
    let prompts = world.prompt_lists.load(Ordering::SeqCst);
    let reply = app.get("/prompts?serverName=iconic").await;
    assert_eq!(world.prompt_lists.load(Ordering::SeqCst), prompts + 1);
    assert_eq!(
        reply.body["prompts"][0]["name"],
        format!("prompt-{}", prompts + 1),
        "{}",
        reply.body
    );

    // Readers that come while a refresh runs wait for it and use its list: four at once cost
    // one listing (two at most, should one come just after it).
    world.slow_lists.store(true, Ordering::SeqCst);
    let before = lists(world);
    let reads = (0..4).map(|_| tools(&app, "iconic"));
    let answers = futures::future::join_all(reads).await;
    let after = lists(world);
    assert!(
        (before + 1..=before + 2).contains(&after),
        "{before} then {after}"
    );
    for answer in &answers {
        assert!(
            answer.keys().any(|name| name.starts_with("listed-")),
            "{answer:?}"
        );
    }
    world.slow_lists.store(false, Ordering::SeqCst);

    // A failed refresh keeps the old list.
    let kept = tools(&app, "iconic").await;
    world.fail_lists.store(true, Ordering::SeqCst);
    let before = lists(world);
    let listed = tools(&app, "iconic").await;
    assert_eq!(lists(world), before + 1, "the refresh was tried");
    assert_eq!(
        listed.keys().collect::<Vec<_>>(),
        kept.keys().collect::<Vec<_>>()
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_is_kept_for_the_smallest_ttl_of_its_pages() {
    // The last page says 3 s, the first 300 s.
    let servers = Servers::start(Some(3000)).await;
    let world = &servers.world;
    let started = Instant::now();
    let app = TestApp::start(vec![servers.spec("iconic")]).await;
    let listed = tools(&app, "iconic").await;
    if started.elapsed() < Duration::from_millis(2500) {
        assert_eq!(lists(world), 1, "read within its ttl");
    }
    assert!(listed.contains_key("listed-1"), "{listed:?}");
    // Once 3 s passed since that listing (before the read above), the next read lists again.
    tokio::time::sleep(Duration::from_millis(3100)).await;
    let listed = tools(&app, "iconic").await;
    assert_eq!(lists(world), 2);
    assert!(listed.contains_key("listed-2"), "{listed:?}");
    app.stop().await;
}
