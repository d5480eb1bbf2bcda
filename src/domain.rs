//! Pure logic: parsing tool calls, classifying outcomes, masking secrets, rendering reports,
//! the per-tab state machine, settings and site configs, the message contract. No I/O and
//! no clock: everything here is a function of its inputs, tested natively.

pub mod bridge_api;
pub mod call_activity;
pub mod call_log;
pub mod classify;
pub mod custom_sites;
pub mod detect;
pub mod error_log;
pub mod failure_reason;
pub mod field_error;
pub mod float;
pub mod hash;
pub mod i18n;
pub mod instructions;
pub mod json_read;
pub mod messages;
pub mod options_views;
pub mod outcome;
pub mod picker;
pub mod policy;
pub mod prompts_menu;
pub mod proof;
pub mod read_resource;
pub mod redact;
pub mod report;
pub mod servers;
pub mod settings;
pub mod setup;
pub mod site_list;
pub mod sites;
pub mod status;
pub mod tab_events;
pub mod tab_state;
pub mod toolcall;
pub mod typing;
pub mod views;
