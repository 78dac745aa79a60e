//! The one place YAML is parsed: frontmatter values (docs/DESIGN.md, "Topic documents").
//!
//! Frontmatter is read in two passes, as upstream does: a strict YAML parse (serde_yaml), and,
//! when that rejects the text or yields something other than a map, a lenient line parser that
//! accepts the sloppy frontmatter people write by hand (tabs, duplicate keys, …). The result is
//! a small value model that keeps only what topic documents need, with numbers held as `f64` so
//! they stringify the way JavaScript does (upstream is TypeScript).
//!
//! Safety: serde_yaml bounds recursion (depth 128) and alias expansion (its repetition limit),
//! and rejects such input with an error; the lenient parser is a single linear pass. Neither
//! panics on any input.

/// A frontmatter value, reduced to what matters for topic documents.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// Numbers as JavaScript holds them (integers beyond 2^53 lose precision, as upstream).
    Number(f64),
    String(String),
    List(Vec<Value>),
    Map(Vec<(String, Value)>),
}

/// The top-level map of a frontmatter block, keys in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontmatter {
    pub entries: Vec<(String, Value)>,
    /// True when the strict parser rejected the text and the lenient line parser produced it.
    pub lenient: bool,
}

impl Frontmatter {
    /// The value of a top-level key (the last one wins, which only matters for lenient input).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }
}

/// Parses a frontmatter block (the text between the fences).
///
/// Strict first: a map result has its top-level null values dropped and unquoted `#` rescued
/// (see [`rescue_hashes`]). Otherwise the lenient line parser is used; it never fails, so an
/// unusable block shows up as an empty map.
pub fn parse_frontmatter(text: &str) -> Frontmatter {
    if let Some(entries) = parse_simple(text) {
        return Frontmatter {
            entries,
            lenient: false,
        };
    }
    if let Some(mut entries) = parse_strict(text) {
        // Rescue before dropping nulls: `name: #1 fix` is null to YAML but text to the user.
        if text.contains('#') {
            rescue_hashes(text, &mut entries);
        }
        entries.retain(|(_, v)| *v != Value::Null);
        return Frontmatter {
            entries,
            lenient: false,
        };
    }
    Frontmatter {
        entries: parse_lenient(text),
        lenient: true,
    }
}

/// The fast path for the frontmatter this tool and Qwen Code write: every line is
/// `key: value` at column 0 with a distinct key and a value that YAML's core schema can only
/// read as that exact string (a plain scalar that cannot be a number, bool or null and has no
/// indicator, or a quoted string without escapes). Anything else returns `None` and goes
/// through the full parser. Scans of thousands of documents spend most of their time in YAML,
/// so this keeps recall and dream fast without changing any result (a test compares both
/// paths).
fn parse_simple(text: &str) -> Option<Vec<(String, Value)>> {
    if text.contains('#') || text.contains('\t') {
        return None;
    }
    let mut entries: Vec<(String, Value)> = Vec::new();
    for line in text.split('\n') {
        if line.trim().is_empty() {
            continue;
        }
        let (key, raw) = line.split_once(':')?;
        let key_ok = key.bytes().enumerate().all(|(i, b)| {
            b.is_ascii_alphabetic() || b == b'_' || (i > 0 && (b.is_ascii_digit() || b == b'-'))
        }) && !key.is_empty();
        if !key_ok || !(raw.is_empty() || raw.starts_with(' ')) {
            return None;
        }
        let value = simple_scalar(raw.trim_matches(' '))?;
        if entries.iter().any(|(k, _)| k == key) {
            return None;
        }
        entries.push((key.to_string(), Value::String(value)));
    }
    Some(entries)
}

/// A scalar value that is unambiguously the returned string under YAML 1.2's core schema.
fn simple_scalar(v: &str) -> Option<String> {
    let first = v.chars().next()?;
    if v.len() >= 2 && (first == '"' || first == '\'') && v.ends_with(first) {
        let inner = &v[1..v.len() - 1];
        let plain_inside = !inner.contains(first) && !inner.contains('\\');
        return plain_inside.then(|| inner.to_string());
    }
    let indicator = "-?:,[]{}#&*!|>'\"%@`~".contains(first);
    let ambiguous = indicator
        || (first.is_ascii_digit()
            && v.chars()
                .all(|c| "0123456789abcdefABCDEFxXoO.+-_eE".contains(c)))
        || first == '+'
        || first == '.'
        || v.contains(": ")
        || v.ends_with(':')
        || v.chars().any(|c| {
            c.is_control() || c == '\u{feff}' || c == '\u{85}' || (c.is_whitespace() && c != ' ')
        })
        || matches!(
            v,
            "true" | "True" | "TRUE" | "false" | "False" | "FALSE" | "null" | "Null" | "NULL"
        );
    (!ambiguous).then(|| v.to_string())
}

/// Strict YAML parse; `None` when serde_yaml rejects the text or the top level is not a map.
/// Null values are kept here (the caller drops them) so the `#` rescue can revive them.
fn parse_strict(text: &str) -> Option<Vec<(String, Value)>> {
    if flow_depth_exceeds(text, MAX_FLOW_DEPTH) {
        return None;
    }
    let value: serde_yaml::Value = serde_yaml::from_str(text).ok()?;
    match convert(value) {
        Value::Map(entries) => Some(entries),
        _ => None,
    }
}

/// serde_yaml rejects nesting deeper than 128 anyway, but libyaml's scanner takes time
/// quadratic in the depth of `[`/`{` nesting before that check runs (100,000 brackets: about a
/// minute). Text nested deeper than this is therefore sent straight to the lenient parser.
const MAX_FLOW_DEPTH: usize = 128;

/// Whether the running depth of flow brackets ever exceeds `limit`. Brackets inside quoted
/// strings are counted too: such a string only costs the strict parse, never correctness of a
/// sane document.
fn flow_depth_exceeds(text: &str, limit: usize) -> bool {
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn convert(value: serde_yaml::Value) -> Value {
    match value {
        serde_yaml::Value::Null => Value::Null,
        serde_yaml::Value::Bool(b) => Value::Bool(b),
        serde_yaml::Value::Number(n) => Value::Number(number_to_f64(&n)),
        serde_yaml::Value::String(s) => Value::String(s),
        serde_yaml::Value::Sequence(items) => Value::List(items.into_iter().map(convert).collect()),
        serde_yaml::Value::Mapping(map) => {
            let mut entries = Vec::with_capacity(map.len());
            for (k, v) in map {
                // Only scalar keys can name a field; complex keys are of no use to a document.
                if let Some(key) = scalar_string(&convert(k)) {
                    entries.push((key, convert(v)));
                }
            }
            Value::Map(entries)
        }
        // An application tag (`!foo bar`) says nothing to us; read the value under it.
        serde_yaml::Value::Tagged(tagged) => convert(tagged.value),
    }
}

fn number_to_f64(n: &serde_yaml::Number) -> f64 {
    if let Some(i) = n.as_i64() {
        i as f64
    } else if let Some(u) = n.as_u64() {
        u as f64
    } else {
        n.as_f64().unwrap_or(f64::NAN)
    }
}

/// The string form of a scalar as JavaScript's `String(v)` gives it; `None` for null, lists
/// and maps. Strings are returned as is (no trimming).
pub fn scalar_string(value: &Value) -> Option<String> {
    match value {
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(js_number_to_string(*n)),
        Value::String(s) => Some(s.clone()),
        Value::Null | Value::List(_) | Value::Map(_) => None,
    }
}

/// JavaScript's `Number.prototype.toString()` for a double: shortest round-trip digits, plain
/// notation for exponents in [-7, 20], exponent notation otherwise.
pub fn js_number_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, e.g. "-1.5e-7".
    let formatted = format!("{:e}", x);
    let (mantissa, exponent) = match formatted.split_once('e') {
        Some(parts) => parts,
        None => return formatted,
    };
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i64;
    let n = exponent + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let (first, rest) = digits.split_at(1);
        let exp_sign = if n > 0 { "+" } else { "-" };
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        format!("{first}{frac}e{exp_sign}{}", (n - 1).abs())
    };
    format!("{sign}{body}")
}

// ---------------------------------------------------------------------------------------------
// Unquoted `#` rescue

/// Restores text that YAML read as a comment in free-text fields: `name: Release issue #1234`
/// means the hash, not a comment. Applies to every top-level key except `type` and `category`
/// (whose values are closed vocabularies, so a trailing comment stays a comment), to plain
/// scalars whose comment starts on the same line as the value, and to the items of a block list
/// when the item lines and the parsed items line up one to one.
fn rescue_hashes(text: &str, entries: &mut [(String, Value)]) {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let Some((key, rest)) = top_level_key_line(line) else {
            i += 1;
            continue;
        };
        // The block of this key: following lines until the next line that starts a top-level
        // key (a column-0 line that is not a comment or a `- ` list item).
        let mut end = i + 1;
        while end < lines.len() && !starts_new_top_level(lines[end]) {
            end += 1;
        }
        if key != "type" && key != "category" {
            rescue_key(key, rest, &lines[i + 1..end], entries);
        }
        i = end;
    }
}

fn rescue_key(key: &str, rest: &str, block: &[&str], entries: &mut [(String, Value)]) {
    // A key the line scan cannot match to a parsed key (quoted or odd keys) is left alone.
    let Some(idx) = entries.iter().rposition(|(k, _)| k == key) else {
        return;
    };
    match &entries[idx].1 {
        Value::List(items) => {
            let item_lines: Vec<&str> = block
                .iter()
                .map(|l| l.trim_start_matches([' ', '\t']))
                .filter(|l| *l == "-" || l.starts_with("- ") || l.starts_with("-\t"))
                .collect();
            if item_lines.len() != items.len() {
                return;
            }
            let mut rescued = items.clone();
            for (item, line) in rescued.iter_mut().zip(item_lines) {
                if matches!(item, Value::List(_) | Value::Map(_)) {
                    continue;
                }
                if let Some(text) = rescue_plain(&line[1..]) {
                    *item = Value::String(text);
                }
            }
            entries[idx].1 = Value::List(rescued);
        }
        Value::Map(_) => {}
        // Scalars, and null (an empty value whose key line may carry a `#…` comment).
        _ => {
            if let Some(text) = rescue_plain(rest) {
                entries[idx].1 = Value::String(text);
            }
        }
    }
}

/// For the text after `key:` or `- `: when it holds a plain scalar followed by a same-line
/// comment (or only a comment), the value with the comment folded back in.
fn rescue_plain(rest: &str) -> Option<String> {
    let trimmed = rest.trim_start_matches([' ', '\t']);
    if trimmed.len() == rest.len() && !rest.is_empty() {
        // `key:value` is not a key/value line; nothing to rescue.
        return None;
    }
    let trimmed = trimmed.trim_end_matches([' ', '\t', '\r']);
    if trimmed.starts_with('#') {
        return Some(trimmed.to_string());
    }
    let first = trimmed.chars().next()?;
    // Quoted, flow, block-scalar, anchored, aliased or tagged values are not plain scalars.
    if matches!(first, '"' | '\'' | '[' | '{' | '|' | '>' | '&' | '*' | '!') {
        return None;
    }
    let bytes = trimmed.as_bytes();
    let pos =
        (1..bytes.len()).find(|&p| bytes[p] == b'#' && matches!(bytes[p - 1], b' ' | b'\t'))?;
    let value = trimmed[..pos].trim_end_matches([' ', '\t']);
    Some(format!("{value} {}", &trimmed[pos..]))
}

/// A column-0 `key: …` line: the plain key and the text after the colon.
fn top_level_key_line(line: &str) -> Option<(&str, &str)> {
    let first = line.chars().next()?;
    if matches!(first, ' ' | '\t' | '#' | '-' | '"' | '\'' | '?' | '[' | '{') {
        return None;
    }
    let bytes = line.as_bytes();
    let colon = (0..bytes.len()).find(|&p| {
        bytes[p] == b':' && (p + 1 == bytes.len() || matches!(bytes[p + 1], b' ' | b'\t'))
    })?;
    let key = line[..colon].trim_end_matches([' ', '\t']);
    if key.is_empty() {
        return None;
    }
    Some((key, &line[colon + 1..]))
}

fn starts_new_top_level(line: &str) -> bool {
    match line.chars().next() {
        None => false,
        Some(c) => !matches!(c, ' ' | '\t' | '#' | '-'),
    }
}

// ---------------------------------------------------------------------------------------------
// Lenient line parser

/// The fallback for frontmatter the strict parser rejects: one `key: value` per line, an empty
/// value followed by `  - ` lines makes a list, followed by other indented lines a one-level map.
/// Duplicate keys: the last value wins, at the position of the first.
fn parse_lenient(text: &str) -> Vec<(String, Value)> {
    let mut entries: Vec<(String, Value)> = Vec::new();
    // The index of the last key when its value was empty: what follows decides what it becomes.
    let mut pending: Option<usize> = None;
    for line in text.split('\n') {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if let (true, Some(idx)) = (indented, pending) {
            if let Some(item) = trimmed.strip_prefix("- ") {
                match &mut entries[idx].1 {
                    Value::List(items) => items.push(lenient_scalar(item.trim())),
                    slot @ Value::Null => *slot = Value::List(vec![lenient_scalar(item.trim())]),
                    _ => {}
                }
                continue;
            }
            if let Some((k, v)) = trimmed.split_once(':') {
                let (k, v) = (k.trim().to_string(), lenient_scalar(v.trim()));
                match &mut entries[idx].1 {
                    Value::Map(map) => {
                        upsert(map, k, v);
                    }
                    slot @ Value::Null => *slot = Value::Map(vec![(k, v)]),
                    _ => {}
                }
                continue;
            }
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty() || key.starts_with("- ") {
            continue;
        }
        let value = value.trim();
        if value.is_empty() {
            pending = Some(upsert(&mut entries, key.to_string(), Value::Null));
        } else {
            upsert(&mut entries, key.to_string(), lenient_scalar(value));
            pending = None;
        }
    }
    entries
}

fn upsert(entries: &mut Vec<(String, Value)>, key: String, value: Value) -> usize {
    if let Some(idx) = entries.iter().position(|(k, _)| *k == key) {
        entries[idx].1 = value;
        idx
    } else {
        entries.push((key, value));
        entries.len() - 1
    }
}

fn lenient_scalar(s: &str) -> Value {
    match s {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "null" => return Value::Null,
        _ => {}
    }
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        return Value::String(unescape_lenient(&s[1..s.len() - 1]));
    }
    if let Some(n) = js_number(s) {
        return Value::Number(n);
    }
    Value::String(s.to_string())
}

fn unescape_lenient(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if next == '"' || next == '\\' {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// JavaScript's `Number(s)` for an already trimmed, non-empty string, when finite.
fn js_number(s: &str) -> Option<f64> {
    let radix = |digits: &str, radix: u32| -> Option<f64> {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let mut value = 0f64;
        for c in digits.chars() {
            value = value * f64::from(radix) + f64::from(c.to_digit(radix)?);
        }
        Some(value)
    };
    let lower = s.to_ascii_lowercase();
    if let Some(d) = lower.strip_prefix("0x") {
        return radix(d, 16);
    }
    if let Some(d) = lower.strip_prefix("0o") {
        return radix(d, 8);
    }
    if let Some(d) = lower.strip_prefix("0b") {
        return radix(d, 2);
    }
    // Decimal: [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
    let b = s.as_bytes();
    let mut p = 0;
    if p < b.len() && (b[p] == b'+' || b[p] == b'-') {
        p += 1;
    }
    let int_start = p;
    while p < b.len() && b[p].is_ascii_digit() {
        p += 1;
    }
    let mut mantissa_digits = p - int_start;
    if p < b.len() && b[p] == b'.' {
        p += 1;
        let frac_start = p;
        while p < b.len() && b[p].is_ascii_digit() {
            p += 1;
        }
        mantissa_digits += p - frac_start;
    }
    if mantissa_digits == 0 {
        return None;
    }
    if p < b.len() && (b[p] == b'e' || b[p] == b'E') {
        p += 1;
        if p < b.len() && (b[p] == b'+' || b[p] == b'-') {
            p += 1;
        }
        let exp_start = p;
        while p < b.len() && b[p].is_ascii_digit() {
            p += 1;
        }
        if p == exp_start {
            return None;
        }
    }
    if p != b.len() {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

// ---------------------------------------------------------------------------------------------
// Writing

/// A YAML scalar that reads back as exactly `s` (a string) in strict YAML: plain when that is
/// unambiguous, double-quoted and escaped otherwise (anything that could read as a number,
/// boolean or null in YAML 1.1 or 1.2, indicators, `: ` and ` #`, surrounding spaces, controls).
pub fn quote_scalar(s: &str) -> String {
    if is_safe_plain(s) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control()
                || !yaml_printable(c)
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}') =>
            {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// YAML's printable set; anything else must be escaped even inside double quotes.
fn yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        || c >= '\u{10000}'
}

fn is_safe_plain(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let last = s.chars().next_back().unwrap_or(first);
    if first.is_whitespace() || last.is_whitespace() || first == '\u{feff}' {
        return false;
    }
    // Indicator characters cannot start a plain scalar (or change its meaning when they do).
    if "-?:,[]{}#&*!|>'\"%@`=~+.".contains(first) {
        return false;
    }
    if first.is_ascii_digit() {
        return false;
    }
    if last == ':' || s.contains(": ") || s.contains(":\t") || s.contains(" #") || s.contains("\t#")
    {
        return false;
    }
    if s.chars().any(|c| {
        c.is_control()
            || !yaml_printable(c)
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{85}')
    }) {
        return false;
    }
    // Words that YAML 1.1 or 1.2 (or a lenient reader) would not read as a string.
    let lower = s.to_ascii_lowercase();
    !matches!(
        lower.as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "nan" | "inf"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn simple_path_agrees_with_the_full_parser() {
        let cases = [
            "name: Never push to main\ndescription: CI is slow\ntype: feedback",
            "name: a: b\ntype: user",
            "name: 10183\ntype: user",
            "name: true\ntype: user",
            "name: \"2026-10-01T00:00:00.000Z\"\ncreated: '2026'\ntype: user",
            "name: \"a \\\" b\"\ntype: user",
            "name: yes\ntype: project",
            "name: Résumé: déjà vu\ntype: project",
            "name: ok\nname: twice\ntype: project",
            "name:\ntype: project",
            "name: x:\ntype: project",
            "name: .5\ntype: project",
            "created: 2026-10-01T00:00:00.000Z\ntype: project",
            "n: 0x1F\nm: 1e5\no: 0o17\np: 12_3\nq: 3.",
            "name: ~\ntype: project",
            "name: -x\ntype: project",
            "name: a  b \ntype: project",
            "key-1: v\n_k: w",
            "name: [x]\ntype: project",
            "name: \"unterminated\ntype: project",
        ];
        for text in cases {
            if let Some(simple) = parse_simple(text) {
                let mut strict = parse_strict(text).expect("strict parses what simple parses");
                strict.retain(|(_, v)| *v != Value::Null);
                assert_eq!(simple, strict, "{text:?}");
            }
        }
        assert!(
            parse_simple(cases[0]).is_some(),
            "the common case takes the fast path"
        );
    }

    proptest::proptest! {
        #[test]
        fn simple_path_never_disagrees(
            lines in proptest::collection::vec(("[a-z_][a-z0-9_-]{0,6}", "[ -~é漢]{0,20}"), 0..5)
        ) {
            let text: String = lines.iter().map(|(k, v)| format!("{k}: {v}\n")).collect();
            if let Some(simple) = parse_simple(&text) {
                let mut strict = parse_strict(&text).unwrap_or_default();
                strict.retain(|(_, v)| *v != Value::Null);
                proptest::prop_assert_eq!(simple, strict, "{:?}", text);
            }
        }
    }

    use super::*;

    fn s(v: &str) -> Value {
        Value::String(v.to_string())
    }

    #[test]
    fn strict_map_keeps_order_and_drops_nulls() {
        let fm = parse_frontmatter("name: A\ndescription:\ntype: user\nextra: ~");
        assert!(!fm.lenient);
        assert_eq!(
            fm.entries,
            vec![("name".into(), s("A")), ("type".into(), s("user"))]
        );
    }

    #[test]
    fn numbers_stringify_as_javascript() {
        for (input, want) in [
            (0.1, "0.1"),
            (1.5, "1.5"),
            (1000.0, "1000"),
            (1e21, "1e+21"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (-42.0, "-42"),
            (123456789012345680000.0, "123456789012345680000"),
            (f64::INFINITY, "Infinity"),
            (f64::NAN, "NaN"),
        ] {
            assert_eq!(js_number_to_string(input), want, "{input}");
        }
        let fm = parse_frontmatter("a: 0x10\nb: 1e3\nc: 1.50\nd: 10183\ne: yes\nf: true");
        let got: Vec<_> = fm
            .entries
            .iter()
            .map(|(_, v)| scalar_string(v).unwrap_or_default())
            .collect();
        assert_eq!(got, ["16", "1000", "1.5", "10183", "yes", "true"]);
    }

    #[test]
    fn tabs_and_duplicates_fall_back_to_lenient() {
        let fm = parse_frontmatter("name: A\n\ttype: project");
        assert!(fm.lenient);
        assert_eq!(fm.get("type"), Some(&s("project")));
        let fm = parse_frontmatter("type: user\nname: A\ntype: feedback");
        assert!(fm.lenient);
        assert_eq!(fm.get("type"), Some(&s("feedback")));
        assert_eq!(fm.entries.len(), 2);
    }

    #[test]
    fn lenient_lists_maps_and_scalars() {
        let fm = parse_frontmatter(
            "\tname: \"say \\\"hi\\\"\"\nkeywords:\n  - a\n  - 42\naudit:\n  by: me\nflag: true\nnothing: null\nn: 1.50",
        );
        assert!(fm.lenient);
        assert_eq!(fm.get("name"), Some(&s("say \"hi\"")));
        assert_eq!(
            fm.get("keywords"),
            Some(&Value::List(vec![s("a"), Value::Number(42.0)]))
        );
        assert_eq!(
            fm.get("audit"),
            Some(&Value::Map(vec![("by".into(), s("me"))]))
        );
        assert_eq!(fm.get("flag"), Some(&Value::Bool(true)));
        assert_eq!(fm.get("nothing"), Some(&Value::Null));
        assert_eq!(fm.get("n"), Some(&Value::Number(1.5)));
    }

    #[test]
    fn hash_rescue_rules() {
        let fm = parse_frontmatter(
            "name: Release issue #1234\ndescription: #1 priority fix\ntype: project # note\ncategory: tech_stack   # c\nkeywords:\n  - issue #1234\n  - plain\n  # own-line comment\nother: quoted \"x\"  #  spaced",
        );
        assert!(!fm.lenient);
        assert_eq!(fm.get("name"), Some(&s("Release issue #1234")));
        assert_eq!(fm.get("description"), Some(&s("#1 priority fix")));
        assert_eq!(fm.get("type"), Some(&s("project")));
        assert_eq!(fm.get("category"), Some(&s("tech_stack")));
        assert_eq!(
            fm.get("keywords"),
            Some(&Value::List(vec![s("issue #1234"), s("plain")]))
        );
        assert_eq!(fm.get("other"), Some(&s("quoted \"x\" #  spaced")));
        let fm = parse_frontmatter("name: A\ntype: # c");
        assert_eq!(fm.get("type"), None);
        // A nested key of the same name never feeds the top-level field.
        let fm = parse_frontmatter("audit:\n  keywords: a #1\nkeywords:\n  - b");
        assert_eq!(fm.get("keywords"), Some(&Value::List(vec![s("b")])));
        // Quoted values keep YAML comment semantics.
        let fm = parse_frontmatter("name: \"A\" # c");
        assert_eq!(fm.get("name"), Some(&s("A")));
    }

    #[test]
    fn alias_bomb_and_deep_nesting_are_bounded() {
        let mut bomb = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let mut prev = 'a';
        for name in 'b'..='m' {
            let refs = vec![format!("*{prev}"); 9].join(",");
            bomb.push_str(&format!("{name}: &{name} [{refs}]\n"));
            prev = name;
        }
        bomb.push_str("type: user\n");
        // No wall-clock bound (it flakes on a loaded machine): an unbounded expansion would
        // exhaust memory or hang the run; the parse must fall back to the lenient reader.
        let fm = parse_frontmatter(&bomb);
        assert!(fm.lenient, "the bomb is rejected by the strict parser");
        assert_eq!(fm.get("type"), Some(&s("user")));

        for open in ["[", "{a: "] {
            let deep = format!(
                "type: user\nx: {}{}",
                open.repeat(100_000),
                "]".repeat(100_000)
            );
            let fm = parse_frontmatter(&deep);
            assert!(fm.lenient);
            assert_eq!(fm.get("type"), Some(&s("user")));
        }
        let deep_map: String = (0..2_000)
            .map(|i| format!("{}k:\n", " ".repeat(i)))
            .collect();
        let fm = parse_frontmatter(&format!("type: user\n{deep_map}"));
        assert!(
            fm.lenient,
            "serde_yaml's recursion limit rejects deep block nesting"
        );
    }

    #[test]
    fn quoting_reads_back() {
        for v in [
            "plain words",
            "a: b",
            "ends:",
            "x #y",
            "#lead",
            "- dash",
            "yes",
            "No",
            "10183",
            "1.50",
            "0x10",
            ".5",
            "say \"hi\"",
            "back\\slash",
            "line\nbreak",
            "'single'",
            "~",
            "null",
            "[x]",
            "&a",
            "*b",
            "tab\there",
            "émoji 😀",
            "2024-01-01T00:00:00Z",
            "odd \u{fffe}\u{85}\u{2028} chars",
        ] {
            let text = format!("k: {}", quote_scalar(v));
            let fm = parse_frontmatter(&text);
            assert!(!fm.lenient, "{text}");
            assert_eq!(fm.get("k"), Some(&s(v)), "{text}");
        }
        assert_eq!(quote_scalar("plain words"), "plain words");
    }
}
