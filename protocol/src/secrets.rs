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

use std::borrow::Cow;

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

/// Provider key prefixes (case-sensitive), the minimum length of what follows, and the
/// characters allowed in the body.
pub const PREFIXES: &[(&str, usize, &str)] = &[
    ("sk-ant-", 20, "api-key"),
    ("sk-proj-", 20, "api-key"),
    ("sk-or-", 20, "api-key"),
    ("sk-", 20, "api-key"),
    ("sk_live_", 16, "api-key"),
    ("sk_test_", 16, "api-key"),
    ("rk_live_", 16, "api-key"),
    ("rk_test_", 16, "api-key"),
    ("whsec_", 16, "secret"),
    ("ghp_", 30, "token"),
    ("gho_", 30, "token"),
    ("ghu_", 30, "token"),
    ("ghs_", 30, "token"),
    ("ghr_", 30, "token"),
    ("github_pat_", 30, "token"),
    ("glpat-", 16, "token"),
    ("xoxb-", 10, "token"),
    ("xoxp-", 10, "token"),
    ("xoxa-", 10, "token"),
    ("xoxr-", 10, "token"),
    ("xoxs-", 10, "token"),
    ("xapp-", 10, "token"),
    ("AKIA", 16, "api-key"),
    ("ASIA", 16, "api-key"),
    ("AIza", 30, "api-key"),
    ("hf_", 30, "token"),
    ("npm_", 30, "token"),
    ("pypi-", 40, "token"),
    ("gsk_", 30, "api-key"),
    ("xai-", 30, "api-key"),
    ("dop_v1_", 40, "token"),
    ("shpat_", 20, "token"),
    ("r8_", 30, "api-key"),
    ("tvly-", 20, "api-key"),
    ("pplx-", 30, "api-key"),
];

/// Key names whose value is secret: a word ending in one of these (case-insensitive), and the
/// kind of secret.
pub const SECRET_KEYS: &[(&str, &str)] = &[
    ("password", "password"),
    ("passwd", "password"),
    ("passphrase", "password"),
    ("pwd", "password"),
    ("client_secret", "secret"),
    ("secret", "secret"),
    ("secret_key", "secret"),
    ("secretkey", "secret"),
    ("private_key", "secret"),
    ("token", "token"),
    ("api_key", "api-key"),
    ("api-key", "api-key"),
    ("apikey", "api-key"),
    ("access_key", "api-key"),
    ("access_key_id", "api-key"),
    ("credentials", "secret"),
    ("credential", "secret"),
    ("cookie", "secret"),
    ("session_id", "secret"),
    ("sessionid", "secret"),
    ("private-key", "secret"),
];

/// Chinese key names (matched literally) and their placeholder kind.
pub const ZH_KEYS: &[(&str, &str)] = &[
    ("密码", "password"),
    ("口令", "password"),
    ("令牌", "token"),
    ("密钥", "secret"),
    ("秘钥", "secret"),
];

/// Authorization schemes whose name is kept while the credential is masked.
pub const SCHEMES: &[&str] = &["bearer", "basic", "token", "digest", "negotiate", "apikey"];

/// The kinds of PEM private key met in the wild; any `-----BEGIN … PRIVATE KEY-----` header is
/// masked, these are the ones [`examples`] plants.
pub const PEM_KINDS: &[&str] = &["", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED "];

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

struct Scanner<'a, 'r> {
    src: &'a str,
    b: &'a [u8],
    out: String,
    /// Everything before `last` has been copied to (or replaced in) `out`.
    last: usize,
    touched: bool,
    rules: Rules,
    render: &'r mut dyn FnMut(&mut String, Mask),
    count: usize,
}

impl Scanner<'_, '_> {
    /// Replaces `src[start..end]` with the mask of a secret of `kind`.
    fn replace(&mut self, start: usize, end: usize, kind: &'static str) {
        self.count += 1;
        self.replace_with(start, end, Mask::Secret(kind));
    }

    /// Replaces `src[start..end]` with what the renderer writes for `mask`.
    fn replace_with(&mut self, start: usize, end: usize, mask: Mask) {
        debug_assert!(start >= self.last && end >= start);
        if !self.touched {
            self.out.reserve(self.src.len() + 32);
            self.touched = true;
        }
        self.out.push_str(&self.src[self.last..start]);
        (self.render)(&mut self.out, mask);
        self.last = end;
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn run(&mut self) {
        let n = self.b.len();
        let mut i = 0;
        while i < n {
            let c = self.b[i];
            let prev = if i == 0 { 0 } else { self.b[i - 1] };
            let privacy = self.rules.privacy;
            let next = match c {
                b'-' if self.b[i..].starts_with(b"-----BEGIN ") => self.pem(i),
                b':' if self.b[i..].starts_with(b"://") => self.url_userinfo(i),
                b'/' if privacy && !is_word(prev) && prev != b'.' => self.unix_home(i),
                b'A'..=b'Z' | b'a'..=b'z'
                    if privacy
                        && self.at(i + 1) == b':'
                        && matches!(self.at(i + 2), b'\\' | b'/')
                        && !prev.is_ascii_alphanumeric() =>
                {
                    self.windows_home(i)
                }
                0xE4..=0xE7 if self.rules.key_values => self.zh_key(i),
                _ if is_word(c) && !is_word(prev) => self.word(i),
                _ => None,
            };
            i = next.unwrap_or(i + 1);
        }
    }

    /// `-----BEGIN … PRIVATE KEY-----` … `-----END … -----`; without an end marker the
    /// rest of the text is masked (a truncated key is still a key).
    fn pem(&mut self, i: usize) -> Option<usize> {
        let header = &self.b[i..self.b.len().min(i + 80)];
        let header = &header[..header
            .iter()
            .position(|&c| c == b'\n')
            .unwrap_or(header.len())];
        if !contains(header, b"PRIVATE KEY") {
            return None;
        }
        let end = match find(self.b, i + 11, b"-----END ") {
            Some(e) => {
                // Past the closing dashes of the END line.
                match find(self.b, e + 9, b"-----") {
                    Some(d) if d - e < 80 => d + 5,
                    _ => self.b.len(),
                }
            }
            None => self.b.len(),
        };
        self.replace(i, end, "private-key");
        Some(end)
    }

    /// `scheme://user:password@host` keeps the user and masks the password.
    fn url_userinfo(&mut self, i: usize) -> Option<usize> {
        let start = i + 3;
        let mut j = start;
        let mut colon = None;
        while j < self.b.len() {
            let c = self.b[j];
            if c == b'@' {
                break;
            }
            if c == b'/' || c == b'?' || c == b'#' || c.is_ascii_whitespace() || c == b'"' {
                return Some(start);
            }
            if c == b'\'' || c == b'<' || c == b'>' || c == b'`' {
                return Some(start);
            }
            if c == b':' && colon.is_none() {
                colon = Some(j);
            }
            j += 1;
        }
        if j >= self.b.len() {
            return Some(start);
        }
        // Masked already (`https://[REDACTED:token]@host`: the placeholder holds a colon).
        if already_masked(&self.src[start..j]) {
            return Some(j + 1);
        }
        let Some(colon) = colon else {
            // A bare user part as long as a token is one (`https://TOKEN@host`); `git@`,
            // `user@` are names.
            let user = &self.b[start..j];
            if user.len() >= 16 && user.iter().all(|&c| is_cred(c)) {
                self.replace(start, j, "token");
            }
            return Some(j + 1);
        };
        let pass = &self.src[colon + 1..j];
        if pass.is_empty() || already_masked(pass) {
            return Some(j + 1);
        }
        self.replace(colon + 1, j, "password");
        Some(j + 1)
    }

    /// `/home/NAME/…`, `/Users/NAME/…` → `~/…`.
    fn unix_home(&mut self, i: usize) -> Option<usize> {
        let rest = &self.b[i..];
        let after = if rest.starts_with(b"/home/") {
            i + 6
        } else if rest.starts_with(b"/Users/") {
            i + 7
        } else {
            return None;
        };
        let mut j = after;
        while j < self.b.len() && is_name_char(self.b[j]) {
            j += 1;
        }
        if j == after || self.src[after..j].starts_with('~') {
            return None;
        }
        if j < self.b.len() && self.b[j] == b'/' {
            self.replace_with(i, j + 1, Mask::Home { slash: true });
            Some(j + 1)
        } else {
            self.replace_with(i, j, Mask::Home { slash: false });
            Some(j)
        }
    }

    /// `C:\Users\NAME\…`, `C:\\Users\\NAME\\…` (JSON-escaped), `C:/Users/NAME/…` → `~/…`.
    fn windows_home(&mut self, i: usize) -> Option<usize> {
        let mut j = i + 2;
        let sep_start = j;
        while j < self.b.len() && matches!(self.b[j], b'\\' | b'/') && j - sep_start < 2 {
            j += 1;
        }
        let sep = &self.b[sep_start..j];
        if !starts_with_ci(&self.b[j..], b"users") {
            return None;
        }
        j += 5;
        if !self.b[j..].starts_with(sep) {
            return None;
        }
        j += sep.len();
        let name_start = j;
        while j < self.b.len() && is_name_char(self.b[j]) && self.b[j] != b'\\' {
            j += 1;
        }
        if j == name_start {
            return None;
        }
        if self.b[j..].starts_with(sep) {
            let end = j + sep.len();
            self.replace_with(i, end, Mask::Home { slash: true });
            Some(end)
        } else {
            self.replace_with(i, j, Mask::Home { slash: false });
            Some(j)
        }
    }

    /// `密码=…`, `令牌：…`.
    fn zh_key(&mut self, i: usize) -> Option<usize> {
        for (key, kind) in ZH_KEYS {
            if self.b[i..].starts_with(key.as_bytes()) {
                let after = i + key.len();
                return self.kv_value(after, kind).or(Some(after));
            }
        }
        None
    }

    /// Start of an ASCII word: provider keys, JWTs, private IPs (with [`Rules::privacy`]), `Bearer x`,
    /// `Authorization: x`, `password=x`; otherwise the word is skipped whole.
    fn word(&mut self, i: usize) -> Option<usize> {
        let n = self.b.len();
        let c = self.b[i];
        if self.rules.privacy
            && c.is_ascii_digit()
            && let Some(e) = self.ipv4(i)
        {
            return Some(e);
        }
        if self.rules.privacy
            && matches!(c, b'f' | b'F')
            && let Some(e) = self.ipv6(i)
        {
            return Some(e);
        }
        let mut j = i;
        while j < n && is_word(self.b[j]) {
            j += 1;
        }
        let w = &self.b[i..j];
        // Provider keys (the shortest possible one, `xoxb-` + 10, has 15 characters).
        for (prefix, min, kind) in PREFIXES.iter().filter(|_| w.len() >= 15) {
            let p = prefix.as_bytes();
            if w.starts_with(p) && w.len() - p.len() >= *min {
                // AWS ids are upper-case alphanumerics only.
                if (p == b"AKIA" || p == b"ASIA")
                    && !w[4..]
                        .iter()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                {
                    continue;
                }
                if is_placeholder_like(&w[p.len()..]) {
                    continue;
                }
                self.replace(i, j, kind);
                return Some(j);
            }
        }
        // JWT: eyJ….eyJ….sig
        if w.starts_with(b"eyJ")
            && self.at(j) == b'.'
            && let Some(e) = self.jwt(i, j)
        {
            return Some(e);
        }
        // SendGrid: SG.xxx.yyy
        if w == b"SG" && self.at(j) == b'.' {
            let mut k = j + 1;
            while k < n && (is_word(self.b[k]) || self.b[k] == b'.') {
                k += 1;
            }
            if k - j > 40 {
                self.replace(i, k, "api-key");
                return Some(k);
            }
        }
        if w.eq_ignore_ascii_case(b"bearer") {
            return Some(self.bearer(j).unwrap_or(j));
        }
        if ends_with_ci(w, b"authorization") {
            return Some(self.authorization(j).unwrap_or(j));
        }
        if !self.rules.key_values || !self.separator_follows(j) {
            return Some(j);
        }
        for (key, kind) in SECRET_KEYS {
            if ends_with_ci(w, key.as_bytes()) {
                let k = key.len();
                // The key must be the whole word or follow a separator (`db_password`).
                if w.len() == k || matches!(w[w.len() - k - 1], b'_' | b'-') || is_camel(w, k) {
                    return Some(self.kv_value(j, kind).unwrap_or(j));
                }
            }
        }
        Some(j)
    }

    /// Cheap pre-check for [`Scanner::kv_value`]: a `=`/`:`/`：` follows within a quote
    /// and a few spaces.
    fn separator_follows(&self, mut j: usize) -> bool {
        match self.at(j) {
            b'"' | b'\'' => j += 1,
            b'\\' if self.at(j + 1) == b'"' => j += 2,
            _ => {}
        }
        let limit = j + 8;
        while j < limit && matches!(self.at(j), b' ' | b'\t') {
            j += 1;
        }
        matches!(self.at(j), b'=' | b':')
            || self
                .b
                .get(j..)
                .is_some_and(|r| r.starts_with("：".as_bytes()))
    }

    /// After a key name: optional closing quote, spaces, `=` or `:` (or `：`), spaces,
    /// optional opening quote, then the value.
    fn kv_value(&mut self, mut j: usize, kind: &'static str) -> Option<usize> {
        let n = self.b.len();
        if j < n && matches!(self.b[j], b'"' | b'\'') {
            j += 1;
        } else if self.at(j) == b'\\' && self.at(j + 1) == b'"' {
            j += 2;
        }
        let limit = j + 8;
        while j < n.min(limit) && matches!(self.b[j], b' ' | b'\t') {
            j += 1;
        }
        if j < n && (self.b[j] == b'=' || self.b[j] == b':') {
            j += 1;
        } else if self.b[j..].starts_with("：".as_bytes()) {
            j += "：".len();
        } else {
            return None;
        }
        // `==` is a comparison, `:=` an assignment in code; `://` a URL.
        if j < n && (self.b[j] == b'=' || self.b[j] == b'/') {
            return None;
        }
        while j < n && matches!(self.b[j], b' ' | b'\t') {
            j += 1;
        }
        let quote = match self.at(j) {
            q @ (b'"' | b'\'') => {
                j += 1;
                Some(q)
            }
            _ => None,
        };
        let start = j;
        // Escaped quotes inside JSON-in-a-string (`\"password\": \"x\"`).
        let escaped_quote = quote.is_none() && self.at(j) == b'\\' && self.at(j + 1) == b'"';
        let start = if escaped_quote { start + 2 } else { start };
        let mut k = start;
        match quote {
            Some(q) => {
                while k < n && self.b[k] != q && self.b[k] != b'\n' {
                    if self.b[k] == b'\\' {
                        k += 1;
                    }
                    k += 1;
                }
                k = k.min(n);
            }
            None if escaped_quote => {
                while k < n && !(self.b[k] == b'\\' && self.at(k + 1) == b'"') && self.b[k] != b'\n'
                {
                    k += 1;
                }
            }
            None => {
                while k < n {
                    let c = self.b[k];
                    // A backslash ends it too: in JSON-escaped text it starts the escape of
                    // the closing quote, and masking it would break the escaping.
                    if c.is_ascii_whitespace()
                        || matches!(
                            c,
                            b',' | b';'
                                | b'&'
                                | b'}'
                                | b')'
                                | b'"'
                                | b'\''
                                | b'<'
                                | b'>'
                                | b'`'
                                | b'\\'
                        )
                    {
                        break;
                    }
                    // A closing `]` ends the value unless it closes our own placeholder.
                    if c == b']' {
                        break;
                    }
                    k += 1;
                }
            }
        }
        let value = &self.src[start..k];
        if quote.is_none()
            && (value.starts_with('{') || value.starts_with('[') && !value.starts_with(MARK))
        {
            return None;
        }
        if value.is_empty() || already_masked(value) || is_non_secret_value(value) {
            return Some(k);
        }
        self.replace(start, k, kind);
        Some(k)
    }

    /// `Bearer <credential>` (the scheme word is at `..j`).
    fn bearer(&mut self, j: usize) -> Option<usize> {
        let n = self.b.len();
        let mut k = j;
        while k < n && self.b[k] == b' ' {
            k += 1;
        }
        if k == j || k - j > 3 {
            return None;
        }
        let start = k;
        if already_masked(&self.src[start..]) {
            return Some(start);
        }
        while k < n && is_cred(self.b[k]) {
            k += 1;
        }
        let v = &self.b[start..k];
        let looks_secret =
            v.len() >= 24 || (v.len() >= 8 && v.iter().any(|c| !c.is_ascii_alphabetic()));
        if !looks_secret {
            return Some(start);
        }
        self.replace(start, k, "token");
        Some(k)
    }

    /// `Authorization: <scheme> <credential>` or `Authorization: <credential>`.
    fn authorization(&mut self, mut j: usize) -> Option<usize> {
        let n = self.b.len();
        if j < n && matches!(self.b[j], b'"' | b'\'') {
            j += 1;
        }
        while j < n && self.b[j] == b' ' {
            j += 1;
        }
        if j < n && (self.b[j] == b':' || self.b[j] == b'=') {
            j += 1;
        } else {
            return None;
        }
        while j < n && matches!(self.b[j], b' ' | b'"' | b'\'') {
            j += 1;
        }
        let mut k = j;
        while k < n && is_word(self.b[k]) {
            k += 1;
        }
        let word = &self.b[j..k];
        if SCHEMES
            .iter()
            .any(|s| word.eq_ignore_ascii_case(s.as_bytes()))
            && self.at(k) == b' '
        {
            let start = k + 1;
            if already_masked(&self.src[start..]) {
                return Some(start);
            }
            let mut e = start;
            while e < n && is_cred(self.b[e]) {
                e += 1;
            }
            if e > start {
                self.replace(start, e, "token");
            }
            return Some(e);
        }
        if already_masked(&self.src[j..]) {
            return Some(j);
        }
        let mut e = j;
        while e < n && is_cred(self.b[e]) {
            e += 1;
        }
        if e - j >= 6 {
            self.replace(j, e, "token");
        }
        Some(e)
    }

    /// Three base64url segments, the first two at least 10 characters.
    fn jwt(&mut self, i: usize, first_end: usize) -> Option<usize> {
        let n = self.b.len();
        let seg = |from: usize| {
            let mut k = from;
            while k < n && (self.b[k].is_ascii_alphanumeric() || matches!(self.b[k], b'_' | b'-')) {
                k += 1;
            }
            k
        };
        if first_end - i < 10 {
            return None;
        }
        let second_end = seg(first_end + 1);
        if second_end - first_end - 1 < 10 || self.at(second_end) != b'.' {
            return None;
        }
        let third_end = seg(second_end + 1);
        self.replace(i, third_end, "jwt");
        Some(third_end)
    }

    /// Private IPv4 (10/8, 172.16/12, 192.168/16); 127.0.0.1 and public addresses stay.
    fn ipv4(&mut self, i: usize) -> Option<usize> {
        let n = self.b.len();
        let prev = if i == 0 { 0 } else { self.b[i - 1] };
        if prev == b'.' {
            return None;
        }
        let mut parts = [0u32; 4];
        let mut k = i;
        for (p, part) in parts.iter_mut().enumerate() {
            let s = k;
            while k < n && self.b[k].is_ascii_digit() && k - s < 3 {
                *part = *part * 10 + u32::from(self.b[k] - b'0');
                k += 1;
            }
            if k == s || *part > 255 {
                return None;
            }
            if p < 3 {
                if self.at(k) != b'.' {
                    return None;
                }
                k += 1;
            }
        }
        let after = self.at(k);
        if after.is_ascii_alphanumeric() || (after == b'.' && self.at(k + 1).is_ascii_digit()) {
            return None;
        }
        let private = parts[0] == 10
            || (parts[0] == 172 && (16..=31).contains(&parts[1]))
            || (parts[0] == 192 && parts[1] == 168);
        if !private {
            return None;
        }
        self.replace_with(i, k, Mask::PrivateAddress);
        Some(k)
    }

    /// Unique-local IPv6 (fc00::/7): a first group `fcXX`/`fdXX` followed by `:`.
    fn ipv6(&mut self, i: usize) -> Option<usize> {
        let n = self.b.len();
        let g = self.b.get(i..i + 5)?;
        if !(g[1].eq_ignore_ascii_case(&b'c') || g[1].eq_ignore_ascii_case(&b'd'))
            || !g[2].is_ascii_hexdigit()
            || !g[3].is_ascii_hexdigit()
            || g[4] != b':'
        {
            return None;
        }
        let mut k = i;
        let mut colons = 0;
        while k < n && k - i < 39 && (self.b[k].is_ascii_hexdigit() || self.b[k] == b':') {
            if self.b[k] == b':' {
                colons += 1;
            }
            k += 1;
        }
        if colons < 2 || self.at(k).is_ascii_alphanumeric() {
            return None;
        }
        // A trailing `:` belongs to the text (`fd00::1: refused`).
        while self.b[k - 1] == b':' && self.b[k - 2] != b':' {
            k -= 1;
        }
        self.replace_with(i, k, Mask::PrivateAddress);
        Some(k)
    }
}

/// `dbPassword`, `apiToken`: the key starts with an upper-case letter after a lower-case.
fn is_camel(w: &[u8], k: usize) -> bool {
    let at = w.len() - k;
    w[at].is_ascii_uppercase() && w[at - 1].is_ascii_lowercase()
}

/// Path component characters of a user name.
fn is_name_char(c: u8) -> bool {
    !(c.is_ascii_whitespace()
        || matches!(
            c,
            b'/' | b'"' | b'\'' | b'`' | b':' | b'<' | b'>' | b'|' | b',' | b')' | b']'
        ))
        && c != 0
}

/// Values that are clearly not secrets: empty markers, code identifiers, types.
fn is_non_secret_value(v: &str) -> bool {
    matches!(
        v,
        "null"
            | "None"
            | "none"
            | "true"
            | "false"
            | "True"
            | "False"
            | "undefined"
            | "str"
            | "string"
            | "Optional[str]"
            | "\\"
    ) || v.starts_with('<') && v.ends_with('>')
        || v.starts_with("${")
        || v.chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
}

/// `sk-xxxxxxxxxxxxxxxxxxxxxxxx` in documentation is not worth a placeholder, but
/// masking it is harmless; only all-same-character bodies are skipped.
fn is_placeholder_like(body: &[u8]) -> bool {
    body.iter().all(|&c| c == body[0])
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from >= hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
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
    pub const SHAPES: &[(&str, &str)] = &[
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
    pub const KEY_VALUES: &[(&str, &str)] = &[
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
