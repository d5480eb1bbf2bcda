//! The secrets both sides of MCP Bridge mask, written once: the key names whose values are
//! secret (`password=…`, `"api_key": "…"`, `密码：…`), the shapes a credential has on its own
//! (PEM private keys, provider key prefixes such as `sk-…`, `AKIA…`, `ghp_…`, JWTs, the value
//! after `Bearer` or `Authorization:`, credentials in a URL), and one scanner that finds them.
//! Each side writes its own mask ([`mask`] takes a renderer): the bridge `***`, the extension's
//! core `[REDACTED:kind]`.
//!
//! Design constraints: no regex crate (the core's wasm size budget), linear time on every input
//! (each byte is examined a bounded number of times: every matcher either consumes what it
//! scanned or only looks ahead inside a region it then skips), and idempotence: a mask of
//! either side (`***`, `[REDACTED…`) never matches a rule, so masking twice changes nothing.

mod scanner;
mod tables;

use std::borrow::Cow;

use scanner::{Scanner, is_camel};
use tables::{PEM_KINDS, PREFIXES, SCHEMES, SECRET_KEYS, ZH_KEYS};

/// The core's placeholder prefix; a value that already starts with it is left alone.
const MARK: &str = "[REDACTED";
/// The bridge's mask; a value that already starts with it is left alone.
const STARS: &str = "***";

/// Which rules a scan applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Values of secret-looking keys (`password=…`, `"token": "…"`, `密码：…`). These are
    /// guesses from a name: right in an error message or a log, too eager for a tool's
    /// successful result (a `password` field a tool was asked to generate is its answer).
    pub key_values: bool,
    /// Home folders (`/home/NAME/` becomes `~/`) and private network addresses: not secrets,
    /// but nothing a third-party chat page needs to learn.
    pub privacy: bool,
}

impl Rules {
    /// Only the shapes that are credentials on their own: PEM private keys, provider key
    /// prefixes, JWTs, `Bearer`/`Authorization` values, credentials in URLs.
    pub const SHAPES: Rules = Rules {
        key_values: false,
        privacy: false,
    };
    /// [`Rules::SHAPES`] and the values of secret-looking keys.
    pub const SECRETS: Rules = Rules {
        key_values: true,
        privacy: false,
    };
    /// Everything: [`Rules::SECRETS`], home folders and private addresses.
    pub const ALL: Rules = Rules {
        key_values: true,
        privacy: true,
    };
}

/// What one match is replaced with; the renderer given to [`mask`] writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mask {
    /// A secret of this kind: `password`, `secret`, `token`, `api-key`, `private-key`, `jwt`.
    Secret(&'static str),
    /// A private network address (only with [`Rules::privacy`]).
    PrivateAddress,
    /// A home folder's path up to the user's name, with the separator after it or not.
    Home { slash: bool },
}

/// A masked text and how many secrets were masked in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction<'a> {
    /// The input itself (borrowed) when nothing was found.
    pub text: Cow<'a, str>,
    /// Secrets masked ([`Mask::Secret`] and known values); home folders and addresses are not
    /// counted.
    pub count: usize,
}

/// Masks every match of `rules` in `input`, each written by `render`.
pub fn mask<'a>(
    input: &'a str,
    rules: Rules,
    render: &mut dyn FnMut(&mut String, Mask),
) -> Redaction<'a> {
    let mut s = Scanner {
        src: input,
        b: input.as_bytes(),
        out: String::new(),
        last: 0,
        touched: false,
        rules,
        render,
        count: 0,
    };
    s.run();
    if !s.touched {
        return Redaction {
            text: Cow::Borrowed(input),
            count: 0,
        };
    }
    s.out.push_str(&input[s.last..]);
    Redaction {
        text: Cow::Owned(s.out),
        count: s.count,
    }
}

/// Shorter known values (`"1"`, `"true"`, `"UTC"`) are too common to mask without mangling
/// text.
pub const MIN_KNOWN_LEN: usize = 4;

/// Replaces every occurrence of each known secret value (a server's configured `env` values,
/// the bridge's own token) with `with`, longest first so a secret holding another is masked
/// whole. Values shorter than [`MIN_KNOWN_LEN`] are skipped.
pub fn mask_known<'a>(input: &'a str, known: &[&str], with: &str) -> Redaction<'a> {
    let mut left: Vec<&str> = known
        .iter()
        .copied()
        .filter(|secret| secret.len() >= MIN_KNOWN_LEN && *secret != with)
        .collect();
    let mut text = Cow::Borrowed(input);
    let mut count = 0;
    // The longest left each time: a handful of values, and no sort routine compiled into
    // the extension's wasm for it.
    while let Some(longest) = (0..left.len()).max_by_key(|&i| left[i].len()) {
        let secret = left.swap_remove(longest);
        let found = text.matches(secret).count();
        if found > 0 {
            count += found;
            text = Cow::Owned(text.replace(secret, with));
        }
    }
    Redaction { text, count }
}

/// Whether `name` (a JSON key, a command-line flag without its dashes, an environment
/// variable) names a secret: it is, or ends after a separator in, one of [`SECRET_KEYS`]
/// (`password`, `db_password`, `dbPassword`, `X-Api-Key`), or holds one of [`ZH_KEYS`].
pub fn is_secret_key(name: &str) -> bool {
    let w = name.as_bytes();
    SECRET_KEYS.iter().any(|(key, _)| {
        let k = key.len();
        ends_with_ci(w, key.as_bytes())
            && (w.len() == k || matches!(w[w.len() - k - 1], b'_' | b'-' | b'.') || is_camel(w, k))
    }) || ZH_KEYS.iter().any(|(key, _)| name.contains(key))
}

/// Whether `value` is already a mask of either side.
fn already_masked(value: &str) -> bool {
    value.starts_with(MARK) || value.starts_with(STARS)
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// Characters of an opaque credential (tokens, bearer values, base64, JWT parts).
fn is_cred(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'~' | b'+' | b'/' | b'=')
}

fn starts_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle)
}

fn ends_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[hay.len() - needle.len()..].eq_ignore_ascii_case(needle)
}

/// One credential of every shape the scanner knows that is a credential on its own, built from
/// [`PREFIXES`], [`PEM_KINDS`] and [`SCHEMES`] around `body` (ASCII letters and digits; it is
/// repeated to each shape's length): the text, and the part of it that must not survive
/// masking. Both sides' property tests plant these, so a shape added to a list is tested in
/// the bridge and in the extension alike.
pub fn examples(body: &str) -> Vec<(String, String)> {
    // Two different characters first: a body of one repeated character reads as a placeholder.
    let body = format!("7q{}", body.trim());
    let fill = |n: usize| -> String { body.chars().cycle().take(n.max(body.len())).collect() };
    let mut out = Vec::new();
    for (prefix, min, _) in PREFIXES {
        let mut part = fill(min + 4);
        if matches!(*prefix, "AKIA" | "ASIA") {
            part = part.to_ascii_uppercase();
        }
        out.push((format!("{prefix}{part}"), part));
    }
    for kind in PEM_KINDS {
        let part = fill(64);
        out.push((
            format!("-----BEGIN {kind}PRIVATE KEY-----\n{part}\n-----END {kind}PRIVATE KEY-----"),
            part,
        ));
    }
    for scheme in SCHEMES {
        let part = fill(24);
        out.push((format!("Authorization: {scheme} {part}"), part));
    }
    let part = fill(24);
    out.push((format!("Bearer {part}"), part));
    let (header, claims, signature) = (fill(16), fill(20), fill(43));
    out.push((
        format!("eyJ{header}.eyJ{claims}.{signature}"),
        format!("{claims}.{signature}"),
    ));
    let part = fill(40);
    out.push((format!("https://{part}@git.example.com/repo"), part));
    let part = fill(12);
    out.push((
        format!("postgres://admin:{part}@db.example.com:5432/app"),
        part,
    ));
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn stars(out: &mut String, _: Mask) {
        out.push_str("***");
    }

    fn with(rules: Rules, text: &str) -> (String, usize) {
        let masked = mask(text, rules, &mut stars);
        (masked.text.into_owned(), masked.count)
    }

    /// One example of every shape that is a credential on its own, and its secret part.
    pub(crate) const SHAPES: &[(&str, &str)] = &[
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaC1rZXktdjEAAAAA",
        ),
        ("AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
        (
            "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
            "0123456789abcdefghijklmnopqrstuvwxyzAB",
        ),
        (
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        ),
        (
            "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
            "abcdefghijklmnopqrstuvwxyz012345",
        ),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ),
        (
            "Authorization: Bearer abc123def456ghi789jkl",
            "abc123def456ghi789jkl",
        ),
        (
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "dXNlcjpwYXNzd29yZA==",
        ),
        (
            "https://0123456789abcdef0123456789abcdef@git.example.com/repo",
            "0123456789abcdef0123456789abcdef",
        ),
        ("postgres://admin:s3cr3t-pw@db:5432/app", "s3cr3t-pw"),
    ];

    /// Key-value shapes, and their secret part.
    pub(crate) const KEY_VALUES: &[(&str, &str)] = &[
        ("password=hunter2x", "hunter2x"),
        ("password: hunter2x", "hunter2x"),
        (r#""password": "hunter2x""#, "hunter2x"),
        ("passphrase=correct-horse", "correct-horse"),
        ("cookie=sessionvalue42", "sessionvalue42"),
        ("aws_access_key_id=ABCDEFGHIJ", "ABCDEFGHIJ"),
        ("aws_secret_key=wJalrXUtnFEMI", "wJalrXUtnFEMI"),
        ("client_secret=zzz-top", "zzz-top"),
        ("dbPassword=x1y2z3", "x1y2z3"),
        ("X-Api-Key: k3y-v4lue", "k3y-v4lue"),
        ("密码：abc123xyz", "abc123xyz"),
        ("令牌=tok-value-9", "tok-value-9"),
    ];

    #[test]
    fn every_shape_is_masked_by_every_rule_set() {
        for (text, secret) in SHAPES {
            for rules in [Rules::SHAPES, Rules::SECRETS, Rules::ALL] {
                let (out, count) = with(rules, text);
                assert!(!out.contains(secret), "{rules:?} left {secret} in {out}");
                assert!(count >= 1, "{text}");
            }
        }
    }

    #[test]
    fn key_values_only_with_their_rule() {
        for (text, secret) in KEY_VALUES {
            let (out, count) = with(Rules::SECRETS, text);
            assert!(!out.contains(secret), "left {secret} in {out}");
            assert_eq!(count, 1, "{text}");
            let (out, count) = with(Rules::SHAPES, text);
            assert_eq!(
                (out.as_str(), count),
                (*text, 0),
                "a name alone is no shape"
            );
        }
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "ask-me sk-short task-list",
            "a Bearer token is required",
            "https://user@example.com/x and ssh://git@github.com/x",
            "max_tokens=100 tokenizer=x password: null",
            "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "/home/alice/notes 10.0.0.5",
        ] {
            assert_eq!(with(Rules::SECRETS, text), (text.to_owned(), 0), "{text}");
        }
        // Home folders and private addresses only with the privacy rule.
        let (out, count) = with(Rules::ALL, "/home/alice/notes 10.0.0.5");
        assert_eq!(count, 0);
        assert!(!out.contains("alice") && !out.contains("10.0.0.5"), "{out}");
    }

    #[test]
    fn known_values_are_masked_longest_first() {
        let masked = mask_known("toke toke-long toke", &["toke", "toke-long"], "***");
        assert_eq!(masked.text, "*** *** ***");
        assert_eq!(masked.count, 3);
        assert_eq!(mask_known("a UTC b", &["UTC"], "***").count, 0);
    }

    #[test]
    fn key_names() {
        for name in [
            "password",
            "DB_PASSWORD",
            "dbPassword",
            "X-Api-Key",
            "api-key",
            "token",
            "secret_key",
            "passphrase",
            "cookie",
            "access_key_id",
            "用户密码",
        ] {
            assert!(is_secret_key(name), "{name}");
        }
        for name in [
            "port",
            "verbose",
            "max_tokens",
            "tokenizer",
            "author",
            "key",
            "e",
        ] {
            assert!(!is_secret_key(name), "{name}");
        }
    }

    /// Text around a secret: anything printable, ending in a separator so the secret stays a
    /// word of its own.
    fn around() -> impl Strategy<Value = String> {
        "[ -~\n中]{0,40}".prop_map(|s| s)
    }

    proptest! {
        /// Every shape, anywhere in any text, is masked, and masking again changes nothing.
        #[test]
        fn shapes_never_survive(before in around(), after in around(), which in 0..SHAPES.len()) {
            let (shape, secret) = SHAPES[which];
            let text = format!("{before} {shape}\n{after}");
            for rules in [Rules::SHAPES, Rules::SECRETS, Rules::ALL] {
                let (out, count) = with(rules, &text);
                prop_assert!(!out.contains(secret), "{:?} left {} in {:?}", rules, secret, out);
                prop_assert!(count >= 1);
                let (again, more) = with(rules, &out);
                prop_assert_eq!(&again, &out);
                prop_assert_eq!(more, 0);
            }
        }

        /// Every example built from the lists, anywhere in any text, is masked by every rule set.
        #[test]
        fn every_listed_shape_never_survives(
            before in around(),
            after in around(),
            body in "[A-Za-z0-9]{8,40}",
        ) {
            for (text, secret) in examples(&body) {
                let text = format!("{before} {text}\n{after}");
                for rules in [Rules::SHAPES, Rules::SECRETS, Rules::ALL] {
                    let (out, count) = with(rules, &text);
                    prop_assert!(!out.contains(&secret), "{:?} left {} in {:?}", rules, secret, out);
                    prop_assert!(count >= 1);
                    let (again, more) = with(rules, &out);
                    prop_assert_eq!(&again, &out);
                    prop_assert_eq!(more, 0);
                }
            }
        }

        /// Every key-value shape, anywhere in any text, is masked by the rules that name keys.
        #[test]
        fn key_values_never_survive(before in around(), after in around(), which in 0..KEY_VALUES.len()) {
            let (pair, secret) = KEY_VALUES[which];
            let text = format!("{before}\n{pair}\n{after}");
            let (out, _) = with(Rules::SECRETS, &text);
            prop_assert!(!out.contains(secret), "left {} in {:?}", secret, out);
            let (again, more) = with(Rules::SECRETS, &out);
            prop_assert_eq!(&again, &out);
            prop_assert_eq!(more, 0);
        }

        /// Any text at all: no panic, and masking is idempotent.
        #[test]
        fn any_text_is_masked_idempotently(text in "\\PC{0,200}") {
            for rules in [Rules::SHAPES, Rules::SECRETS, Rules::ALL] {
                let (out, _) = with(rules, &text);
                let (again, more) = with(rules, &out);
                prop_assert_eq!(&again, &out);
                prop_assert_eq!(more, 0);
            }
        }
    }
}
