//! Small text helpers shared by several domains (UTF-16 lengths as upstream counts them,
//! whitespace collapsing as JS does).

/// Length in UTF-16 code units, the unit upstream's limits are written in.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// JavaScript's `\s`: Unicode White_Space without U+0085, plus U+FEFF.
pub fn is_js_whitespace(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// Collapses runs of JS whitespace to one space and trims, as upstream's `normalizeText`.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(is_js_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The longest prefix of `s` at most `max` UTF-16 units long that does not split a character.
pub fn truncate_utf16(s: &str, max: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > max {
            return &s[..i];
        }
    }
    s
}

/// JSON text with every lone UTF-16 surrogate escape (`\uD83D` without its pair, as
/// JavaScript's `JSON.stringify` writes for a cut emoji) replaced by `\uFFFD`, or `None` when
/// there is none. serde_json rejects such a line outright; one bad character must never cost
/// the whole record (docs/DESIGN.md, "Security", "Inputs"). Escaped backslashes are honoured.
pub fn replace_lone_surrogate_escapes(json: &[u8]) -> Option<Vec<u8>> {
    fn surrogate_at(b: &[u8], i: usize) -> Option<u16> {
        if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
            return None;
        }
        let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
        let v = u16::from_str_radix(hex, 16).ok()?;
        (0xD800..=0xDFFF).contains(&v).then_some(v)
    }
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    let mut copied = 0;
    while i < json.len() {
        if json[i] != b'\\' {
            i += 1;
            continue;
        }
        match surrogate_at(json, i) {
            Some(0xD800..=0xDBFF) if surrogate_at(json, i + 6).is_some_and(|lo| lo >= 0xDC00) => {
                i += 12;
            }
            Some(_) => {
                let buf = out.get_or_insert_with(|| Vec::with_capacity(json.len()));
                buf.extend_from_slice(&json[copied..i]);
                buf.extend_from_slice(b"\\uFFFD");
                i += 6;
                copied = i;
            }
            // Any other escape (`\\`, `\"`, `\n`, `\u0041`): skip its two bytes.
            None => i += 2,
        }
    }
    let mut buf = out?;
    buf.extend_from_slice(&json[copied.min(json.len())..]);
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_escapes_become_replacement_characters() {
        let fix = |s: &str| {
            replace_lone_surrogate_escapes(s.as_bytes()).map(|b| String::from_utf8(b).unwrap())
        };
        assert_eq!(
            fix(r#"{"a":"x\ud83d."}"#).as_deref(),
            Some(r#"{"a":"x\uFFFD."}"#)
        );
        assert_eq!(
            fix(r#"{"a":"\ude00\ud83d"}"#).as_deref(),
            Some(r#"{"a":"\uFFFD\uFFFD"}"#)
        );
        assert_eq!(fix(r#"{"a":"ok \ud83d\ude00 \\ud83d \u0041"}"#), None);
        let fixed = fix(r#"{"a":"cut \ud83d"}"#).unwrap();
        let v: serde_json::Value = serde_json::from_str(&fixed).unwrap();
        assert_eq!(v["a"], "cut \u{FFFD}");
    }

    #[test]
    fn collapse_and_lengths() {
        assert_eq!(collapse_whitespace("  a \t\n b\u{feff} "), "a b");
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(truncate_utf16("ab😀c", 3), "ab");
        assert_eq!(truncate_utf16("ab😀c", 4), "ab😀");
    }
}
