//! The format of the rules' word lists, `data/<lang>.words`, and the Rust it compiles to. Read by
//! the crate's build script (`#[path]`-included there), which writes one module of constants a
//! language; compiled into the crate only for its tests (docs/DESIGN.md, "Word lists").
//!
//! `# comment` lines and blank lines are ignored; `[name]` opens a list (`fn.NAME` for a list
//! local to one rule function; `[name] pairs` for a list of `left => right` pairs); every other
//! line is one entry (or pair), each side taken as written, or, when it
//! starts with `"`, a quoted entry (for leading or trailing spaces) with the escapes `\\`, `\"`,
//! `\n`, `\t` and `\u{…}`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The Rust constants for one data file, or `line: what is wrong`.
pub(crate) fn generate(text: &str) -> Result<String, String> {
    let mut code = String::new();
    let mut names = BTreeSet::new();
    // The list being read: the line of its header, whether it holds pairs, its entries so far.
    let mut open: Option<(usize, bool, usize)> = None;
    let close = |code: &mut String, open: Option<(usize, bool, usize)>| -> Result<(), String> {
        if let Some((line, _, n)) = open {
            if n == 0 {
                return Err(format!("{line}: empty list"));
            }
            code.push_str("];\n");
        }
        Ok(())
    };
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            close(&mut code, open)?;
            let (name, pairs) = match header.split_once(']') {
                Some((name, "")) => (name, false),
                Some((name, " pairs")) => (name, true),
                _ => return Err(format!("{line_no}: a header is [name] or [name] pairs")),
            };
            let valid = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if !valid {
                return Err(format!("{line_no}: bad list name {name:?}"));
            }
            let ident = name.replace('.', "__").to_ascii_uppercase();
            if !names.insert(ident.clone()) {
                return Err(format!("{line_no}: list {name} defined twice"));
            }
            let ty = if pairs { "&[(&str, &str)]" } else { "&[&str]" };
            let _ = writeln!(code, "pub(crate) const {ident}: {ty} = &[");
            open = Some((line_no, pairs, 0));
            continue;
        }
        let Some((_, pairs, n)) = open.as_mut() else {
            return Err(format!("{line_no}: an entry before the first [list]"));
        };
        let at = |e: String| format!("{line_no}: {e}");
        if *pairs {
            let (left, right) = line
                .split_once(" => ")
                .ok_or_else(|| at("a pair is `left => right`".into()))?;
            let (left, right) = (entry(left).map_err(at)?, entry(right).map_err(at)?);
            let _ = writeln!(code, "    ({left:?}, {right:?}),");
        } else {
            let entry = entry(line).map_err(at)?;
            let _ = writeln!(code, "    {entry:?},");
        }
        *n += 1;
    }
    close(&mut code, open)?;
    Ok(code)
}

/// One entry: as written, or unquoted when it starts with `"`; never empty.
fn entry(text: &str) -> Result<String, String> {
    let entry = if text.starts_with('"') {
        unquote(text)?
    } else {
        text.to_string()
    };
    if entry.is_empty() {
        return Err("empty entry".into());
    }
    Ok(entry)
}

fn unquote(line: &str) -> Result<String, String> {
    let inner = line
        .strip_prefix('"')
        .and_then(|l| l.strip_suffix('"'))
        .ok_or("a quoted entry must end with \"")?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            if c == '"' {
                return Err("an unescaped \" inside a quoted entry".into());
            }
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let rest: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let hex = rest.strip_prefix('{').ok_or("\\u needs {hex}")?;
                let ch = u32::from_str_radix(hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or("bad \\u{…} escape")?;
                out.push(ch);
            }
            other => return Err(format!("unknown escape \\{other:?}")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_become_constants_with_entries_as_written_or_unquoted() {
        let code = generate("# c\n[MOMENT]\n今回\n\"때문에, \"\n\n[when.IF]\n如果\n").unwrap();
        assert_eq!(
            code,
            "pub(crate) const MOMENT: &[&str] = &[\n    \"今回\",\n    \"때문에, \",\n];\n\
             pub(crate) const WHEN__IF: &[&str] = &[\n    \"如果\",\n];\n"
        );
        assert_eq!(
            generate("[tidy.WORDS] pairs\npls => please\n\"u \" => you\n").unwrap(),
            "pub(crate) const TIDY__WORDS: &[(&str, &str)] = &[\n    (\"pls\", \"please\"),\n    (\"u \", \"you\"),\n];\n"
        );
        assert_eq!(unquote(r#""a\"b\\c\u{3000}""#).unwrap(), "a\"b\\c\u{3000}");
    }

    #[test]
    fn a_bad_file_names_the_line() {
        for (text, want) in [
            ("今回\n", "1: an entry before the first [list]"),
            ("[A]\n[B]\nx\n", "1: empty list"),
            ("[A]\nx\n[A]\ny\n", "3: list A defined twice"),
            ("[a b]\nx\n", "1: bad list name \"a b\""),
            ("[A] list\nx\n", "1: a header is [name] or [name] pairs"),
            ("[A] pairs\nx\n", "2: a pair is `left => right`"),
            ("[A]\n\"x\n", "2: a quoted entry must end with \""),
            ("[A]\n\"\"\n", "2: empty entry"),
            ("[A]\n\"\\q\"\n", "2: unknown escape \\Some('q')"),
        ] {
            assert_eq!(generate(text).unwrap_err(), want, "{text:?}");
        }
    }

    /// The language knowledge of the rules stays in `data/`: no rule file spells a word list.
    #[test]
    fn no_rule_file_spells_a_word_list_inline() {
        for (name, source) in [
            ("en.rs", include_str!("en.rs")),
            ("zh.rs", include_str!("zh.rs")),
            ("ja.rs", include_str!("ja.rs")),
            ("ko.rs", include_str!("ko.rs")),
            ("sent.rs", include_str!("sent.rs")),
            ("cjk.rs", include_str!("cjk.rs")),
        ] {
            // Punctuation a rule splits at, kept in the code on purpose (docs/DESIGN.md).
            const STRUCTURAL: [&str; 2] = [r#"["：", ":"]"#, r#"["→", "->", "=>"]"#];
            let mut previous = "";
            // The rules, not their unit tests.
            let rules = source
                .split("\n#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or(source);
            for (i, line) in rules.lines().enumerate() {
                let at = format!(
                    "{name}:{}: a word list belongs in data/*.words: {line}",
                    i + 1
                );
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                assert!(
                    !(line.contains(": &[&str] = &[") || line.contains(": &[(&str, &str)] = &[")),
                    "{at}"
                );
                // An array of string literals on one line, or one literal a line after a `[`.
                let one_line = line.contains(r#"[""#) && line.contains(r#"", ""#);
                let split =
                    previous.ends_with('[') && code.starts_with('"') && code.ends_with("\",");
                assert!(
                    !(one_line || split) || STRUCTURAL.iter().any(|s| line.contains(s)),
                    "{at}"
                );
                previous = line.trim_end();
            }
        }
    }
}
