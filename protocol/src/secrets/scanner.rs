//! The scanner: one pass over a text, each byte examined a bounded number of times, that finds
//! every secret shape and writes the side's mask in its place.

use super::tables::{PREFIXES, SCHEMES, SECRET_KEYS, ZH_KEYS};
use super::*;

pub(super) struct Scanner<'a, 'r> {
    pub(super) src: &'a str,
    pub(super) b: &'a [u8],
    pub(super) out: String,
    /// Everything before `last` has been copied to (or replaced in) `out`.
    pub(super) last: usize,
    pub(super) touched: bool,
    pub(super) rules: Rules,
    pub(super) render: &'r mut dyn FnMut(&mut String, Mask),
    pub(super) count: usize,
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

    pub(super) fn run(&mut self) {
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
pub(super) fn is_camel(w: &[u8], k: usize) -> bool {
    let at = w.len() - k;
    w[at].is_ascii_uppercase() && w[at - 1].is_ascii_lowercase()
}

/// Path component characters of a user name.
pub(super) fn is_name_char(c: u8) -> bool {
    !(c.is_ascii_whitespace()
        || matches!(
            c,
            b'/' | b'"' | b'\'' | b'`' | b':' | b'<' | b'>' | b'|' | b',' | b')' | b']'
        ))
        && c != 0
}

/// Values that are clearly not secrets: empty markers, code identifiers, types.
pub(super) fn is_non_secret_value(v: &str) -> bool {
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
pub(super) fn is_placeholder_like(body: &[u8]) -> bool {
    body.iter().all(|&c| c == body[0])
}

pub(super) fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from >= hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

pub(super) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}
