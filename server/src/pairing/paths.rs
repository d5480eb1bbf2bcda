//! Where each browser looks for a native messaging host manifest, per operating system, and
//! what the manifest says — pure functions, so every OS is tested on every OS.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The host's name: what the extension passes to `runtime.sendNativeMessage`.
pub(crate) const HOST_NAME: &str = "dev.mcp_bridge.host";

/// The Chromium extension's ID, fixed by the public `key` in the Chromium manifest
/// (the first 32 hex digits of the key's SHA-256, each digit mapped 0-f → a-p).
pub const CHROMIUM_EXTENSION_ID: &str = "jdbdlgonhioplfeamjjapnhojcagahnf";

/// The Firefox extension's ID (`browser_specific_settings.gecko.id`).
pub const FIREFOX_EXTENSION_ID: &str = "mcp-bridge@mcp-bridge.dev";

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

/// The manifest for `browser`: the host is `exe`, and only our extension may start it.
pub(crate) fn manifest(browser: Browser, exe: &Path) -> Value {
    let mut manifest = json!({
        "name": HOST_NAME,
        "description": "MCP Bridge: gives the MCP Bridge extension the local bridge's address and token",
        "path": exe.to_string_lossy(),
        "type": "stdio",
    });
    if browser.is_chromium_family() {
        manifest["allowed_origins"] =
            json!([format!("chrome-extension://{CHROMIUM_EXTENSION_ID}/")]);
    } else {
        manifest["allowed_extensions"] = json!([FIREFOX_EXTENSION_ID]);
    }
    manifest
}

/// Who started this process, when a browser did: Chromium passes the caller's origin
/// (`chrome-extension://ID/`, then on Windows `--parent-window=N`), Firefox the manifest's
/// path and the extension's ID. `None` for any other command line — and for an extension
/// that is not ours, which the browser should never let through.
pub fn started_by_browser(args: &[String]) -> Option<Browser> {
    let first = args.get(1)?;
    if let Some(id) = first
        .strip_prefix("chrome-extension://")
        .map(|rest| rest.trim_end_matches('/'))
    {
        return (id == CHROMIUM_EXTENSION_ID).then_some(Browser::Chromium);
    }
    if first.ends_with(".json") && args.get(2).map(String::as_str) == Some(FIREFOX_EXTENSION_ID) {
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
        let chrome = manifest(Browser::Brave, exe);
        assert_eq!(chrome["name"], HOST_NAME);
        assert_eq!(chrome["type"], "stdio");
        assert_eq!(chrome["path"], "/opt/mcp-bridge");
        assert_eq!(
            chrome["allowed_origins"],
            json!(["chrome-extension://jdbdlgonhioplfeamjjapnhojcagahnf/"])
        );
        assert!(chrome.get("allowed_extensions").is_none());
        let firefox = manifest(Browser::Firefox, exe);
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
            started_by_browser(&args(&[
                "mcp-bridge",
                "chrome-extension://jdbdlgonhioplfeamjjapnhojcagahnf/"
            ])),
            Some(Browser::Chromium)
        );
        assert_eq!(
            started_by_browser(&args(&[
                "mcp-bridge.exe",
                "chrome-extension://jdbdlgonhioplfeamjjapnhojcagahnf/",
                "--parent-window=42"
            ])),
            Some(Browser::Chromium)
        );
        assert_eq!(
            started_by_browser(&args(&[
                "mcp-bridge",
                "/h/.mozilla/native-messaging-hosts/dev.mcp_bridge.host.json",
                "mcp-bridge@mcp-bridge.dev"
            ])),
            Some(Browser::Firefox)
        );
        let foreign = args(&[
            "mcp-bridge",
            "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/",
        ]);
        assert_eq!(started_by_browser(&foreign), None);
        assert!(looks_started_by_browser(&foreign));
        let foreign_firefox = args(&["mcp-bridge", "/x/host.json", "evil@example.com"]);
        assert_eq!(started_by_browser(&foreign_firefox), None);
        assert!(looks_started_by_browser(&foreign_firefox));
        for plain in [
            args(&["mcp-bridge"]),
            args(&["mcp-bridge", "--port", "3900"]),
            args(&["mcp-bridge", "config", "check", "x.json"]),
            args(&["mcp-bridge", "--config", "x.json"]),
        ] {
            assert_eq!(started_by_browser(&plain), None, "{plain:?}");
            assert!(!looks_started_by_browser(&plain), "{plain:?}");
        }
    }
}
