//! The bridge's modules form no import cycle: each top-level module of `src/` (a file with
//! its folder: `config` is `config.rs` and `config/`) is read whole, unit tests included, for
//! the modules it names outside comments — `crate::` paths, and `super::` paths that climb out
//! of it (`super::error` in `routes.rs` is `crate::error`) — and a depth-first walk fails on
//! the first cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The module path of a file (`["config", "file"]` for `src/config/file.rs`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect()
}

/// The top-level modules a file at module depth `depth` (1 for `src/config.rs`, 2 for
/// `src/config/file.rs`) names with `crate::` (`crate::a::b`, `crate::{a, b::c}`) or with
/// `super::` climbing to the crate root (`super::super::a` at depth 2), outside comments.
/// A `super::` after an inline `mod x {` (a file's unit tests) starts one level deeper.
fn imports(text: &str, depth: usize) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let inline_module = code
        .lines()
        .scan(0usize, |at, line| {
            let start = *at;
            *at += line.len() + 1;
            Some((start, line))
        })
        .find(|(_, line)| {
            let line = line.trim_start();
            line.starts_with("mod ") && line.trim_end().ends_with('{')
        })
        .map_or(usize::MAX, |(start, _)| start);
    let word = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    let mut paths: Vec<&str> = code
        .match_indices("crate::")
        // `mcp_bridge_protocol::` and the like end in `crate::` too: not this crate.
        .filter(|(at, _)| {
            !code[..*at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .map(|(at, _)| &code[at + 7..])
        .collect();
    for (at, _) in code.match_indices("super::") {
        let preceded = code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
        if preceded {
            continue; // the second `super::` of `super::super::`, counted with the first
        }
        let mut rest = &code[at..];
        let mut climbs = 0;
        while let Some(after) = rest.strip_prefix("super::") {
            climbs += 1;
            rest = after;
        }
        let depth = depth + usize::from(at > inline_module);
        if climbs >= depth {
            paths.push(rest);
        }
    }
    for rest in paths {
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::{c, d}}`: the first word of each top-level item.
            let (mut depth, mut item_start) = (0usize, 0usize);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.insert(word(&group[item_start..i]));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(word(&group[item_start..i]));
                        item_start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(word(rest));
        }
    }
    out.retain(|m| !m.is_empty() && m != "self");
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in sources(&src) {
        let path = module_path(&src, &file);
        let module = path[0].clone();
        // The crate root and the binary join the modules; they are not one of them.
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let edges = graph.entry(module.clone()).or_default();
        edges.extend(
            imports(&text, path.len())
                .into_iter()
                .filter(|m| *m != module),
        );
    }
    // Items of the crate root (`crate::VERSION`, `crate::app`) are not modules.
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for edges in graph.values_mut() {
        edges.retain(|m| modules.contains(m));
    }
    graph
}

/// The first cycle in `graph`, as the modules on it.
fn first_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if done.contains(m) {
            return None;
        }
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut cycle = path[at..].to_vec();
            cycle.push(m.to_owned());
            return Some(cycle);
        }
        path.push(m.to_owned());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(m.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_two_modules_import_each_other_in_a_cycle() {
    let graph = graph();
    assert!(
        graph.contains_key("config") && graph.contains_key("routes"),
        "the modules were not found: {graph:?}"
    );
    if let Some(cycle) = first_cycle(&graph) {
        let edges: Vec<String> = graph
            .iter()
            .map(|(m, uses)| {
                format!(
                    "{m} → {}",
                    uses.iter().cloned().collect::<Vec<_>>().join(", ")
                )
            })
            .collect();
        panic!(
            "import cycle: {}\nall imports:\n{}",
            cycle.join(" → "),
            edges.join("\n")
        );
    }
}

#[test]
fn the_reader_sees_grouped_imports_and_finds_a_cycle() {
    let uses = imports(
        "use crate::{error::X, servers::{a, b}};\nuse crate::state::S;\n// crate::nope\n",
        1,
    );
    assert_eq!(
        uses,
        BTreeSet::from(["error".into(), "servers".into(), "state".into()])
    );
    // `super::` that climbs to the root names a module; one that stays inside does not.
    let nested =
        "use super::prompts::x;\nuse super::super::error::E;\nuse mcp_bridge_protocol::x;\n";
    assert_eq!(imports(nested, 2), BTreeSet::from(["error".into()]));
    assert_eq!(
        imports("use super::state::S;\n", 1),
        BTreeSet::from(["state".into()])
    );
    // Unit tests are read too, one level deeper.
    let tested = "fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::calls::C;\n    use crate::trace::T;\n}\n";
    assert_eq!(
        imports(tested, 1),
        BTreeSet::from(["calls".into(), "trace".into()])
    );
    let graph = BTreeMap::from([
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]);
    assert_eq!(
        first_cycle(&graph),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
}
