//! The structural finder over candidate lists recorded from the redesigned fixture pages
//! (`tests/golden/detect/*.json`: what the content script gathered on each, in Chromium, after
//! the user sent one message and the AI answered it). The choice must name the page's chat
//! input, a send control, and a path that finds the answer and never the user's message.
#![cfg(not(target_arch = "wasm32"))]

use mcp_bridge_core::domain::detect::{Candidate, Scene, choose};

fn scenes() -> Vec<(String, Scene)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/detect");
    let mut out: Vec<(String, Scene)> = std::fs::read_dir(dir)
        .expect("recorded scenes")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, Scene::from_value(&value))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(out.len(), 5, "one scene per editor kind");
    out
}

/// The entries of the list the path leads to: (the user's?, matched?) per entry that holds text.
fn walk(
    list: &Candidate,
    path: &[mcp_bridge_core::domain::detect::Signature],
) -> Vec<(bool, bool)> {
    let mut seen = Vec::new();
    for kid in list.kids.iter().filter(|k| k.text_len > 0) {
        match path {
            [outer] => seen.push((kid.has_sent, outer.matches(kid))),
            [outer, inner] => {
                for g in kid.kids.iter().filter(|g| g.text_len > 0) {
                    seen.push((g.has_sent, outer.matches(kid) && inner.matches(g)));
                }
            }
            _ => panic!("paths are one or two steps"),
        }
    }
    seen
}

#[test]
fn every_redesigned_page_has_its_parts_found() {
    for (name, scene) in scenes() {
        let choice = choose(&scene);
        let at = choice.input.unwrap_or_else(|| panic!("{name}: no input")) as usize;
        let composer = &scene.composers[at];
        assert!(composer.input.editable && composer.input.visible, "{name}");
        let send = choice
            .send
            .unwrap_or_else(|| panic!("{name}: no send control")) as usize;
        assert!(composer.buttons[send].visible, "{name}");
        let list =
            &composer.lists[choice.list.unwrap_or_else(|| panic!("{name}: no list")) as usize];
        let path = choice
            .answers
            .unwrap_or_else(|| panic!("{name}: no answers"));
        let seen = walk(list, &path);
        assert!(
            seen.iter().any(|(user, hit)| !user && *hit),
            "{name}: the answer is not found: {seen:?}"
        );
        assert!(
            !seen.iter().any(|(user, hit)| *user && *hit),
            "{name}: the user's message is taken for an answer"
        );
        assert_eq!(
            seen.iter().filter(|(_, hit)| *hit).count(),
            1,
            "{name}: one answer on the page: {seen:?}"
        );
    }
}

#[test]
fn without_the_sent_message_only_pages_that_say_whose_entries_are_claimed() {
    // A page opened with a conversation already on it: nothing was sent from this page yet.
    for (name, mut scene) in scenes() {
        fn forget(c: &mut Candidate) {
            c.has_sent = false;
            c.kids.iter_mut().for_each(forget);
        }
        for composer in &mut scene.composers {
            composer.lists.iter_mut().for_each(forget);
        }
        let choice = choose(&scene);
        let Some(path) = choice.answers else {
            continue; // not claimed: found once the user sends a message
        };
        // Claimed only from what the entries themselves say; then it must still be right.
        let composer = &scene.composers[choice.input.unwrap() as usize];
        let list = &composer.lists[choice.list.unwrap() as usize];
        let texts: Vec<_> = walk(list, &path);
        assert_eq!(
            texts.iter().filter(|(_, hit)| *hit).count(),
            1,
            "{name}: {texts:?}"
        );
    }
}
