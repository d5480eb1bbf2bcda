//! The checks a JSON parser cannot make on the config text: its top level, duplicate keys,
//! misspelt keys, and the line each key is on.

use std::path::Path;

use mcp_bridge_protocol::server_def;

use super::ConfigError;

/// The keys a server entry may have (the protocol's definition schema).
fn server_keys() -> Vec<&'static str> {
    server_def::key_names().collect()
}

/// One key of a JSON object and the line it is on.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct KeyAt {
    pub(super) key: String,
    pub(super) line: usize,
}

/// Every object in `text` (valid JSON): its path of keys from the root, and its keys with their
/// lines, duplicates included (a JSON parser keeps only the last of a duplicate).
pub(super) fn object_keys(text: &str) -> Vec<(Vec<String>, Vec<KeyAt>)> {
    enum Frame {
        Object {
            path: Vec<String>,
            keys: Vec<KeyAt>,
            expect_key: bool,
        },
        Array {
            path: Vec<String>,
            index: usize,
        },
    }
    let child_path = |stack: &[Frame]| match stack.last() {
        None => Vec::new(),
        Some(Frame::Object { path, keys, .. }) => {
            let mut path = path.clone();
            path.push(keys.last().map(|k| k.key.clone()).unwrap_or_default());
            path
        }
        Some(Frame::Array { path, index }) => {
            let mut path = path.clone();
            path.push(index.to_string());
            path
        }
    };
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut objects = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'"' => {
                let mut end = i + 1;
                while end < bytes.len() && bytes[end] != b'"' {
                    end += if bytes[end] == b'\\' { 2 } else { 1 };
                }
                let end = end.min(bytes.len() - 1);
                if let Some(Frame::Object {
                    keys, expect_key, ..
                }) = stack.last_mut()
                    && *expect_key
                {
                    let key = serde_json::from_str::<String>(&text[i..=end])
                        .unwrap_or_else(|_| text[i + 1..end].to_owned());
                    keys.push(KeyAt { key, line });
                    *expect_key = false;
                }
                i = end;
            }
            b'{' => {
                let path = child_path(&stack);
                stack.push(Frame::Object {
                    path,
                    keys: Vec::new(),
                    expect_key: true,
                });
            }
            b'[' => {
                let path = child_path(&stack);
                stack.push(Frame::Array { path, index: 0 });
            }
            b'}' | b']' => {
                if let Some(Frame::Object { path, keys, .. }) = stack.pop() {
                    objects.push((path, keys));
                }
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                Some(Frame::Array { index, .. }) => *index += 1,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    objects
}

/// Whether `given` looks like a misspelling of `known` (case, `_`/`-` and small typos).
fn close_to(given: &str, known: &str) -> bool {
    let normalize = |s: &str| s.to_ascii_lowercase().replace(['_', '-', ' '], "");
    let (a, b) = (normalize(given), normalize(known));
    a == b || strsim::jaro_winkler(&a, &b) >= 0.9 || strsim::damerau_levenshtein(&a, &b) <= 2
}

/// The checks a JSON parser cannot make: the top level is an object, no key appears twice
/// (a duplicate server name would silently replace the first), and a misspelt key is an error
/// with "did you mean" rather than silently ignored.
pub(super) fn check_keys(text: &str, path: &Path) -> Result<(), ConfigError> {
    let fail = |key: String, line: usize, message: String| ConfigError::Key {
        path: path.to_owned(),
        key,
        message,
        line,
    };
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') {
        let line = text[..text.len() - trimmed.len()].matches('\n').count() + 1;
        let found = match trimmed.chars().next() {
            Some('[') => "an array",
            Some('"') => "a string",
            _ => "not an object",
        };
        return Err(fail(
            "(top level)".to_owned(),
            line,
            format!(
                "the config must be a JSON object with the key `mcpServers`, like {{\"mcpServers\": {{\"time\": {{\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}}}}}}, but it is {found}"
            ),
        ));
    }
    let objects = object_keys(text);
    for (object_path, keys) in &objects {
        for (index, first) in keys.iter().enumerate() {
            if let Some(second) = keys[index + 1..].iter().find(|k| k.key == first.key) {
                let mut full = object_path.clone();
                full.push(first.key.clone());
                let what = if object_path.len() == 1 && object_path[0] == "mcpServers" {
                    format!(
                        "server name `{}` is used twice, on lines {} and {}; a JSON object keeps only the last, so rename or remove one",
                        first.key, first.line, second.line
                    )
                } else {
                    format!(
                        "key `{}` appears twice, on lines {} and {}; remove one",
                        first.key, first.line, second.line
                    )
                };
                return Err(fail(full.join("."), second.line, what));
            }
        }
    }
    let did_you_mean = |given: &str, known: &[&str]| {
        known
            .iter()
            .filter(|k| close_to(given, k))
            .max_by(|a, b| {
                strsim::jaro_winkler(given, a).total_cmp(&strsim::jaro_winkler(given, b))
            })
            .map(|k| (*k).to_owned())
    };
    for (object_path, keys) in &objects {
        match object_path.as_slice() {
            [] => {
                let has_servers = keys.iter().any(|k| k.key == "mcpServers");
                for key in keys.iter().filter(|k| k.key != "mcpServers") {
                    if let Some(known) = did_you_mean(&key.key, &["mcpServers"]) {
                        return Err(fail(
                            key.key.clone(),
                            key.line,
                            format!(
                                "unknown key; did you mean `{known}`? (keys are case-sensitive)"
                            ),
                        ));
                    }
                    if !has_servers {
                        return Err(fail(
                            key.key.clone(),
                            key.line,
                            "unknown key, and there is no `mcpServers`: the servers go in {\"mcpServers\": {…}}".to_owned(),
                        ));
                    }
                }
            }
            [servers, name] if servers == "mcpServers" => {
                let known_keys = server_keys();
                for key in keys
                    .iter()
                    .filter(|k| !known_keys.contains(&k.key.as_str()))
                {
                    let full = format!("mcpServers.{name}.{}", key.key);
                    match did_you_mean(&key.key, &known_keys) {
                        Some(known) => {
                            return Err(fail(
                                full,
                                key.line,
                                format!("unknown key; did you mean `{known}`?"),
                            ));
                        }
                        // Other clients' own keys (`autoApprove`, …) are harmless.
                        None => tracing::warn!(
                            config = %path.display(),
                            line = key.line,
                            key = %full,
                            "unknown key ignored"
                        ),
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::parse;
    use std::path::Path;

    fn parse_ok(text: &str) {
        parse(text, Path::new("mcp-config.json")).unwrap();
    }

    #[test]
    fn wrong_shapes_and_misspelt_keys_are_errors() {
        let err = parse("[]", Path::new("c.json")).unwrap_err().to_string();
        assert!(
            err.contains("c.json") && err.contains("line 1") && err.contains("mcpServers"),
            "{err}"
        );
        let err = parse("{\n \"mcpservers\": {}\n}", Path::new("c.json"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 2")
                && err.contains("`mcpservers`")
                && err.contains("did you mean `mcpServers`"),
            "{err}"
        );
        let err = parse(
            "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"max_concurent_calls\": 2}}}",
            Path::new("c.json"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("line 2") && err.contains("did you mean `max_concurrent_calls`"),
            "{err}"
        );
        // Keys of other clients are ignored, other top-level keys too.
        parse_ok(
            r#"{"globalShortcut": "x", "mcpServers": {"a": {"command": "x", "autoApprove": []}}}"#,
        );
    }

    #[test]
    fn duplicate_server_names_name_both_lines() {
        let err = parse(
            "{\"mcpServers\": {\n \"a\": {\"command\": \"x\"},\n \"b\": {\"command\": \"y\", \"args\": [\"{\\\"a\\\"\"]},\n \"a\": {\"command\": \"z\"}\n}}",
            Path::new("c.json"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("lines 2 and 4") && err.contains("`a`"),
            "{err}"
        );
    }
}
