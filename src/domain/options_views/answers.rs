//! The shapes of the options page's answers that are not views of their own: what a site
//! check, save or import found, a download, a count. Typed so the options page reads one naming
//! convention (camelCase) and `tests/contract.rs` can hold the page to these fields.

use crate::domain::sites::SiteConfig;
use serde::Serialize;

/// A custom site config that validates, with the origins it needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteChecked {
    pub site: SiteConfig,
    pub origins: Vec<String>,
    /// It replaces a custom site of the same id.
    pub replaces: bool,
}

/// A custom site that was saved (or turned on for a page address).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteSaved {
    pub site: SiteConfig,
    pub origins: Vec<String>,
    /// It replaced a custom site of the same id.
    pub replaced: bool,
    /// The extension ran on this host already: nothing was changed.
    pub already: bool,
}

/// Whether MCP Bridge runs on a page's site: the popup offers to turn it on only when
/// `can_enable`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteState {
    /// A site config (shipped, from the site list or the user's) holds the page's host.
    pub on: bool,
    /// That site's name, when `on`.
    pub name: Option<String>,
    /// Not on, and the address is a web page the extension could run on.
    pub can_enable: bool,
}

/// The sites of an exported file, checked or added, and the origins they need.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SitesImported {
    pub sites: Vec<String>,
    pub origins: Vec<String>,
}

/// A custom site removed, with the origins the page may now give back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteRemoved {
    pub removed: String,
    pub origins: Vec<String>,
}

/// One row of the Sites section.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteRow {
    pub id: String,
    pub name: String,
    pub hosts: Vec<String>,
    pub builtin: bool,
    /// A custom site with a built-in site's id.
    pub overrides: bool,
    pub enabled: bool,
    pub auto_insert: bool,
    /// A custom site's config as the editor shows it; none for a built-in one.
    pub json: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteRows {
    pub sites: Vec<SiteRow>,
}

/// A file for the page to offer as a download.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Download {
    pub filename: String,
    pub json: String,
}

/// How many entries a clear removed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cleared {
    pub cleared: usize,
}

/// A tool exempted from asking after untrusted content, or not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExemptSet {
    pub key: String,
    pub exempt: bool,
}

/// A server trusted, or not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrustedSet {
    pub server: String,
    pub trusted: bool,
}

/// A tool's results let through unmasked, or masked again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnmaskedSet {
    pub key: String,
    pub unmasked: bool,
}

/// A tool's policy set or cleared, with the tool's row as it is now (`None` when the bridge
/// could not be asked), so the page redraws it in place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicySet {
    pub key: String,
    pub tool: Option<super::ToolView>,
}

/// A server's name and definition that would be accepted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerChecked {
    pub name: String,
    pub definition: serde_json::Value,
}
