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

/// Lowercase hexadecimal of `bytes` (digests in file names, cursors and backups): the one hex
/// encoder of the crate.
/// `new` with the line endings of `old`, the file it replaces: when every line of `old` ends in
/// CRLF, every line of `new` does too (a rewrite never turns a person's Windows-edited document
/// into LF, one whole-file diff in their review); otherwise `new` as it is. The documents are
/// parsed and rendered with LF (docs/DESIGN.md, "Topic documents").
pub fn keep_line_endings<'a>(old: &[u8], new: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
    let lf = old.iter().filter(|&&b| b == b'\n').count();
    let crlf = old.windows(2).filter(|w| w == b"\r\n").count();
    if lf == 0 || crlf != lf {
        return std::borrow::Cow::Borrowed(new);
    }
    let mut out = Vec::with_capacity(new.len() + new.len() / 32);
    for (i, &b) in new.iter().enumerate() {
        if b == b'\n' && (i == 0 || new[i - 1] != b'\r') {
            out.push(b'\r');
        }
        out.push(b);
    }
    std::borrow::Cow::Owned(out)
}

/// [`keep_line_endings`] of a text.
pub fn with_line_endings_of(old: &[u8], new: String) -> String {
    let converted = match keep_line_endings(old, new.as_bytes()) {
        std::borrow::Cow::Owned(bytes) => Some(bytes),
        std::borrow::Cow::Borrowed(_) => None,
    };
    // Only `\r` bytes were added before `\n`: still UTF-8.
    match converted {
        Some(bytes) => String::from_utf8(bytes).unwrap_or(new),
        None => new,
    }
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}

/// The CJK class of Qwen Code's tokenizer: Han, Hiragana and Hangul by script, Katakana by
/// *script extensions* (which pulls U+30FC and CJK punctuation such as 、。「」・ into CJK runs,
/// as upstream does). The one script-detection helper of the library; recall's tokenizers use it.
pub const CJK_CLASS: &str = r"\p{sc=Han}\p{sc=Hiragana}\p{scx=Katakana}\p{sc=Hangul}";

/// Whether `c` is in [`CJK_CLASS`]; the common blocks answer without the regex (only assigned
/// code points, so the answer is the class's exactly).
pub fn is_cjk(c: char) -> bool {
    use regex::Regex;
    use std::sync::OnceLock;
    let u = c as u32;
    // Nothing before the combining marks is in the class (some marks are, by script
    // extensions: U+0305 is also Katakana).
    if u < 0x0300 {
        return false;
    }
    // Greek to Georgian and Ethiopic to Greek Extended: never in the class (the test below
    // checks every code point).
    if (0x0370..=0x10FF).contains(&u) || (0x1200..=0x1FFF).contains(&u) {
        return false;
    }
    if (0x4E00..=0x9FFF).contains(&u)
        || (0x3041..=0x3096).contains(&u)
        || (0x30A1..=0x30FA).contains(&u)
        || (0xAC00..=0xD7A3).contains(&u)
    {
        return true;
    }
    static CLASS: OnceLock<Regex> = OnceLock::new();
    let class = CLASS.get_or_init(|| {
        // A compile-time constant pattern; failing here is a programming error.
        Regex::new(&format!("^[{CJK_CLASS}]$")).expect("CJK class regex compiles")
    });
    let mut buf = [0u8; 4];
    class.is_match(c.encode_utf8(&mut buf))
}

/// Test inputs for the no-panic fuzz tests: ASCII, controls, accents and emoji mixed with Han,
/// kana, Hangul (syllables and jamo), CJK punctuation, the ideographic space and full-width and
/// half-width forms — multi-byte text, where slicing by byte offset goes wrong.
#[cfg(test)]
pub(crate) const FUZZ_CJK: &str = "(?s)[ -~\n\t\r\u{a0}é😀ſİ\u{200b}\u{3000}-\u{303f}\u{3040}-\u{30ff}\u{3400}-\u{4dbf}\u{4e00}-\u{9fff}\u{1100}-\u{11ff}\u{3130}-\u{318f}\u{ac00}-\u{d7af}\u{ff01}-\u{ff9f}]{0,300}";

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
    fn a_rewrite_keeps_a_crlf_file_crlf_and_leaves_anything_else_alone() {
        let crlf = b"---\r\nname: a\r\n---\r\n- one\r\n";
        assert_eq!(
            &*keep_line_endings(crlf, b"---\nname: a\n---\n- one\n- two\n"),
            b"---\r\nname: a\r\n---\r\n- one\r\n- two\r\n"
        );
        // Lines of `new` already in CRLF are not doubled.
        assert_eq!(&*keep_line_endings(crlf, b"a\r\nb\n"), b"a\r\nb\r\n");
        // An LF file, a mixed one and a one-line file give `new` as it is.
        assert_eq!(&*keep_line_endings(b"a\nb\n", b"x\ny\n"), b"x\ny\n");
        assert_eq!(&*keep_line_endings(b"a\r\nb\n", b"x\ny\n"), b"x\ny\n");
        assert_eq!(&*keep_line_endings(b"a", b"x\ny"), b"x\ny");
    }

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

    #[test]
    fn hex_is_lowercase_two_digits_per_byte() {
        assert_eq!(hex(&[]), "");
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
    }

    /// The fast path agrees with the class on every code point it answers for.
    #[test]
    fn is_cjk_fast_path_matches_the_class() {
        let class = regex::Regex::new(&format!("^[{CJK_CLASS}]$")).unwrap();
        for u in 0..=0x3_2FFF_u32 {
            if let Some(c) = char::from_u32(u) {
                let mut buf = [0u8; 4];
                assert_eq!(
                    is_cjk(c),
                    class.is_match(c.encode_utf8(&mut buf)),
                    "U+{u:04X}"
                );
            }
        }
        for c in ['漢', 'か', 'カ', 'ー', '。', '한', 'ㄱ', '\u{1162}'] {
            assert!(is_cjk(c), "{c}");
        }
        for c in ['a', 'é', '😀', '１', ' '] {
            assert!(!is_cjk(c), "{c}");
        }
    }
}
