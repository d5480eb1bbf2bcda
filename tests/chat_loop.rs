//! The chat loop's decisions, run natively over an in-memory host: what runs, when, how
//! often, what the AI and the user are told. The browser path is covered end to end in
//! `tests/e2e`.
// Native only: the in-memory host runs on a local executor; the browser edge has its own
// tests (`tests/web_client.rs`, `tests/e2e`).
#![cfg(not(target_arch = "wasm32"))]

mod chat_loop {
    pub mod world;

    mod app_views;
    mod at_most_once;
    mod call_log;
    mod cancel_and_poll;
    mod consent_by_site;
    mod delivery;
    mod held;
    mod pages;
    mod pairing;
    mod policies;
    mod progress_and_questions;
    mod prompts_menu;
    mod queue;
    mod resources;
    mod rounds;
    mod settle;
    mod sites;
    mod store;
    mod trust;
    mod worker_and_pages;
}
