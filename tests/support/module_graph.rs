//! Reads a crate's module imports from its source, for the tests that hold its shape (the
//! core's `tests/layers.rs`, the bridge's `server/tests/module_cycles.rs`). Every file is read
//! whole, unit tests included; the paths it names outside comments — `crate::` paths and
//! `super::` paths, resolved from where they stand — are the modules it imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
pub fn sources(dir: &Path) -> Vec<PathBuf> {
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
pub fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect()
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths a `use`-like tail names: `a::b::c` is one, `a::{b, c::{d, e}}` is `a::b`,
/// `a::c::d` and `a::c::e`. Reading stops at the first character of no path.
fn paths_in(tail: &str) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut rest = tail;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            return group_items(group)
                .into_iter()
                .flat_map(paths_in)
                .map(|p| prefix.iter().cloned().chain(p).collect())
                .collect();
        }
        let word: String = rest.chars().take_while(|c| is_word(*c)).collect();
        if !word.is_empty() {
            prefix.push(word.clone());
            rest = &rest[word.len()..];
        }
        if let Some(after) = rest.strip_prefix("::") {
            rest = after;
            continue;
        }
        return vec![prefix];
    }
}

/// The top-level items of a `{…}` group (the text after its `{`).
fn group_items(group: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0usize, 0usize, Vec::new());
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(group[start..i].trim_start());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(group[start..i].trim_start());
                start = i + 1;
            }
            _ => {}
        }
    }
    items
}

/// The absolute module paths a file whose own module path is `path` names with `crate::`
/// or `super::`, outside comments. A `super::` after an inline `mod x {` (a file's unit
/// tests) starts one level deeper. `self` and the path's own module are left out.
pub fn imports(text: &str, path: &[String]) -> BTreeSet<Vec<String>> {
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
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        // `mcp_bridge_protocol::` and the like end in `crate::` too: not this crate.
        if code[..at].chars().next_back().is_some_and(is_word) {
            continue;
        }
        out.extend(paths_in(&code[at + 7..]));
    }
    for (at, _) in code.match_indices("super::") {
        if code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| is_word(c) || c == ':')
        {
            continue; // the second `super::` of `super::super::`, counted with the first
        }
        let mut here: Vec<String> = path.to_vec();
        if at > inline_module {
            here.push("tests".into());
        }
        let mut rest = &code[at..];
        while let Some(after) = rest.strip_prefix("super::") {
            here.pop();
            rest = after;
        }
        for p in paths_in(rest) {
            out.insert(here.iter().cloned().chain(p).collect());
        }
    }
    out.retain(|p| !p.is_empty() && p.iter().all(|w| w != "self"));
    out
}

/// The first cycle in `graph`, as the modules on it (the first one again at its end).
pub fn first_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
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

/// Fails naming the first cycle in `graph`, with every module's imports.
pub fn assert_no_cycle(graph: &BTreeMap<String, BTreeSet<String>>) {
    if let Some(cycle) = first_cycle(graph) {
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
fn the_reader_resolves_grouped_crate_and_super_paths() {
    let p = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let file = p("domain::report::text");
    let uses = imports(
        "use crate::{error::X, servers::{a, b::c}};\nuse crate::state::S;\n// crate::nope\nuse mcp_bridge_protocol::x;\nuse super::catalog::Y;\nuse super::super::super::runtime::Z;\n",
        &file,
    );
    assert_eq!(
        uses,
        BTreeSet::from([
            p("error::X"),
            p("servers::a"),
            p("servers::b::c"),
            p("state::S"),
            p("domain::report::catalog::Y"),
            p("runtime::Z"),
        ])
    );
    // Unit tests are read too, one level deeper: `super::*` is the file's own module.
    let tested = "fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::calls::C;\n}\n";
    assert_eq!(
        imports(tested, &p("routes")),
        BTreeSet::from([p("routes"), p("calls::C")])
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
