//! Config mistakes stop start-up with one clear error naming the file, the line and the key
//! (real binary): numbers out of bounds, a misspelt or missing `mcpServers`, a config that is
//! not an object, a server name used twice.

mod common;

use common::run_to_exit;

fn assert_config_error(code: Option<i32>, stderr: &str, path: &std::path::Path, wants: &[&str]) {
    assert_eq!(code, Some(2), "a config error exits with 2: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains(&path.display().to_string()),
        "names the file: {stderr}"
    );
    for want in wants {
        assert!(stderr.contains(want), "`{want}` missing: {stderr}");
    }
}

#[test]
fn numbers_out_of_bounds_are_refused_by_name() {
    for value in ["18446744073709551615", "0", "100000", "-5", "1e40"] {
        let (code, _, stderr, path) = run_to_exit(
            &format!(
                "{{\"mcpServers\": {{\n  \"a\": {{\"command\": \"x\", \"max_concurrent_calls\": {value}}}\n}}}}"
            ),
            &[],
        );
        assert_config_error(code, &stderr, &path, &["max_concurrent_calls"]);
    }
    for (key, value) in [("timeout", "1e300"), ("call_timeout", "-1")] {
        let (code, _, stderr, path) = run_to_exit(
            &format!("{{\"mcpServers\": {{\"a\": {{\"command\": \"x\", \"{key}\": {value}}}}}}}"),
            &[],
        );
        assert_config_error(code, &stderr, &path, &[key]);
    }
}

#[test]
fn a_misspelt_key_names_file_line_key_and_the_right_spelling() {
    let (code, _, stderr, path) = run_to_exit(
        "{\n  \"mcpservers\": {\n    \"a\": {\"command\": \"x\"}\n  }\n}\n",
        &[],
    );
    assert_config_error(
        code,
        &stderr,
        &path,
        &["line 2", "`mcpservers`", "did you mean `mcpServers`"],
    );
    let (code, _, stderr, path) = run_to_exit(
        "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",\n    \"max_concurent_calls\": 4}\n}}\n",
        &[],
    );
    assert_config_error(
        code,
        &stderr,
        &path,
        &[
            "line 3",
            "mcpServers.a.max_concurent_calls",
            "did you mean `max_concurrent_calls`",
        ],
    );
}

#[test]
fn a_config_that_is_not_an_object_is_an_error() {
    let (code, _, stderr, path) = run_to_exit("\n[]\n", &[]);
    assert_config_error(code, &stderr, &path, &["line 2", "mcpServers", "an array"]);
}

#[test]
fn a_server_name_used_twice_names_both_lines() {
    let (code, _, stderr, path) = run_to_exit(
        "{\"mcpServers\": {\n  \"time\": {\"command\": \"x\"},\n  \"other\": {\"command\": \"y\"},\n  \"time\": {\"command\": \"z\"}\n}}\n",
        &[],
    );
    assert_config_error(code, &stderr, &path, &["`time`", "lines 2 and 4"]);
}

/// A server name with control characters is refused naming the field, and no config error
/// (naming a server or a key) writes a raw line break or escape sequence to the terminal: it
/// cannot forge a line or drive the terminal.
#[test]
fn control_characters_in_names_are_refused_and_never_reach_the_terminal() {
    let forged = "a\u{1b}[31m\nmcp-bridge: FORGED";
    let name = serde_json::to_string(forged).unwrap();
    for config in [
        format!("{{\"mcpServers\": {{{name}: {{\"command\": \"x\"}}}}}}"),
        // No `mcpServers`: the error names the key that stands in its place.
        format!(
            "{{{}: {{}}}}",
            serde_json::to_string(&format!("mcpServer{forged}")).unwrap()
        ),
    ] {
        let (code, _, stderr, path) = run_to_exit(&config, &[]);
        assert_config_error(code, &stderr, &path, &[]);
        let line = stderr.trim_end();
        assert!(
            !line.contains('\n') && !line.contains('\u{1b}'),
            "a raw control character reached the terminal: {stderr:?}"
        );
        assert!(
            line.contains("\\u{1b}[31m\\nmcp-bridge: FORGED"),
            "{stderr:?}"
        );
    }
    let (_, _, stderr, _) = run_to_exit(
        &format!("{{\"mcpServers\": {{{name}: {{\"command\": \"x\"}}}}}}"),
        &[],
    );
    assert!(
        stderr.contains("a server name must not contain control characters"),
        "{stderr}"
    );
}
