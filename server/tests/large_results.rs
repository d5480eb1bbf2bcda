//! Large results through the real `mcp-bridge` binary: a file read by the demo server is
//! answered page by page and read on with `read_result` (also after a long-poll); unknown,
//! expired and dropped results and offsets past the end are 4xx that say which; images of
//! `@modelcontextprotocol/server-everything` stay in the first page; its JSON is paged at lines.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{BridgeProcess, bridge_exe};
use serde_json::{Value, json};

const EVERYTHING_HINT: &str = "run ./build.sh setup (npm install at the repository root)";

/// A config with the demo server reading in `root`.
fn demo_in(root: &Path) -> Value {
    json!({"mcpServers": {"demo": {"command": bridge_exe(), "args": ["demo-server", "--root", root]}}})
}

/// A text of about `bytes` bytes, in numbered lines with characters of 1 to 4 bytes.
fn sample_text(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 100);
    let mut n = 0;
    while text.len() < bytes {
        text.push_str(&format!("{n:06} ünïcødé € 😀 line of a large file\n"));
        n += 1;
    }
    text
}

/// Read every page after `first` with `read_result`, checking each answer's shape; the text of
/// all pages and the number of pages.
async fn read_all(bridge: &BridgeProcess, first: &Value) -> (String, usize) {
    let page = &first["page"];
    let result_id = page["result_id"].as_str().expect("a result_id").to_owned();
    let total = page["total_chars"].as_u64().unwrap();
    let mut text = first["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut pages = 1;
    let mut next = page["next_offset"].clone();
    while let Some(offset) = next.as_u64() {
        assert_eq!(offset, text.chars().count() as u64);
        let (status, body) = bridge
            .execute(json!({"name": "read_result", "arguments": {"result_id": result_id, "offset": offset}}))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["success"], true);
        let page = &body["page"];
        assert_eq!(page["result_id"], result_id.as_str());
        assert_eq!(page["offset"], offset);
        assert_eq!(page["total_chars"], total);
        let chunk = body["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(page["returned_chars"], chunk.chars().count() as u64);
        text.push_str(chunk);
        pages += 1;
        assert!(pages < 10_000, "paging does not end");
        next = page["next_offset"].clone();
    }
    assert_eq!(text.chars().count() as u64, total);
    (text, pages)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_file_is_answered_page_by_page_and_read_to_the_end() {
    let root = tempfile::tempdir().unwrap();
    let content = sample_text(300_000);
    std::fs::write(root.path().join("large.txt"), &content).unwrap();
    let bridge = BridgeProcess::start(Some(demo_in(root.path())), &[]);

    let (status, first) = bridge
        .execute(json!({"name": "read_text_file", "arguments": {"path": "large.txt"}}))
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["success"], true);
    assert_eq!(first["result"]["isError"], false);
    let page = &first["page"];
    assert_eq!(page["offset"], 0);
    assert_eq!(page["total_chars"], content.chars().count() as u64);
    let first_text = first["result"]["content"][0]["text"].as_str().unwrap();
    assert!(first_text.chars().count() <= 8192, "the default page size");
    assert!(first_text.ends_with('\n'), "pages end at line breaks");
    assert_eq!(page["returned_chars"], first_text.chars().count() as u64);
    assert_eq!(page["next_offset"], page["returned_chars"]);

    let (text, pages) = read_all(&bridge, &first).await;
    assert_eq!(text, content);
    assert!(pages > 30, "{pages} pages");

    // A page can be read again, and with another size.
    let result_id = page["result_id"].as_str().unwrap();
    let (status, again) = bridge
        .execute(json!({"name": "read_result", "arguments": {"result_id": result_id, "offset": 0, "max_chars": 100}}))
        .await;
    assert_eq!(status, 200, "{again}");
    assert!(again["page"]["returned_chars"].as_u64().unwrap() <= 100);
    assert!(content.starts_with(again["result"]["content"][0]["text"].as_str().unwrap()));

    // Past the end: 416, saying so and what the last offset is.
    let total = content.chars().count();
    let (status, past) = bridge
        .execute(
            json!({"name": "read_result", "arguments": {"result_id": result_id, "offset": total}}),
        )
        .await;
    assert_eq!(status, 416, "{past}");
    let detail = &past["detail"];
    assert_eq!(detail["type"], "OffsetOutOfRange");
    assert_eq!(detail["tool"], "read_result");
    assert_eq!(detail["result_id"], result_id);
    let error = detail["error"].as_str().unwrap();
    assert!(
        error.contains("past the end") && error.contains("nothing more to read"),
        "{error}"
    );
    assert!(error.contains(&total.to_string()), "{error}");

    // An unknown id: 404 that says what may have happened.
    let (status, unknown) = bridge
        .execute(
            json!({"name": "read_result", "arguments": {"result_id": "0123abcd", "offset": 0}}),
        )
        .await;
    assert_eq!(status, 404, "{unknown}");
    assert_eq!(unknown["detail"]["type"], "ResultNotFound");
    assert!(
        unknown["detail"]["error"]
            .as_str()
            .unwrap()
            .contains("Run the tool again")
    );

    // Malformed arguments: FastAPI's 422 list, naming the field.
    let (status, bad) = bridge
        .execute(
            json!({"name": "read_result", "arguments": {"result_id": result_id, "offset": -5}}),
        )
        .await;
    assert_eq!(status, 422, "{bad}");
    assert_eq!(
        bad["detail"][0]["loc"],
        json!(["body", "arguments", "offset"])
    );

    // A small result is answered as before, without `page`.
    let (status, small) = bridge
        .execute(json!({"name": "echo", "arguments": {"text": "short"}}))
        .await;
    assert_eq!(status, 200);
    assert!(small.get("page").is_none(), "{small}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_polled_large_result_is_paged_the_same_way() {
    let root = tempfile::tempdir().unwrap();
    let content = sample_text(100_000);
    std::fs::write(root.path().join("large.txt"), &content).unwrap();
    let bridge = BridgeProcess::start(Some(demo_in(root.path())), &[]);

    let (status, mut answer) = bridge
        .execute(json!({"name": "read_text_file", "arguments": {"path": "large.txt"}, "wait": 0}))
        .await;
    if status == 202 {
        let call_id = answer["call_id"].as_str().unwrap().to_owned();
        let mut fetched = None;
        for _ in 0..30 {
            let (status, body) = bridge.get(&format!("/calls/{call_id}?wait=5")).await;
            if status == 200 {
                fetched = Some(body);
                break;
            }
            assert_eq!(status, 202, "{body}");
        }
        answer = fetched.expect("the call finished");
    } else {
        assert_eq!(status, 200, "{answer}");
    }
    assert!(answer["page"]["result_id"].is_string(), "{answer}");
    let (text, _) = read_all(&bridge, &answer).await;
    assert_eq!(text, content);

    // read_result with `wait` is answered at once, never as a background call.
    let result_id = answer["page"]["result_id"].as_str().unwrap();
    let (status, page) = bridge
        .execute(json!({"name": "read_result", "arguments": {"result_id": result_id, "offset": 10}, "wait": 0}))
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["page"]["offset"], 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_and_dropped_results_say_which() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("a.txt"), sample_text(700_000)).unwrap();
    std::fs::write(root.path().join("b.txt"), sample_text(700_000)).unwrap();

    // A store of 1 MiB holds one of the two: the first is dropped for the second.
    let bridge = BridgeProcess::start(Some(demo_in(root.path())), &["--result-store-size", "1"]);
    let read = |path: &'static str| {
        bridge.execute(json!({"name": "read_text_file", "arguments": {"path": path}}))
    };
    let (_, a) = read("a.txt").await;
    let (_, b) = read("b.txt").await;
    let page = |answer: &Value| json!({"name": "read_result", "arguments": {"result_id": answer["page"]["result_id"], "offset": 1}});
    let (status, dropped) = bridge.execute(page(&a)).await;
    assert_eq!(status, 410, "{dropped}");
    assert_eq!(dropped["detail"]["type"], "ResultExpired");
    let error = dropped["detail"]["error"].as_str().unwrap();
    assert!(
        error.contains("make room") && error.contains("--result-store-size"),
        "{error}"
    );
    let (status, kept) = bridge.execute(page(&b)).await;
    assert_eq!(status, 200, "{kept}");
    drop(bridge);

    // A result not read within the TTL expires.
    let bridge = BridgeProcess::start(Some(demo_in(root.path())), &["--result-ttl", "1"]);
    let (_, a) = bridge
        .execute(json!({"name": "read_text_file", "arguments": {"path": "a.txt"}}))
        .await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (status, expired) = bridge.execute(page(&a)).await;
    assert_eq!(status, 410, "{expired}");
    assert_eq!(expired["detail"]["type"], "ResultExpired");
    let error = expired["detail"]["error"].as_str().unwrap();
    assert!(
        error.contains("expired") && error.contains("--result-ttl"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn images_stay_in_the_first_page() {
    let everything =
        BridgeProcess::path_entry("mcp-server-everything", EVERYTHING_HINT, &["stdio"]);
    let bridge = BridgeProcess::start(
        Some(json!({"mcpServers": {"everything": everything}})),
        &["--large-result-threshold", "20", "--result-page-size", "20"],
    );
    // Text, a PNG, text: the texts are paged, the image comes whole in the first page.
    let (status, first) = bridge
        .execute(json!({"name": "get-tiny-image", "arguments": {}}))
        .await;
    assert_eq!(status, 200, "{first}");
    let content = first["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 2, "{first}");
    assert_eq!(content[0]["type"], "text");
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/png");
    assert!(content[1]["data"].as_str().unwrap().len() > 1000);
    let (text, pages) = read_all(&bridge, &first).await;
    assert_eq!(
        text,
        "Here's the image you requested:\nThe image above is the MCP logo."
    );
    assert!(pages >= 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_from_a_real_server_is_paged_at_element_lines() {
    // `get-env` answers its environment as pretty-printed JSON; 400 variables make it large.
    let mut everything =
        BridgeProcess::path_entry("mcp-server-everything", EVERYTHING_HINT, &["stdio"]);
    let env: serde_json::Map<String, Value> = (0..400)
        .map(|n| {
            (
                format!("PAGING_TEST_{n:03}"),
                json!(format!("value, \"{n}\" {}", "x".repeat(80))),
            )
        })
        .collect();
    everything["env"] = Value::Object(env);
    let bridge = BridgeProcess::start(Some(json!({"mcpServers": {"everything": everything}})), &[]);
    let (status, first) = bridge
        .execute(json!({"name": "get-env", "arguments": {}}))
        .await;
    assert_eq!(status, 200, "{first}");
    assert!(first["page"]["next_offset"].is_u64(), "{first}");
    let (text, pages) = read_all(&bridge, &first).await;
    assert!(pages >= 5, "{pages}");
    let parsed: Value = serde_json::from_str(&text).expect("the pages join into the JSON");
    assert_eq!(
        parsed["PAGING_TEST_007"],
        format!("value, \"7\" {}", "x".repeat(80))
    );
    // Every page but the last ends with a whole line (one element of the object).
    let mut offset = 0;
    let result_id = first["page"]["result_id"].as_str().unwrap();
    loop {
        let (_, page) = bridge
            .execute(json!({"name": "read_result", "arguments": {"result_id": result_id, "offset": offset}}))
            .await;
        let Some(next) = page["page"]["next_offset"].as_u64() else {
            break;
        };
        let chunk = page["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            chunk.ends_with(",\n") || chunk.ends_with("{\n"),
            "{chunk:?}"
        );
        offset = next;
    }
}
