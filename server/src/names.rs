//! Names that come from outside the bridge — servers' names in config files and imports, tools'
//! names from the servers — and which of them are refused, so that no name passes for another,
//! hides part of itself, or drives the terminal or page that shows it.

/// The longest name a new server may have, in characters.
pub(crate) const MAX_SERVER_NAME: usize = 64;

/// Why `name` may not name a new server, if it may not: a new name is 1 to
/// [`MAX_SERVER_NAME`] ASCII letters, digits, `-`, `_` and `.`, does not start with `.` or hold
/// `..`, and does not differ from one of `others` (the names in the config) only in case.
/// Anything else could pass for another name (a Cyrillic `а`, a case variant), hide part of
/// itself (bidi controls, zero-width characters, a trailing space) or read as a path.
pub(crate) fn new_server_name_problem<'a>(
    name: &str,
    others: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    if name.chars().count() > MAX_SERVER_NAME {
        return Some(format!("it is longer than {MAX_SERVER_NAME} characters"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Some(format!(
            "it holds {}, and a server's name may only hold ASCII letters, digits, `-`, `_` and `.`",
            character(c)
        ));
    }
    if name.starts_with('.') || name.contains("..") {
        return Some("it starts with `.` or holds `..`".to_owned());
    }
    if let Some(other) = others
        .into_iter()
        .find(|other| *other != name && other.eq_ignore_ascii_case(name))
    {
        return Some(format!(
            "it differs from the server `{}` only in case",
            escaped(other)
        ));
    }
    None
}

/// The warning for a server already in a config file whose name a new entry could not have
/// (`others`: every name in the file); such a server is loaded all the same.
pub(crate) fn odd_server_name<'a>(
    name: &str,
    others: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    new_server_name_problem(name, others).map(|why| {
        format!(
            "the server name \"{}\" (shown escaped) would be refused for a new server: {why}; it \
             is loaded as it is, and renaming it is advised",
            escaped(name)
        )
    })
}

/// Why a server's tool named `name` is not listed, if it is not: an empty name, or one with a
/// control character (a line break, ESC, NUL) or an invisible formatting one.
pub(crate) fn tool_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    name.chars()
        .find(|&c| c.is_control() || invisible(c))
        .map(|c| format!("it holds {}", character(c)))
}

/// Characters that change how text around them shows without showing themselves: bidi
/// controls, zero-width characters, the byte order mark, soft hyphens.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{61C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
    )
}

/// One character named in a message: itself when printable ASCII, else its escape.
fn character(c: char) -> String {
    match c {
        ' ' => "a space".to_owned(),
        c if c.is_ascii_graphic() => format!("`{c}`"),
        c => format!("`\\u{{{:x}}}`", u32::from(c)),
    }
}

/// `name` with every character but printable ASCII written as its escape (`\u{435}`), so that
/// a look-alike or invisible character shows; a name this long is cut (its length said).
pub(crate) fn escaped(name: &str) -> String {
    match mcp_bridge_protocol::server_def::escaped_name(name) {
        (shown, Some(count)) => format!("{shown}… ({count} characters)"),
        (shown, None) => shown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alike_hidden_and_path_like_server_names_are_refused() {
        let existing = ["demo"];
        for name in [
            "a\u{202E}b",
            "a\u{200B}b",
            "c\u{430}t",
            "name ",
            "Demo",
            "..",
            ".hidden",
            "a..b",
            "a/b",
            "",
            &"x".repeat(65),
        ] {
            assert!(
                new_server_name_problem(name, existing).is_some(),
                "{name:?} was accepted"
            );
        }
        for name in [
            "demo",
            "time",
            "brave-search",
            "my_server.2",
            &"x".repeat(64),
        ] {
            assert_eq!(new_server_name_problem(name, existing), None, "{name:?}");
        }
        let why = new_server_name_problem("c\u{430}t", existing).unwrap();
        assert!(why.contains("`\\u{430}`"), "{why}");
    }

    #[test]
    fn an_odd_existing_name_is_shown_escaped() {
        let warning = odd_server_name("x\u{202E}y ", ["x\u{202E}y "]).unwrap();
        assert!(warning.contains("\"x\\u{202e}y \""), "{warning}");
        assert!(!warning.contains('\u{202E}'), "{warning}");
        assert_eq!(odd_server_name("fine", ["fine"]), None);
        let long = escaped(&"y".repeat(5000));
        assert!(long.ends_with("… (5000 characters)"), "{long}");
    }

    #[test]
    fn tool_names_with_control_or_invisible_characters_are_refused() {
        for name in ["a\nb", "esc\u{1b}[31m", "nul\0", "rtl\u{202E}", ""] {
            assert!(tool_name_problem(name).is_some(), "{name:?}");
        }
        for name in ["read_file", "get-weather", "ns.tool", "ünïcødé"] {
            assert_eq!(tool_name_problem(name), None, "{name:?}");
        }
    }
}
