//! A refused value — a setting, a site config, a log filter — as one type: the field it is
//! about, and what is wrong with it, put into words in the reader's language only when it
//! is shown.

use crate::domain::i18n::{Lang, fill};

/// `selectors.input[0]`: `…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The path of the field (`bridgeUrl`, `hosts[0]`, `config` for the whole value), or
    /// empty when the problem is not one field's (storage refused the read).
    pub field: String,
    pub problem: Invalid,
}

/// What is wrong with a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// Words of their own, quoted as they are: the JSON reader's (bad JSON, a wrong type), the browser's (storage refused).
    Quoted(String),
    NotHttp {
        url: String,
    },
    NotThisComputer {
        host: String,
    },
    NotAPort {
        port: String,
    },
    HasPath {
        path: String,
    },
    TokenSpaces,
    OutOfRange {
        min: u64,
        max: u64,
        got: u64,
    },
    BadId {
        id: String,
    },
    NoHosts,
    NotAHost {
        host: String,
    },
    NoSelector,
    EmptySelector,
    LongSelector,
    /// An unbalanced `)` or `]`.
    Unbalanced {
        bracket: char,
        selector: String,
    },
    Unclosed {
        selector: String,
    },
    NoConfig,
    BuiltinId {
        id: String,
    },
    HostOfBuiltin {
        host: String,
        site: String,
    },
    HostOfCustom {
        host: String,
        site: String,
    },
    TooManySites {
        max: usize,
    },
    NoSuchCategory {
        category: String,
        categories: String,
    },
    ServerName {
        name: String,
    },
    NoCommand,
    /// `kind` is `string`, `array`, `object` or `bool`.
    MustBe {
        kind: &'static str,
    },
    UnknownTransport {
        kind: String,
    },
    RemoteUrl {
        url: String,
    },
    /// A key that is not a definition key, and the known key it reads as.
    UnknownKey {
        key: String,
        known: &'static str,
    },
    /// A template's example value left in place.
    Placeholder {
        value: &'static str,
    },
}

impl FieldError {
    pub fn new(field: impl Into<String>, problem: Invalid) -> FieldError {
        FieldError {
            field: field.into(),
            problem,
        }
    }

    /// `field: what is wrong` (just what is wrong when no field is named).
    pub fn say(&self, lang: Lang) -> String {
        if self.field.is_empty() {
            return self.problem.say(lang);
        }
        format!("{}: {}", self.field, self.problem.say(lang))
    }
}

impl Invalid {
    pub fn say(&self, lang: Lang) -> String {
        let says = lang.says();
        let n = |v: &u64| v.to_string();
        match self {
            Invalid::Quoted(words) => words.clone(),
            Invalid::NotHttp { url } => fill(says.invalid_not_http, &[("url", url)]),
            Invalid::NotThisComputer { host } => {
                fill(says.invalid_not_this_computer, &[("host", host)])
            }
            Invalid::NotAPort { port } => fill(says.invalid_not_a_port, &[("port", port)]),
            Invalid::HasPath { path } => fill(says.invalid_has_path, &[("path", path)]),
            Invalid::TokenSpaces => says.token_spaces.into(),
            Invalid::OutOfRange { min, max, got } => fill(
                says.invalid_out_of_range,
                &[("min", &n(min)), ("max", &n(max)), ("got", &n(got))],
            ),
            Invalid::BadId { id } => fill(says.invalid_bad_id, &[("id", id)]),
            Invalid::NoHosts => says.invalid_no_hosts.into(),
            Invalid::NotAHost { host } => fill(says.invalid_not_a_host, &[("host", host)]),
            Invalid::NoSelector => says.invalid_no_selector.into(),
            Invalid::EmptySelector => says.invalid_empty_selector.into(),
            Invalid::LongSelector => says.invalid_long_selector.into(),
            Invalid::Unbalanced { bracket, selector } => fill(
                says.invalid_unbalanced,
                &[("bracket", &bracket.to_string()), ("selector", selector)],
            ),
            Invalid::Unclosed { selector } => {
                fill(says.invalid_unclosed, &[("selector", selector)])
            }
            Invalid::NoConfig => says.invalid_no_config.into(),
            Invalid::BuiltinId { id } => fill(says.invalid_builtin_id, &[("id", id)]),
            Invalid::HostOfBuiltin { host, site } => fill(
                says.invalid_host_of_builtin,
                &[("host", host), ("site", site)],
            ),
            Invalid::HostOfCustom { host, site } => fill(
                says.invalid_host_of_custom,
                &[("host", host), ("site", site)],
            ),
            Invalid::TooManySites { max } => {
                fill(says.invalid_too_many_sites, &[("max", &max.to_string())])
            }
            Invalid::NoSuchCategory {
                category,
                categories,
            } => fill(
                says.invalid_no_such_category,
                &[("category", category), ("categories", categories)],
            ),
            Invalid::ServerName { name } => fill(says.invalid_server_name, &[("name", name)]),
            Invalid::NoCommand => says.invalid_no_command.into(),
            Invalid::MustBe { kind } => {
                let kind = match *kind {
                    "array" => says.kind_array,
                    "object" => says.kind_object,
                    "bool" => says.kind_bool,
                    "number" => says.kind_float,
                    _ => says.kind_string,
                };
                fill(says.invalid_must_be, &[("kind", kind)])
            }
            Invalid::UnknownTransport { kind } => {
                fill(says.invalid_unknown_transport, &[("kind", kind)])
            }
            Invalid::RemoteUrl { url } => fill(says.invalid_remote_url, &[("url", url)]),
            Invalid::UnknownKey { key, known } => {
                fill(says.invalid_unknown_key, &[("key", key), ("known", known)])
            }
            Invalid::Placeholder { value } => fill(says.invalid_placeholder, &[("value", value)]),
        }
    }
}

impl std::fmt::Display for FieldError {
    /// In English, for logs and the developer console.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.say(Lang::En))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_reads_in_the_readers_language_and_quotes_the_json_reader() {
        let e = FieldError::new(
            "stackLines",
            Invalid::OutOfRange {
                min: 1,
                max: 200,
                got: 0,
            },
        );
        assert_eq!(
            e.say(Lang::En),
            "stackLines: must be between 1 and 200, got 0"
        );
        assert_eq!(
            e.say(Lang::Zh),
            "stackLines: 必须在 1 到 200 之间，当前为 0"
        );
        let e = FieldError::new(
            "config",
            Invalid::Quoted("EOF while parsing a value".into()),
        );
        assert_eq!(e.say(Lang::Zh), "config: EOF while parsing a value");
    }
}
