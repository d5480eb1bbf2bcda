//! Every sentence the core writes for the user or the AI, one catalog per language:
//! `i18n/en.rs` and `i18n/zh.rs` each fill the same [`Catalog`], so a
//! key that exists in one language only does not compile. Templates name their values (`{tool}`), filled by
//! [`fill`]; the tests below keep the two languages' placeholders in step and each
//! language free of the other's script. The labels of the extension's own screens (options,
//! popup, the float's controls) are [`labels`], tables the screens ask the core for.

mod en;
pub mod labels;
mod zh;

use serde::{Deserialize, Serialize};

/// The language of what the core writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Lang {
    #[default]
    Zh,
    En,
}

impl Lang {
    /// `"en"`, `"en-US"` → English; anything else → Chinese.
    pub fn parse(s: &str) -> Lang {
        if s.trim().to_ascii_lowercase().starts_with("en") {
            Lang::En
        } else {
            Lang::Zh
        }
    }

    /// The browser's UI language (`zh-CN`, `en-US` …): Chinese for `zh*`, English otherwise.
    pub fn of_ui(ui_language: &str) -> Lang {
        if ui_language.to_ascii_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// The language tag a page formats dates and numbers in (`Date.toLocaleString`), so
    /// they read in the language the user chose rather than the browser's.
    pub fn locale(self) -> &'static str {
        match self {
            Lang::Zh => "zh-CN",
            Lang::En => "en",
        }
    }

    /// The catalog of this language.
    pub fn says(self) -> &'static Catalog {
        match self {
            Lang::Zh => &zh::ZH,
            Lang::En => &en::EN,
        }
    }
}

/// Declares a catalog's keys once; each language file fills all of them.
macro_rules! catalog {
    (
        $(#[$sdoc:meta])* $name:ident;
        $($(#[$doc:meta])* $key:ident,)*
    ) => {
        $(#[$sdoc])*
        ///
        /// Placeholders are `{name}`, filled with [`fill`].
        pub struct $name {
            $($(#[$doc])* pub $key: &'static str,)*
        }

        impl $name {
            /// Every entry with its key (for the tests that keep the languages in step).
            pub fn entries(&self) -> Vec<(&'static str, &'static str)> {
                vec![$((stringify!($key), self.$key),)*]
            }
        }
    };
}

catalog! {
    /// One language's sentences: the reports the AI reads, the float, the instructions,
    /// the options page, the error log and the float's menus.
    Catalog;
    // -- reports: the text typed into the chat for the AI --
    /// The reports' one-line headings: MCP Bridge, the tool and what happened, so a person
    /// who sees the text under their own name in the chat knows whose it is.
    report_failure_title,
    /// The heading of the report for a tool the user does not allow.
    report_denied_title,
    report_success_title,
    report_malformed_title,
    label_error,
    label_trace_id,
    cut_marker,
    empty_result,
    /// Before a fenced result: `{fence}`, its boundary line.
    fence_note,
    success_closing,
    note_tool_denied,
    json_invalid,
    kind_float,
    kind_bool,
    kind_string,
    kind_object,
    kind_array,
    // -- the float's titles, the malformed-call and tool-list reports --
    float_failure_title,
    /// The float's title when the user's policy kept a tool from running.
    float_denied_title,
    float_success_title,
    float_masked,
    float_malformed_title,
    malformed_body,
    tools_title,
    tools_description,
    params_label,
    no_params,
    required_mark,
    no_tools,
    tools_closing,
    /// The float's line under a tool list.
    tool_count,
    // -- how a result's non-text items are named in a report --
    content_image,
    content_audio,
    /// Before a result's structured content, when it comes next to text.
    structured_content,
    /// `{mime}` is `, type` or empty.
    content_resource,
    /// `{name}` is `name ` or empty.
    content_link,
    // -- large results, read page by page --
    /// `{call}` is the `read_result` call that reads on.
    page_more,
    page_not_kept,
    page_last,
    page_progress,
    // -- the instructions that teach the AI its tools --
    /// The call format and its rules; it holds one example call.
    instructions_intro,
    /// The line typed beside the instructions attached as a file (`{file}`).
    instructions_attached,
    /// Two-step discovery, before the list of services: the `list_tools_in_service` call.
    instructions_discover,
    /// Before the services listed with their tools (required parameters in parentheses).
    instructions_listed,
    /// A service whose tools cannot be listed now (not running).
    instructions_tools_unknown,
    instructions_no_services,
    instructions_others,
    /// A service's own instructions: `{service}`, `{text}`.
    instructions_notes,
    /// How to read a resource (`read_resource`); `{services}` are those that offer some.
    instructions_resources,
    /// The servers' tools changed since the AI got its instructions: `{servers}`.
    tools_changed,
    // -- the float in the chat page --
    /// A running call's progress: `{amount}` is `3 / 12` or `3`.
    float_progress,
    /// The title of a server's question: `{server}`.
    float_question,
    /// A server asked (URL mode) to open an address that is not an absolute `http`/`https` URL.
    float_url_refused,
    /// The bridge refused the user's answer to a question: `{why}`.
    float_answer_refused,
    /// A field of a server's question needs a number: `{field}` (its title or name), `{value}`
    /// (what the user typed).
    float_answer_not_number,
    /// A field of a server's question needs a whole number: `{field}`, `{value}`.
    float_answer_not_integer,
    /// A field of a server's question needs yes or no: `{field}`, `{value}`.
    float_answer_not_boolean,
    confirm_policy,
    confirm_manual,
    confirm_round_cap,
    confirm_ambiguous,
    confirm_unreadable,
    confirm_first_use,
    /// The conversation read untrusted content: `{tool}` (marked `like this`).
    confirm_untrusted,
    /// A read-only claim of a server the user does not trust: `{server}`.
    confirm_not_trusted,
    // -- the float: one sentence for the user, in the interface language; names and
    // commands marked `like this` --
    /// `{site}`.
    ui_ready,
    ui_off,
    /// `{tool}`.
    ui_running,
    /// The consent question: `{site}`, `{tool}`.
    ui_ask,
    /// The consent question naming the server: `{site}`, `{tool}`, `{server}`.
    ui_ask_on,
    ui_no_args,
    ui_done,
    ui_denied,
    ui_failed,
    ui_malformed,
    /// The report did not reach the chat: `{why}`.
    ui_not_delivered,
    /// A call waits for the bridge: `{tool}`, `{why}` (one of the setup sentences).
    ui_held,
    /// Followed by the command that starts the bridge.
    ui_not_running,
    ui_wrong_address,
    ui_token_missing,
    ui_token_rejected,
    ui_refused,
    /// `{reason}`; followed by the command the helper suggests.
    ui_helper_failed,
    /// A remote server needs the user to sign in (again): `{server}`.
    ui_sign_in,
    /// Between the items of a list of names.
    list_sep,
    ui_allow_once,
    /// Trust the call's server from the consent question: `{server}`.
    ui_trust_server,
    ui_always_allow,
    ui_everywhere,
    ui_deny,
    ui_skip,
    ui_cancel,
    ui_tell_ai,
    ui_drop,
    ui_open_settings,
    ui_insert_instructions,
    ui_copy_report,
    // -- the connection status (options header, popup, float) --
    status_not_running,
    status_wrong_address,
    status_token_missing,
    status_token_rejected,
    /// `{version}` of the bridge; `{servers}` and `{tools}` are counts.
    status_connected,
    /// `{names}`: the servers that did not start.
    status_failed,
    /// The two ways to connect, when the extension could not pair by itself.
    status_two_ways,
    /// The native host answered but could not give the bridge: `{reason}`, `{command}`.
    status_host_failed,
    page_no_site,
    page_broken_config,
    typing_failed,
    sending_failed,
    token_empty,
    token_spaces,
    invalid_not_http,
    invalid_not_this_computer,
    invalid_not_a_port,
    invalid_has_path,
    invalid_out_of_range,
    invalid_bad_id,
    invalid_no_hosts,
    invalid_not_a_host,
    invalid_no_selector,
    invalid_empty_selector,
    invalid_long_selector,
    invalid_unbalanced,
    invalid_unclosed,
    invalid_no_config,
    invalid_builtin_id,
    invalid_host_of_builtin,
    invalid_host_of_custom,
    invalid_too_many_sites,
    invalid_no_such_category,
    // -- managing the bridge's MCP servers --
    invalid_server_name,
    invalid_no_command,
    /// `{kind}` is one of the `kind_*` words.
    invalid_must_be,
    invalid_unknown_transport,
    invalid_remote_url,
    // -- the options page as a dashboard: counts, policies, server editing, connection --
    /// `{n}` servers or tools, in each language's plural rule.
    count_servers_one,
    count_servers_many,
    count_tools_one,
    count_tools_many,
    /// `{key}` is not a definition key; `{known}` is the closest one.
    invalid_unknown_key,
    /// `{value}` is a template's example value still in the definition.
    invalid_placeholder,
    // -- a failure's report --
    label_category,
    label_stack,
    label_advice,
    failure_closing,
    /// `{code}` is the category's code (`validation`), shown as it is in every language.
    category_validation,
    category_runtime,
    category_logical,
    category_aborted,
    category_exception,
    category_unavailable,
    category_limit,
    retryable_yes,
    retryable_no,
    /// The placeholder for a service name the AI must fill in.
    service_placeholder,
    advice_check_schema,
    advice_required_args,
    advice_arg_types,
    advice_fix_listed_args,
    advice_ask_user,
    advice_list_tools,
    advice_check_server_name,
    advice_list_paths,
    advice_check_permission,
    advice_retry_later,
    advice_check_url,
    advice_check_query,
    advice_read_tool_message,
    advice_verify_state,
    advice_narrow_request,
    advice_user_stopped,
    advice_try_other_tool,
    advice_tell_user,
    advice_start_bridge,
    advice_check_server_config,
    advice_check_token,
    advice_stop_retrying,
    advice_reset_history,
    advice_bridge_refused,
    advice_update_bridge,
    advice_result_read,
    advice_run_tool_again,
    // -- what the core says where a failure has no words of its own --
    note_empty_body,
    note_truncated_json,
    note_not_json,
    note_bad_shape,
    note_still_running,
    note_unreachable,
    note_timed_out,
    note_user_aborted,
    note_empty_tool_error,
    note_no_message,
    // -- our bridge's own failures, from the facts it sends --
    bridge_none,
    bridge_token_missing,
    bridge_token_wrong,
    bridge_refused_origin,
    bridge_refused_host,
    bridge_refused_ambiguous,
    bridge_refused_no_auth,
    bridge_too_large,
    bridge_no_server,
    bridge_no_tool,
    bridge_no_tool_on_server,
    /// One of the closest names when the AI named no server.
    bridge_tool_on,
    /// ` Closest names: …` (leading space in languages that need it).
    bridge_closest,
    bridge_service_tools,
    bridge_service_not_running,
    bridge_call_limit,
    bridge_timed_out,
    bridge_crashed,
    bridge_shutting_down,
    bridge_cancelled_by_user,
    bridge_no_call,
    bridge_no_result,
    bridge_result_expired,
    bridge_result_evicted,
    bridge_past_end,
    validation_header,
    arg_required,
    arg_unexpected,
    json_invalid_at,
    kind_int,
    kind_date,
    kind_datetime,
    expected_one_of,
    arg_expected_got,
    arg_plain,
    // -- the Prompts menu and the tool lists' changes (prompts_menu) --
    /// Before a prompt's message of the user, when the prompt holds the assistant's too.
    prompt_user,
    /// Before a prompt's message of the assistant.
    prompt_assistant,
    /// After an attached resource the bridge paged: `{left}` characters were not attached.
    resource_cut,
    /// The float after a prompt or a resource went into the chat input: `{name}`.
    menu_typed,
    /// A required field of the menu's form is empty: `{field}`.
    menu_missing,
    /// The bridge or the server refused the prompt or the resource: `{why}`.
    menu_refused,
    /// The chat input did not take the text: `{why}`.
    menu_not_typed,
    /// The options page's row for the `read_resource` pseudo-tool of a server with resources.
    read_resources_row,
    // -- the options page --
    reply_empty_body,
    not_running,
    not_a_bridge_health,
    token_refused,
    request_refused,
    not_a_bridge_answer,
    bridge_answered,
    hidden_refusal,
    history_reset,
    settings_not_object,
    not_a_setting,
    not_server_tool,
    site_not_granted,
    no_custom_site,
    /// `{id}`: a picked override was saved for this site.
    picked_saved,
    /// The picker's result could not be saved: `{why}`.
    /// The float's title when the picker's result was refused.
    picked_not_saved,
    /// A form field the options page refused, under the label the form shows it with.
    field_problem,
    /// A refused field the form shows without a label of its own.
    field_problem_bare,
    /// The page at `{url}` cannot have a site (not http/https).
    site_no_address,
    /// Site lists: `{why}` the list could not be fetched.
    list_fetch_failed,
    /// `{max}` KB.
    list_too_large,
    list_not_a_list,
    list_no_key,
    list_no_crypto,
    list_bad_signature,
    /// `{got}` fetched, `{have}` in force.
    list_older,
    list_invalid,
    list_not_subscribed,
    list_bad_url,
    policy_on_site,
    policy_set_by_you,
    policy_read_only,
    policy_not_trusted,
    policy_may_change,
    /// What let a call in the call log run.
    call_by_user,
    call_by_policy,
    call_by_default,
    call_by_exemption,
    /// A view's message typed into the chat input, and a link a view offered (in the call log).
    call_by_view_message,
    call_by_view_link,
    status_running,
    status_starting,
    status_crashed,
    status_unavailable,
    status_stopped,
    status_unknown,
    status_disabled,
    status_not_loaded,
    // -- a remote server's sign-in (the Servers section) --
    sign_in_not_needed,
    /// `{until}`: when the access token expires (RFC 3339, UTC).
    sign_in_signed_in_until,
    sign_in_signed_in,
    /// `{reason}`: the bridge's words.
    sign_in_needed,
    /// `{reason}`: the bridge's words.
    sign_in_failed,
    /// Said before the sign-in page opens when it is on another origin than the server's
    /// authorization server: `{server}`, the page's `{origin}`, the authorization server's
    /// `{issuer}`.
    sign_in_elsewhere,
    /// The variables of the bridge's environment a server entry reads: `{names}`.
    reads_env,
    /// Said on the row of a server whose name has characters that look like others or do not
    /// show (the bridge's `name_warning`): `{escaped}`, the name with those written as escapes.
    name_warning,
    /// `{said}` is the bridge's own words, quoted.
    server_refused,
    server_unknown,
    config_file_invalid,
    servers_unsupported,
    policy_word_allow,
    policy_word_ask,
    policy_word_deny,
    /// The choice that removes the user's policy: `{policy}` is what the tool's default is.
    policy_default_choice,
    /// What a tool's annotations say about it.
    ann_read_only,
    ann_destructive,
    ann_idempotent,
    ann_open_world,
    /// The first server of the user's own was added: the demo server leaves.
    server_added_demo_aside,
    server_added,
    server_saved,
    /// Shown in the editor of a new server while the demo server is the only one.
    server_demo_notice,
    /// The same, where the bridge can keep the demo server (the editor offers it).
    server_demo_keepable,
    /// The first server was added and the demo server kept: `{server}`, `{demo}` its name.
    server_added_demo_kept,
    /// `{program}` is not on this computer; `{how}` says how to get it.
    program_missing,
    install_uvx,
    install_npx,
    install_other,
    /// A connection test that worked: `{version}`, `{servers}` (a count), `{running}`.
    connection_ok,
    /// The two ways to connect, said on the options page itself: `{command}` starts the bridge.
    status_two_ways_here,
    /// The connection was saved: `{summary}` is what the test found.
    saved_connected,
    /// Saved, but the test failed: `{why}`.
    saved_not_connected,
    /// A tool's parameters in one line: each `param_item` (`{name}`, `{required}` the mark of
    /// a required one, `{kind}` its type) joined by `list_sep`, wrapped by `params_wrap`.
    param_item,
    params_wrap,
    /// The error log's categories, in the page's words (the report has its own, for the AI).
    log_validation,
    log_runtime,
    log_logical,
    log_aborted,
    log_exception,
    log_unavailable,
    log_limit,
    // -- the float after a call: why it failed, a blocked tool, a kept denial --
    /// A tool the bridge's failure counter refuses: `{tool}`.
    ui_blocked,
    /// After a refusal by the user's saved *Deny*.
    ui_denied_kept,
    /// One short line of why a call failed: `{why}`.
    ui_why,
    /// The reasons said in the person's words, by the failure's category.
    ui_reason_validation,
    ui_reason_aborted,
    ui_reason_unavailable,
    ui_reason_exception,
    /// The tool's own words, quoted: `{said}`.
    ui_reason_said,
    ui_reset_tool,
    ui_ask_next_time,
    /// After *Reset*: `{tool}`.
    ui_reset_done,
    /// After *Ask me next time*: `{tool}`.
    ui_ask_done,
    // -- MCP App views: the float, and the refusals a view is answered with --
    /// After a view's message was typed into the chat input: `{tool}`.
    view_wrote,
    /// `{tool}`, `{why}`.
    view_failed,
    /// The view did not open the conversation in time.
    view_silent,
    /// `{tool}`: not a tool of the view's server, or one for the model only.
    view_not_its_tool,
    /// `{tool}`: the user's policy denies it.
    view_denied,
    /// `{tool}`: its policy asks, and the float already asks about another call.
    view_asks,
    /// `{tool}`: said first in the float's question about a view's call.
    view_asks_you,
    /// `{tool}`: the user answered a view's call with *Deny* or *Skip*.
    view_skipped,
    view_rounds,
    view_gone,
    view_link_refused,
    view_no_text,
}

/// `n` with the word it counts (`servers`, `tools`) in the plural rule of `lang`: English
/// has one form for 1 and another for the rest; Chinese has one form.
pub fn count(
    lang: Lang,
    n: u64,
    one: fn(&Catalog) -> &'static str,
    many: fn(&Catalog) -> &'static str,
) -> String {
    let says = lang.says();
    let template = if n == 1 { one(says) } else { many(says) };
    fill(template, &[("n", &n.to_string())])
}

/// `n` servers, as [`count`] says it.
pub fn count_servers(lang: Lang, n: u64) -> String {
    count(lang, n, |c| c.count_servers_one, |c| c.count_servers_many)
}

/// `n` tools, as [`count`] says it.
pub fn count_tools(lang: Lang, n: u64) -> String {
    count(lang, n, |c| c.count_tools_one, |c| c.count_tools_many)
}

/// `template` with each `{name}` of `args` replaced by its value, in one pass (a value that
/// itself holds `{name}` stays as it is). Unknown `{…}` are left alone: templates quote JSON.
pub fn fill(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            let (_, v) = args.iter().find(|(k, _)| *k == name)?;
            Some((v, close))
        });
        match value {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `{name}` placeholders of a template, sorted.
    fn placeholders(t: &str) -> Vec<&str> {
        let mut names: Vec<&str> = t
            .split('{')
            .skip(1)
            .filter_map(|s| s.split_once('}').map(|(n, _)| n))
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Every entry of `lang`.
    fn entries(lang: Lang) -> Vec<(&'static str, &'static str)> {
        lang.says().entries()
    }

    #[test]
    fn both_languages_fill_every_key_with_the_same_placeholders() {
        let (en, zh) = (entries(Lang::En), entries(Lang::Zh));
        assert_eq!(en.len(), zh.len());
        for ((key, e), (_, z)) in en.iter().zip(&zh) {
            assert!(
                !e.trim().is_empty() && !z.trim().is_empty(),
                "{key} is empty"
            );
            assert_eq!(
                placeholders(e),
                placeholders(z),
                "{key}: placeholders differ"
            );
        }
    }

    #[test]
    fn english_has_no_chinese_and_chinese_no_english_sentences() {
        for (key, e) in entries(Lang::En) {
            assert!(
                !e.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "en {key}: {e}"
            );
        }
        for (key, z) in entries(Lang::Zh) {
            // Code, names and examples may be Latin; prose may not: no run of three plain
            // English words outside backticks and braces.
            let mut prose = String::new();
            let mut depth = 0;
            for c in z.chars() {
                match c {
                    '`' | '{' | '"' if depth == 0 => depth = 1,
                    '`' | '}' | '"' => depth = 0,
                    _ if depth == 0 => prose.push(c),
                    _ => {}
                }
            }
            let words: Vec<&str> = prose
                .split(|c: char| !c.is_ascii_alphabetic())
                .filter(|w| w.len() > 1)
                .collect();
            let english_run = words.windows(3).any(|w| {
                w.iter().all(|w| w.chars().all(|c| c.is_ascii_lowercase()))
                    && prose.contains(&w.join(" "))
            });
            assert!(!english_run, "zh {key} reads as English: {z}");
        }
    }

    #[test]
    fn the_chinese_names_the_bridge_one_way_everywhere() {
        // The core's catalog and the pages' catalog both say 桥接服务; a second word for the
        // same program reads as a second program.
        let pages = include_str!("i18n/labels/zh.json");
        for (key, z) in entries(Lang::Zh) {
            assert!(!z.contains("桥接程序"), "zh {key}: {z}");
        }
        assert!(!pages.contains("桥接程序"));
    }

    #[test]
    fn fill_replaces_named_values_once_and_leaves_json_alone() {
        assert_eq!(
            fill("Tool {tool} failed", &[("tool", "x")]),
            "Tool x failed"
        );
        assert_eq!(
            fill("{\"service_name\": \"{server}\"}", &[("server", "time")]),
            "{\"service_name\": \"time\"}"
        );
        assert_eq!(fill("{a}{b}", &[("a", "{b}"), ("b", "2")]), "{b}2");
        assert_eq!(fill("open { and {unknown}", &[]), "open { and {unknown}");
    }

    #[test]
    fn counts_follow_each_languages_plural_rule() {
        assert_eq!(count_servers(Lang::En, 1), "1 server");
        assert_eq!(count_servers(Lang::En, 0), "0 servers");
        assert_eq!(count_tools(Lang::En, 2), "2 tools");
        assert_eq!(count_tools(Lang::En, 1), "1 tool");
        assert_eq!(count_servers(Lang::Zh, 1), "1 个服务");
        assert_eq!(count_tools(Lang::Zh, 3), "3 个工具");
    }

    #[test]
    fn languages_parse_from_settings_and_the_browser() {
        assert_eq!(Lang::parse("en-US"), Lang::En);
        assert_eq!(Lang::parse("zh"), Lang::Zh);
        assert_eq!(Lang::of_ui("zh-CN"), Lang::Zh);
        assert_eq!(Lang::of_ui("de-DE"), Lang::En);
    }
}
