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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapse_and_lengths() {
        assert_eq!(collapse_whitespace("  a \t\n b\u{feff} "), "a b");
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(truncate_utf16("ab😀c", 3), "ab");
        assert_eq!(truncate_utf16("ab😀c", 4), "ab😀");
    }
}
