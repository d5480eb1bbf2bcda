//! The error log of the options page: the last 200 tool failures with their unmasked details
//! (the only place the real traceback is ever shown) and counts by category. Pure data kept
//! in `chrome.storage.local["errorLog"]`; it never leaves the
//! extension except as the JSON file the user exports.

use crate::domain::classify::Category;
use crate::domain::field_error::{FieldError, Invalid};
use crate::domain::i18n::Lang;
use crate::domain::report::ErrorRecord;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// How many failures are kept; older ones drop out (their counts stay).
pub const CAPACITY: usize = 200;

/// A category in the page's words (the report's labels are written for the AI).
fn category_word(c: Category, lang: Lang) -> &'static str {
    let says = lang.says();
    match c {
        Category::Validation => says.log_validation,
        Category::Runtime => says.log_runtime,
        Category::Logical => says.log_logical,
        Category::Aborted => says.log_aborted,
        Category::Exception => says.log_exception,
        Category::Unavailable => says.log_unavailable,
        Category::Limit => says.log_limit,
    }
}

/// The category codes, in the order the page shows them.
fn categories() -> impl Iterator<Item = &'static str> {
    Category::ALL.iter().map(|c| c.as_str())
}

/// One failure as logged: when, where, and the unmasked record from the report pipeline.
/// Stored with the record nested; the page sees it flat ([`EntryView`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    /// Increasing; identifies the entry in the page.
    pub id: u64,
    /// Milliseconds since the epoch (`Date.now()`).
    pub time_ms: f64,
    /// The chat site (host) the call came from, when known.
    #[serde(default)]
    pub site: Option<String>,
    pub record: ErrorRecord,
}

/// An entry as the page and the exported file show it: the record's fields beside `id`,
/// `timeMs` and `site`. Only ever written: `#[serde(flatten)]` on a type that is also read
/// pulls serde's buffering `Content` machinery into the wasm.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryView {
    pub id: u64,
    pub time_ms: f64,
    pub site: Option<String>,
    #[serde(flatten)]
    pub record: ErrorRecord,
}

impl From<&LogEntry> for EntryView {
    fn from(e: &LogEntry) -> EntryView {
        EntryView {
            id: e.id,
            time_ms: e.time_ms,
            site: e.site.clone(),
            record: e.record.clone(),
        }
    }
}

/// The ring buffer plus the counts since the last clear.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ErrorLog {
    next_id: u64,
    /// Oldest first.
    entries: VecDeque<LogEntry>,
    /// Failures per category since the last clear, including those that dropped out.
    counts: BTreeMap<String, u64>,
}

/// What the page asks to see: a category and/or text that must occur in the entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Filter {
    pub category: Option<String>,
    pub text: Option<String>,
}

/// The answer to `get-error-log`: matching entries newest first, and the statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogView {
    pub entries: Vec<EntryView>,
    /// Entries kept (before filtering).
    pub kept: usize,
    pub capacity: usize,
    /// Every category, zero included, since the last clear.
    pub counts: BTreeMap<String, u64>,
    pub total: u64,
    /// Each category code as the page shows it, in its language.
    pub labels: BTreeMap<String, String>,
    /// The language tag the page writes the entries' times in ([`Lang::locale`]).
    pub locale: &'static str,
}

impl ErrorLog {
    /// Reads a stored log; a log of an unexpected shape is dropped rather than breaking
    /// the extension.
    pub fn from_stored(value: Option<serde_json::Value>) -> ErrorLog {
        value
            .and_then(|v| crate::domain::json_read::from_value(&v).ok())
            .unwrap_or_default()
    }

    pub fn push(&mut self, time_ms: f64, site: Option<String>, record: ErrorRecord) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        *self
            .counts
            .entry(record.category.as_str().to_string())
            .or_default() += 1;
        self.entries.push_back(LogEntry {
            id,
            time_ms,
            site,
            record,
        });
        while self.entries.len() > CAPACITY {
            self.entries.pop_front();
        }
        id
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.counts.clear();
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Checks a filter from the page; an unknown category names the field.
    pub fn check_filter(filter: &Filter) -> Result<(), FieldError> {
        match filter.category.as_deref() {
            None | Some("") => Ok(()),
            Some(c) if categories().any(|k| k == c) => Ok(()),
            Some(c) => Err(FieldError::new(
                "category",
                Invalid::NoSuchCategory {
                    category: c.into(),
                    categories: categories().collect::<Vec<_>>().join(", "),
                },
            )),
        }
    }

    pub fn view(&self, filter: &Filter, lang: Lang) -> LogView {
        // Inserted one by one: `collect()` into a map sorts first, and std's sort is large in
        // the wasm.
        let (mut counts, mut labels) = (BTreeMap::new(), BTreeMap::new());
        for c in Category::ALL {
            counts.insert(c.as_str().to_string(), 0);
            labels.insert(c.as_str().to_string(), category_word(c, lang).to_string());
        }
        for (k, n) in &self.counts {
            *counts.entry(k.clone()).or_default() += n;
        }
        LogView {
            entries: self
                .entries
                .iter()
                .rev()
                .filter(|e| matches(e, filter))
                .map(EntryView::from)
                .collect(),
            kept: self.entries.len(),
            capacity: CAPACITY,
            total: counts.values().sum(),
            counts,
            labels,
            locale: lang.locale(),
        }
    }

    /// The file the user downloads: the filtered entries and the counts, pretty-printed.
    pub fn export(&self, filter: &Filter, now_ms: f64) -> (String, String) {
        // The file holds codes, not words: the same export reads the same in any language.
        let view = self.view(filter, Lang::En);
        /// The exported file.
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Export<'a> {
            exported_at: String,
            filter: &'a Filter,
            counts: BTreeMap<String, u64>,
            total: u64,
            entries: Vec<EntryView>,
        }
        let doc = Export {
            exported_at: iso_time(now_ms),
            filter,
            counts: view.counts,
            total: view.total,
            entries: view.entries,
        };
        let name = format!(
            "mcp-bridge-errors-{}.json",
            iso_time(now_ms).replace([':', '.'], "-")
        );
        (
            name,
            serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into()),
        )
    }
}

fn matches(entry: &LogEntry, filter: &Filter) -> bool {
    if let Some(c) = filter.category.as_deref().filter(|c| !c.is_empty())
        && entry.record.category.as_str() != c
    {
        return false;
    }
    let Some(needle) = filter
        .text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    else {
        return true;
    };
    // ASCII case folding: Unicode's `to_lowercase` brings its tables into the wasm.
    let needle = needle.to_ascii_lowercase();
    let r = &entry.record;
    [
        Some(r.tool.as_str()),
        r.server.as_deref(),
        entry.site.as_deref(),
        Some(r.error_type.as_str()),
        Some(r.message.as_str()),
        r.trace_id.as_deref(),
    ]
    .into_iter()
    .flatten()
    .any(|s| s.to_ascii_lowercase().contains(&needle))
}

/// `2026-11-22T05:19:41.000Z` from milliseconds since the epoch (UTC, proleptic Gregorian).
pub fn iso_time(ms: f64) -> String {
    let ms = if ms.is_finite() && ms > 0.0 {
        ms as i64
    } else {
        0
    };
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::classify::Category;

    fn record(tool: &str, category: Category) -> ErrorRecord {
        ErrorRecord {
            tool: tool.into(),
            server: Some("demo".into()),
            arguments: serde_json::json!({"path": "/home/alice/secret.txt"}),
            error_type: "RuntimeError".into(),
            message: format!("{tool} failed with token sk-live-123"),
            traceback: Some("Traceback (most recent call last):\n  File \"/home/alice/x.py\", line 1\nRuntimeError: boom".into()),
            trace_id: Some(format!("trace-{tool}")),
            category,
            retryable: true,
            status: Some(500),
            code: Some(-32603),
        }
    }

    #[test]
    fn keeps_the_last_200_and_counts_every_failure() {
        let mut log = ErrorLog::default();
        for i in 0..250 {
            let cat = if i % 5 == 0 {
                Category::Validation
            } else {
                Category::Runtime
            };
            log.push(
                i as f64,
                Some("chat.deepseek.com".into()),
                record(&format!("t{i}"), cat),
            );
        }
        assert_eq!(log.len(), CAPACITY);
        let view = log.view(&Filter::default(), Lang::En);
        assert_eq!(view.entries.len(), 200);
        assert_eq!(view.entries[0].record.tool, "t249", "newest first");
        assert_eq!(view.entries[199].record.tool, "t50");
        assert_eq!(view.counts["validation"], 50);
        assert_eq!(view.counts["runtime"], 200);
        assert_eq!(view.counts["limit"], 0, "every category is listed");
        assert_eq!(view.counts.len(), 7);
        assert_eq!(view.total, 250);
    }

    #[test]
    fn details_are_kept_unmasked() {
        let mut log = ErrorLog::default();
        log.push(1.0, None, record("read", Category::Runtime));
        let e = &log.view(&Filter::default(), Lang::En).entries[0];
        assert!(e.record.message.contains("sk-live-123"));
        assert!(
            e.record
                .traceback
                .as_deref()
                .unwrap()
                .contains("/home/alice/x.py")
        );
    }

    #[test]
    fn filter_by_category_and_text() {
        let mut log = ErrorLog::default();
        log.push(
            1.0,
            Some("chatgpt.com".into()),
            record("read_file", Category::Runtime),
        );
        log.push(
            2.0,
            Some("chat.deepseek.com".into()),
            record("add", Category::Validation),
        );
        log.push(3.0, None, record("fail_logical", Category::Logical));
        let only = |f: Filter| -> Vec<String> {
            log.view(&f, Lang::En)
                .entries
                .into_iter()
                .map(|e| e.record.tool)
                .collect()
        };
        assert_eq!(
            only(Filter {
                category: Some("validation".into()),
                text: None
            }),
            ["add"]
        );
        assert_eq!(
            only(Filter {
                category: None,
                text: Some("  DEEPSEEK ".into())
            }),
            ["add"]
        );
        assert_eq!(
            only(Filter {
                category: Some("".into()),
                text: Some("trace-read".into())
            }),
            ["read_file"]
        );
        assert_eq!(only(Filter::default()).len(), 3);
        assert!(
            ErrorLog::check_filter(&Filter {
                category: Some("oops".into()),
                text: None
            })
            .is_err()
        );
    }

    #[test]
    fn clear_empties_entries_and_counts_but_ids_keep_growing() {
        let mut log = ErrorLog::default();
        log.push(1.0, None, record("a", Category::Limit));
        log.clear();
        assert!(log.is_empty());
        assert_eq!(log.view(&Filter::default(), Lang::En).total, 0);
        let id = log.push(2.0, None, record("b", Category::Limit));
        assert_eq!(id, 1);
    }

    #[test]
    fn round_trips_through_storage_and_tolerates_garbage() {
        let mut log = ErrorLog::default();
        log.push(1.0, Some("kimi.com".into()), record("a", Category::Aborted));
        let stored = serde_json::to_value(&log).unwrap();
        assert_eq!(stored["entries"][0]["record"]["errorType"], "RuntimeError");
        assert_eq!(stored["entries"][0]["site"], "kimi.com");
        assert_eq!(ErrorLog::from_stored(Some(stored)), log);
        // The page sees each entry flat: the record's fields beside id, timeMs and site.
        let view = serde_json::to_value(log.view(&Filter::default(), Lang::En)).unwrap();
        assert_eq!(view["entries"][0]["errorType"], "RuntimeError");
        assert_eq!(view["entries"][0]["site"], "kimi.com");
        assert_eq!(view["entries"][0]["id"], 0);
        assert!(view["entries"][0].get("record").is_none());
        assert_eq!(
            ErrorLog::from_stored(Some(serde_json::json!({"entries": 5}))),
            ErrorLog::default()
        );
        assert_eq!(ErrorLog::from_stored(None), ErrorLog::default());
    }

    #[test]
    fn export_is_named_by_time_and_holds_the_entries() {
        let mut log = ErrorLog::default();
        log.push(1.0, None, record("a", Category::Exception));
        let (name, json) = log.export(&Filter::default(), 1_795_324_781_000.0);
        assert_eq!(name, "mcp-bridge-errors-2026-11-22T05-19-41-000Z.json");
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["entries"][0]["tool"], "a");
        assert_eq!(doc["counts"]["exception"], 1);
        assert_eq!(doc["exportedAt"], "2026-11-22T05:19:41.000Z");
    }

    #[test]
    fn iso_time_handles_epoch_and_leap_days() {
        assert_eq!(iso_time(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_time(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_time(f64::NAN), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn the_page_writes_times_in_the_chosen_language() {
        let log = ErrorLog::default();
        assert_eq!(log.view(&Filter::default(), Lang::Zh).locale, "zh-CN");
        assert_eq!(log.view(&Filter::default(), Lang::En).locale, "en");
    }
}
