//! The instructions given to the AI for 1, 5 and 20 servers with real tool lists (captured from
//! `@modelcontextprotocol/server-everything` and `mcp-server-time` through the bridge): up to
//! the limit every tool is listed, above it the services alone and two-step discovery. Prints
//! each size (`cargo test --test instructions -- --nocapture`; `./build.sh bench` too) and
//! keeps the two-server text (everything and time) as a golden (`UPDATE_GOLDEN=1` rewrites it; review the diff).
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use mcp_bridge_core::domain::bridge_api::{Service, Tool, services, tools};
use mcp_bridge_core::domain::i18n::Lang;
use mcp_bridge_core::domain::instructions::{LISTED_CHARS, build};
use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/fixtures/tool_lists/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `n` servers, alternately server-everything and mcp-server-time, under their own names.
fn servers(n: usize) -> (Vec<Service>, Vec<Option<Vec<Tool>>>) {
    let listed = services(&fixture("services")).unwrap();
    let lists = [tools(&fixture("everything")), tools(&fixture("time"))];
    (0..n)
        .map(|i| {
            let mut s = listed[i % 2].clone();
            if i >= 2 {
                s.name = format!("{}-{i}", s.name);
            }
            (s, lists[i % 2].clone())
        })
        .unzip()
}

/// The instructions for `n` servers and whether they list the tools.
fn measured(n: usize, lang: Lang) -> (String, bool) {
    let (s, t) = servers(n);
    let text = build(&s, &t, lang);
    let listed = text.contains("  - echo(message: string): Echoes back the input string");
    (text, listed)
}

#[test]
fn sizes_for_1_5_and_20_servers() {
    for lang in [Lang::En, Lang::Zh] {
        for n in [1, 2, 5, 20] {
            let (text, listed) = measured(n, lang);
            let chars = text.chars().count();
            println!(
                "instructions ({lang:?}) for {n:>2} servers: {chars:>5} characters, {}",
                if listed {
                    "every tool listed"
                } else {
                    "services only (two-step discovery)"
                }
            );
            assert!(text.contains("list_tools_in_service"));
            if listed {
                assert!(chars <= LISTED_CHARS, "{chars}");
            }
        }
        // One server-everything: its 16 tools fit; twenty servers do not.
        assert!(measured(1, lang).1);
        assert!(!measured(20, lang).1);
    }
    let (text, _) = measured(1, Lang::En);
    for tool in [
        "get-sum(a: number, b: number)",
        "trigger-long-running-operation()",
        "get-env()",
    ] {
        assert!(text.contains(tool), "{tool}: {text}");
    }
}

#[test]
fn golden_everything_and_time() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    for (lang, suffix) in [(Lang::En, "en"), (Lang::Zh, "zh")] {
        let (text, _) = measured(2, lang);
        let file = dir.join(format!("instructions_everything_time.{suffix}.txt"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&file, &text).unwrap();
        }
        let want = std::fs::read_to_string(&file).unwrap_or_default();
        assert_eq!(
            text,
            want,
            "{} differs: UPDATE_GOLDEN=1 and review",
            file.display()
        );
    }
}
