//! Agents' JSON configuration files — Qwen Code's and Claude Code's `settings.json`, Claude
//! Code's `.mcp.json` and `.claude.json`, Gemini CLI's `settings.json` — and the one routine
//! that changes them, [`edit`]: under one lock it reads the file (never through a symlink,
//! never blocking on a FIFO), parses it keeping the order of its keys, refuses a file it cannot
//! parse (such a file is never overwritten), lets the caller change the value, and writes the
//! result through [`crate::store::atomic_write`], laid out as the file was — unless the rewrite
//! would change more than the caller's edit (a key given twice, an integer too large to keep),
//! which is refused the same way. Qwen Code's team
//! memory switch (`qwen_settings`), our hooks (`integrations::agent`) and the MCP server's
//! entry (`integrations::mcp_config`) all go through it (docs/development.md, "Who owns which
//! I/O").

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::safe_fs::{self, FileLock};
use crate::store::{self, StoreError};

/// The lock every edit of an agent's configuration holds, in the caller's state directory.
pub const LOCK_FILE: &str = "agent-settings.lock";

/// Failures reading or changing an agent's configuration file.
#[derive(Debug, thiserror::Error)]
pub enum SettingsFileError {
    /// The file is not JSON (comments included: Qwen Code accepts them, a rewrite would drop
    /// them). It is left exactly as it is; each caller words its own advice.
    #[error("{path}: not valid JSON ({message})")]
    Unparsable {
        path: PathBuf,
        /// The parser's message.
        message: String,
        /// Whether the file holds `//` or `/* */` comments outside strings.
        has_comments: bool,
    },
    /// The file parses, but writing it back would change more than the caller's edit: a key
    /// given twice (JSON keeps the last), an integer too large to keep exactly. It is left
    /// exactly as it is.
    #[error("{path}: holds {what}, which rewriting the file would change")]
    WouldChange { path: PathBuf, what: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Reads and parses the file at `path`: `Ok(None)` when it is missing, an empty object when it
/// holds only whitespace, else its bytes and value (keys in file order).
pub fn read(path: &Path) -> Result<Option<(Vec<u8>, Value)>, SettingsFileError> {
    let Some(bytes) = safe_fs::read_regular(path).map_err(StoreError::from)? else {
        return Ok(None);
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Some((bytes, Value::Object(Map::new()))));
    }
    match serde_json::from_slice(&bytes) {
        Ok(value) => Ok(Some((bytes, value))),
        Err(e) => {
            let text = String::from_utf8_lossy(&bytes);
            Err(SettingsFileError::Unparsable {
                path: path.to_path_buf(),
                message: e.to_string(),
                has_comments: strip_comments(&text) != text,
            })
        }
    }
}

/// What [`edit`] does with the file once the caller has seen (and maybe changed) its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Nothing: the file stays as it is (or absent).
    Keep,
    /// Writes the changed value, laid out like the file was ([`to_bytes`]; pretty, two spaces,
    /// for a new file).
    Write,
    /// Writes these bytes instead (an original being restored byte for byte).
    WriteBytes(Vec<u8>),
    /// Deletes the file.
    Remove,
}

/// Changes the JSON file at `path` while holding the lock [`LOCK_FILE`] in `lock_dir`.
///
/// `change` gets the parsed value (an empty object when the file is missing or blank) and the
/// file's bytes (`None` when missing); it returns what to do with the file and a result for the
/// caller. `after` runs once that is done, still under the lock, for the caller's own state
/// files (a backup, a marker). A file that does not parse is refused before `change` runs.
pub fn edit<T, E>(
    path: &Path,
    lock_dir: &Path,
    change: impl FnOnce(&mut Value, Option<&[u8]>) -> Result<(Edit, T), E>,
    after: impl FnOnce(&T) -> Result<(), E>,
) -> Result<T, E>
where
    E: From<SettingsFileError>,
{
    let _lock = FileLock::exclusive(&lock_dir.join(LOCK_FILE))
        .map_err(|e| SettingsFileError::Store(e.into()))?;
    let existing = read(path)?;
    let (bytes, mut value) = match existing {
        Some((bytes, value)) => (Some(bytes), value),
        None => (None, Value::Object(Map::new())),
    };
    // Refused before the caller sees it (as an unparsable file), so no caller's side effect (a
    // backup of the bytes, a marker) is left behind for a file nothing was written to.
    if let Some(what) = bytes.as_deref().and_then(|b| changed_by_rewrite(b, &value)) {
        return Err(SettingsFileError::WouldChange {
            path: path.to_path_buf(),
            what,
        }
        .into());
    }
    let before = value.clone();
    let (what, out) = change(&mut value, bytes.as_deref())?;
    match what {
        Edit::Keep => {}
        Edit::Write => write(path, &rewrite(bytes.as_deref(), &before, &value))?,
        Edit::WriteBytes(b) => write(path, &b)?,
        Edit::Remove => remove(path)?,
    }
    after(&out)?;
    Ok(out)
}

/// The new text of a file whose value changed from `before` to `after`: the change spliced
/// into `original` where it can be, every other byte as the person left it
/// (`formats::json_splice`), else the whole value laid out like the file ([`to_bytes`]).
fn rewrite(original: Option<&[u8]>, before: &Value, after: &Value) -> Vec<u8> {
    original
        .filter(|b| !b.iter().all(u8::is_ascii_whitespace))
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|text| crate::formats::json_splice::splice(text, before, after))
        .map(String::into_bytes)
        .unwrap_or_else(|| to_bytes(after, original))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), SettingsFileError> {
    Ok(store::atomic_write(path, bytes)?)
}

fn remove(path: &Path) -> Result<(), SettingsFileError> {
    let (dir, name) = safe_fs::split(path).map_err(StoreError::from)?;
    safe_fs::Dir::open_trusted(dir, false)
        .and_then(|d| d.remove(name))
        .map_err(StoreError::from)?;
    Ok(())
}

/// The indentation of an existing JSON file (the first indented line), default two spaces.
fn detect_indent(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    text.lines()
        .skip(1)
        .find_map(|l| {
            let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
            (!ws.is_empty()).then(|| ws.into_bytes())
        })
        .unwrap_or_else(|| b"  ".to_vec())
}

/// `value` as JSON laid out like `like`, the file it replaces, so a rewrite changes only what
/// it must: indented as `like` is (pretty, two spaces, for a new or blank file), on one line
/// when `like` held its keys on one line, with CRLF line breaks when every line break of `like`
/// is one, and with a final line break only when `like` ended with one (always for a new file).
/// JSON strings never hold a raw line break, so every `\n` written is layout.
pub fn to_bytes(value: &Value, like: Option<&[u8]>) -> Vec<u8> {
    use serde::Serialize as _;
    let like = like.filter(|l| !l.iter().all(u8::is_ascii_whitespace));
    let trimmed = like.map(|l| l.trim_ascii_end());
    let compact = trimmed.is_some_and(|t| !t.contains(&b'\n') && t.contains(&b':'));
    let newlines = like.map_or(0, |l| l.iter().filter(|&&b| b == b'\n').count());
    let crlf = newlines > 0
        && like.is_some_and(|l| l.windows(2).filter(|w| w == b"\r\n").count() == newlines);
    let final_break = like.is_none_or(|l| l.ends_with(b"\n"));
    let mut out = Vec::new();
    // Serializing a Value into memory cannot fail.
    if compact {
        let _ = serde_json::to_writer(&mut out, value);
    } else {
        let indent = like.map(detect_indent).unwrap_or_else(|| b"  ".to_vec());
        let formatter = serde_json::ser::PrettyFormatter::with_indent(&indent);
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        let _ = value.serialize(&mut ser);
    }
    if final_break {
        out.push(b'\n');
    }
    if crlf {
        let mut with_cr = Vec::with_capacity(out.len() + out.len() / 8);
        for b in out {
            if b == b'\n' {
                with_cr.push(b'\r');
            }
            with_cr.push(b);
        }
        out = with_cr;
    }
    out
}

/// One token of a JSON text: layout (whitespace) is not a token, strings are compared decoded.
#[derive(Debug, PartialEq)]
enum Token {
    Punct(u8),
    Str(String),
    /// A number as written.
    Num(String),
    Word(String),
}

/// The tokens of a JSON text, or `None` where it is not one this reader understands.
fn tokens(text: &str) -> Option<Vec<Token>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' | b'}' | b'[' | b']' | b',' | b':' => {
                out.push(Token::Punct(c));
                i += 1;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let lit = text.get(start..=i)?;
                out.push(Token::Str(serde_json::from_str(lit).ok()?));
                i += 1;
            }
            _ => {
                let start = i;
                while i < b.len() && !b" \t\n\r{}[],:\"".contains(&b[i]) {
                    i += 1;
                }
                let lit = text.get(start..i)?.to_string();
                out.push(if c == b'-' || c.is_ascii_digit() {
                    Token::Num(lit)
                } else {
                    Token::Word(lit)
                });
            }
        }
    }
    Some(out)
}

/// Whether two spellings of a number are one value: the same text, or the same floating-point
/// value as the JSON parser reads both (`1.50` and `1.5`, `-0` and `-0.0`; the parser's own
/// reading, so a last-digit difference in how it rounds a long fraction is not taken for a
/// change) — except for an integer beyond 2^53 written differently, which the parser kept only
/// approximately.
fn same_number(original: &str, rewritten: &str) -> bool {
    if original == rewritten {
        return true;
    }
    let integer = !original.contains(['.', 'e', 'E']);
    match (
        serde_json::from_str::<f64>(original),
        serde_json::from_str::<f64>(rewritten),
    ) {
        (Ok(a), Ok(b)) => a == b && !(integer && a.abs() > 9_007_199_254_740_992.0),
        _ => false,
    }
}

/// What rewriting `original` would change besides layout and the caller's edit, if anything:
/// `parsed` (what [`read`] made of it, before any change) is serialised again and the two are
/// compared token by token.
fn changed_by_rewrite(original: &[u8], parsed: &Value) -> Option<String> {
    let text = std::str::from_utf8(original).ok()?;
    if text.trim().is_empty() {
        return None;
    }
    let again = String::from_utf8(to_bytes(parsed, None)).ok()?;
    let (Some(a), Some(b)) = (tokens(text), tokens(&again)) else {
        return Some("text this tool cannot read back exactly".to_string());
    };
    if a.len() != b.len() {
        return Some("a key given twice".to_string());
    }
    for (x, y) in a.iter().zip(&b) {
        match (x, y) {
            (Token::Num(o), Token::Num(r)) if !same_number(o, r) => {
                return Some(format!("the number {o}, which it would write as {r}"));
            }
            (Token::Num(_), Token::Num(_)) => {}
            _ if x != y => return Some("a value it would write differently".to_string()),
            _ => {}
        }
    }
    None
}

/// Removes comments outside strings, keeping everything else byte for byte.
pub fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = '\0';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[derive(Debug)]
    struct Refused(SettingsFileError);
    impl From<SettingsFileError> for Refused {
        fn from(e: SettingsFileError) -> Refused {
            Refused(e)
        }
    }

    fn set_x(v: &mut Value, _: Option<&[u8]>) -> Result<(Edit, ()), Refused> {
        v.as_object_mut()
            .unwrap()
            .insert("x".into(), Value::from(1));
        Ok((Edit::Write, ()))
    }

    #[test]
    fn an_edit_keeps_the_files_line_breaks_one_line_layout_and_missing_final_break() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("state");
        let path = dir.path().join("settings.json");
        let cases = [
            // CRLF, tab indent, final break.
            (
                "{\r\n\t\"z\": \"a\\nb\"\r\n}\r\n",
                "{\r\n\t\"z\": \"a\\nb\",\r\n\t\"x\": 1\r\n}\r\n",
            ),
            // One line, no final break: stays one line without one, spaced as it was.
            ("{\"z\": [1, 2]}", "{\"z\": [1, 2], \"x\": 1}"),
            // One line with a final break.
            ("{\"z\":true}\n", "{\"z\":true,\"x\":1}\n"),
            // LF without a final break.
            ("{\n  \"z\": true\n}", "{\n  \"z\": true,\n  \"x\": 1\n}"),
            // Mixed line breaks are not CRLF (the new line gets LF, the others stay as they
            // were); an empty object is laid out as new.
            (
                "{\r\n  \"z\": 1,\n  \"y\": 2\n}\n",
                "{\r\n  \"z\": 1,\n  \"y\": 2,\n  \"x\": 1\n}\n",
            ),
            ("{}", "{\n  \"x\": 1\n}"),
            ("  \n", "{\n  \"x\": 1\n}\n"),
        ];
        for (before, after) in cases {
            fs::write(&path, before).unwrap();
            edit(&path, &lock, set_x, |_| Ok(())).unwrap();
            assert_eq!(fs::read_to_string(&path).unwrap(), after, "from {before:?}");
        }
    }

    #[test]
    fn an_edit_keeps_key_order_and_indent_and_creates_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("state");
        let path = dir.path().join("settings.json");
        fs::write(&path, "{\n    \"z\": true,\n    \"a\": [1]\n}\n").unwrap();
        edit(&path, &lock, set_x, |_| Ok(())).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "{\n    \"z\": true,\n    \"a\": [1],\n    \"x\": 1\n}\n"
        );
        let new = dir.path().join("new/settings.json");
        edit(&new, &lock, set_x, |_| Ok(())).unwrap();
        assert_eq!(fs::read_to_string(&new).unwrap(), "{\n  \"x\": 1\n}\n");
        assert!(lock.join(LOCK_FILE).is_file());
        // Remove deletes; Keep leaves a missing file missing.
        edit(
            &new,
            &lock,
            |_, _| Ok::<_, Refused>((Edit::Remove, ())),
            |_| Ok(()),
        )
        .unwrap();
        assert!(!new.exists());
        edit(
            &new,
            &lock,
            |_, _| Ok::<_, Refused>((Edit::Keep, ())),
            |_| Ok(()),
        )
        .unwrap();
        assert!(!new.exists());
    }

    #[test]
    fn a_file_that_does_not_parse_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("state");
        for (text, comments) in [
            ("{\"a\": 1,", false),
            ("// mine\n{\"a\": 1}", true),
            ("{\"a\": \"x // y\" /* c */}", true),
        ] {
            let path = dir.path().join("settings.json");
            fs::write(&path, text).unwrap();
            let mut ran = false;
            let err = edit(
                &path,
                &lock,
                |v, b| {
                    ran = true;
                    set_x(v, b)
                },
                |_| Ok(()),
            )
            .unwrap_err();
            assert!(!ran, "the caller never sees an unparsable file");
            match err.0 {
                SettingsFileError::Unparsable { has_comments, .. } => {
                    assert_eq!(has_comments, comments, "{text}")
                }
                other => panic!("{other}"),
            }
            assert_eq!(fs::read_to_string(&path).unwrap(), text);
        }
    }

    #[test]
    fn a_file_a_rewrite_would_change_is_refused_and_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("state");
        let path = dir.path().join("settings.json");
        for (text, said) in [
            ("{\"a\": 1, \"a\": 2}", "a key given twice"),
            (
                "{\"id\": 123456789012345678901234567890}",
                "the number 123456789012345678901234567890",
            ),
            (
                "{\"ok\": [1, {\"b\": null, \"b\": true}]}",
                "a key given twice",
            ),
        ] {
            fs::write(&path, text).unwrap();
            let err = edit(&path, &lock, set_x, |_| Ok(())).unwrap_err();
            match &err.0 {
                SettingsFileError::WouldChange { what, .. } => {
                    assert!(what.starts_with(said), "{text}: {what}")
                }
                other => panic!("{text}: {other}"),
            }
            assert_eq!(fs::read_to_string(&path).unwrap(), text);
            // Refused before the caller runs, so it leaves no side effect of its own.
            let mut ran = false;
            let refused = edit(
                &path,
                &lock,
                |_, _| {
                    ran = true;
                    Ok::<_, Refused>((Edit::Keep, ()))
                },
                |_| Ok(()),
            );
            assert!(refused.is_err() && !ran, "{text}");
        }
        // What only layout, escapes or the spelling of a fraction tell apart is rewritten.
        for text in [
            "{\"a\":1,\"b\":[true,false],\"c\":\"\\u00e9\\n\"}",
            "{\"cost\": 0.12345678901234566, \"t\": [0.1, 0.30000000000000004, 2.2250738585072014e-308, 1.7976931348623157e308, 5e-324, 123456.78901234567]}",
            "{\"zero\": -0, \"n\": [-0.0, 0]}",
            "{\r\n  \"f\": 1.50, \"g\": -2.5e3, \"big\": 18446744073709551615, \"neg\": -9007199254740993\r\n}",
        ] {
            fs::write(&path, text).unwrap();
            edit(&path, &lock, set_x, |_| Ok(())).unwrap();
            let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(v["x"], 1, "{text}");
        }
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["big"].as_u64(), Some(u64::MAX));
        assert_eq!(v["neg"].as_i64(), Some(-9_007_199_254_740_993));
    }

    #[test]
    fn a_symlink_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere.json");
        fs::write(&target, "{}").unwrap();
        let path = dir.path().join("settings.json");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let err = edit(&path, &dir.path().join("state"), set_x, |_| Ok(())).unwrap_err();
        assert!(err.0.to_string().contains("symlink"), "{}", err.0);
        assert_eq!(fs::read_to_string(&target).unwrap(), "{}");
    }

    #[test]
    fn comments_are_stripped_outside_strings() {
        let text = "{ // c\n \"a\": \"x // y\", /* b */ \"b\": 1 }";
        let v: Value = serde_json::from_str(&strip_comments(text)).unwrap();
        assert_eq!(v["a"], "x // y");
        assert_eq!(v["b"], 1);
    }
}
