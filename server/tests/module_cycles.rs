//! The bridge's modules form no import cycle: each top-level module of `src/` (a file with
//! its folder: `config` is `config.rs` and `config/`) is read whole, unit tests included, for
//! the modules it names outside comments — `crate::` paths, and `super::` paths that climb out
//! of it (`super::error` in `routes.rs` is `crate::error`) — and a depth-first walk fails on
//! the first cycle.

#[path = "../../tests/support/module_graph.rs"]
mod module_graph;

use module_graph::{assert_no_cycle, imports, module_path, sources};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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
            imports(&text, &path)
                .into_iter()
                .map(|p| p[0].clone())
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

#[test]
fn no_two_modules_import_each_other_in_a_cycle() {
    let graph = graph();
    assert!(
        graph.contains_key("config") && graph.contains_key("routes"),
        "the modules were not found: {graph:?}"
    );
    assert_no_cycle(&graph);
}
