//! Which script a character belongs to: the tests every language's rules and the sentence
//! splitter share (docs/DESIGN.md, "Extract").

/// Han ideographs, kana, Hangul, CJK punctuation and full-width forms.
pub(super) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x303F // CJK symbols and punctuation
        | 0x3040..=0x30FF // hiragana, katakana
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF // Han
        | 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF // Hangul
        | 0xFF01..=0xFF60 | 0xFF61..=0xFF9F // full-width and half-width forms
    )
}

pub(super) fn is_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF)
}

pub(super) fn is_kana(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0xFF66..=0xFF9F)
}

pub(super) fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_told_apart() {
        assert!(is_cjk('我') && is_han('我') && !is_kana('我'));
        assert!(is_kana('の') && is_kana('テ') && is_hangul('한'));
        assert!(is_cjk('。') && is_cjk('！') && !is_cjk('a') && !is_cjk('é'));
    }
}
