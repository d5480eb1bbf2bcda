//! Masks secrets in any text before it is typed into a chat page or shown in the float.
//!
//! Error messages and tracebacks leak API keys, passwords, home paths and internal
//! addresses; the chat page belongs to a third party. [`redact`] removes
//! them and says what it removed (`[REDACTED:api-key]`).
//!
//! Design constraints: no regex crate (wasm size budget), linear time on every input
//! (each byte is examined a bounded number of times: every matcher either consumes what
//! it scanned or only looks ahead inside a region it then skips), and idempotence
//! (`redact(&redact(x)) == redact(x)`): placeholders never match any rule.

use std::borrow::Cow;

/// Placeholder prefix; a value that already starts with it is left alone.
const MARK: &str = "[REDACTED";

/// Masks every secret the scanner knows in `input`.
///
/// Returns the input unchanged (borrowed) when nothing was found, so the common case does
/// not allocate.
pub fn redact(input: &str) -> Cow<'_, str> {
    let mut s = Scanner {
        src: input,
        b: input.as_bytes(),
        out: String::new(),
        last: 0,
        touched: false,
    };
    s.run();
    if !s.touched {
        return Cow::Borrowed(input);
    }
    s.out.push_str(&input[s.last..]);
    Cow::Owned(s.out)
}

/// Convenience: [`redact`] into an owned `String`.
pub fn redact_owned(input: &str) -> String {
    redact(input).into_owned()
}

/// Text that has passed the masker. Every constructor masks, reading one from JSON too, so
/// no text bound for the page can skip [`redact`].
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[serde(transparent)]
pub struct Masked(String);

impl Masked {
    /// Masks `s`.
    pub fn new(s: &str) -> Masked {
        Masked(redact_owned(s))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl std::fmt::Display for Masked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Masked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|s| Masked::new(&s))
    }
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
const PREFIXES: &[(&str, usize, &str)] = &[
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

/// Key names whose value is secret: a word ending in one of these (case-insensitive).
const SECRET_KEYS: &[(&str, &str)] = &[
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
    ("cookie", "secret"),
];

/// Chinese key names (matched literally) and their placeholder kind.
const ZH_KEYS: &[(&str, &str)] = &[
    ("密码", "password"),
    ("口令", "password"),
    ("令牌", "token"),
    ("密钥", "secret"),
    ("秘钥", "secret"),
];

/// Authorization schemes whose name is kept while the credential is masked.
const SCHEMES: &[&str] = &["bearer", "basic", "token", "digest", "negotiate", "apikey"];

struct Scanner<'a> {
    src: &'a str,
    b: &'a [u8],
    out: String,
    /// Everything before `last` has been copied to (or replaced in) `out`.
    last: usize,
    touched: bool,
}

impl Scanner<'_> {
    /// Replaces `src[start..end]` with `[REDACTED:kind]`.
    fn replace(&mut self, start: usize, end: usize, kind: &str) {
        debug_assert!(start >= self.last && end >= start);
        if !self.touched {
            self.out.reserve(self.src.len() + 32);
            self.touched = true;
        }
        self.out.push_str(&self.src[self.last..start]);
        self.out.push_str(MARK);
        self.out.push(':');
        self.out.push_str(kind);
        self.out.push(']');
        self.last = end;
    }

    /// Replaces `src[start..end]` with a literal text.
    fn replace_with(&mut self, start: usize, end: usize, text: &str) {
        if !self.touched {
            self.out.reserve(self.src.len() + 32);
            self.touched = true;
        }
        self.out.push_str(&self.src[self.last..start]);
        self.out.push_str(text);
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
            let next = match c {
                b'-' if self.b[i..].starts_with(b"-----BEGIN ") => self.pem(i),
                b':' if self.b[i..].starts_with(b"://") => self.url_userinfo(i),
                b'/' if !is_word(prev) && prev != b'.' => self.unix_home(i),
                b'A'..=b'Z' | b'a'..=b'z'
                    if self.at(i + 1) == b':'
                        && matches!(self.at(i + 2), b'\\' | b'/')
                        && !prev.is_ascii_alphanumeric() =>
                {
                    self.windows_home(i)
                }
                0xE4..=0xE7 => self.zh_key(i),
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
        let colon = colon?;
        let pass = &self.src[colon + 1..j];
        if pass.is_empty() || pass.starts_with(MARK) {
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
            self.replace_with(i, j + 1, "~/");
            Some(j + 1)
        } else {
            self.replace_with(i, j, "~");
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
            self.replace_with(i, end, "~/");
            Some(end)
        } else {
            self.replace_with(i, j, "~");
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

    /// Start of an ASCII word: provider keys, JWTs, private IPs, `Bearer x`,
    /// `Authorization: x`, `password=x`; otherwise the word is skipped whole.
    fn word(&mut self, i: usize) -> Option<usize> {
        let n = self.b.len();
        let c = self.b[i];
        if c.is_ascii_digit()
            && let Some(e) = self.ipv4(i)
        {
            return Some(e);
        }
        if matches!(c, b'f' | b'F')
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
        if !self.separator_follows(j) {
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
    fn kv_value(&mut self, mut j: usize, kind: &str) -> Option<usize> {
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
                    if c.is_ascii_whitespace()
                        || matches!(
                            c,
                            b',' | b';' | b'&' | b'}' | b')' | b'"' | b'\'' | b'<' | b'>' | b'`'
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
        if value.is_empty() || value.starts_with(MARK) || is_non_secret_value(value) {
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
        if self.src[start..].starts_with(MARK) {
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
            if self.src[start..].starts_with(MARK) {
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
        if self.src[j..].starts_with(MARK) {
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
        self.replace(i, k, "private-ip");
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
        self.replace(i, k, "private-ip");
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
    use super::*;

    fn r(s: &str) -> String {
        let once = redact(s).into_owned();
        assert_eq!(redact(&once), once, "not idempotent for {s:?}");
        once
    }

    #[test]
    fn provider_keys() {
        assert_eq!(
            r("key sk-abcdefghijklmnopqrstuvwxyz012345 used"),
            "key [REDACTED:api-key] used"
        );
        assert_eq!(
            r("sk-ant-api03-abcdefghijklmnopqrstuvwxyz"),
            "[REDACTED:api-key]"
        );
        assert_eq!(
            r("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"),
            "[REDACTED:token]"
        );
        assert_eq!(
            r("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
            "[REDACTED:token]"
        );
        assert_eq!(r("xoxb-1234567890-abcdefghij"), "[REDACTED:token]");
        assert_eq!(r("AKIAIOSFODNN7EXAMPLE"), "[REDACTED:api-key]");
        assert_eq!(
            r("AIzaSyA-1234567890abcdefghijklmnopqrstu"),
            "[REDACTED:api-key]"
        );
        assert_eq!(r("sk_live_4eC39HqLyjWDarjtT1zdp7dc"), "[REDACTED:api-key]");
        assert_eq!(
            r("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"),
            "[REDACTED:token]"
        );
        // Too short, or an ordinary word.
        assert_eq!(r("ask-me sk-short task-list"), "ask-me sk-short task-list");
    }

    #[test]
    fn authorization_and_bearer() {
        assert_eq!(
            r("Authorization: Bearer abc123def456ghi789"),
            "Authorization: Bearer [REDACTED:token]"
        );
        assert_eq!(
            r(r#"{"authorization": "Basic dXNlcjpwYXNz"}"#),
            r#"{"authorization": "Basic [REDACTED:token]"}"#
        );
        assert_eq!(
            r("headers={'Authorization': 'tok_12345678'}"),
            "headers={'Authorization': '[REDACTED:token]'}"
        );
        assert_eq!(
            r("a Bearer token is required"),
            "a Bearer token is required"
        );
        assert_eq!(r("bearer eyJhbGciOi.x"), "bearer [REDACTED:token]");
    }

    #[test]
    fn jwt() {
        let t = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_eq!(r(&format!("token {t} end")), "token [REDACTED:jwt] end");
    }

    #[test]
    fn url_passwords() {
        assert_eq!(
            r("postgres://admin:s3cr3t@db.internal:5432/app"),
            "postgres://admin:[REDACTED:password]@db.internal:5432/app"
        );
        assert_eq!(
            r("redis://:hunter2@cache:6379"),
            "redis://:[REDACTED:password]@cache:6379"
        );
        assert_eq!(
            r("https://user@example.com/x"),
            "https://user@example.com/x"
        );
        assert_eq!(
            r("see https://example.com/a:b@c"),
            "see https://example.com/a:b@c"
        );
    }

    #[test]
    fn key_value_pairs() {
        assert_eq!(
            r("password=hunter2 next"),
            "password=[REDACTED:password] next"
        );
        assert_eq!(
            r(r#"{"password": "p@ss word"}"#),
            r#"{"password": "[REDACTED:password]"}"#
        );
        assert_eq!(r("DB_PASSWORD='x y'"), "DB_PASSWORD='[REDACTED:password]'");
        assert_eq!(r("api_key: abc123"), "api_key: [REDACTED:api-key]");
        assert_eq!(r("GITHUB_TOKEN=abc"), "GITHUB_TOKEN=[REDACTED:token]");
        assert_eq!(
            r("?client_secret=zzz&x=1"),
            "?client_secret=[REDACTED:secret]&x=1"
        );
        assert_eq!(
            r("Server=db;User Id=sa;Password=Pa55;"),
            "Server=db;User Id=sa;Password=[REDACTED:password];"
        );
        assert_eq!(
            r("max_tokens=100 tokenizer=x"),
            "max_tokens=100 tokenizer=x"
        );
        assert_eq!(r("password: null"), "password: null");
        assert_eq!(r("if password == other"), "if password == other");
        assert_eq!(r("密码：abc123 ok"), "密码：[REDACTED:password] ok");
        assert_eq!(
            r(r#"{\"token\": \"abc\"}"#),
            r#"{\"token\": \"[REDACTED:token]\"}"#
        );
        assert_eq!(r("dbPassword=x1"), "dbPassword=[REDACTED:password]");
    }

    #[test]
    fn pem() {
        let s = "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\ny";
        assert_eq!(r(s), "x\n[REDACTED:private-key]\ny");
        assert_eq!(
            r("-----BEGIN PRIVATE KEY-----\nMIIE"),
            "[REDACTED:private-key]"
        );
        let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
        assert_eq!(r(cert), cert);
    }

    #[test]
    fn home_dirs() {
        assert_eq!(r("File \"/home/alice/proj/a.py\""), "File \"~/proj/a.py\"");
        assert_eq!(r("/Users/bob/Library/x"), "~/Library/x");
        assert_eq!(r(r"C:\Users\Carol\AppData\x.py"), "~/AppData\\x.py");
        assert_eq!(r(r"C:\\Users\\Carol\\x.py"), "~/x.py");
        assert_eq!(r("C:/Users/dave/x"), "~/x");
        assert_eq!(r("cd /home/eve"), "cd ~");
        assert_eq!(r("/usr/home/x"), "/usr/home/x");
    }

    #[test]
    fn private_ips() {
        assert_eq!(
            r("connect 10.0.0.5:80 failed"),
            "connect [REDACTED:private-ip]:80 failed"
        );
        assert_eq!(r("192.168.1.20"), "[REDACTED:private-ip]");
        assert_eq!(
            r("172.20.1.1 172.32.1.1"),
            "[REDACTED:private-ip] 172.32.1.1"
        );
        assert_eq!(r("127.0.0.1:3849 8.8.8.8"), "127.0.0.1:3849 8.8.8.8");
        assert_eq!(r("version 1.10.0.1"), "version 1.10.0.1");
        assert_eq!(r("[fd12:3456:789a::1]:80"), "[[REDACTED:private-ip]]:80");
        assert_eq!(r("fdisk: failed"), "fdisk: failed");
    }

    #[test]
    fn borrowed_when_clean() {
        assert!(matches!(redact("nothing to see"), Cow::Borrowed(_)));
        assert_eq!(r("中文 ok ☃"), "中文 ok ☃");
    }
}
