//! Property tests of the masker: idempotent on any text, removes every planted secret,
//! and stays linear on inputs built to make a naive scanner backtrack.
#![cfg(not(target_arch = "wasm32"))]

use mcp_bridge_core::domain::redact::redact;
use proptest::prelude::*;

/// A secret embedded in text, and the part of it that must not survive.
fn secret() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        "[A-Za-z0-9]{24,40}".prop_map(|b| (format!("sk-{b}"), b)),
        "[A-Za-z0-9]{24,40}".prop_map(|b| (format!("sk-ant-api03-{b}"), b)),
        "[A-Za-z0-9]{36}".prop_map(|b| (format!("ghp_{b}"), b)),
        "[A-Za-z0-9_]{40,60}".prop_map(|b| (format!("github_pat_{b}"), b)),
        "[0-9]{10}-[A-Za-z0-9]{12,24}".prop_map(|b| (format!("xoxb-{b}"), b)),
        "[A-Z0-9]{16}".prop_map(|b| (format!("AKIA{b}"), b)),
        "[A-Za-z0-9_-]{35}".prop_map(|b| (format!("AIza{b}"), b)),
        "[A-Za-z0-9]{24,32}".prop_map(|b| (format!("sk_live_{b}"), b)),
        "[A-Za-z0-9]{34}".prop_map(|b| (format!("hf_{b}"), b)),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("password=9{b}"), format!("9{b}"))),
        "[A-Za-z0-9 ]{6,20}".prop_map(|b| (format!("\"password\": \"9{b}\""), format!("9{b}"))),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("API_KEY=9{b}"), format!("9{b}"))),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("client_secret: 9{b}"), format!("9{b}"))),
        "[A-Za-z0-9._-]{20,40}"
            .prop_map(|b| (format!("Authorization: Bearer 9{b}"), format!("9{b}"))),
        "[A-Za-z0-9+/]{12,40}"
            .prop_map(|b| (format!("Authorization: Basic 9{b}"), format!("9{b}"))),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("password: 9{b}"), format!("9{b}"))),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("passphrase=9{b}"), format!("9{b}"))),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("cookie=9{b}"), format!("9{b}"))),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("aws_access_key_id=9{b}"), format!("9{b}"))),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("secret_key=9{b}"), format!("9{b}"))),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("密码：9{b}"), format!("9{b}"))),
        "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("令牌=9{b}"), format!("9{b}"))),
        // A bare token as a URL's user (the bridge's own token is 64 hex digits).
        "[0-9a-f]{64}".prop_map(|b| (format!("https://{b}@github.com/me/repo.git"), b)),
        "[A-Za-z0-9]{8,20}".prop_map(|b| (
            format!("postgres://admin:9{b}@db.example.com:5432/app"),
            format!("9{b}")
        )),
        "[A-Za-z0-9]{8,20}".prop_map(|b| (
            format!("mongodb+srv://u:9{b}@cluster0.example.net/db"),
            format!("9{b}")
        )),
        (
            "[A-Za-z0-9_-]{12,30}",
            "[A-Za-z0-9_-]{12,30}",
            "[A-Za-z0-9_-]{20,43}"
        )
            .prop_map(|(a, b, c)| (format!("eyJ{a}.eyJ{b}.{c}"), format!("{b}.{c}"))),
        "[A-Za-z0-9+/]{64}".prop_map(|b| (
            format!("-----BEGIN PRIVATE KEY-----\n{b}\n-----END PRIVATE KEY-----"),
            b
        )),
        "[a-z]{6,12}".prop_map(|n| (format!("/home/{n}/project/main.py"), format!("/home/{n}"))),
        "[a-z]{6,12}".prop_map(|n| (
            format!("C:\\Users\\{n}\\AppData\\x.py"),
            format!("Users\\{n}")
        )),
        (0u8..=255, 0u8..=255, 1u8..=254).prop_map(|(a, b, c)| {
            let ip = format!("10.{a}.{b}.{c}");
            (ip.clone(), ip)
        }),
        (16u8..=31, 0u8..=255, 1u8..=254).prop_map(|(a, b, c)| {
            let ip = format!("172.{a}.{b}.{c}");
            (ip.clone(), ip)
        }),
        (0u8..=255, 1u8..=254).prop_map(|(a, b)| {
            let ip = format!("192.168.{a}.{b}");
            (ip.clone(), ip)
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn idempotent_on_any_text(s in any::<String>()) {
        let once = redact(&s).into_owned();
        prop_assert_eq!(redact(&once).into_owned(), once);
    }

    #[test]
    fn idempotent_on_secret_like_text(s in "[a-zA-Z0-9:/@=._\\- \n\"'\\[\\]{}]{0,200}") {
        let once = redact(&s).into_owned();
        prop_assert_eq!(redact(&once).into_owned(), once);
    }

    #[test]
    fn planted_secrets_are_removed(
        before in any::<String>(),
        (planted, must_go) in secret(),
        after in any::<String>(),
    ) {
        let text = format!("{before} {planted} {after}");
        let out = redact(&text).into_owned();
        prop_assert!(!out.contains(&must_go), "{:?} survived in {:?}", must_go, out);
        prop_assert!(out.contains("[REDACTED:") || out.contains('~'));
        prop_assert_eq!(redact(&out).into_owned(), out.clone());
    }

    /// Every shape of the shared list (`secrets::examples`, built from its provider prefixes,
    /// PEM kinds and schemes), planted anywhere in any text, is removed.
    #[test]
    fn every_listed_shape_is_removed(
        before in any::<String>(),
        body in "[A-Za-z0-9]{8,40}",
        after in any::<String>(),
    ) {
        for (planted, must_go) in mcp_bridge_protocol::secrets::examples(&body) {
            let text = format!("{before} {planted} {after}");
            let out = redact(&text).into_owned();
            prop_assert!(!out.contains(&must_go), "{:?} survived in {:?}", must_go, out);
            prop_assert!(out.contains("[REDACTED:"));
            prop_assert_eq!(redact(&out).into_owned(), out.clone());
        }
    }

    #[test]
    fn clean_text_is_untouched(s in "[a-z ,;()\n]{0,300}") {
        prop_assert_eq!(redact(&s).into_owned(), s);
    }
}

/// Inputs that would make a backtracking matcher quadratic or worse (`./build.sh bench`
/// prints how fast each is masked).
#[test]
fn adversarial_inputs_finish_and_mask_to_a_fixed_point() {
    let unit = 200_000;
    let inputs = [
        "-----BEGIN ".repeat(unit / 10),
        "-----BEGIN PRIVATE KEY-----".repeat(unit / 20),
        "://".repeat(unit),
        "://a:b".repeat(unit / 4),
        "eyJaaaaaaaaaaaa.".repeat(unit / 10),
        "password=".repeat(unit / 8),
        "password:\"".repeat(unit / 8),
        "Bearer ".repeat(unit / 6),
        "Authorization: ".repeat(unit / 10),
        "/home/".repeat(unit / 5),
        "C:\\Users\\".repeat(unit / 8),
        "10.10.10.".repeat(unit / 8),
        "fd00:".repeat(unit / 4),
        "a".repeat(unit * 5),
        "SG.".repeat(unit / 2),
        "sk-".repeat(unit / 2),
    ];
    // Each finishes (the benchmark prints how fast) and masking it again changes nothing.
    for input in &inputs {
        let once = redact(input).into_owned();
        assert_eq!(
            redact(&once),
            once,
            "{} bytes of {:?}…",
            input.len(),
            &input[..20]
        );
    }
}
