//! One `mcpServers` entry, the server definition both the bridge's config file and the options
//! page's editor hold: its keys with the kind of value each takes, which transport it names,
//! and whether it is enabled. The bridge validates the file with these; the core checks an
//! entry with them before sending it.

use serde_json::Value;

/// The kind of value a key takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    /// A list of strings.
    TextList,
    /// An object of string values.
    TextMap,
    /// A list whose items the bridge checks itself (`roots`: addresses or `{uri, name}`).
    List,
    Bool,
    /// A number (seconds or a count; the bridge checks the range).
    Number,
}

impl Kind {
    /// The JSON kind a value of this key must be: `string`, `array`, `object`, `bool`, `number`.
    pub(crate) fn json_kind(self) -> &'static str {
        match self {
            Kind::Text => "string",
            Kind::TextList => "array",
            Kind::TextMap => "object",
            Kind::List => "array",
            Kind::Bool => "bool",
            Kind::Number => "number",
        }
    }

    fn fits(self, value: &Value) -> bool {
        match self {
            Kind::Text => value.is_string(),
            Kind::TextList => value.is_array(),
            Kind::TextMap => value.is_object(),
            Kind::List => value.is_array(),
            Kind::Bool => value.is_boolean(),
            Kind::Number => value.is_number(),
        }
    }
}

/// Every key an entry may have, with its kind.
pub(crate) const KEYS: [(&str, Kind); 25] = [
    ("type", Kind::Text),
    ("command", Kind::Text),
    ("args", Kind::TextList),
    ("env", Kind::TextMap),
    ("cwd", Kind::Text),
    ("enabled", Kind::Bool),
    // Cline's spelling of `enabled: false`.
    ("disabled", Kind::Bool),
    ("description", Kind::Text),
    ("is_core", Kind::Bool),
    // Start-up timeout in seconds.
    ("timeout", Kind::Number),
    ("call_timeout", Kind::Number),
    ("max_concurrent_calls", Kind::Number),
    ("url", Kind::Text),
    ("headers", Kind::TextMap),
    // A remote server's extra CA certificates (a PEM file), for a private deployment.
    ("ca_file", Kind::Text),
    // Signing in to a remote server (OAuth): a client id registered beforehand (else the
    // bridge registers itself), the environment variable holding its secret (never the secret
    // itself), and the scopes to ask for.
    ("client_id", Kind::Text),
    ("client_secret_env", Kind::Text),
    ("scopes", Kind::TextList),
    // How the bridge signs in: `grant` (`authorization_code`, the default, in the browser;
    // `client_credentials` or `cross_app_access`, by the bridge alone) and what that grant
    // needs, its secrets by environment variable or file, never inline.
    ("sign_in", Kind::TextMap),
    // The bridge's Client ID Metadata Document (its HTTPS address), used as its client id
    // where the authorization server takes one; `""` registers instead.
    ("client_metadata_url", Kind::Text),
    // Beyond tools: the server's instructions for the AI, the roots `roots/list` answers, the
    // longest a call may run while it reports progress, and how long a question waits.
    ("instructions", Kind::Text),
    ("roots", Kind::List),
    ("max_call_time", Kind::Number),
    ("answer_timeout", Kind::Number),
    // The newest MCP revision spoken with the server (`"2025-11-25"`), for one that does not
    // work with a newer one it claims.
    ("protocol_version", Kind::Text),
];

/// The names of [`KEYS`].
pub fn key_names() -> impl Iterator<Item = &'static str> {
    KEYS.iter().map(|(name, _)| *name)
}

/// Whether `given` reads as a misspelling of `known`: the same once case, `_`, `-` and blanks
/// are ignored, or at most two edits apart, or very alike (Jaro-Winkler ≥ 0.9).
pub(crate) fn close_to(given: &str, known: &str) -> bool {
    let normalize = |s: &str| s.to_ascii_lowercase().replace(['_', '-', ' '], "");
    let (a, b) = (normalize(given), normalize(known));
    a == b || strsim::jaro_winkler(&a, &b) >= 0.9 || strsim::damerau_levenshtein(&a, &b) <= 2
}

/// The first key of an entry that is not a definition key but reads as a misspelling of
/// one, with that key (the closest, if several are). Keys close to none are other clients'
/// own (`autoApprove`, …) and pass.
pub fn misspelt_key(entry: &serde_json::Map<String, Value>) -> Option<(String, &'static str)> {
    entry
        .keys()
        .filter(|k| !key_names().any(|known| known == k.as_str()))
        .find_map(|given| {
            key_names()
                .filter(|known| close_to(given, known))
                .max_by(|a, b| {
                    strsim::jaro_winkler(given, a).total_cmp(&strsim::jaro_winkler(given, b))
                })
                .map(|known| (given.clone(), known))
        })
}

/// The first value of the wrong kind in an entry: the dotted path of the field (`args[2]`,
/// `env.HOME`) and the kind it must be.
pub fn wrong_kind(entry: &serde_json::Map<String, Value>) -> Option<(String, &'static str)> {
    for (key, kind) in KEYS {
        let Some(value) = entry.get(key) else {
            continue;
        };
        if !kind.fits(value) {
            return Some((key.to_owned(), kind.json_kind()));
        }
        let bad = match (kind, value) {
            (Kind::TextList, Value::Array(items)) => items
                .iter()
                .position(|v| !v.is_string())
                .map(|i| format!("{key}[{i}]")),
            (Kind::TextMap, Value::Object(map)) => map
                .iter()
                .find(|(_, v)| !v.is_string())
                .map(|(name, _)| format!("{key}.{name}")),
            _ => None,
        };
        if let Some(path) = bad {
            return Some((path, "string"));
        }
    }
    None
}

/// How the bridge reaches a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// A local program on stdin/stdout (`command`).
    Stdio,
    /// A remote server over Streamable HTTP (`url`).
    StreamableHttp,
    /// A remote server over the older HTTP+SSE transport (`url`).
    Sse,
}

impl TransportKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::StreamableHttp => "streamable-http",
            TransportKind::Sse => "sse",
        }
    }

    pub fn is_remote(self) -> bool {
        self != TransportKind::Stdio
    }

    /// The transport an entry names with `type` (any case, the spellings other clients use);
    /// without `type`, a `url` and no `command` is a remote server. `Err` holds an unknown
    /// `type`, trimmed.
    pub fn of(kind: Option<&str>, has_command: bool, has_url: bool) -> Result<Self, String> {
        let kind = kind.map(|k| k.trim().to_ascii_lowercase());
        Ok(match kind.as_deref() {
            None if !has_command && has_url => TransportKind::StreamableHttp,
            None | Some("stdio") => TransportKind::Stdio,
            Some("streamable-http" | "streamable_http" | "streamablehttp" | "http") => {
                TransportKind::StreamableHttp
            }
            Some("sse") => TransportKind::Sse,
            Some(other) => return Err(other.to_owned()),
        })
    }
}

/// Whether a remote server's `url` is one the bridge can reach (http or https).
pub fn is_web_url(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("https://")
}

/// Whether an entry is enabled (`enabled: false` or Cline's `disabled: true` turn it off).
pub fn is_enabled(entry: &Value) -> bool {
    entry.get("enabled") != Some(&Value::Bool(false))
        && entry.get("disabled") != Some(&Value::Bool(true))
}

/// How many characters of a server's name [`escaped_name`] shows.
pub(crate) const NAME_SHOWN: usize = 80;

/// A server's (or a tool's) name as both sides show an odd one: its first [`NAME_SHOWN`]
/// characters with every character but printable ASCII and the space written as its escape
/// (`\u{435}`), so that a look-alike or invisible character shows; and its length in
/// characters when it was cut (each side says that in its own words).
pub fn escaped_name(name: &str) -> (String, Option<usize>) {
    let mut out = String::new();
    for c in name.chars().take(NAME_SHOWN) {
        if c.is_ascii_graphic() || c == ' ' {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
    }
    let count = name.chars().count();
    (out, (count > NAME_SHOWN).then_some(count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wrong(entry: Value) -> Option<(String, &'static str)> {
        wrong_kind(entry.as_object().unwrap())
    }

    #[test]
    fn the_first_value_of_the_wrong_kind_is_named_by_its_path() {
        assert_eq!(wrong(json!({"command": "uvx", "args": ["a"]})), None);
        assert_eq!(
            wrong(json!({"command": 3})),
            Some(("command".into(), "string"))
        );
        assert_eq!(
            wrong(json!({"args": ["a", 2]})),
            Some(("args[1]".into(), "string"))
        );
        assert_eq!(
            wrong(json!({"env": {"A": 1}})),
            Some(("env.A".into(), "string"))
        );
        assert_eq!(
            wrong(json!({"timeout": "5"})),
            Some(("timeout".into(), "number"))
        );
        assert_eq!(
            wrong(json!({"enabled": "no"})),
            Some(("enabled".into(), "bool"))
        );
    }

    #[test]
    fn transports_by_type_or_by_what_is_given() {
        use TransportKind::*;
        assert_eq!(TransportKind::of(None, true, false), Ok(Stdio));
        assert_eq!(TransportKind::of(None, false, true), Ok(StreamableHttp));
        assert_eq!(
            TransportKind::of(Some(" HTTP "), false, true),
            Ok(StreamableHttp)
        );
        assert_eq!(TransportKind::of(Some("sse"), false, true), Ok(Sse));
        assert_eq!(
            TransportKind::of(Some("Grpc"), false, true),
            Err("grpc".into())
        );
    }

    #[test]
    fn a_misspelt_key_is_named_with_the_closest_known_one() {
        let entry = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            misspelt_key(&entry(json!({"comand": "uvx"}))),
            Some(("comand".into(), "command"))
        );
        assert_eq!(
            misspelt_key(&entry(json!({"command": "x", "Args": []}))),
            Some(("Args".into(), "args"))
        );
        assert_eq!(
            misspelt_key(&entry(json!({"command": "x", "header": {}}))),
            Some(("header".into(), "headers"))
        );
        // Another client's own key is not a misspelling of ours.
        assert_eq!(
            misspelt_key(&entry(json!({"command": "x", "autoApprove": []}))),
            None
        );
        assert_eq!(misspelt_key(&entry(json!({"command": "x"}))), None);
        // Other clients' sign-in keys are not misspellings of `sign_in` or
        // `client_metadata_url`: Cursor's `auth` object, Gemini CLI's `oauth` and provider type;
        // nor are other common keys of theirs.
        for key in [
            "auth",
            "oauth",
            "authProviderType",
            "alwaysAllow",
            "transportType",
            "includeTools",
            "excludeTools",
            "httpUrl",
            "trust",
            "path",
            "inputs",
            "metadata",
        ] {
            assert_eq!(
                misspelt_key(&entry(json!({"command": "x", key: true}))),
                None,
                "{key}"
            );
        }
    }

    #[test]
    fn disabled_either_way() {
        assert!(is_enabled(&json!({})));
        assert!(!is_enabled(&json!({"enabled": false})));
        assert!(!is_enabled(&json!({"disabled": true})));
    }
}
