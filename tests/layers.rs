//! The core's shape, checked: `domain` (pure) never reaches the runtime or the browser,
//! `runtime` never reaches the browser, and no two modules of the core import each other in
//! a cycle. Read from the source, every file whole (unit tests included), `crate::` and
//! `super::` paths alike, so a new import that breaks the layering fails here.
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/module_graph.rs"]
mod module_graph;

use module_graph::{assert_no_cycle, imports, module_path, sources};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module of the core as `layer::module` (`domain::report` for `src/domain/report/text.rs`),
/// or the layer itself for its own file.
fn module_of(path: &[String]) -> String {
    path.iter().take(2).cloned().collect::<Vec<_>>().join("::")
}

/// Each module of the core with the modules it imports (`layer::module`, or the layer for an
/// item of the layer's own file).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files: Vec<(Vec<String>, String)> = sources(&src)
        .into_iter()
        .map(|f| (module_path(&src, &f), std::fs::read_to_string(&f).unwrap()))
        .collect();
    let modules: BTreeSet<String> = files.iter().map(|(p, _)| module_of(p)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in &files {
        let module = module_of(path);
        if module == "lib" {
            continue; // the crate root joins the layers; it is none of them
        }
        let uses: BTreeSet<String> = imports(text, path)
            .into_iter()
            .map(|p| {
                let named = module_of(&p);
                if modules.contains(&named) {
                    named
                } else {
                    p[0].clone()
                }
            })
            .filter(|m| *m != module && modules.contains(m) && m != "lib")
            .collect();
        graph.entry(module).or_default().extend(uses);
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
    assert!(
        graph.contains_key("runtime::chat") && graph.contains_key("domain::report"),
        "the modules were not found: {graph:?}"
    );
    assert_no_cycle(&graph);
}
