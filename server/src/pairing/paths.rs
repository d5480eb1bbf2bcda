//! Where each browser looks for a native messaging host manifest, per operating system, and
//! what the manifest says — pure functions, so every OS is tested on every OS.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The host's name: what the extension passes to `runtime.sendNativeMessage`.
pub(crate) const HOST_NAME: &str = "dev.mcp_bridge.host";

/// The Chromium extension's ID, fixed by the public `key` in the Chromium manifest
/// (the first 32 hex digits of the key's SHA-256, each digit mapped 0-f → a-p).
pub const CHROMIUM_EXTENSION_ID: &str = "jdbdlgonhioplfeamjjapnhojcagahnf";

/// The Firefox extension's ID (`browser_specific_settings.gecko.id`), the same for the
/// development build and the one on addons.mozilla.org.
pub const FIREFOX_EXTENSION_ID: &str = "mcp-bridge@mcp-bridge.dev";

/// The Chromium IDs every host manifest allows: the development build's, which its `key`
/// fixes, and — once the extension is on the Chrome Web Store — the store's. The store zip
/// has no `key` (the store refuses one), so the store assigns the ID at the first upload and
/// an unpacked load of that zip gets a random one; either is allowed with
/// `mcp-bridge install --extension-id ID` until the store's is listed here.
pub(crate) const CHROMIUM_EXTENSION_IDS: &[&str] = &[CHROMIUM_EXTENSION_ID];

/// Which kind of browser an extension ID belongs to, told by its shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtensionId {
    /// 32 letters a-p (Chrome, Chromium, Edge, Brave).
    Chromium(String),
    /// `name@domain` or `{UUID}` (Firefox).
    Firefox(String),
}

impl ExtensionId {
    /// Parses an ID given on the command line, or says what an ID looks like.
    pub(crate) fn parse(text: &str) -> Result<ExtensionId, String> {
        let text = text.trim();
        let chromium = text.len() == 32 && text.bytes().all(|b| (b'a'..=b'p').contains(&b));
        let firefox_email = text.split_once('@').is_some_and(|(name, domain)| {
            let ok = |part: &str, empty: bool| {
                (empty || !part.is_empty())
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
            };
            ok(name, true) && ok(domain, false)
        });
        let firefox_uuid = text.len() == 38
            && text.starts_with('{')
            && text.ends_with('}')
            && text[1..37].bytes().enumerate().all(|(i, b)| match i {
                8 | 13 | 18 | 23 => b == b'-',
                _ => b.is_ascii_hexdigit(),
            });
        if chromium {
            Ok(ExtensionId::Chromium(text.to_owned()))
        } else if firefox_email || firefox_uuid {
            Ok(ExtensionId::Firefox(text.to_owned()))
        } else {
            Err(format!(
                "`{text}` is not an extension ID: a Chromium ID is 32 letters a-p (chrome://extensions shows it), a Firefox ID is name@domain or {{UUID}} (about:debugging shows it)"
            ))
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names, reason = "macOS is spelled MacOs")]
pub(crate) enum Os {
    Linux,
    MacOs,
    Windows,
}

impl Os {
    /// The system this binary was built for (other unixes look like Linux).
    pub(crate) fn current() -> Os {
        if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::MacOs
        } else {
            Os::Linux
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Browser {
    Chrome,
    Chromium,
    Edge,
    Brave,
    Firefox,
}

impl Browser {
    pub(crate) const ALL: [Browser; 5] = [
        Browser::Chrome,
        Browser::Chromium,
        Browser::Edge,
        Browser::Brave,
        Browser::Firefox,
    ];

    pub(crate) fn label(self) -> &'static str {
        match self {
            Browser::Chrome => "Chrome",
            Browser::Chromium => "Chromium",
            Browser::Edge => "Edge",
            Browser::Brave => "Brave",
            Browser::Firefox => "Firefox",
        }
    }

    /// Chromium-based browsers share one manifest shape (`allowed_origins`).
    pub(crate) fn is_chromium_family(self) -> bool {
        self != Browser::Firefox
    }
}

/// Where the manifest file for `browser` goes under `home`. On Linux and macOS the browser
/// reads this folder; on Windows the browser reads a registry value ([`registry_key`]) that
/// names this file, kept with the bridge's own data.
pub(crate) fn manifest_path(os: Os, browser: Browser, home: &Path) -> PathBuf {
    let file = format!("{HOST_NAME}.json");
    match os {
        Os::Linux => {
            let dir = match browser {
                Browser::Chrome => home.join(".config/google-chrome/NativeMessagingHosts"),
                Browser::Chromium => home.join(".config/chromium/NativeMessagingHosts"),
                Browser::Edge => home.join(".config/microsoft-edge/NativeMessagingHosts"),
                Browser::Brave => {
                    home.join(".config/BraveSoftware/Brave-Browser/NativeMessagingHosts")
                }
                Browser::Firefox => home.join(".mozilla/native-messaging-hosts"),
            };
            dir.join(file)
        }
        Os::MacOs => {
            let support = home.join("Library/Application Support");
            let dir = match browser {
                Browser::Chrome => support.join("Google/Chrome/NativeMessagingHosts"),
                Browser::Chromium => support.join("Chromium/NativeMessagingHosts"),
                Browser::Edge => support.join("Microsoft Edge/NativeMessagingHosts"),
                Browser::Brave => support.join("BraveSoftware/Brave-Browser/NativeMessagingHosts"),
                Browser::Firefox => support.join("Mozilla/NativeMessagingHosts"),
            };
            dir.join(file)
        }
        Os::Windows => {
            // One file per manifest shape: all Chromium browsers may point at the same one.
            let shape = if browser.is_chromium_family() {
                "chromium"
            } else {
                "firefox"
            };
            home.join("AppData")
                .join("Local")
                .join("mcp-bridge")
                .join("NativeMessagingHosts")
                .join(format!("{HOST_NAME}.{shape}.json"))
        }
    }
}

/// The key under `HKEY_CURRENT_USER` whose default value names the manifest (Windows only).
#[cfg_attr(
    not(windows),
    allow(dead_code, reason = "used on Windows; its unit tests run on every OS")
)]
pub(crate) fn registry_key(browser: Browser) -> String {
    let vendor = match browser {
        Browser::Chrome => r"Software\Google\Chrome",
        Browser::Chromium => r"Software\Chromium",
        Browser::Edge => r"Software\Microsoft\Edge",
        Browser::Brave => r"Software\BraveSoftware\Brave-Browser",
        Browser::Firefox => r"Software\Mozilla",
    };
    format!(r"{vendor}\NativeMessagingHosts\{HOST_NAME}")
}

/// The manifest for `browser`: the host is `exe`, and only our extension may start it — by
/// its built-in IDs and the `extra` ones `install --extension-id` added (those of the other
/// browser family are left out).
pub(crate) fn manifest(browser: Browser, exe: &Path, extra: &[ExtensionId]) -> Value {
    let mut manifest = json!({
        "name": HOST_NAME,
        "description": "MCP Bridge: gives the MCP Bridge extension the local bridge's address and token",
        "path": exe.to_string_lossy(),
        "type": "stdio",
    });
    if browser.is_chromium_family() {
        let origins: Vec<String> = CHROMIUM_EXTENSION_IDS
            .iter()
            .map(|id| id.to_string())
            .chain(extra.iter().filter_map(|id| match id {
                ExtensionId::Chromium(id) => Some(id.clone()),
                ExtensionId::Firefox(_) => None,
            }))
            .map(|id| format!("chrome-extension://{id}/"))
            .collect();
        manifest["allowed_origins"] = json!(origins);
    } else {
        let ids: Vec<String> = std::iter::once(FIREFOX_EXTENSION_ID.to_owned())
            .chain(extra.iter().filter_map(|id| match id {
                ExtensionId::Firefox(id) => Some(id.clone()),
                ExtensionId::Chromium(_) => None,
            }))
            .collect();
        manifest["allowed_extensions"] = json!(ids);
    }
    manifest
}

/// The IDs a manifest written by [`manifest`] allows beyond the built-in ones: what an
/// earlier `install --extension-id` added, kept by the next `install`.
pub(crate) fn extra_ids(manifest: &Value) -> Vec<ExtensionId> {
    let origins = manifest["allowed_origins"].as_array().into_iter().flatten();
    let chromium = origins
        .filter_map(|origin| {
            origin
                .as_str()?
                .strip_prefix("chrome-extension://")
                .map(|rest| rest.trim_end_matches('/'))
        })
        .filter(|id| !CHROMIUM_EXTENSION_IDS.contains(id))
        .filter_map(|id| ExtensionId::parse(id).ok());
    let firefox = manifest["allowed_extensions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|id| id.as_str())
        .filter(|id| *id != FIREFOX_EXTENSION_ID)
        .filter_map(|id| ExtensionId::parse(id).ok());
    chromium.chain(firefox).collect()
}

/// Who started this process, when a browser did: Chromium passes the caller's origin
/// (`chrome-extension://ID/`, then on Windows `--parent-window=N`), Firefox the manifest's
/// path and the extension's ID. `None` for any other command line — and for an extension
/// that is not ours, which the browser should never let through. `extra` are the IDs the
/// installed host manifests allow beyond the built-in ones.
pub fn started_by_browser(args: &[String], extra: &[ExtensionId]) -> Option<Browser> {
    let first = args.get(1)?;
    if let Some(id) = first
        .strip_prefix("chrome-extension://")
        .map(|rest| rest.trim_end_matches('/'))
    {
        let allowed = CHROMIUM_EXTENSION_IDS.contains(&id)
            || extra.contains(&ExtensionId::Chromium(id.to_owned()));
        return allowed.then_some(Browser::Chromium);
    }
    let id = args.get(2).map(String::as_str)?;
    if first.ends_with(".json")
        && (id == FIREFOX_EXTENSION_ID || extra.contains(&ExtensionId::Firefox(id.to_owned())))
    {
        return Some(Browser::Firefox);
    }
    None
}

/// Whether the command line looks like a browser starting a host for some extension,
/// ours or not (so an unknown caller is refused rather than parsed as options).
pub fn looks_started_by_browser(args: &[String]) -> bool {
    args.get(1).is_some_and(|first| {
        first.starts_with("chrome-extension://")
            || (first.ends_with(".json") && args.len() >= 3 && !args[2].starts_with('-'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home() -> PathBuf {
        PathBuf::from("/h")
    }

    #[test]
    fn linux_paths_per_browser() {
        let cases = [
            (
                Browser::Chrome,
                "/h/.config/google-chrome/NativeMessagingHosts",
            ),
            (
                Browser::Chromium,
                "/h/.config/chromium/NativeMessagingHosts",
            ),
            (
                Browser::Edge,
                "/h/.config/microsoft-edge/NativeMessagingHosts",
            ),
            (
                Browser::Brave,
                "/h/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            ),
            (Browser::Firefox, "/h/.mozilla/native-messaging-hosts"),
        ];
        for (browser, dir) in cases {
            assert_eq!(
                manifest_path(Os::Linux, browser, &home()),
                Path::new(dir).join("dev.mcp_bridge.host.json"),
                "{browser:?}"
            );
        }
    }

    #[test]
    fn macos_paths_per_browser() {
        let cases = [
            (Browser::Chrome, "Google/Chrome"),
            (Browser::Chromium, "Chromium"),
            (Browser::Edge, "Microsoft Edge"),
            (Browser::Brave, "BraveSoftware/Brave-Browser"),
            (Browser::Firefox, "Mozilla"),
        ];
        for (browser, vendor) in cases {
            assert_eq!(
                manifest_path(Os::MacOs, browser, &home()),
                Path::new("/h/Library/Application Support")
                    .join(vendor)
                    .join("NativeMessagingHosts/dev.mcp_bridge.host.json"),
                "{browser:?}"
            );
        }
    }

    #[test]
    fn windows_manifests_and_registry_keys() {
        let chromium = manifest_path(Os::Windows, Browser::Edge, &home());
        assert_eq!(
            chromium,
            home()
                .join("AppData")
                .join("Local")
                .join("mcp-bridge")
                .join("NativeMessagingHosts")
                .join("dev.mcp_bridge.host.chromium.json")
        );
        assert_eq!(
            chromium,
            manifest_path(Os::Windows, Browser::Chrome, &home())
        );
        assert!(
            manifest_path(Os::Windows, Browser::Firefox, &home())
                .ends_with("dev.mcp_bridge.host.firefox.json")
        );
        for (browser, vendor) in [
            (Browser::Chrome, r"Google\Chrome"),
            (Browser::Edge, r"Microsoft\Edge"),
            (Browser::Brave, r"BraveSoftware\Brave-Browser"),
            (Browser::Chromium, "Chromium"),
            (Browser::Firefox, "Mozilla"),
        ] {
            assert_eq!(
                registry_key(browser),
                format!(r"Software\{vendor}\NativeMessagingHosts\dev.mcp_bridge.host")
            );
        }
    }

    #[test]
    fn manifests_allow_only_our_extension() {
        let exe = Path::new("/opt/mcp-bridge");
        let chrome = manifest(Browser::Brave, exe, &[]);
        assert_eq!(chrome["name"], HOST_NAME);
        assert_eq!(chrome["type"], "stdio");
        assert_eq!(chrome["path"], "/opt/mcp-bridge");
        assert_eq!(
            chrome["allowed_origins"],
            json!(["chrome-extension://jdbdlgonhioplfeamjjapnhojcagahnf/"])
        );
        assert!(chrome.get("allowed_extensions").is_none());
        let firefox = manifest(Browser::Firefox, exe, &[]);
        assert_eq!(
            firefox["allowed_extensions"],
            json!(["mcp-bridge@mcp-bridge.dev"])
        );
        assert!(firefox.get("allowed_origins").is_none());
    }

    #[test]
    fn recognizes_the_browser_starting_the_host() {
        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            started_by_browser(
                &args(&[
                    "mcp-bridge",
                    "chrome-extension://jdbdlgonhioplfeamjjapnhojcagahnf/"
                ]),
                &[]
            ),
            Some(Browser::Chromium)
        );
        assert_eq!(
            started_by_browser(
                &args(&[
                    "mcp-bridge.exe",
                    "chrome-extension://jdbdlgonhioplfeamjjapnhojcagahnf/",
                    "--parent-window=42"
                ]),
                &[]
            ),
            Some(Browser::Chromium)
        );
        assert_eq!(
            started_by_browser(
                &args(&[
                    "mcp-bridge",
                    "/h/.mozilla/native-messaging-hosts/dev.mcp_bridge.host.json",
                    "mcp-bridge@mcp-bridge.dev"
                ]),
                &[]
            ),
            Some(Browser::Firefox)
        );
        let foreign = args(&[
            "mcp-bridge",
            "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/",
        ]);
        assert_eq!(started_by_browser(&foreign, &[]), None);
        assert!(looks_started_by_browser(&foreign));
        let foreign_firefox = args(&["mcp-bridge", "/x/host.json", "evil@example.com"]);
        assert_eq!(started_by_browser(&foreign_firefox, &[]), None);
        assert!(looks_started_by_browser(&foreign_firefox));
        for plain in [
            args(&["mcp-bridge"]),
            args(&["mcp-bridge", "--port", "3900"]),
            args(&["mcp-bridge", "config", "check", "x.json"]),
            args(&["mcp-bridge", "--config", "x.json"]),
        ] {
            assert_eq!(started_by_browser(&plain, &[]), None, "{plain:?}");
            assert!(!looks_started_by_browser(&plain), "{plain:?}");
        }
    }

    #[test]
    fn extension_ids_are_told_apart_by_their_shape() {
        assert_eq!(
            ExtensionId::parse("abcdefghijklmnopabcdefghijklmnop"),
            Ok(ExtensionId::Chromium(
                "abcdefghijklmnopabcdefghijklmnop".into()
            ))
        );
        assert_eq!(
            ExtensionId::parse("fork@example.org"),
            Ok(ExtensionId::Firefox("fork@example.org".into()))
        );
        assert_eq!(
            ExtensionId::parse("{12345678-9abc-def0-1234-56789abcdef0}"),
            Ok(ExtensionId::Firefox(
                "{12345678-9abc-def0-1234-56789abcdef0}".into()
            ))
        );
        for bad in [
            "",
            "abcdefghijklmnopabcdefghijklmnoq",
            "abcdefghijklmnop",
            "chrome-extension://abcdefghijklmnopabcdefghijklmnop/",
            "fork@",
            "fo rk@example.org",
            "{12345678-9abc-def0-1234-56789abcdefg}",
        ] {
            let err = ExtensionId::parse(bad).unwrap_err();
            assert!(err.contains("is not an extension ID"), "{bad}: {err}");
        }
    }

    #[test]
    fn added_ids_are_allowed_by_their_own_family_and_read_back() {
        let exe = Path::new("/opt/mcp-bridge");
        let extra = [
            ExtensionId::Chromium("abcdefghijklmnopabcdefghijklmnop".into()),
            ExtensionId::Firefox("fork@example.org".into()),
        ];
        let chrome = manifest(Browser::Chrome, exe, &extra);
        assert_eq!(
            chrome["allowed_origins"],
            json!([
                "chrome-extension://jdbdlgonhioplfeamjjapnhojcagahnf/",
                "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"
            ])
        );
        let firefox = manifest(Browser::Firefox, exe, &extra);
        assert_eq!(
            firefox["allowed_extensions"],
            json!(["mcp-bridge@mcp-bridge.dev", "fork@example.org"])
        );
        assert_eq!(extra_ids(&chrome), extra[..1]);
        assert_eq!(extra_ids(&firefox), extra[1..]);
        assert!(extra_ids(&manifest(Browser::Edge, exe, &[])).is_empty());

        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let added = args(&[
            "mcp-bridge",
            "chrome-extension://abcdefghijklmnopabcdefghijklmnop/",
        ]);
        assert_eq!(started_by_browser(&added, &[]), None);
        assert_eq!(started_by_browser(&added, &extra), Some(Browser::Chromium));
        let fork = args(&["mcp-bridge", "/h/x.json", "fork@example.org"]);
        assert_eq!(started_by_browser(&fork, &[]), None);
        assert_eq!(started_by_browser(&fork, &extra), Some(Browser::Firefox));
        // An ID added for one family does not open the other.
        let crossed = args(&[
            "mcp-bridge",
            "/h/x.json",
            "abcdefghijklmnopabcdefghijklmnop",
        ]);
        assert_eq!(started_by_browser(&crossed, &extra), None);
    }
}
