//! The core's shape, checked: `domain` (pure) never reaches the runtime or the browser,
//! `runtime` never reaches the browser, and no two modules of the core import each other in
//! a cycle. Read from the source, so a new import that breaks the layering fails here.
#![cfg(not(target_arch = "wasm32"))]

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

/// The module a file belongs to, as `layer::module` (`domain::report` for
/// `src/domain/report/text.rs`), or the layer itself for its own file.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.iter().take(2).cloned().collect::<Vec<_>>().join("::")
}

/// The `layer::module` paths a file names with `crate::` (outside comments and tests).
fn imports(text: &str) -> BTreeSet<String> {
    let before_tests = text.split("#[cfg(test)]").next().unwrap_or_default();
    let code: String = before_tests
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let path: String = code[at + 7..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        match parts.as_slice() {
            [layer, module, ..] if ["domain", "runtime", "web"].contains(layer) => {
                out.insert(format!("{layer}::{module}"));
            }
            [layer, ..] => {
                out.insert(layer.to_string());
            }
            [] => {}
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in sources(&src) {
        let module = module_of(&src, &file);
        let text = std::fs::read_to_string(&file).unwrap();
        let edges = graph.entry(module.clone()).or_default();
        edges.extend(imports(&text).into_iter().filter(|m| *m != module));
    }
    graph
}

#[test]
fn each_layer_imports_only_the_ones_before_it() {
    for (module, uses) in graph() {
        let forbidden: &[&str] = if module.starts_with("domain") {
            &["runtime", "web"]
        } else if module.starts_with("runtime") {
            &["web"]
        } else {
            &[]
        };
        for u in &uses {
            assert!(
                !forbidden.iter().any(|f| u.starts_with(f)),
                "{module} imports {u}"
            );
        }
    }
}

#[test]
fn no_two_modules_import_each_other_in_a_cycle() {
    let graph = graph();
    // Depth-first search; a module met again while still on the path closes a cycle.
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if done.contains(m) {
            return;
        }
        if let Some(at) = path.iter().position(|p| p == m) {
            panic!("import cycle: {} → {m}", path[at..].join(" → "));
        }
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            visit(next, graph, path, done);
        }
        path.pop();
        done.insert(m.to_string());
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        visit(m, &graph, &mut Vec::new(), &mut done);
    }
    assert!(graph.contains_key("runtime::chat") && graph.contains_key("domain::report"));
}
