//! The features the learned scorer sees in a message: words and word pairs of Latin-script
//! text, one- to three-character runs of CJK text (Chinese, Japanese kana, Korean Hangul have no
//! spaces a word list could rely on), how the message starts and ends, its length, and whether
//! it holds a URL, a path or inline code. Each feature is a string hashed to 64 bits.
//!
//! This file uses only `std`: the training command (`examples/extract_real.rs`) trains the weights that the
//! library then looks up with the very same features (docs/DESIGN.md, "Extract").

/// Longest prefix of a message that is looked at (characters); a pasted log after it adds
/// nothing but time.
pub const MAX_CHARS: usize = 3000;

/// The hash of one feature string: 64-bit FNV-1a, stable across platforms and releases.
pub fn hash(feature: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in feature.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Whether `c` is written without spaces between words: Han ideographs, kana, Hangul.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}' // hiragana, katakana
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // compatibility ideographs
        | '\u{AC00}'..='\u{D7AF}' // Hangul syllables
        | '\u{1100}'..='\u{11FF}' // Hangul jamo
        | '\u{3130}'..='\u{318F}' // Hangul compatibility jamo
        | '\u{FF66}'..='\u{FF9F}' // half-width katakana
    )
}

/// Full-width ASCII forms (`Ｒｕｓｔ`, `？`) read as their ASCII letters; the ideographic space as
/// a space; everything lower-cased.
fn fold(c: char) -> impl Iterator<Item = char> {
    let c = match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        _ => c,
    };
    c.to_lowercase()
}

#[derive(Debug, PartialEq)]
enum Unit {
    Word(String),
    Cjk(char),
    /// Punctuation or a space inside CJK text: ends a run of n-grams.
    Break(char),
}

fn units(text: &str) -> (Vec<Unit>, Vec<&'static str>) {
    let mut out = Vec::new();
    let mut flags = Vec::new();
    for chunk in text.split_whitespace() {
        let lower: String = chunk.chars().flat_map(fold).collect();
        let bare = lower.trim_matches(|c: char| !c.is_alphanumeric());
        if lower.contains("://") || bare.starts_with("www.") {
            flags.push("url");
            out.push(Unit::Break(' '));
            continue;
        }
        if lower.contains('`') {
            flags.push("code");
        }
        if !lower.chars().any(is_cjk)
            && bare.len() > 2
            && (bare.contains('/') || bare.starts_with('~') || bare.starts_with('.'))
        {
            flags.push("path");
        }
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut Vec<Unit>| {
            if !word.is_empty() {
                out.push(Unit::Word(std::mem::take(word)));
            }
        };
        for c in lower.chars() {
            if is_cjk(c) {
                flush(&mut word, &mut out);
                out.push(Unit::Cjk(c));
            } else if c.is_alphanumeric() || c == '\'' || c == '_' {
                // Numbers differ between messages that say the same: "Node 18" and "Node 20".
                let c = if c.is_ascii_digit() { '0' } else { c };
                if !(c == '0' && word.ends_with('0')) {
                    word.push(c);
                }
            } else {
                flush(&mut word, &mut out);
                out.push(Unit::Break(c));
            }
        }
        flush(&mut word, &mut out);
        out.push(Unit::Break(' '));
    }
    (out, flags)
}

/// The hashed features of `text` (each once, in no particular order).
pub fn features(text: &str) -> Vec<u64> {
    let mut hashes: Vec<u64> = feature_names(text).iter().map(|n| hash(n)).collect();
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

/// The features of `text` by name, before hashing (repeats possible).
pub fn feature_names(text: &str) -> Vec<String> {
    let text: String = text.chars().take(MAX_CHARS).collect();
    let (units, flags) = units(&text);
    let mut names: Vec<String> = vec!["bias".to_string()];
    for f in flags {
        names.push(format!("flag|{f}"));
    }
    // How it starts: the first word, or the first two CJK characters.
    match units.iter().find(|u| !matches!(u, Unit::Break(_))) {
        Some(Unit::Word(w)) => names.push(format!("start|{w}")),
        Some(Unit::Cjk(_)) => {
            let lead: String = units
                .iter()
                .skip_while(|u| !matches!(u, Unit::Cjk(_)))
                .take_while(|u| matches!(u, Unit::Cjk(_)))
                .take(2)
                .filter_map(|u| match u {
                    Unit::Cjk(c) => Some(*c),
                    _ => None,
                })
                .collect();
            names.push(format!("start|{lead}"));
        }
        _ => {}
    }
    // How it ends: a question, an exclamation, anything else.
    let last = text
        .trim_end()
        .chars()
        .last()
        .map(|c| fold(c).next().unwrap_or(c));
    match last {
        Some('?') => names.push("end|?".into()),
        Some('!') => names.push("end|!".into()),
        _ => {}
    }
    let content = units
        .iter()
        .filter(|u| !matches!(u, Unit::Break(_)))
        .count();
    let bucket = match content {
        0..=3 => 0,
        4..=7 => 1,
        8..=15 => 2,
        16..=31 => 3,
        32..=63 => 4,
        _ => 5,
    };
    names.push(format!("len|{bucket}"));
    let sentences = text
        .chars()
        .filter(|c| matches!(c, '.' | '。' | '!' | '！' | '?' | '？' | '\n'))
        .count();
    names.push(format!("sentences|{}", sentences.min(4)));

    for (i, u) in units.iter().enumerate() {
        match u {
            Unit::Word(w) => {
                names.push(format!("w|{w}"));
                let mut j = i + 1;
                while let Some(Unit::Break(' ')) = units.get(j) {
                    j += 1;
                }
                match units.get(j) {
                    Some(Unit::Word(next)) if j > i + 1 => names.push(format!("b|{w} {next}")),
                    Some(Unit::Cjk(c)) => names.push(format!("x|{w} {c}")),
                    _ => {}
                }
            }
            Unit::Cjk(c) => {
                names.push(format!("c|{c}"));
                let next: Vec<char> = units[i + 1..]
                    .iter()
                    .take(2)
                    .map_while(|u| match u {
                        Unit::Cjk(c) => Some(*c),
                        _ => None,
                    })
                    .collect();
                if let Some(n1) = next.first() {
                    names.push(format!("d|{c}{n1}"));
                }
                if let [n1, n2] = next[..] {
                    names.push(format!("t|{c}{n1}{n2}"));
                }
                // Code-switching: "用 pnpm", "pnpm 을".
                let mut j = i + 1;
                while let Some(Unit::Break(' ')) = units.get(j) {
                    j += 1;
                }
                if j > i + 1 {
                    if let Some(Unit::Word(w)) = units.get(j) {
                        names.push(format!("x|{c} {w}"));
                    }
                }
            }
            Unit::Break(_) => {}
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_pairs_and_cjk_grams_are_features() {
        let f = features("We always use pnpm. 以后都用 pnpm 安装");
        for name in [
            "w|we",
            "b|we always",
            "start|we",
            "c|以",
            "d|以后",
            "t|以后都",
            "x|用 pnpm",
            "x|pnpm 安",
        ] {
            assert!(f.contains(&hash(name)), "{name} missing");
        }
        // A full stop ends a pair: "pnpm." and "以后" are not one phrase.
        assert!(!f.contains(&hash("x|pnpm 以")));
    }

    #[test]
    fn full_width_and_digits_fold() {
        assert!(features("Ｎｏｄｅ ２０ only？").contains(&hash("b|node 0")));
        assert!(features("Ｎｏｄｅ ２０ only？").contains(&hash("end|?")));
        assert_eq!(features("Node 18 only"), features("node 20 ONLY"));
    }

    #[test]
    fn urls_and_paths_are_flags_not_words() {
        let f = features("The runbook is at https://wiki.example.com/x and docs/ops.md");
        assert!(f.contains(&hash("flag|url")));
        assert!(f.contains(&hash("flag|path")));
        assert!(!f.contains(&hash("w|https")));
    }
}
