//! Chat-site configurations (`extension/sites/*.json` and the user's custom sites): parsing,
//! validation with messages that name the bad field, and matching a page's host.

use crate::domain::field_error::{FieldError, Invalid};
use serde::{Deserialize, Serialize};

/// The site's chat input as its config names it; the element found decides how to type
/// into it (`typing::Typing`), this only for an element no editor library marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditorKind {
    Textarea,
    Prosemirror,
    Lexical,
    Quill,
    Contenteditable,
}

/// CSS selector chains, most stable first; the content script uses the first that matches.
/// Every chain may be empty (a site turned on with no selectors written): the page's parts
/// are then found by what they are, not by a selector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Selectors {
    #[serde(default)]
    pub input: Vec<String>,
    #[serde(default)]
    pub send: Vec<String>,
    #[serde(default)]
    pub assistant_message: Vec<String>,
    #[serde(default)]
    pub generating: Vec<String>,
    #[serde(default)]
    pub message_area: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SiteConfig {
    pub id: String,
    pub name: String,
    pub hosts: Vec<String>,
    pub editor: EditorKind,
    #[serde(default)]
    pub selectors: Selectors,
    /// How long the newest message must stay unchanged before it counts as finished.
    #[serde(default = "default_stable_ms")]
    pub stable_ms: u32,
    /// The site's input takes a pasted image as an attachment, so the float offers to
    /// attach a tool's images to it. Absent: no.
    #[serde(default)]
    pub image_paste: bool,
}

/// The content script's files in the order they load, as `manifest.json` lists them for
/// the built-in sites; a site the user adds gets the same (rooted: Firefox resolves these
/// paths against the calling page, so from the options page plain names pointed at files
/// that do not exist).
pub const CONTENT_SCRIPTS: [&str; 9] = [
    "/contract.js",
    "/content/base.js",
    "/content/detect.js",
    "/content/observe.js",
    "/content/typing.js",
    "/content/forms.js",
    "/content/float.js",
    "/content/place.js",
    "/content/main.js",
];

/// More selectors than this in one chain is a mistake (each is tried in turn on every check).
pub const MAX_CHAIN: usize = 20;

fn default_stable_ms() -> u32 {
    500
}

/// A config that failed validation: the field path and what is wrong with it.
pub type SiteError = FieldError;

impl SiteConfig {
    /// Parses and validates one config from its JSON text.
    pub fn parse(json: &str) -> Result<SiteConfig, SiteError> {
        let cfg: SiteConfig =
            crate::domain::json_read::from_str(json).map_err(|(field, message)| {
                // An error about the config as a whole (bad JSON, a missing field).
                let field = if field.is_empty() {
                    "config".into()
                } else {
                    field
                };
                FieldError::new(field, Invalid::Quoted(message))
            })?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn validate(&self) -> Result<(), SiteError> {
        let bad = |field: &str, problem: Invalid| Err(FieldError::new(field, problem));
        if self.id.is_empty()
            || !self
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return bad(
                "id",
                Invalid::BadId {
                    id: self.id.clone(),
                },
            );
        }
        if self.hosts.is_empty() {
            return bad("hosts", Invalid::NoHosts);
        }
        for (i, h) in self.hosts.iter().enumerate() {
            if !is_host_name(h) {
                return bad(
                    &format!("hosts[{i}]"),
                    Invalid::NotAHost { host: h.clone() },
                );
            }
        }
        let s = &self.selectors;
        for (name, chain) in [
            ("selectors.input", &s.input),
            ("selectors.send", &s.send),
            ("selectors.assistantMessage", &s.assistant_message),
            ("selectors.generating", &s.generating),
            ("selectors.messageArea", &s.message_area),
        ] {
            if chain.len() > MAX_CHAIN {
                let got = chain.len() as u64;
                let max = MAX_CHAIN as u64;
                return bad(name, Invalid::OutOfRange { min: 0, max, got });
            }
            for (i, sel) in chain.iter().enumerate() {
                if let Err(why) = check_selector(sel) {
                    return bad(&format!("{name}[{i}]"), why);
                }
            }
        }
        if !(100..=10_000).contains(&self.stable_ms) {
            let got = u64::from(self.stable_ms);
            return bad(
                "stableMs",
                Invalid::OutOfRange {
                    min: 100,
                    max: 10_000,
                    got,
                },
            );
        }
        Ok(())
    }

    pub fn matches_host(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(&host))
    }
}

/// Why a config that claims `host` cannot be used: `raw` is its JSON text. `None` when the
/// config is valid or does not name the host (so the page simply has no config).
pub fn problem_for_host(raw: &str, host: &str) -> Option<SiteError> {
    let err = SiteConfig::parse(raw).err()?;
    let value: serde_json::Value = serde_json::from_str(raw).ok()?;
    let claims = value
        .get("hosts")?
        .as_array()?
        .iter()
        .any(|h| h.as_str().is_some_and(|h| h.eq_ignore_ascii_case(host)));
    claims.then_some(err)
}

/// Finds the config for `host` among `configs` (the first that lists it).
pub fn for_host<'a>(configs: &'a [SiteConfig], host: &str) -> Option<&'a SiteConfig> {
    configs.iter().find(|c| c.matches_host(host))
}

/// The lower-cased host of a URL (no credentials, port, path).
pub fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority
        .rsplit_once('@')
        .map(|(_, h)| h)
        .unwrap_or(authority);
    host.split(':').next().unwrap_or("").to_ascii_lowercase()
}

fn is_host_name(h: &str) -> bool {
    !h.is_empty()
        && h.len() <= 253
        && h.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !label.starts_with('-')
        })
}

/// A cheap sanity check; the content script still guards `querySelector` with try/catch.
fn check_selector(sel: &str) -> Result<(), Invalid> {
    if sel.trim().is_empty() {
        return Err(Invalid::EmptySelector);
    }
    if sel.len() > 500 {
        return Err(Invalid::LongSelector);
    }
    let mut depth: Vec<char> = Vec::new();
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in sel.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth.push(c),
            (None, ')') if depth.pop() != Some('(') => {
                let selector = sel.into();
                return Err(Invalid::Unbalanced {
                    bracket: ')',
                    selector,
                });
            }
            (None, ']') if depth.pop() != Some('[') => {
                let selector = sel.into();
                return Err(Invalid::Unbalanced {
                    bracket: ']',
                    selector,
                });
            }
            _ => {}
        }
    }
    if quote.is_some() || !depth.is_empty() {
        return Err(Invalid::Unclosed {
            selector: sel.into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"id":"demo","name":"Demo","hosts":["chat.example.com"],"editor":"textarea",
      "selectors":{"input":["textarea#chat"],"send":["button[type=\"submit\"]"],
      "assistantMessage":[".msg:not(.user)"],"generating":[".stop"],"messageArea":["main"]}}"#;

    #[test]
    fn hosts_are_read_from_urls() {
        assert_eq!(
            host_of("https://Chat.DeepSeek.com/a/chat?x=1"),
            "chat.deepseek.com"
        );
        assert_eq!(host_of("http://u:p@t3.chat:8443/#x"), "t3.chat");
        assert_eq!(host_of("https://grok.com"), "grok.com");
    }

    #[test]
    fn a_good_config_parses_with_defaults() {
        let c = SiteConfig::parse(GOOD).unwrap();
        assert_eq!(c.stable_ms, 500);
        assert!(!c.image_paste, "no image paste unless a config says so");
        let pastes = GOOD.replacen('{', r#"{"imagePaste":true,"#, 1);
        assert!(SiteConfig::parse(&pastes).unwrap().image_paste);
        assert!(c.matches_host("CHAT.example.com"));
        assert!(!c.matches_host("example.com"));
    }

    #[test]
    fn every_shipped_config_is_valid_and_hosts_are_unique() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/extension/sites");
        let index: Vec<String> =
            serde_json::from_str(&std::fs::read_to_string(format!("{dir}/index.json")).unwrap())
                .unwrap();
        let mut hosts = std::collections::BTreeSet::new();
        for file in &index {
            let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
            let cfg = SiteConfig::parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
            // Each shipped site says whether its input takes pasted images.
            assert!(text.contains("\"imagePaste\""), "{file}: no imagePaste");
            for h in cfg.hosts {
                assert!(hosts.insert(h.clone()), "{h} listed twice");
            }
        }
        assert!(index.len() >= 16, "only {} site configs", index.len());
        // The manifest injects the content script exactly on the configured hosts.
        let manifest: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/manifest.json"))
                .unwrap(),
        )
        .unwrap();
        let matches: std::collections::BTreeSet<String> = manifest["content_scripts"][0]["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let m = m.as_str().unwrap();
                m.trim_start_matches("https://")
                    .trim_end_matches("/*")
                    .to_string()
            })
            .collect();
        assert_eq!(matches, hosts);
    }

    #[test]
    fn a_site_without_selectors_is_accepted() {
        let bare =
            r#"{"id":"any","name":"Any","hosts":["chat.example.org"],"editor":"contenteditable"}"#;
        let c = SiteConfig::parse(bare).unwrap();
        assert_eq!(c.selectors, Selectors::default());
        let empty = GOOD.replace(r#"["textarea#chat"]"#, "[]");
        assert!(
            SiteConfig::parse(&empty)
                .unwrap()
                .selectors
                .input
                .is_empty()
        );
    }

    #[test]
    fn a_broken_config_is_reported_for_the_hosts_it_claims() {
        let broken = GOOD.replace(r#""editor":"textarea""#, r#""editor":"word""#);
        let e = problem_for_host(&broken, "chat.example.com").unwrap();
        assert_eq!(e.field, "editor");
        assert!(problem_for_host(&broken, "other.example.com").is_none());
        assert!(problem_for_host(GOOD, "chat.example.com").is_none());
        assert!(problem_for_host("{not json", "chat.example.com").is_none());
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (GOOD.replace(r#""id":"demo""#, r#""id":"de mo""#), "id"),
            (
                GOOD.replace(r#"["chat.example.com"]"#, r#"["https://x.com/"]"#),
                "hosts[0]",
            ),
            (
                GOOD.replace(r#""editor":"textarea""#, r#""editor":"word""#),
                "editor",
            ),
            (
                GOOD.replace(r#"["textarea#chat"]"#, &format!("{:?}", vec!["a"; 21])),
                "selectors.input",
            ),
            (
                GOOD.replace(r#"[".stop"]"#, r#"["div[data-x"]"#),
                "selectors.generating[0]",
            ),
            (GOOD.replace(r#""hosts""#, r#""hostz""#), "hostz"),
            (
                GOOD.replacen('{', r#"{"imagePaste":"yes","#, 1),
                "imagePaste",
            ),
            ("{not json".to_string(), "config"),
        ];
        for (json, field) in cases {
            let e = SiteConfig::parse(&json).unwrap_err();
            assert_eq!(e.field, field, "{e}");
        }
    }
}
