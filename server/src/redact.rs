//! Keeps configured secrets (a server's `env` values and header values) out of everything the
//! bridge logs or returns: error messages, tracebacks, stderr tails.

/// Shorter values (`"1"`, `"true"`, `"UTC"`) are too common to mask without mangling text.
pub const MIN_SECRET_LEN: usize = 4;

/// What a masked secret reads as.
pub const MASK: &str = "***";

/// Replace every occurrence of every secret in `text` with [`MASK`], longest secrets first
/// so that a secret containing another is masked whole.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut ordered: Vec<&String> = secrets
        .iter()
        .filter(|secret| secret.len() >= MIN_SECRET_LEN)
        .collect();
    if ordered.is_empty() {
        return text.to_owned();
    }
    ordered.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    let mut out = text.to_owned();
    for secret in ordered {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), MASK);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_every_occurrence() {
        let secrets = vec!["sk-12345".to_owned()];
        assert_eq!(
            redact("key sk-12345 and again sk-12345.", &secrets),
            "key *** and again ***."
        );
    }

    #[test]
    fn longest_secret_wins_and_short_values_are_left_alone() {
        let secrets = vec!["abcd".to_owned(), "abcdefgh".to_owned(), "UTC".to_owned()];
        assert_eq!(redact("abcdefgh abcd UTC", &secrets), "*** *** UTC");
    }

    #[test]
    fn no_secrets_no_change() {
        assert_eq!(redact("plain", &[]), "plain");
    }
}
