//! Tool and server icons (MCP `icons`), turned into `data:` URLs the extension's pages can show
//! without reaching anything themselves. An icon given as a `data:` URL is decoded and checked;
//! one given as an `https://` URL (`http://` for a server on this computer) is fetched only from
//! the remote server's own origin, without redirects, under a timeout and a size cap; every
//! other source (another origin, any URL of a stdio server, `file:`) is dropped unfetched.

use std::collections::HashMap;
use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{Icon, IconTheme};
use url::Url;

use super::spec::{ServerSpec, Transport};

/// The largest icon kept, in bytes once decoded.
pub(crate) const MAX_ICON_BYTES: usize = 64 * 1024;
/// How long fetching one icon may take, from the request to its last byte.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// How long all the fetches of one listing may take together: a listing (a server's start
/// among them) waits for its icons.
const LISTING_TIMEOUT: Duration = Duration::from_secs(10);
/// The most icons fetched for one listing: a list of thousands of tools with an icon each costs
/// this many requests, the rest get none.
pub(crate) const MAX_FETCHES_PER_LISTING: usize = 32;
/// The image types an icon may have: those a browser shows in an `<img>` (where an SVG runs no
/// script).
const IMAGE_TYPES: [&str; 5] = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/svg+xml",
];

/// Where one server's icons may come from.
#[derive(Debug)]
pub(crate) struct IconSource {
    /// The remote server's origin and the client that fetches from it; `None` for a local
    /// server, whose icon URLs are never fetched.
    remote: Option<(Url, reqwest::Client)>,
    server: String,
}

impl IconSource {
    pub(crate) fn new(spec: &ServerSpec) -> Self {
        let remote = match &spec.transport {
            Transport::StreamableHttp { url, ca_file, .. } => {
                let origin = crate::http_client::check_url(url, "`url`").ok();
                let client = crate::http_client::icon_client(ca_file.as_deref())
                    .map_err(|err| tracing::warn!(server = %spec.name, error = %err, "icons of the server will not be fetched"))
                    .ok();
                origin.zip(client)
            }
            _ => None,
        };
        IconSource {
            remote,
            server: spec.name.clone(),
        }
    }

    /// Start the icons of one listing: each source is fetched at most once in it.
    pub(crate) fn listing(&self) -> Listing<'_> {
        Listing {
            source: self,
            fetched: HashMap::new(),
            deadline: tokio::time::Instant::now() + LISTING_TIMEOUT,
        }
    }

    /// Whether `src` may be fetched: an absolute URL of the remote server's own origin
    /// (scheme, host and port).
    fn may_fetch(&self, src: &str) -> Option<(Url, &reqwest::Client)> {
        let (origin, client) = self.remote.as_ref()?;
        let url = Url::parse(src).ok()?;
        (url.origin() == origin.origin() && crate::http_client::check_url(src, "icon").is_ok())
            .then_some((url, client))
    }
}

/// The icons of one listing of a server's lists.
pub(crate) struct Listing<'a> {
    source: &'a IconSource,
    /// What each fetched source gave, so that icons shared by many tools are fetched once.
    fetched: HashMap<String, Option<String>>,
    /// When this listing stops fetching.
    deadline: tokio::time::Instant,
}

impl Listing<'_> {
    /// The icon shown for an item that declares `icons`, as a `data:` URL: the first in
    /// [`preference`] order that can be had.
    pub(crate) async fn pick(&mut self, icons: Option<&[Icon]>) -> Option<String> {
        for icon in preference(icons.unwrap_or_default()) {
            if let Some(url) = self.resolve(icon).await {
                return Some(url);
            }
        }
        None
    }

    async fn resolve(&mut self, icon: &Icon) -> Option<String> {
        if icon
            .src
            .get(..5)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
        {
            return checked_data_url(&icon.src)
                .map_err(|why| tracing::debug!(server = %self.source.server, "an icon is not shown: {why}"))
                .ok();
        }
        let (url, client) = self.source.may_fetch(&icon.src)?;
        if let Some(known) = self.fetched.get(url.as_str()) {
            return known.clone();
        }
        let left = self
            .deadline
            .saturating_duration_since(tokio::time::Instant::now());
        if self.fetched.len() >= MAX_FETCHES_PER_LISTING || left.is_zero() {
            return None;
        }
        let got = fetch(client, &url, left.min(FETCH_TIMEOUT))
            .await
            .map_err(|why| tracing::info!(server = %self.source.server, url = %url, "an icon of the server is not shown: {why}"))
            .ok();
        self.fetched.insert(url.to_string(), got.clone());
        got
    }
}

/// The order icons are tried in: those meant for a light background (or any) before those for
/// a dark one, since the pages are light; then the smallest declared size first (`any`, a
/// scalable image, counts as the smallest; an icon that declares no size comes last). Icons
/// are shown at 16 px.
fn preference(icons: &[Icon]) -> Vec<&Icon> {
    let mut ordered: Vec<&Icon> = icons.iter().collect();
    ordered.sort_by_key(|icon| {
        let dark = matches!(icon.theme, Some(IconTheme::Dark));
        let size = icon
            .sizes
            .iter()
            .flatten()
            .filter_map(|size| {
                if size.eq_ignore_ascii_case("any") {
                    return Some(0);
                }
                let (width, _) = size.split_once(['x', 'X'])?;
                width.parse::<u32>().ok()
            })
            .min()
            .unwrap_or(u32::MAX);
        (dark, size)
    });
    ordered
}

/// A `data:` icon checked and written anew as `data:<type>;base64,…`: its type one of
/// [`IMAGE_TYPES`], its bytes at most [`MAX_ICON_BYTES`] and looking like that type.
pub(crate) fn checked_data_url(src: &str) -> Result<String, String> {
    // Percent-encoding triples a byte at most; anything longer cannot fit the cap.
    if src.len() > 3 * MAX_ICON_BYTES + 256 {
        return Err(format!("it is larger than {} KiB", MAX_ICON_BYTES / 1024));
    }
    let url = data_url::DataUrl::process(src).map_err(|_| "it is no valid data: URL".to_owned())?;
    let mime = url.mime_type();
    let declared = format!("{}/{}", mime.type_, mime.subtype);
    let (bytes, _) = url
        .decode_to_vec()
        .map_err(|_| "its base64 does not decode".to_owned())?;
    image(&declared, bytes)
}

/// `bytes` of the declared content type `declared` as a `data:` URL, when they are an image the
/// pages may show.
fn image(declared: &str, bytes: Vec<u8>) -> Result<String, String> {
    let kind = declared.trim().to_ascii_lowercase();
    let Some(kind) = IMAGE_TYPES.iter().find(|allowed| **allowed == kind) else {
        return Err(format!("its type `{declared}` is no image type shown"));
    };
    if bytes.len() > MAX_ICON_BYTES {
        return Err(format!("it is larger than {} KiB", MAX_ICON_BYTES / 1024));
    }
    if !looks_like(kind, &bytes) {
        return Err(format!("its bytes are no {kind}"));
    }
    Ok(format!(
        "data:{kind};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    ))
}

/// Whether `bytes` start as an image of type `kind` does.
fn looks_like(kind: &str, bytes: &[u8]) -> bool {
    match kind {
        "image/png" => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
        "image/gif" => bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a"),
        "image/webp" => bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP",
        "image/svg+xml" => std::str::from_utf8(bytes).is_ok_and(|text| text.contains("<svg")),
        _ => false,
    }
}

/// Fetch `url`: a `2xx` answer (a redirect is refused), of an image type, at most
/// [`MAX_ICON_BYTES`], within `limit`.
async fn fetch(client: &reqwest::Client, url: &Url, limit: Duration) -> Result<String, String> {
    let work = async {
        let mut response = client
            .get(url.clone())
            .send()
            .await
            .map_err(|err| crate::http_client::describe(&err))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("it answered {status}"));
        }
        let declared = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(|value| value.split(';').next().unwrap_or_default().to_owned())
            .unwrap_or_default();
        if response
            .content_length()
            .is_some_and(|length| length > MAX_ICON_BYTES as u64)
        {
            return Err(format!("it is larger than {} KiB", MAX_ICON_BYTES / 1024));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|err| crate::http_client::describe(&err))?
        {
            if bytes.len() + chunk.len() > MAX_ICON_BYTES {
                return Err(format!("it is larger than {} KiB", MAX_ICON_BYTES / 1024));
            }
            bytes.extend_from_slice(&chunk);
        }
        image(&declared, bytes)
    };
    tokio::time::timeout(limit, work)
        .await
        .unwrap_or_else(|_| Err(format!("it took longer than {} s", limit.as_secs_f64())))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n0000";

    fn png_url() -> String {
        format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(PNG)
        )
    }

    #[test]
    fn a_data_icon_of_an_image_type_is_kept_and_others_are_refused() {
        assert_eq!(checked_data_url(&png_url()).unwrap(), png_url());
        let svg = "data:image/svg+xml,%3Csvg%20xmlns%3D%22http://www.w3.org/2000/svg%22/%3E";
        assert!(
            checked_data_url(svg)
                .unwrap()
                .starts_with("data:image/svg+xml;base64,")
        );
        for bad in [
            "data:text/html;base64,PHNjcmlwdD4=",
            "data:image/png;base64,PHNjcmlwdD4=",
            "data:image/bmp;base64,Qk0=",
            "data:image/png;base64,!!!",
            "data:,hello",
        ] {
            assert!(checked_data_url(bad).is_err(), "{bad}");
        }
        let big = format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD
                .encode([PNG, &vec![0u8; MAX_ICON_BYTES]].concat())
        );
        assert!(checked_data_url(&big).is_err());
    }

    #[tokio::test]
    async fn a_local_servers_icon_urls_are_dropped_and_odd_sources_do_not_panic() {
        let spec = ServerSpec::demo(std::path::Path::new("x"), std::path::Path::new("y"));
        let source = IconSource::new(&spec);
        let mut listing = source.listing();
        // "data" and a two-byte character across byte 5.
        for src in [
            "data\u{e9}:image/png",
            "http://127.0.0.1:9/a.png",
            "file:///etc/hosts",
            "",
        ] {
            assert_eq!(listing.pick(Some(&[Icon::new(src)])).await, None, "{src}");
        }
        assert_eq!(
            listing.pick(Some(&[Icon::new(png_url())])).await,
            Some(png_url())
        );
    }

    #[test]
    fn light_and_small_icons_come_first() {
        let icon = |src: &str, sizes: &[&str], theme: Option<IconTheme>| {
            let mut icon = Icon::new(src);
            if !sizes.is_empty() {
                icon = icon.with_sizes(sizes.iter().map(|s| s.to_string()).collect());
            }
            if let Some(theme) = theme {
                icon = icon.with_theme(theme);
            }
            icon
        };
        let icons = [
            icon("none", &[], None),
            icon("dark16", &["16x16"], Some(IconTheme::Dark)),
            icon("big", &["96x96", "48x48"], Some(IconTheme::Light)),
            icon("small", &["16x16"], None),
            icon("svg", &["any"], None),
        ];
        let order: Vec<&str> = preference(&icons).iter().map(|i| i.src.as_str()).collect();
        assert_eq!(order, ["svg", "small", "big", "none", "dark16"]);
    }
}
