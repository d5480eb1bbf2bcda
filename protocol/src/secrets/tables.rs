//! The words the scanner knows: provider key prefixes, the key names whose values are secret
//! (English and Chinese), the authorization schemes and the PEM kinds. Both sides' property
//! tests build their examples from these lists.

/// Provider key prefixes (case-sensitive), the minimum length of what follows, and the
/// characters allowed in the body.
pub(crate) const PREFIXES: &[(&str, usize, &str)] = &[
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
pub(crate) const SECRET_KEYS: &[(&str, &str)] = &[
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
pub(crate) const ZH_KEYS: &[(&str, &str)] = &[
    ("密码", "password"),
    ("口令", "password"),
    ("令牌", "token"),
    ("密钥", "secret"),
    ("秘钥", "secret"),
];

/// Authorization schemes whose name is kept while the credential is masked.
pub(crate) const SCHEMES: &[&str] = &["bearer", "basic", "token", "digest", "negotiate", "apikey"];

/// The kinds of PEM private key met in the wild; any `-----BEGIN … PRIVATE KEY-----` header is
/// masked, these are the ones [`examples`] plants.
pub(crate) const PEM_KINDS: &[&str] = &["", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED "];
