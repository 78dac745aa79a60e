//! The secret scanner (see docs/DESIGN.md, "Security").
//!
//! Runs on every memory write, on text about to be sent to a model, on `check`, in the
//! pre-commit hook, in `commit` and on recall output, so the common case (no secret at all) must
//! be cheap in a short-lived process: a pass of two multi-literal automata (exact and ASCII
//! case folded) over each rule's distinctive prefixes or keywords. A rule's full regex is compiled and run only when one of
//! its literals is in the text.
//!
//! Text is normalized before it is scanned ([`normalize`]): invisible characters (zero-width,
//! joiners, bidi controls, variation selectors, tags) are removed and compatibility forms folded
//! (NFKC), so `gh\u{200b}p_…` or full-width letters cannot hide a token. Writers store the
//! normalized form ([`prepare_document`]), so nothing done to the text after the scan can
//! re-assemble a token.
//!
//! Nothing here ever returns, logs or formats a matched value: a [`Finding`] carries only the
//! rule id and the line number.
//!
//! A line containing [`ALLOW_MARKER`] is a reviewed false positive, but only in text a person
//! wrote ([`Origin::Person`]); in text from a model or a transcript ([`Origin::Machine`]) the
//! marker means nothing.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex::{Captures, Regex};
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Inline marker that suppresses findings on the line that carries it (person-written text only).
pub const ALLOW_MARKER: &str = "qwen-memory:allow";

/// Upper bound on redaction passes; see [`redact`] for why more than one pass can be needed.
const MAX_REDACT_PASSES: usize = 16;

/// Where scanned text came from. It decides whether [`ALLOW_MARKER`] is honoured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Written or reviewed by a person: an existing memory file read by `check`, the pre-commit
    /// hook, `commit` or recall, or the text typed for `remember`. The marker is honoured.
    Person,
    /// Produced by a model or taken from a transcript. The marker is ignored: a model or a
    /// transcript could otherwise smuggle a secret through by adding it.
    Machine,
}

/// Literals one of which every match of a rule contains: a rule's full regex is built and run
/// only on text holding one. `fold`: compared ignoring ASCII case (the text is NFKC-normalized
/// before it is scanned, so no non-ASCII letter that case-folds to an ASCII one, such as the
/// Kelvin sign or the long s, is left to compare).
#[derive(Clone, Copy)]
struct Prefilter {
    literals: &'static [&'static str],
    fold: bool,
}

const fn lit(literals: &'static [&'static str]) -> Prefilter {
    Prefilter {
        literals,
        fold: false,
    }
}

const fn lit_i(literals: &'static [&'static str]) -> Prefilter {
    Prefilter {
        literals,
        fold: true,
    }
}

/// One rule: a stable id, its human label, a prefilter and the pattern, plus an optional
/// judgement of the captured value for rules whose syntax alone is not enough.
///
/// One of `prefilter`'s literals is in every match of `pattern` (a necessary condition, normally
/// the rule's fixed prefixes or keywords); a test checks this on every corpus sample.
///
/// Patterns spell character classes out in ASCII and use ASCII word boundaries, as upstream's
/// JavaScript rules do. When a pattern has a group named `v`, only that group is the secret:
/// a redaction replaces the value and keeps the key (`password=[REDACTED:…]`).
struct Rule {
    id: &'static str,
    label: &'static str,
    prefilter: Prefilter,
    pattern: &'static str,
    check: Option<fn(&Captures<'_>) -> bool>,
}

const fn rule(
    id: &'static str,
    label: &'static str,
    prefilter: Prefilter,
    pattern: &'static str,
) -> Rule {
    Rule {
        id,
        label,
        prefilter,
        pattern,
        check: None,
    }
}

const fn judged(
    id: &'static str,
    label: &'static str,
    prefilter: Prefilter,
    pattern: &'static str,
    check: fn(&Captures<'_>) -> bool,
) -> Rule {
    Rule {
        id,
        label,
        prefilter,
        pattern,
        check: Some(check),
    }
}

/// What a secret is called in Chinese, Japanese and Korean ("密码", "パスワード", "API キー",
/// "비밀번호", "토큰"), as one alternation for the rules that look for a secret's name. Korean "키"
/// is a word of its own ("API 키는"), not the end of one ("단축키는").
macro_rules! cjk_secret_names {
    () => {
        concat!(
            r"密码|口令|密钥|秘钥|私钥|令牌|パスワード|暗証番号|トークン|シークレット|秘密鍵|キー",
            r"|비밀번호|패스워드|암호|토큰|시크릿|(?:^|[^\p{Hangul}])키"
        )
    };
}

/// The prefilter of the rules that look for a secret's name: any language's word for one.
const SECRET_NAME_PREFILTER: Prefilter = lit_i(&[
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "credential",
    "密码",
    "口令",
    "密钥",
    "秘钥",
    "私钥",
    "令牌",
    "パスワード",
    "暗証番号",
    "トークン",
    "シークレット",
    "秘密鍵",
    "キー",
    "비밀번호",
    "패스워드",
    "암호",
    "토큰",
    "시크릿",
    "키",
]);

/// Upstream Qwen Code 0.24.4's 19 rules first, in its order, then this project's additions.
const RULES: &[Rule] = &[
    rule(
        "aws-access-token",
        "AWS Access Token",
        lit(&["A3T", "AKIA", "ASIA", "ABIA", "ACCA"]),
        r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?-u:\b)",
    ),
    rule(
        "alibaba-cloud-access-key",
        "Alibaba Cloud Access Key",
        lit(&["LTAI"]),
        r"(?-u:\b)LTAI[A-Za-z0-9]{12,20}(?-u:\b)",
    ),
    rule(
        "gcp-api-key",
        "GCP API Key",
        lit(&["AIza"]),
        r"AIza[A-Za-z0-9_-]{35}",
    ),
    rule(
        "digitalocean-pat",
        "DigitalOcean PAT",
        lit(&["dop_v1_"]),
        r"dop_v1_[a-f0-9]{64}",
    ),
    rule(
        "anthropic-api-key",
        "Anthropic API Key",
        lit(&["sk-ant-"]),
        r"sk-ant-[A-Za-z0-9_-]{20,}",
    ),
    rule(
        "openai-api-key",
        "OpenAI API Key",
        lit(&["sk-"]),
        concat!(
            r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
            r"|sk-[A-Za-z0-9-]{20,}T3BlbkFJ[A-Za-z0-9-]{20,}",
            r"|sk-[A-Za-z0-9]{48}",
        ),
    ),
    rule(
        "huggingface-access-token",
        "HuggingFace Access Token",
        lit(&["hf_"]),
        r"hf_[A-Za-z0-9]{34,}",
    ),
    rule(
        "github-pat",
        "GitHub PAT",
        lit(&["ghp_"]),
        r"ghp_[A-Za-z0-9]{36}",
    ),
    rule(
        "github-fine-grained-pat",
        "GitHub Fine Grained PAT",
        lit(&["github_pat_"]),
        r"github_pat_[A-Za-z0-9_]{82}",
    ),
    rule(
        "github-app-token",
        "GitHub App Token",
        lit(&["ghu_", "ghs_"]),
        r"(?:ghu|ghs)_[A-Za-z0-9]{36}",
    ),
    rule(
        "github-oauth",
        "GitHub OAuth",
        lit(&["gho_"]),
        r"gho_[A-Za-z0-9]{36}",
    ),
    rule(
        "gitlab-pat",
        "GitLab PAT",
        lit(&["glpat-"]),
        r"glpat-[A-Za-z0-9_-]{20}",
    ),
    rule(
        "slack-bot-token",
        "Slack Bot Token",
        lit(&["xoxb-"]),
        r"xoxb-[0-9]{10,13}-[0-9]{10,13}[A-Za-z0-9-]*",
    ),
    rule(
        "slack-app-token",
        "Slack App Token",
        lit_i(&["xapp-"]),
        r"(?i)xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]+",
    ),
    rule(
        "npm-access-token",
        "NPM Access Token",
        lit(&["npm_"]),
        r"npm_[A-Za-z0-9]{36}",
    ),
    rule(
        "stripe-access-token",
        "Stripe Access Token",
        lit(&[
            "sk_test_", "sk_live_", "sk_prod_", "rk_test_", "rk_live_", "rk_prod_",
        ]),
        r"(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}",
    ),
    rule(
        "private-key",
        "Private Key",
        lit_i(&["-----begin"]),
        // A whole block of any length with something between the armour lines, or a header
        // followed by key material without its END line (a truncated paste).
        concat!(
            r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
            r"(?:\s*[^\s-](?s:.)*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
            r"|\s*(?:(?:Proc-Type|DEK-Info):[^\n]*\s*)*[A-Za-z0-9+/=]{16,}(?:\s*[A-Za-z0-9+/=]{16,})*)",
        ),
    ),
    rule(
        "gcp-oauth-client-secret",
        "GCP OAuth Client Secret",
        lit(&["GOCSPX-"]),
        r"GOCSPX-[A-Za-z0-9_-]{28}",
    ),
    rule(
        "sendgrid-api-token",
        "SendGrid API Token",
        lit(&["SG."]),
        r"(?-u:\b)SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    ),
    // ---- Beyond upstream, in the spirit of gitleaks' rule set. ----
    rule(
        "jwt",
        "JSON Web Token",
        lit(&["eyJ"]),
        r"(?-u:\b)eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.(?:[A-Za-z0-9_-]{10,})?",
    ),
    rule(
        "slack-user-token",
        "Slack User Token",
        lit(&["xoxp-", "xoxe-"]),
        r"xox[pe](?:-[0-9]{10,13}){3}-[A-Za-z0-9-]{28,34}",
    ),
    rule(
        "slack-legacy-token",
        "Slack Legacy Token",
        lit(&["xoxa-", "xoxo-", "xoxr-", "xoxs-"]),
        r"xox[aors]-(?:[0-9]+-)*[A-Za-z0-9]{8,48}",
    ),
    rule(
        "slack-config-token",
        "Slack Configuration Token",
        lit(&["xoxe"]),
        r"xoxe(?:\.xox[bp])?-[0-9]-[A-Za-z0-9]{100,}",
    ),
    rule(
        "slack-webhook-url",
        "Slack Webhook URL",
        lit(&["hooks.slack.com/"]),
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}",
    ),
    rule(
        "chat-webhook-url",
        "Chat Webhook URL",
        lit(&["discord", "feishu", "larksuite", "dingtalk", "qyapi.weixin"]),
        concat!(
            r"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{30,}",
            r"|open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/[A-Za-z0-9-]{20,}",
            r"|oapi\.dingtalk\.com/robot/send\?access_token=[A-Za-z0-9]{20,}",
            r"|qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=[A-Za-z0-9-]{20,}",
        ),
    ),
    rule(
        "aws-secret-access-key",
        "AWS Secret Access Key",
        lit_i(&["secret"]),
        concat!(
            r"(?i)(?:(?:aws[_.\s-]?)?secret[_.\s-]?access[_.\s-]?key|aws[_.\s-]?secret(?:[_.\s-]?key)?)",
            r#"["']?\s*(?::=|=>|=|:|：|是|为)\s*["']?(?P<v>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        ),
    ),
    rule(
        "dashscope-api-key",
        "DashScope API Key",
        lit(&["sk-"]),
        r"(?-u:\b)sk-[a-f0-9]{32}(?-u:\b)",
    ),
    rule(
        "telegram-bot-token",
        "Telegram Bot Token",
        lit(&[":AA"]),
        r"(?-u:\b)[0-9]{8,10}:AA[A-Za-z0-9_-]{33}",
    ),
    rule(
        "azure-storage-account-key",
        "Azure Storage Account Key",
        lit_i(&["accountkey="]),
        r"(?i)AccountKey=[A-Za-z0-9+/]{86}==",
    ),
    rule(
        "shopify-token",
        "Shopify Token",
        lit(&["shpat_", "shpca_", "shppa_", "shpss_"]),
        r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
    ),
    rule(
        "pypi-upload-token",
        "PyPI Upload Token",
        lit(&["pypi-AgEIcHlwaS5vcmc"]),
        r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
    ),
    rule(
        "hashicorp-vault-token",
        "HashiCorp Vault Token",
        lit(&["hvs.", "hvb."]),
        r"(?-u:\b)hv[sb]\.[A-Za-z0-9_-]{90,}",
    ),
    rule(
        "age-secret-key",
        "Age Secret Key",
        lit(&["AGE-SECRET-KEY-1"]),
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
    ),
    rule(
        "groq-api-key",
        "Groq API Key",
        lit(&["gsk_"]),
        r"gsk_[A-Za-z0-9]{52}",
    ),
    rule(
        "tencent-cloud-secret-id",
        "Tencent Cloud Secret ID",
        lit(&["AKID"]),
        r"(?-u:\b)AKID[A-Za-z0-9]{32}(?-u:\b)",
    ),
    rule(
        "stripe-webhook-secret",
        "Stripe Webhook Secret",
        lit(&["whsec_"]),
        r"whsec_[A-Za-z0-9+/]{32,}",
    ),
    rule(
        "databricks-token",
        "Databricks Token",
        lit(&["dapi"]),
        r"(?-u:\b)dapi[a-f0-9]{32}(?:-[0-9])?(?-u:\b)",
    ),
    rule(
        "linear-api-key",
        "Linear API Key",
        lit(&["lin_api_"]),
        r"lin_api_[A-Za-z0-9]{40}",
    ),
    rule(
        "new-relic-user-key",
        "New Relic User Key",
        lit(&["NRAK-"]),
        r"NRAK-[A-Z0-9]{27}",
    ),
    rule(
        "mailchimp-api-key",
        "Mailchimp API Key",
        lit(&[
            "-us0", "-us1", "-us2", "-us3", "-us4", "-us5", "-us6", "-us7", "-us8", "-us9",
        ]),
        r"(?-u:\b)[0-9a-f]{32}-us[0-9]{1,2}(?-u:\b)",
    ),
    // Generic rules last: where one covers the same text as a specific rule, the specific
    // id is the one a redaction shows.
    judged(
        "url-credentials",
        "Credentials in URL",
        lit(&["://"]),
        r"(?i)(?-u:\b)[a-z][a-z0-9+.-]{1,30}://[^\s:/@?#\[\]]*:(?P<v>[^\s/@?#\[\]]+)@[A-Za-z0-9\[]",
        url_password_is_real,
    ),
    judged(
        "password-assignment",
        "Password or Secret Assignment",
        SECRET_NAME_PREFILTER,
        concat!(
            r"(?i)(?:(?-u:\b)(?:[A-Za-z0-9_.-]{0,40}?",
            r"(?:password|passwd|passphrase|secret|secret[_.-]?key|token|api[_.-]?key",
            r"|access[_.-]?key|private[_.-]?key|credentials?)",
            r"|(?:[A-Za-z0-9_.-]*[_.-])?(?:pass|pwd))",
            // "密码是…", "パスワードは…", "API キーが…", "비밀번호는…", "토큰 값은…".
            r"|(?:",
            cjk_secret_names!(),
            r")(?:[ \t]*값)?)",
            // A name that goes on (`SECRET_KEY_BASE`, `API_TOKEN_PROD`): its value must look
            // like a secret, not only be six characters (`token_limit=100000`).
            r"(?P<suffix>(?:[_.-][A-Za-z0-9]+){1,2})?",
            // What the secret is for, between its name and the value: "the password for
            // staging is …", "password of the prod db: …" (at most four words).
            r"(?:[ \t]+(?:for|of|on|in|at)(?:[ \t]+[A-Za-z0-9_.@/-]+){1,4}?)?",
            // English prose states a value with "is" / "was" / "to" ("set the password to …")
            // or a spaced dash ("staging password - …"); Make assigns with `?=`.
            r#"(?P<q>["'])?[ \t]*(?P<sep>:=|=>|\?=|=|:|：|是|为|為|は|が|는|은|이|가|(?-u:\b)(?:is|was|to)[ \t]|[ \t][-–—][ \t])[ \t]*"#,
            r#"(?P<vq>["'`「])?"#,
            // The value never ends in sentence punctuation: `password=hunter22.` ends a sentence.
            r"(?P<v>[A-Za-z0-9!#$%*+\-./:=?@^_|~\\]*[A-Za-z0-9!#$%*+\-/=?@^_|~\\])(?P<after>\(?)",
        ),
        assignment_value_is_real,
    ),
    // A password given to a command: `--password …`, `-token …`, `curl -u user:…`,
    // `mysql -p…`, and in markup: `<password>…</password>`. The value must look like one
    // (letters with digits or symbols), never a variable, path or template (`--token $TOKEN`).
    judged(
        "password-flag",
        "Password Given to a Command",
        lit_i(&["-pass", "-token", "-api", "-secret", "-access"]),
        r#"(?i)(?:^|[\s"'=])--?(?:password|passwd|pass|token|api[_-]?key|api[_-]?token|secret|access[_-]?token|access[_-]?key)[ \t]+["']?(?P<v>[^\s"']{6,})"#,
        command_value_is_real,
    ),
    judged(
        "curl-user-password",
        "Password in a curl -u Argument",
        lit_i(&["curl"]),
        r#"(?i)(?-u:\b)curl(?-u:\b)[^\n]*?[ \t](?:-u|--user)[ \t]*["']?[^\s:"']+:(?P<v>[^\s"']{6,})"#,
        command_value_is_real,
    ),
    judged(
        "mysql-password-flag",
        "Password in a mysql -p Argument",
        lit_i(&["mysql"]),
        r#"(?i)(?-u:\b)mysql(?:dump|admin|sh)?(?-u:\b)[^\n]*?[ \t]-p(?P<v>[^\s"'-][^\s"']{5,})"#,
        command_value_is_real,
    ),
    judged(
        "markup-password",
        "Password in Markup",
        lit_i(&["<pass", "<secret", "<token", "<api", "<access"]),
        r"(?i)<(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|access[_-]?token)>[ \t]*(?P<v>[^<\s]{6,})[ \t]*</",
        command_value_is_real,
    ),
    judged(
        "authorization-header",
        "Authorization Header Credentials",
        lit_i(&["authorization"]),
        r#"(?i)authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+(?P<v>[A-Za-z0-9._~+/=-]{16,})"#,
        header_value_is_real,
    ),
    // A secret's name in any of the five languages, then within 40 characters a generated
    // value, however they are joined: "접속 토큰: new Ab3dE…", "token for staging → Xy9…". The
    // value must look generated (both cases and digits, 16+ characters, no separator), so a SHA,
    // a UUID or "Prod-API-Key-2024" is not one.
    judged(
        "keyword-near-token",
        "Secret Named Next to a Generated Value",
        SECRET_NAME_PREFILTER,
        concat!(
            // English names are whole words: base64 and PEM bodies spell "key" and "Token" by
            // chance.
            r"(?i)(?:(?-u:\b)(?:passwords?|passwd|passphrase|secrets?|tokens?|api[_ .-]?keys?",
            r"|access[_ .-]?keys?|private[_ .-]?keys?|credentials?)(?-u:\b)|",
            cjk_secret_names!(),
            r")",
            // On the same line: a PEM header is not followed by its body's first line.
            r"[^\n]{0,40}?(?:^|[^A-Za-z0-9\n])(?P<v>[A-Za-z0-9]*[0-9][A-Za-z0-9]*)(?:[^A-Za-z0-9]|$)",
        ),
        generated_value_is_real,
    ),
];

/// Values that stand for a secret rather than being one (compared lowercased). `changeme`,
/// `admin` and the like are deliberately absent: they are real, working default passwords.
const PLACEHOLDER_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pass",
    "pwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "value",
    "placeholder",
    "redacted",
    "required",
    "optional",
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "string",
    "hidden",
    "masked",
    "empty",
    "dummy",
    "sample",
];

/// Substrings that make a value a placeholder wherever they occur.
const PLACEHOLDER_PARTS: &[&str] = &[
    "example",
    "your",
    "placeholder",
    "redacted",
    "xxxx",
    "****",
    "....",
    "<",
    ">",
    "${",
    "{{",
    "%s",
    "://",
];

/// Words that follow "password:" or "密码是" in prose about hashing, not a value.
const TECHNICAL_WORDS: &[&str] = &[
    "sha1", "sha-1", "sha256", "sha-256", "sha512", "sha-512", "sha3", "md5", "bcrypt", "scrypt",
    "argon2", "pbkdf2", "hs256", "hs512", "rs256", "es256", "base64", "utf-8", "utf8", "aes",
    "hmac", "rot13", "oauth2", "http2", "ed25519", "x25519", "rsa",
];

/// Lowercase letter, uppercase letter, digit, other: how many kinds occur in `v`.
fn char_classes(v: &str) -> usize {
    let lower = v.chars().any(|c| c.is_ascii_lowercase());
    let upper = v.chars().any(|c| c.is_ascii_uppercase());
    let digit = v.chars().any(|c| c.is_ascii_digit());
    let other = v.chars().any(|c| !c.is_ascii_alphanumeric());
    [lower, upper, digit, other].iter().filter(|b| **b).count()
}

fn is_placeholder(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    if PLACEHOLDER_WORDS.contains(&lower.as_str()) {
        return true;
    }
    if PLACEHOLDER_PARTS.iter().any(|p| lower.contains(p)) {
        return true;
    }
    // Variables, paths, templates and vault references: `$DB_PASS`, `/run/secrets/x`, `!vault`.
    if lower.starts_with(['$', '%', '/', '~', '!', '{', '*', '@', '\\', '.']) {
        return true;
    }
    // One repeated character (`xxxxxx`, `000000`).
    let mut chars = lower.chars();
    if let Some(first) = chars.next() {
        if chars.all(|c| c == first) {
            return true;
        }
    }
    false
}

/// `settings.db_password`, `config.secret`, `os.environ`: a reference in code, not a value.
fn is_dotted_reference(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            let mut cs = p.chars();
            cs.next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

fn url_password_is_real(caps: &Captures<'_>) -> bool {
    let Some(v) = caps.name("v").map(|m| m.as_str()) else {
        return false;
    };
    let decoded = percent_encoding::percent_decode_str(v).decode_utf8_lossy();
    !is_placeholder(&decoded)
}

/// Words that, after a secret's name (`password_policy`, `token_type`, `api_key_file`), make
/// the key a setting about the secret rather than the secret.
const NOT_A_SECRET_SUFFIX: &[&str] = &[
    "policy",
    "type",
    "length",
    "len",
    "limit",
    "count",
    "file",
    "path",
    "url",
    "uri",
    "name",
    "id",
    "expiry",
    "expires",
    "ttl",
    "hash",
    "hashed",
    "algorithm",
    "algo",
    "format",
    "mode",
    "min",
    "max",
    "size",
    "header",
    "prefix",
    "env",
    "var",
    "endpoint",
    "host",
    "port",
    "user",
    "username",
    "rotation",
    "version",
    "field",
    "required",
    "enabled",
    "strength",
    "reset",
    "hint",
    "label",
    "store",
    "provider",
    "manager",
    "ref",
    "source",
];

/// Judges the value after `password=`, `passwd: `, `密码是` and similar.
///
/// Code-like assignments (`=`, `:=`, `=>`, a quoted key or value) only need a value of six or
/// more characters that is not a placeholder or reference. Prose-like ones (`:`, `：`, `是`,
/// `为`) also need letters with digits or symbols, so "password: at least twelve characters" or
/// "密码是必须的" are not taken for a value.
fn assignment_value_is_real(caps: &Captures<'_>) -> bool {
    let (Some(v), Some(sep)) = (caps.name("v"), caps.name("sep")) else {
        return false;
    };
    if caps.name("after").is_some_and(|m| !m.as_str().is_empty()) {
        return false; // `password=get_password()`: a call
    }
    let v = v
        .as_str()
        .trim_end_matches(['.', ',', ';', ':', ')', ']', '}', '>']);
    if v.chars().count() < 6 || is_placeholder(v) || is_dotted_reference(v) {
        return false;
    }
    let code_like = matches!(sep.as_str(), "=" | ":=" | "=>" | "?=")
        || caps.name("q").is_some()
        || caps.name("vq").is_some();
    let suffix = caps.name("suffix").map_or("", |m| m.as_str());
    // `password_policy=…`, `token_type=…`, `secret_name=…`: the name goes on into a setting
    // about the secret, not the secret.
    if suffix
        .split(['_', '.', '-'])
        .any(|w| NOT_A_SECRET_SUFFIX.contains(&w.to_ascii_lowercase().as_str()))
    {
        return false;
    }
    if code_like && suffix.is_empty() {
        return true;
    }
    // A slug joins words with `-` ("단축키는-vscode-기본값을"): a value stated in prose starts
    // with a letter or digit. (The prose the slug came from is scanned as well.)
    if v.starts_with(['-', '_']) {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if TECHNICAL_WORDS.iter().any(|w| lower.starts_with(w)) {
        return false;
    }
    let letters = v.chars().any(|c| c.is_ascii_alphabetic());
    let digits_or_symbols = v.chars().any(|c| !c.is_ascii_alphabetic());
    if sep.as_str().starts_with(['i', 'I', 'w', 'W', 't', 'T']) {
        // "… password is Hunter2-prod-9921": a word after "is" is prose ("is stored in
        // Vault", "is rotated-weekly"), so the value needs digits too — or, after
        // "passphrase", three or more words joined by `-` (a diceware passphrase).
        let digits = v.chars().any(|c| c.is_ascii_digit());
        let words = v.split('-').filter(|w| w.len() >= 3).count();
        let passphrase = caps[0].to_ascii_lowercase().contains("passphrase") && words >= 3;
        return letters && (digits || passphrase);
    }
    letters && digits_or_symbols && char_classes(v) >= 2
}

/// Judges a value given to a command or in markup (`--password …`, `curl -u u:…`,
/// `<password>…</password>`): six or more characters with letters and digits or symbols, not a
/// placeholder, variable, path or template.
fn command_value_is_real(caps: &Captures<'_>) -> bool {
    let Some(v) = caps
        .name("v")
        .map(|m| m.as_str().trim_end_matches(['.', ',', ';', ')']))
    else {
        return false;
    };
    v.chars().count() >= 6
        && !is_placeholder(v)
        && !v.starts_with(['<', '-', '('])
        && v.chars().any(|c| c.is_ascii_alphabetic())
        && v.chars().any(|c| !c.is_ascii_alphabetic())
        && char_classes(v) >= 2
}

/// Judges the value after a secret's name in `keyword-near-token`: 16 or more letters and digits
/// with both cases and at least two digits, not a placeholder.
fn generated_value_is_real(caps: &Captures<'_>) -> bool {
    let Some(v) = caps.name("v").map(|m| m.as_str()) else {
        return false;
    };
    v.len() >= 16
        && v.chars().any(|c| c.is_ascii_uppercase())
        && v.chars().any(|c| c.is_ascii_lowercase())
        && v.chars().filter(char::is_ascii_digit).count() >= 2
        && !is_placeholder(v)
}

fn header_value_is_real(caps: &Captures<'_>) -> bool {
    let Some(v) = caps.name("v").map(|m| m.as_str()) else {
        return false;
    };
    !is_placeholder(v) && char_classes(v) >= 2
}

/// A rule that fired: which rule and on which line. Deliberately has no field for the value,
/// so neither `Debug` nor `Display` can leak it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Stable rule id, e.g. `github-pat`.
    pub rule_id: &'static str,
    /// 1-based line (of the normalized text) on which the match starts.
    pub line: usize,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match label(self.rule_id) {
            Some(label) => write!(f, "line {}: {} ({})", self.line, label, self.rule_id),
            None => write!(f, "line {}: {}", self.line, self.rule_id),
        }
    }
}

/// A write refused because the text looks like it holds a secret: the path and the rule ids,
/// never the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("refusing to write {path}: it looks like it holds a secret ({})", rule_ids.join(", "))]
pub struct SecretError {
    pub path: String,
    pub rule_ids: Vec<String>,
}

/// The prefilters of every rule as two multi-literal automata (exact, and ASCII case
/// folded), each literal's pattern id mapped to its rule. Why not a `RegexSet` of the same
/// alternations: building one cost 7 M instructions, a quarter of a whole `extract` process
/// that scans one short turn; these cost a few thousand, and find the same rules.
struct Prefilters {
    exact: Option<(AhoCorasick, Vec<usize>)>,
    folded: Option<(AhoCorasick, Vec<usize>)>,
}

fn prefilter() -> &'static Prefilters {
    static SET: OnceLock<Prefilters> = OnceLock::new();
    SET.get_or_init(|| {
        let build = |fold: bool| {
            let (literals, rules): (Vec<&str>, Vec<usize>) = RULES
                .iter()
                .enumerate()
                .filter(|(_, r)| r.prefilter.fold == fold)
                .flat_map(|(i, r)| r.prefilter.literals.iter().map(move |l| (*l, i)))
                .unzip();
            // The literals are constants covered by tests: failing here is a programming error.
            let ac = AhoCorasick::builder()
                .ascii_case_insensitive(fold)
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .build(&literals)
                .expect("secret prefilters build");
            (!literals.is_empty()).then_some((ac, rules))
        };
        Prefilters {
            exact: build(false),
            folded: build(true),
        }
    })
}

/// The rules whose prefilter `text` holds, in rule order.
fn candidates(text: &str) -> Vec<usize> {
    let mut hit = [false; RULES.len()];
    let sets = prefilter();
    for (ac, rules) in [&sets.exact, &sets.folded].into_iter().flatten() {
        for m in ac.find_overlapping_iter(text) {
            hit[rules[m.pattern().as_usize()]] = true;
        }
    }
    (0..RULES.len()).filter(|&i| hit[i]).collect()
}

fn rule_regex(index: usize) -> &'static Regex {
    static REGEXES: [OnceLock<Regex>; RULES.len()] = [const { OnceLock::new() }; RULES.len()];
    REGEXES[index]
        .get_or_init(|| Regex::new(RULES[index].pattern).expect("secret rule pattern is valid"))
}

/// All rule ids, in the order rules are evaluated.
pub fn rule_ids() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|r| r.id)
}

/// Human-readable label of a rule id (e.g. `GitHub PAT`).
pub fn label(rule_id: &str) -> Option<&'static str> {
    RULES.iter().find(|r| r.id == rule_id).map(|r| r.label)
}

// ---- Normalization ----

/// Default-ignorable code points: zero-width spaces and joiners, bidi controls, invisible
/// operators, variation selectors, Hangul fillers, tag characters. They render as nothing, so
/// they can split a token without a reader noticing.
fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8 | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

/// Full-width punctuation and the ideographic space, which Chinese and Japanese text use
/// as ordinary punctuation. [`normalize`] keeps them (NFKC would turn `，` into `,`); the scan
/// also looks at their folded form, see [`scan_forms`].
fn keeps_width(c: char) -> bool {
    c == '\u{3000}'
        || (matches!(c as u32, 0xFF01..=0xFF60 | 0xFFE0..=0xFFE6) && !c.is_alphanumeric())
}

fn strip_invisible(s: &str) -> Cow<'_, str> {
    if s.chars().any(is_invisible) {
        Cow::Owned(s.chars().filter(|c| !is_invisible(*c)).collect())
    } else {
        Cow::Borrowed(s)
    }
}

/// `s` without invisible characters, NFKC folded, and without the invisible characters the
/// folding made. Only the runs of non-ASCII text are folded, each with the ASCII character
/// before it (a combining mark composes with it: `e` + U+0301 is `é`): ASCII text is NFKC as
/// it is, holds no invisible character, and is never the second half of a composition, so the
/// result is the whole text's. A MEMORY.md line with one `—` or `…` then costs its few
/// non-ASCII characters instead of a pass of the normalizer over the line.
fn nfkc_stripped(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    while at < s.len() {
        let Some(run) = bytes[at..]
            .iter()
            .position(|b| !b.is_ascii())
            .map(|p| at + p)
        else {
            out.push_str(&s[at..]);
            break;
        };
        let start = if run > at { run - 1 } else { run };
        let end = bytes[run..]
            .iter()
            .position(u8::is_ascii)
            .map_or(s.len(), |p| run + p);
        out.push_str(&s[at..start]);
        out.push_str(&nfkc_stripped_whole(&s[start..end]));
        at = end;
    }
    out
}

/// [`nfkc_stripped`] by one pass of the normalizer over all of `s`.
fn nfkc_stripped_whole(s: &str) -> String {
    let s = strip_invisible(s);
    let folded: String = s.nfkc().collect();
    strip_invisible(&folded).into_owned()
}

/// ASCII, or already NFKC without invisible characters (full-width punctuation is not NFKC, so
/// text holding it takes the slow path).
fn is_clean(text: &str) -> bool {
    text.is_ascii()
        || (!text.chars().any(is_invisible) && is_nfkc_quick(text.chars()) == IsNormalized::Yes)
}

/// The form of `text` that is scanned and written: invisible characters removed and
/// compatibility forms folded (NFKC: full-width `ｇｈｐ` becomes `ghp`, `①` becomes `1`), except
/// that full-width punctuation and the ideographic space are kept so Chinese text keeps its
/// `，` and `：`. ASCII text is returned as is. Idempotent.
pub fn normalize(text: &str) -> Cow<'_, str> {
    if is_clean(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    for c in text.chars() {
        if keeps_width(c) {
            if !run.is_empty() {
                out.push_str(&nfkc_stripped(&run));
                run.clear();
            }
            out.push(c);
        } else {
            run.push(c);
        }
    }
    out.push_str(&nfkc_stripped(&run));
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

/// NFKC of everything with invisible characters removed, full-width punctuation included.
fn fold_all(text: &str) -> Cow<'_, str> {
    if is_clean(text) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(nfkc_stripped(text))
    }
}

/// The forms a scan looks at: the normalized text, and when it still holds full-width
/// punctuation, that folded too (`ghp＿…` must not hide a token from the scan).
fn scan_forms(text: &str) -> (Cow<'_, str>, Option<String>) {
    let normal = normalize(text);
    let folded = match fold_all(&normal) {
        Cow::Owned(s) if s != *normal => Some(s),
        _ => None,
    };
    (normal, folded)
}

// ---- Matching ----

/// Byte offsets at which each line starts; line `i` (0-based) starts at `starts[i]`.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// 0-based index of the line holding byte `offset`.
    fn index_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    fn line(&self, index: usize) -> &'a str {
        let start = self.starts.get(index).copied().unwrap_or(self.text.len());
        let end = self
            .starts
            .get(index + 1)
            .map(|&s| s - 1)
            .unwrap_or(self.text.len());
        self.text.get(start..end).unwrap_or("")
    }

    /// Whether any line touched by `start..end` carries the allow marker. A multi-line match
    /// (a PEM block) can be allowed from its first or last line.
    fn allowed(&self, start: usize, end: usize) -> bool {
        let first = self.index_of(start);
        let last = self.index_of(end.saturating_sub(1).max(start));
        (first..=last).any(|i| self.line(i).contains(ALLOW_MARKER))
    }
}

/// A reportable match: rule index and the byte span of the secret.
struct Hit {
    rule: usize,
    start: usize,
    end: usize,
    /// A generic finding that speaks only where no specific rule did (see [`hits`]).
    yields: bool,
}

/// Every reportable match in `text` (already normalized), in rule order then position; with
/// `first_only`, stops at the first one. The marker is honoured only for [`Origin::Person`].
fn hits(text: &str, origin: Origin, first_only: bool) -> Vec<Hit> {
    let candidates = candidates(text);
    let mut out = Vec::new();
    if candidates.is_empty() {
        return out;
    }
    let lines = (origin == Origin::Person && text.contains(ALLOW_MARKER)).then(|| Lines::new(text));
    for rule in candidates {
        let r = &RULES[rule];
        for caps in rule_regex(rule).captures_iter(text) {
            if r.check.is_some_and(|check| !check(&caps)) {
                continue;
            }
            let Some(span) = caps.name("v").or_else(|| caps.get(0)) else {
                continue;
            };
            let whole = caps.get(0).map_or(span.range(), |m| m.range());
            if lines
                .as_ref()
                .is_some_and(|l| l.allowed(whole.start, whole.end))
            {
                continue;
            }
            // `keyword-near-token`, and a value stated in prose with "is"/"was".
            let yields = r.id == "keyword-near-token"
                || caps
                    .name("sep")
                    .is_some_and(|m| m.as_str().starts_with(['i', 'I', 'w', 'W']));
            out.push(Hit {
                rule,
                start: span.start(),
                end: span.end(),
                yields,
            });
            if first_only {
                return out;
            }
        }
    }
    // The generic rule speaks only where no other rule did: "token ghp_…" is a GitHub token,
    // not also a secret named next to a generated value.
    let specific: Vec<(usize, usize)> = out
        .iter()
        .filter(|h| !h.yields)
        .map(|h| (h.start, h.end))
        .collect();
    out.retain(|h| !h.yields || !specific.iter().any(|&(s, e)| h.start < e && s < h.end));
    out
}

fn findings_of(text: &str, origin: Origin, out: &mut Vec<(usize, usize)>) {
    let found = hits(text, origin, false);
    if found.is_empty() {
        return;
    }
    let lines = Lines::new(text);
    out.extend(found.iter().map(|h| (lines.index_of(h.start) + 1, h.rule)));
}

/// Scans `text` after normalizing it and returns one finding per (rule, line), ordered by line
/// then rule order. Honours [`ALLOW_MARKER`] only for [`Origin::Person`].
pub fn scan_as(text: &str, origin: Origin) -> Vec<Finding> {
    let (normal, folded) = scan_forms(text);
    let mut keyed = Vec::new();
    findings_of(&normal, origin, &mut keyed);
    if let Some(folded) = &folded {
        findings_of(folded, origin, &mut keyed);
    }
    keyed.sort_unstable();
    keyed.dedup();
    keyed
        .into_iter()
        .map(|(line, rule)| Finding {
            rule_id: RULES[rule].id,
            line,
        })
        .collect()
}

/// [`scan_as`] for text of unknown or machine origin: the allow marker is ignored.
pub fn scan(text: &str) -> Vec<Finding> {
    scan_as(text, Origin::Machine)
}

/// Whether `text` holds any secret, judged as [`scan_as`] does.
pub fn contains_secret_as(text: &str, origin: Origin) -> bool {
    let (normal, folded) = scan_forms(text);
    !hits(&normal, origin, true).is_empty()
        || folded.is_some_and(|f| !hits(&f, origin, true).is_empty())
}

/// Whether `text` holds any secret, ignoring the allow marker.
pub fn contains_secret(text: &str) -> bool {
    contains_secret_as(text, Origin::Machine)
}

/// The distinct rule ids the scanner finds in any of `texts`, sorted.
pub fn rule_ids_in<'a>(texts: impl IntoIterator<Item = &'a str>, origin: Origin) -> Vec<String> {
    let mut ids: Vec<String> = texts
        .into_iter()
        .flat_map(|t| scan_as(t, origin))
        .map(|f| f.rule_id.to_string())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Checks a memory file about to be written and returns the text to write: the normalized form
/// that was scanned. `relative_path` (the file name a slug made) is scanned too.
///
/// For [`Origin::Person`] the allow marker is honoured. For [`Origin::Machine`] (a document
/// that takes model or transcript text) a finding hidden by a marker is only accepted when
/// `previous` (the file as it was) already held it: a person's reviewed line survives a
/// rewrite, but machine text cannot add a new one.
pub fn prepare_document(
    relative_path: &str,
    text: &str,
    origin: Origin,
    previous: Option<&str>,
) -> Result<String, SecretError> {
    let normal = normalize(text);
    let mut ids = rule_ids_in([relative_path, normal.as_ref()], Origin::Person);
    if ids.is_empty() && origin == Origin::Machine {
        let mut before: HashMap<&str, usize> = HashMap::new();
        for f in previous.map(scan).unwrap_or_default() {
            *before.entry(f.rule_id).or_default() += 1;
        }
        for f in scan(&normal) {
            match before.get_mut(f.rule_id) {
                Some(n) if *n > 0 => *n -= 1,
                _ => ids.push(f.rule_id.to_string()),
            }
        }
        ids.sort();
        ids.dedup();
    }
    if ids.is_empty() {
        Ok(normal.into_owned())
    } else {
        Err(SecretError {
            path: relative_path.to_string(),
            rule_ids: ids,
        })
    }
}

// ---- Redaction ----

/// One replacement pass over already-normalized text; `None` when nothing needed replacing.
fn redact_once(text: &str, origin: Origin) -> Option<String> {
    let mut hits = hits(text, origin, false);
    if hits.is_empty() {
        return None;
    }
    // Earliest first; at equal starts the longest span wins so overlaps collapse into it, and
    // for the same span the earlier (more specific) rule names the marker.
    hits.sort_unstable_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(a.rule.cmp(&b.rule))
    });
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for h in hits {
        if h.start < pos {
            // Overlaps a span already replaced; extend over its tail if it reaches further.
            pos = pos.max(h.end);
            continue;
        }
        out.push_str(&text[pos..h.start]);
        out.push_str("[REDACTED:");
        out.push_str(RULES[h.rule].id);
        out.push(']');
        pos = h.end;
    }
    out.push_str(&text[pos..]);
    Some(out)
}

fn redact_passes(text: String, origin: Origin) -> String {
    let mut current = text;
    for _ in 0..MAX_REDACT_PASSES {
        match redact_once(&current, origin) {
            Some(next) => current = next,
            None => break,
        }
    }
    current
}

/// Normalizes `text` and replaces each secret with `[REDACTED:<rule_id>]`, ignoring the allow
/// marker: this is for text sent to a model or written to a log.
///
/// Removing one secret can expose another (a word-bounded rule glued to a preceding token
/// becomes bounded once that token is replaced), so passes repeat until nothing matches, at
/// most [`MAX_REDACT_PASSES`]. When full-width punctuation hides a token, the fully folded form
/// is redacted instead.
pub fn redact(text: &str) -> String {
    redact_as(text, Origin::Machine)
}

/// [`redact`] honouring the allow marker for [`Origin::Person`].
pub fn redact_as(text: &str, origin: Origin) -> String {
    let out = redact_passes(normalize(text).into_owned(), origin);
    match fold_all(&out) {
        Cow::Owned(folded) if !hits(&folded, origin, true).is_empty() => {
            redact_passes(folded, origin)
        }
        _ => out,
    }
}

/// The rule ids of the `[REDACTED:<rule_id>]` markers [`redact`] left in `text`: text derived
/// from redacted input that still shows a marker is dropped rather than stored.
pub fn redacted_rule_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = text
        .match_indices("[REDACTED:")
        .filter_map(|(i, m)| {
            let rest = &text[i + m.len()..];
            let id = &rest[..rest.find(']')?];
            rule_ids().find(|r| *r == id).map(str::to_string)
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests;
