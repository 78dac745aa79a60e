//! The labelled corpus of the secret scanner: secrets of many kinds and benign look-alikes.
//!
//! Every secret is GENERATED when the tests run, from short fragments and a seeded generator,
//! so no real-looking credential is ever committed (push protection and other scanners must not
//! trip on this repository). Shared by the scanner's unit tests
//! (`#[path]`-included from `src/formats/secrets/tests.rs`) and the integration tests.
//!
//! The benign list was written before the scanner's rules were tuned, from the look-alikes named
//! in the issue (a password policy, URLs without a password, placeholders, SHAs, UUIDs, base64
//! of text, lock-file hashes) plus ordinary Chinese and English notes.
#![allow(dead_code)]

/// One labelled secret: the rule that must fire, the text holding it, and the secret value
/// itself (which must never be printed).
#[derive(Debug, Clone)]
pub struct Sample {
    pub rule: &'static str,
    pub text: String,
    pub value: String,
}

/// A small deterministic generator (xorshift64*), so the corpus is the same on every run.
pub struct Gen(u64);

pub const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
pub const DIGITS: &str = "0123456789";
pub const HEX: &str = "0123456789abcdef";
pub const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub const UPPER_ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
pub const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub const B64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
pub const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// `n` characters drawn from `alphabet`.
    pub fn of(&mut self, alphabet: &str, n: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..n)
            .map(|_| chars[(self.next() % chars.len() as u64) as usize])
            .collect()
    }

    /// A password-like value: letters, digits and a symbol, `n` long (n >= 8).
    pub fn password(&mut self, n: usize) -> String {
        let mut s = self.of(ALNUM, n - 3);
        s.push_str(&self.of(UPPER, 1));
        s.push_str(&self.of(DIGITS, 1));
        s.push_str(&self.of("!#%&*+-_", 1));
        s
    }
}

/// Joins fragments; used so no token prefix and body ever sit together in the source.
pub fn j(parts: &[&str]) -> String {
    parts.concat()
}

/// Standard base64 of `bytes` (for benign "base64 of ordinary text").
pub fn base64(bytes: &[u8]) -> String {
    let table: Vec<char> = B64.chars().collect();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(table[((n >> (18 - 6 * i)) & 63) as usize]);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn sample(rule: &'static str, value: String, text: String) -> Sample {
    Sample { rule, text, value }
}

/// Wraps a value in a few typical settings: bare, in an English note, in a Chinese note, as a
/// config line.
fn contexts(rule: &'static str, value: &str, out: &mut Vec<Sample>) {
    out.push(sample(rule, value.into(), value.to_string()));
    out.push(sample(
        rule,
        value.into(),
        format!("The deploy job reads {value} from the environment."),
    ));
    out.push(sample(
        rule,
        value.into(),
        format!("部署时使用的凭据：{value}，不要外传。"),
    ));
}

/// At least 60 secrets of 20+ kinds, generated now.
pub fn secrets() -> Vec<Sample> {
    let mut g = Gen::new(0x5EC2_E75C_0FFE_E001);
    let mut out = Vec::new();

    // Upstream's 19 kinds.
    let v = j(&["AK", "IA", &g.of(UPPER_ALNUM, 16)]);
    contexts("aws-access-token", &v, &mut out);
    let v = j(&["AS", "IA", &g.of(UPPER_ALNUM, 16)]);
    out.push(sample("aws-access-token", v.clone(), format!("key id {v}")));
    let v = j(&["LT", "AI", &g.of(ALNUM, 16)]);
    contexts("alibaba-cloud-access-key", &v, &mut out);
    let v = j(&["AI", "za", &g.of(B64URL, 35)]);
    contexts("gcp-api-key", &v, &mut out);
    let v = j(&["dop", "_v1_", &g.of(HEX, 64)]);
    out.push(sample("digitalocean-pat", v.clone(), v));
    let v = j(&["sk-", "ant-", "api03-", &g.of(B64URL, 40)]);
    contexts("anthropic-api-key", &v, &mut out);
    let v = j(&["sk-", "proj-", &g.of(ALNUM, 40)]);
    contexts("openai-api-key", &v, &mut out);
    let v = j(&["sk-", &g.of(ALNUM, 20), "T3Blbk", "FJ", &g.of(ALNUM, 20)]);
    out.push(sample(
        "openai-api-key",
        v.clone(),
        format!("OPENAI_API_KEY={v}"),
    ));
    let v = j(&["h", "f_", &g.of(ALNUM, 34)]);
    out.push(sample("huggingface-access-token", v.clone(), v));
    let v = j(&["gh", "p_", &g.of(ALNUM, 36)]);
    contexts("github-pat", &v, &mut out);
    let v = j(&["github", "_pat_", &g.of(ALNUM, 22), "_", &g.of(ALNUM, 59)]);
    out.push(sample("github-fine-grained-pat", v.clone(), v));
    let v = j(&["gh", "s_", &g.of(ALNUM, 36)]);
    out.push(sample("github-app-token", v.clone(), v));
    let v = j(&["gh", "o_", &g.of(ALNUM, 36)]);
    out.push(sample("github-oauth", v.clone(), v));
    let v = j(&["gl", "pat-", &g.of(ALNUM, 20)]);
    contexts("gitlab-pat", &v, &mut out);
    let v = j(&[
        "xo",
        "xb-",
        &g.of(DIGITS, 12),
        "-",
        &g.of(DIGITS, 12),
        "-",
        &g.of(ALNUM, 24),
    ]);
    contexts("slack-bot-token", &v, &mut out);
    let v = j(&[
        "xa",
        "pp-1-A",
        &g.of(UPPER_ALNUM, 10),
        "-",
        &g.of(DIGITS, 13),
        "-",
        &g.of(HEX, 64),
    ]);
    out.push(sample("slack-app-token", v.clone(), v));
    let v = j(&["np", "m_", &g.of(ALNUM, 36)]);
    out.push(sample("npm-access-token", v.clone(), v));
    let v = j(&["sk", "_live_", &g.of(ALNUM, 24)]);
    contexts("stripe-access-token", &v, &mut out);
    let body: Vec<String> = (0..4).map(|_| g.of(B64, 64)).collect();
    let v = format!(
        "-----BEGIN RSA {}-----\n{}\n-----END RSA {}-----",
        "PRIVATE KEY",
        body.join("\n"),
        "PRIVATE KEY"
    );
    out.push(sample(
        "private-key",
        v.clone(),
        format!("server key:\n{v}\n"),
    ));
    let v = format!(
        "-----BEGIN {}-----\n{}\n-----END {}-----",
        "PRIVATE KEY",
        g.of(B64, 12),
        "PRIVATE KEY"
    );
    out.push(sample("private-key", v.clone(), v));
    let v = format!(
        "-----BEGIN OPENSSH {}-----\n{}",
        "PRIVATE KEY",
        g.of(B64, 40)
    );
    out.push(sample(
        "private-key",
        v.clone(),
        format!("pasted (truncated): {v}"),
    ));
    let v = j(&["GOC", "SPX-", &g.of(B64URL, 28)]);
    contexts("gcp-oauth-client-secret", &v, &mut out);
    let v = j(&["S", "G.", &g.of(B64URL, 22), ".", &g.of(B64URL, 43)]);
    contexts("sendgrid-api-token", &v, &mut out);

    // Beyond upstream.
    let v = "pw".to_string();
    out.push(sample(
        "url-credentials",
        v,
        j(&["postgres://admin", ":pw@", "db.internal:5432/app"]),
    ));
    let v = g.of(ALNUM, 14);
    out.push(sample(
        "url-credentials",
        v.clone(),
        format!("Connect with mongodb+srv://svc:{v}@cluster0.internal/prod"),
    ));
    let v = g.password(16);
    out.push(sample(
        "url-credentials",
        v.clone(),
        format!("REDIS_URL=redis://:{v}@cache:6379/0"),
    ));
    let v = g.password(12);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("password={v}"),
    ));
    let v = g.password(14);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("DB_PASSWORD={v}"),
    ));
    let v = g.password(10);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("passwd: {v}"),
    ));
    let v = g.password(12);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("测试环境数据库的密码是{v}，记得定期更换。"),
    ));
    let v = g.password(12);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("密码：{v}"),
    ));
    let v = g.password(12);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("ステージングの DB パスワードは {v} です。"),
    ));
    let v = g.password(14);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("運用アカウントのトークンは「{v}」なので覚えておいて"),
    ));
    let v = g.password(12);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("테스트 서버 비밀번호는 {v} 이에요."),
    ));
    let v = g.password(16);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("배포 봇 토큰 값은 {v} 로 되어 있어요"),
    ));
    let v = g.password(18);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("{{\"username\": \"deploy\", \"password\": \"{v}\"}}"),
    ));
    let v = g.of(ALNUM, 24);
    out.push(sample(
        "password-assignment",
        v.clone(),
        format!("client_secret = '{v}'"),
    ));
    let v = "changeme".to_string();
    out.push(sample(
        "password-assignment",
        v,
        "the staging admin login is password=changeme".into(),
    ));
    let v = j(&[
        "ey",
        "J",
        &g.of(B64URL, 20),
        ".ey",
        "J",
        &g.of(B64URL, 40),
        ".",
        &g.of(B64URL, 43),
    ]);
    contexts("jwt", &v, &mut out);
    let v = j(&[
        "xo",
        "xp-",
        &g.of(DIGITS, 12),
        "-",
        &g.of(DIGITS, 12),
        "-",
        &g.of(DIGITS, 13),
        "-",
        &g.of(HEX, 32),
    ]);
    contexts("slack-user-token", &v, &mut out);
    let v = j(&["xo", "xs-", &g.of(DIGITS, 10), "-", &g.of(ALNUM, 32)]);
    out.push(sample("slack-legacy-token", v.clone(), v));
    let v = j(&["xo", "xe.xoxp-1-", &g.of(UPPER_ALNUM, 163)]);
    out.push(sample("slack-config-token", v.clone(), v));
    let v = j(&[
        "https://hooks.",
        "slack.com/services/T",
        &g.of(UPPER_ALNUM, 8),
        "/B",
        &g.of(UPPER_ALNUM, 8),
        "/",
        &g.of(ALNUM, 24),
    ]);
    contexts("slack-webhook-url", &v, &mut out);
    let v = g.of(B64, 40);
    out.push(sample(
        "aws-secret-access-key",
        v.clone(),
        format!("aws_secret_access_key = {v}"),
    ));
    let v = g.of(B64, 40);
    out.push(sample(
        "aws-secret-access-key",
        v.clone(),
        format!("export AWS_SECRET_ACCESS_KEY=\"{v}\""),
    ));
    let v = j(&["sk-", &g.of(HEX, 32)]);
    contexts("dashscope-api-key", &v, &mut out);
    let v = j(&[&g.of(DIGITS, 10), ":A", "A", &g.of(B64URL, 33)]);
    out.push(sample("telegram-bot-token", v.clone(), v));
    let v = j(&[&g.of(B64, 86), "=="]);
    out.push(sample(
        "azure-storage-account-key",
        v.clone(),
        format!(
            "DefaultEndpointsProtocol=https;AccountName=prod;Account{}={v}",
            "Key"
        ),
    ));
    let v = j(&["r8", &g.of(ALNUM, 18), "Tz3"]);
    out.push(sample(
        "keyword-near-token",
        v.clone(),
        format!("the deploy bot token {v}"),
    ));
    let v = j(&["Xq", &g.of(ALNUM, 14), "7Kd4"]);
    out.push(sample(
        "keyword-near-token",
        v.clone(),
        format!("스테이징 접속 토큰: new {v} 이걸로 바꿨어요"),
    ));
    let v = g.of(ALNUM, 32);
    out.push(sample(
        "authorization-header",
        v.clone(),
        format!("curl -H \"Authorization: Bearer {v}\" https://api.internal/v1"),
    ));
    let v = j(&["shp", "at_", &g.of(HEX, 32)]);
    out.push(sample("shopify-token", v.clone(), v));
    let v = j(&["pypi-", "AgEIcHlwaS5vcmc", &g.of(B64URL, 60)]);
    out.push(sample("pypi-upload-token", v.clone(), v));
    let v = j(&["hv", "s.", &g.of(B64URL, 95)]);
    out.push(sample("hashicorp-vault-token", v.clone(), v));
    let v = j(&["AGE-", "SECRET-KEY-1", &g.of(BECH32, 58)]);
    out.push(sample("age-secret-key", v.clone(), v));
    let v = j(&["gs", "k_", &g.of(ALNUM, 52)]);
    out.push(sample("groq-api-key", v.clone(), v));
    let v = j(&["AK", "ID", &g.of(ALNUM, 32)]);
    out.push(sample("tencent-cloud-secret-id", v.clone(), v));
    let v = j(&["wh", "sec_", &g.of(ALNUM, 32)]);
    out.push(sample("stripe-webhook-secret", v.clone(), v));
    let v = j(&["da", "pi", &g.of(HEX, 32)]);
    out.push(sample("databricks-token", v.clone(), v));
    let v = j(&["lin", "_api_", &g.of(ALNUM, 40)]);
    out.push(sample("linear-api-key", v.clone(), v));
    let v = j(&["NR", "AK-", &g.of(UPPER_ALNUM, 27)]);
    out.push(sample("new-relic-user-key", v.clone(), v));
    let v = j(&[&g.of(HEX, 32), "-us", "6"]);
    out.push(sample("mailchimp-api-key", v.clone(), v));
    let v = j(&[
        "https://discord.com/api/",
        "webhooks/",
        &g.of(DIGITS, 18),
        "/",
        &g.of(B64URL, 68),
    ]);
    out.push(sample("chat-webhook-url", v.clone(), v));
    let v = j(&[
        "https://open.feishu.cn/open-apis/bot/v2/",
        "hook/",
        &g.of(HEX, 8),
        "-",
        &g.of(HEX, 4),
        "-",
        &g.of(HEX, 4),
        "-",
        &g.of(HEX, 4),
        "-",
        &g.of(HEX, 12),
    ]);
    out.push(sample(
        "chat-webhook-url",
        v.clone(),
        format!("飞书告警机器人：{v}"),
    ));
    let v = j(&[
        "https://oapi.dingtalk.com/robot/send?",
        "access_token=",
        &g.of(HEX, 64),
    ]);
    out.push(sample("chat-webhook-url", v.clone(), v));

    // Passwords stated in words other than "<name> is": what it is for between the name and
    // the value, "set … to", a spaced dash, Make's `?=`.
    for form in [
        "the password for staging is {}",
        "The root password for prod is {} and never changes.",
        "the password of the staging db is {}",
        "password for prod: {}",
        "set the admin password to {}",
        "staging password - {}",
        "ADMIN_PASSWORD ?= {}",
        "SECRET_KEY_BASE={}",
        "export API_TOKEN_PROD=\"{}\"",
    ] {
        let v = g.password(12);
        out.push(sample(
            "password-assignment",
            v.clone(),
            form.replace("{}", &v),
        ));
    }
    // Given to a command, or in markup.
    let v = g.password(12);
    out.push(sample(
        "password-flag",
        v.clone(),
        format!("psql --password {v} -h db"),
    ));
    let v = g.password(14);
    out.push(sample(
        "password-flag",
        v.clone(),
        format!("deploy.sh --api-key '{v}'"),
    ));
    let v = g.password(12);
    out.push(sample(
        "curl-user-password",
        v.clone(),
        format!("curl -u admin:{v} https://ci.internal/api"),
    ));
    let v = g.password(12);
    out.push(sample(
        "mysql-password-flag",
        v.clone(),
        format!("mysql -u root -p{v} shop"),
    ));
    let v = g.password(12);
    out.push(sample(
        "markup-password",
        v.clone(),
        format!("<user>deploy</user><password>{v}</password>"),
    ));
    out
}

/// Tokens hidden with invisible characters or full-width forms: (expected rule, text, the
/// plain value).
pub fn obfuscated() -> Vec<Sample> {
    let mut g = Gen::new(0x0B5C_0DE5_1DDE_0001);
    let mut out = Vec::new();
    let body = g.of(ALNUM, 36);
    let plain = j(&["gh", "p_", &body]);
    out.push(sample(
        "github-pat",
        plain.clone(),
        j(&["gh\u{200b}p_", &body[..10], "\u{200d}", &body[10..]]),
    ));
    out.push(sample(
        "github-pat",
        plain.clone(),
        j(&["g\u{2060}hp_", &body[..5], "\u{feff}", &body[5..]]),
    ));
    out.push(sample(
        "github-pat",
        plain.clone(),
        j(&["gh\u{202e}p_", &body, "\u{202c}"]),
    ));
    // Full-width letters and digits: ｇｈｐ＿…
    let wide: String = plain
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() {
                char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c)
            } else {
                c
            }
        })
        .collect();
    out.push(sample("github-pat", plain.clone(), wide));
    let key = j(&["AK", "IA", &g.of(UPPER_ALNUM, 16)]);
    let wide_key: String = key
        .chars()
        .map(|c| char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c))
        .collect();
    out.push(sample(
        "aws-access-token",
        key.clone(),
        format!("密钥 ID 是 {wide_key}"),
    ));
    let pw = g.password(12);
    out.push(sample(
        "password-assignment",
        pw.clone(),
        format!("pass\u{200b}word={pw}"),
    ));
    out
}

/// Benign look-alikes that must be accepted: (label, text).
pub fn benign() -> Vec<(&'static str, String)> {
    let mut g = Gen::new(0xBE41_6000_0000_0001);
    let sha = g.of(HEX, 40);
    let uuid = format!(
        "{}-{}-4{}-a{}-{}",
        g.of(HEX, 8),
        g.of(HEX, 4),
        g.of(HEX, 3),
        g.of(HEX, 3),
        g.of(HEX, 12)
    );
    let b64_text = base64(b"The quick brown fox jumps over the lazy dog, twice over.");
    let integrity = format!("sha512-{}==", g.of(B64, 86));
    let checksum = g.of(HEX, 64);
    let digest = g.of(HEX, 64);
    let public_key = format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----",
        g.of(B64, 64)
    );
    let cert = format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----",
        g.of(B64, 64)
    );
    vec![
        (
            "password policy",
            "Passwords must be at least 12 characters and rotated every 90 days.".into(),
        ),
        (
            "password policy (zh)",
            "密码长度至少12位，必须包含大小写字母和数字。".into(),
        ),
        (
            "policy with colon",
            "Password: at least twelve characters, no reuse of the last five.".into(),
        ),
        (
            "policy zh colon",
            "密码：至少 12 位，每季度更换一次。".into(),
        ),
        ("password required (zh)", "密码是必须的，不能为空。".into()),
        (
            "password policy (ja)",
            "パスワードは12文字以上で、90日ごとに変更すること。".into(),
        ),
        (
            "password policy (ko)",
            "비밀번호는 12자 이상이어야 하고 90일마다 바꿔야 해요.".into(),
        ),
        (
            "encryption (ko)",
            "암호는 AES-256-GCM 으로 하고 키는 KMS 에서 받아요.".into(),
        ),
        (
            "git SHA near a secret's name",
            "the token rotation landed in 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39".into(),
        ),
        (
            "UUID near a secret's name",
            "API key id 123e4567-e89b-12d3-a456-426614174000 is the staging one".into(),
        ),
        (
            "named item near a secret's name",
            "the API key lives in 1Password under Prod-API-Key-2024".into(),
        ),
        (
            "keyboard (ko)",
            "키보드 단축키는 VSCode 기본값을 써요.".into(),
        ),
        (
            "shortcut (ko)",
            "단축키는 Ctrl2Shift9 조합으로 통일해요.".into(),
        ),
        ("local URL", "Dev database: postgres://localhost/dev".into()),
        ("URL with user only", "postgres://user@host/db".into()),
        (
            "URL placeholder password",
            "Format: postgresql://user:password@localhost:5432/app".into(),
        ),
        ("template password", "password=<your-password>".into()),
        ("env reference", "DB_PASSWORD=${DB_PASSWORD}".into()),
        (
            "CI secret reference",
            "password: ${{ secrets.DB_PASSWORD }}".into(),
        ),
        (
            "code reference",
            "password = os.environ['DB_PASSWORD']".into(),
        ),
        ("function call", "token = get_token()".into()),
        ("vault path", "password: /run/secrets/db_password".into()),
        ("git SHA", format!("Fixed in commit {sha}.")),
        ("UUID", format!("The tenant id is {uuid}.")),
        ("base64 of text", format!("Encoded greeting: {b64_text}")),
        (
            "npm lock integrity",
            format!("\"integrity\": \"{integrity}\""),
        ),
        ("Cargo.lock checksum", format!("checksum = \"{checksum}\"")),
        ("image digest", format!("Pin the image to sha256:{digest}")),
        (
            "prose about keys",
            "The API key is stored in Vault under secret/data/app.".into(),
        ),
        (
            "prefix mention",
            "GitHub tokens start with ghp_ and OpenAI keys with sk-; never paste them.".into(),
        ),
        (
            "env var name",
            "Set the token via the GITHUB_TOKEN environment variable.".into(),
        ),
        (
            "token required",
            "token: required for the release job".into(),
        ),
        ("max tokens", "max_tokens=4096 for the summarizer".into()),
        ("ssh remote", "ssh://git@github.com/org/repo.git".into()),
        ("scp remote", "git@github.com:org/repo.git".into()),
        ("public key block", public_key),
        ("certificate block", cert),
        (
            "private key mentioned",
            "The file starts with -----BEGIN RSA PRIVATE KEY----- and must never be committed."
                .into(),
        ),
        (
            "hashing prose",
            "password: SHA256-hashed, then stored with bcrypt.".into(),
        ),
        (
            "aws prose",
            "Rotate the AWS secret access key every 90 days.".into(),
        ),
        (
            "aws placeholder",
            "aws_secret_access_key = <from the vault>".into(),
        ),
        (
            "bearer placeholder",
            "Send Authorization: Bearer <token> on every call.".into(),
        ),
        ("api key placeholder", "API_KEY=your-api-key-here".into()),
        (
            "jwt prose",
            "JWTs start with eyJ because that is base64 for an opening brace and quote.".into(),
        ),
        (
            "chinese note",
            "我们使用 PostgreSQL 15，连接串放在 Vault 里，不写进代码。".into(),
        ),
        (
            "https URL",
            "https://example.com/dashboard?tab=settings".into(),
        ),
        ("redis URL", "redis://cache:6379/0".into()),
        (
            "min length setting",
            "password_min_length=12 in the auth settings".into(),
        ),
        (
            "secret manager",
            "Secret Manager holds the signing key; rotate quarterly.".into(),
        ),
        // Look-alikes of the wordings above, written with them.
        (
            "where a password is kept",
            "the password for staging is stored in Vault under ops/staging.".into(),
        ),
        (
            "password policy for a role",
            "password for admins: at least sixteen characters".into(),
        ),
        (
            "set a length",
            "set the minimum password to 12 characters".into(),
        ),
        (
            "a variable given to a command",
            "psql --password $PGPASSWORD -h db".into(),
        ),
        (
            "a file given to a command",
            "deploy.sh --token-file /run/secrets/deploy --api-key \"$API_KEY\"".into(),
        ),
        (
            "curl with a variable",
            "curl -u admin:$ADMIN_PASS https://ci.internal/api".into(),
        ),
        (
            "mysql asking for the password",
            "mysql -u root -p shop".into(),
        ),
        (
            "markup placeholder",
            "<password>${DB_PASSWORD}</password>".into(),
        ),
        (
            "settings about a secret",
            "password_policy=strict-v2, token_type=bearer_v2, secret_name=prod-db-2".into(),
        ),
        (
            "a limit named after tokens",
            "token_limit=100000 and secret_key_length=64 in the settings".into(),
        ),
        (
            "token count",
            "the token for each request is counted against the quota".into(),
        ),
    ]
}
