//! The merge driver (SPEC §9.4): `git qwen-memory merge-file %O %A %B %P`.
//!
//! Topic documents merge entry by entry: the union of both sides' entries minus those either
//! side deleted, each field merged three ways, frontmatter key by key (taken from the side
//! that changed it); conflict markers appear only when both sides changed the same thing
//! differently. `MEMORY.md` is derived data: its lines are merged by the document they link
//! to and reassembled in path order within the index budgets, which is what regenerating it
//! from the merged documents gives (the post-merge hook then rebuilds it from the files).
//! Input that is not a memory document gets Git's ordinary textual merge.

use std::path::Path;
use std::process::Command;

use serde::Serialize;

use super::GitError;
use crate::doc::{self, Entry};

/// The outcome of a merge: the merged text and whether it holds conflicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    pub conflicts: usize,
}

/// Why the entry-level merge does not apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{side} is not a memory document")]
pub struct Unparseable {
    pub side: &'static str,
}

const OURS: &str = "ours";
const THEIRS: &str = "theirs";

/// Provenance keys written by this tool: merged without conflicts (earliest `created`, our
/// `session` / `commit`), since two clones creating the same document always differ there.
const PROVENANCE_KEYS: [&str; 3] = ["created", "session", "commit"];

/// Three-way merge of topic documents. An empty (or blank) base means both sides added the
/// file.
pub fn merge_topic(base: &str, ours: &str, theirs: &str) -> Result<Merged, Unparseable> {
    let base_doc = if base.trim().is_empty() {
        None
    } else {
        Some(doc::parse_document(base).map_err(|_| Unparseable { side: "the base" })?)
    };
    let ours_doc = doc::parse_document(ours).map_err(|_| Unparseable { side: OURS })?;
    let theirs_doc = doc::parse_document(theirs).map_err(|_| Unparseable { side: THEIRS })?;

    let (frontmatter, fm_conflicts) = merge_frontmatter(
        base_doc.as_ref().map(|d| d.frontmatter.as_str()),
        &ours_doc.frontmatter,
        &theirs_doc.frontmatter,
    );
    let base_entries = base_doc
        .as_ref()
        .map(|d| doc::parse_entries(&d.body))
        .unwrap_or_default();
    let (body, entry_conflicts) = merge_entries(
        &base_entries,
        &doc::parse_entries(&ours_doc.body),
        &doc::parse_entries(&theirs_doc.body),
    );
    Ok(Merged {
        text: format!("---\n{frontmatter}\n---\n\n{body}\n"),
        conflicts: fm_conflicts + entry_conflicts,
    })
}

/// A three-way choice on optional values: `Ok(value)` or `Err((ours, theirs))`.
#[allow(clippy::type_complexity)]
fn three_way<'a, T: PartialEq + ?Sized>(
    base: Option<&'a T>,
    ours: Option<&'a T>,
    theirs: Option<&'a T>,
) -> Result<Option<&'a T>, (Option<&'a T>, Option<&'a T>)> {
    if ours == theirs || base == theirs {
        Ok(ours)
    } else if base == ours {
        Ok(theirs)
    } else {
        Err((ours, theirs))
    }
}

/// Top-level frontmatter blocks: a `key:` line plus its continuation lines (indented lines,
/// list items and comments under it). Lines before the first key form a block keyed "".
fn fm_blocks(fm: &str) -> Vec<(String, String)> {
    let mut blocks: Vec<(String, String)> = Vec::new();
    for line in fm.split('\n') {
        let starts_key =
            !line.is_empty() && !line.starts_with([' ', '\t', '-', '#']) && line.contains(':');
        if starts_key {
            let key = line.split(':').next().unwrap_or("").trim().to_string();
            blocks.push((key, line.to_string()));
        } else if let Some(last) = blocks.last_mut() {
            last.1.push('\n');
            last.1.push_str(line);
        } else {
            blocks.push((String::new(), line.to_string()));
        }
    }
    blocks
}

fn merge_frontmatter(base: Option<&str>, ours: &str, theirs: &str) -> (String, usize) {
    if ours == theirs || base == Some(theirs) {
        return (ours.to_string(), 0);
    }
    if base == Some(ours) {
        return (theirs.to_string(), 0);
    }
    let b = base.map(fm_blocks).unwrap_or_default();
    let o = fm_blocks(ours);
    let t = fm_blocks(theirs);
    let get = |blocks: &[(String, String)], key: &str| -> Option<String> {
        blocks
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    let mut keys: Vec<String> = o.iter().map(|(k, _)| k.clone()).collect();
    for (k, _) in &t {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut conflicts = 0;
    for key in keys {
        let (bv, ov, tv) = (get(&b, &key), get(&o, &key), get(&t, &key));
        match three_way(bv.as_deref(), ov.as_deref(), tv.as_deref()) {
            Ok(Some(v)) => out.push(v.to_string()),
            Ok(None) => {}
            Err((ov, tv)) => {
                if let Some(v) = resolve_provenance(&key, ov, tv) {
                    out.push(v.to_string());
                    continue;
                }
                conflicts += 1;
                out.push(format!(
                    "<<<<<<< {OURS}\n{}=======\n{}>>>>>>> {THEIRS}",
                    ov.map(|v| format!("{v}\n")).unwrap_or_default(),
                    tv.map(|v| format!("{v}\n")).unwrap_or_default()
                ));
            }
        }
    }
    (out.join("\n"), conflicts)
}

fn resolve_provenance<'a>(
    key: &str,
    ours: Option<&'a str>,
    theirs: Option<&'a str>,
) -> Option<&'a str> {
    if !PROVENANCE_KEYS.contains(&key) {
        return None;
    }
    match (ours, theirs) {
        (Some(o), Some(t)) if key == "created" => Some(if t < o { t } else { o }),
        (Some(o), _) => Some(o),
        (None, t) => t,
    }
}

enum Piece {
    Clean(Entry),
    Conflict(Entry, Entry),
}

fn merge_entries(base: &[Entry], ours: &[Entry], theirs: &[Entry]) -> (String, usize) {
    let key = |e: &Entry| doc::entry_key(&e.summary);
    let find = |list: &[Entry], k: &str| list.iter().find(|e| key(e) == k).cloned();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for o in ours {
        let k = key(o);
        if !seen.insert(k.clone()) {
            continue;
        }
        let b = find(base, &k);
        let t = find(theirs, &k);
        match (b, t) {
            // Deleted by theirs.
            (Some(_), None) => {}
            (b, Some(t)) => pieces.push(merge_entry(b.as_ref(), o, &t)),
            (None, None) => pieces.push(Piece::Clean(o.clone())),
        }
    }
    for t in theirs {
        let k = key(t);
        if seen.contains(&k) || find(base, &k).is_some() {
            // Already merged, or in the base but deleted by ours.
            continue;
        }
        seen.insert(k);
        pieces.push(Piece::Clean(t.clone()));
    }
    let conflicts = pieces
        .iter()
        .filter(|p| matches!(p, Piece::Conflict(..)))
        .count();
    if pieces.is_empty() {
        return (doc::render_body(&[]), 0);
    }
    let rendered: Vec<String> = pieces
        .iter()
        .map(|p| match p {
            Piece::Clean(e) => doc::render_body(std::slice::from_ref(e)),
            Piece::Conflict(o, t) => format!(
                "<<<<<<< {OURS}\n{}\n=======\n{}\n>>>>>>> {THEIRS}",
                doc::render_body(std::slice::from_ref(o)),
                doc::render_body(std::slice::from_ref(t))
            ),
        })
        .collect();
    (rendered.join("\n\n"), conflicts)
}

fn merge_entry(base: Option<&Entry>, ours: &Entry, theirs: &Entry) -> Piece {
    // The summary only differs in case or spacing here (same key): keep ours.
    let mut merged = Entry {
        summary: ours.summary.clone(),
        ..Entry::default()
    };
    let mut conflict = false;
    let fields: [fn(&Entry) -> Option<&str>; 2] =
        [|e| e.why.as_deref(), |e| e.how_to_apply.as_deref()];
    let mut values: [(Option<String>, Option<String>); 2] = Default::default();
    for (i, field) in fields.iter().enumerate() {
        match three_way(base.and_then(field), field(ours), field(theirs)) {
            Ok(v) => values[i] = (v.map(str::to_string), v.map(str::to_string)),
            Err((o, t)) => {
                conflict = true;
                values[i] = (o.map(str::to_string), t.map(str::to_string));
            }
        }
    }
    if !conflict {
        merged.why = values[0].0.clone();
        merged.how_to_apply = values[1].0.clone();
        return Piece::Clean(merged);
    }
    let ours_side = Entry {
        summary: ours.summary.clone(),
        why: values[0].0.clone(),
        how_to_apply: values[1].0.clone(),
    };
    let theirs_side = Entry {
        summary: theirs.summary.clone(),
        why: values[0].1.clone(),
        how_to_apply: values[1].1.clone(),
    };
    Piece::Conflict(ours_side, theirs_side)
}

/// The link target of an index line (`- [title](target) — …`), which names its document.
fn index_key(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("- [")?;
    let open = rest.find("](")?;
    let after = &rest[open + 2..];
    let close = after.find(')')?;
    Some(&after[..close])
}

fn index_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| index_key(l).map(|k| (k.to_string(), l.to_string())))
        .collect()
}

/// Three-way merge of a repository `MEMORY.md`: lines keyed by the document they link to,
/// each merged three ways, ordered by document path (the repository index order) and
/// reassembled within the index budgets. Never conflicts: the index is derived data.
pub fn merge_index(base: &str, ours: &str, theirs: &str) -> String {
    let (b, o, t) = (index_lines(base), index_lines(ours), index_lines(theirs));
    let get = |list: &[(String, String)], k: &str| {
        list.iter()
            .find(|(key, _)| key == k)
            .map(|(_, l)| l.clone())
    };
    let mut keys: Vec<String> = o.iter().chain(&t).map(|(k, _)| k.clone()).collect();
    keys.sort_by_key(|k| decode_target(k));
    keys.dedup();
    let mut lines = Vec::new();
    for k in keys {
        let (bv, ov, tv) = (get(&b, &k), get(&o, &k), get(&t, &k));
        match three_way(bv.as_deref(), ov.as_deref(), tv.as_deref()) {
            Ok(Some(l)) => lines.push(l.to_string()),
            Ok(None) => {}
            Err((ov, tv)) => lines.extend(ov.or(tv).map(str::to_string)),
        }
    }
    crate::index::assemble(&lines)
}

fn decode_target(target: &str) -> Vec<u8> {
    percent_encoding::percent_decode_str(target).collect()
}

/// What the driver did, for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DriverOutcome {
    /// Merged cleanly by entry.
    Clean,
    /// Merged by entry with conflict markers.
    Conflicted,
    /// Not memory documents: Git's textual merge, clean.
    TextClean,
    /// Not memory documents: Git's textual merge, with conflicts.
    TextConflicted,
}

impl DriverOutcome {
    /// The driver's exit code: non-zero tells Git the path is conflicted.
    pub fn exit_code(self) -> u8 {
        match self {
            DriverOutcome::Clean | DriverOutcome::TextClean => 0,
            DriverOutcome::Conflicted | DriverOutcome::TextConflicted => 1,
        }
    }
}

/// Runs the driver: reads `%O %A %B`, writes the result into `%A` (as Git expects) and says
/// whether it is clean. `path` (`%P`) chooses between the index and topic documents.
pub fn merge_file(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    path: &str,
) -> Result<DriverOutcome, GitError> {
    let read = |p: &Path| {
        crate::safe_fs::read_regular(p)
            .map_err(crate::store::StoreError::from)?
            .ok_or_else(|| GitError::io(p, std::io::ErrorKind::NotFound.into()))
    };
    let (b, o, t) = (read(base)?, read(ours)?, read(theirs)?);
    let texts = (
        std::str::from_utf8(&b),
        std::str::from_utf8(&o),
        std::str::from_utf8(&t),
    );
    let (Ok(b), Ok(o), Ok(t)) = texts else {
        return text_merge(base, ours, theirs, path);
    };
    let is_index = path.rsplit('/').next() == Some(crate::store::INDEX_FILE);
    if is_index {
        let merged = merge_index(b, o, t);
        crate::store::atomic_write(ours, merged.as_bytes())?;
        return Ok(DriverOutcome::Clean);
    }
    match merge_topic(b, o, t) {
        Ok(m) => {
            crate::store::atomic_write(ours, m.text.as_bytes())?;
            Ok(if m.conflicts == 0 {
                DriverOutcome::Clean
            } else {
                DriverOutcome::Conflicted
            })
        }
        Err(_) => text_merge(base, ours, theirs, path),
    }
}

/// Git's ordinary merge: `git merge-file` writes the result, with conflict markers when
/// needed, into `ours`.
fn text_merge(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    path: &str,
) -> Result<DriverOutcome, GitError> {
    let status = Command::new("git")
        .arg("merge-file")
        .args([
            "-L",
            &format!("ours:{path}"),
            "-L",
            "base",
            "-L",
            &format!("theirs:{path}"),
        ])
        .arg(ours)
        .arg(base)
        .arg(theirs)
        .status()
        .map_err(|e| GitError::io(Path::new("git"), e))?;
    match status.code() {
        Some(0) => Ok(DriverOutcome::TextClean),
        Some(n) if n > 0 && n < 128 => Ok(DriverOutcome::TextConflicted),
        _ => Err(GitError::Cli {
            args: "merge-file".into(),
            message: format!("failed: {status}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic(fm: &str, body: &str) -> String {
        format!("---\n{fm}\n---\n\n{body}\n")
    }

    const FM: &str = "name: Build\ndescription: How we build\ntype: project";

    #[test]
    fn union_of_entries_minus_deletions() {
        let base = topic(FM, "Use pnpm.\n\nRun lint first.");
        let ours = topic(
            FM,
            "Use pnpm.\n\nRun lint first.\n\nDeploy from release branches.",
        );
        let theirs = topic(FM, "Use pnpm.\n\nCI sets TZ=UTC.");
        let m = merge_topic(&base, &ours, &theirs).unwrap();
        assert_eq!(m.conflicts, 0);
        assert_eq!(
            m.text,
            topic(
                FM,
                "Use pnpm.\n\nDeploy from release branches.\n\nCI sets TZ=UTC."
            )
        );
    }

    #[test]
    fn fields_merge_and_conflict_only_when_both_changed() {
        let base = topic(FM, "Use pnpm.\n\nWhy: speed");
        let ours = topic(FM, "Use pnpm.\n\nWhy: speed\n\nHow to apply: always");
        let theirs = topic(FM, "Use pnpm.\n\nWhy: disk space");
        let m = merge_topic(&base, &ours, &theirs).unwrap();
        assert_eq!(m.conflicts, 0);
        assert!(m.text.contains("Why: disk space\n\nHow to apply: always"));

        let ours = topic(FM, "Use pnpm.\n\nWhy: lockfile");
        let m = merge_topic(&base, &ours, &theirs).unwrap();
        assert_eq!(m.conflicts, 1);
        assert!(m.text.contains("<<<<<<< ours\nUse pnpm.\n\nWhy: lockfile\n=======\nUse pnpm.\n\nWhy: disk space\n>>>>>>> theirs"));
    }

    #[test]
    fn frontmatter_from_the_side_that_changed_it() {
        let base = topic(FM, "A fact here.");
        let fm2 = "name: Build and release\ndescription: How we build\ntype: project\ncategory: x";
        let theirs = topic(fm2, "A fact here.");
        let ours = topic(FM, "A fact here.\n\nAnother fact here.");
        let m = merge_topic(&base, &ours, &theirs).unwrap();
        assert_eq!(m.conflicts, 0);
        assert_eq!(m.text, topic(fm2, "A fact here.\n\nAnother fact here."));
        // Both changed the same key differently.
        let ours = topic(
            "name: Build steps\ndescription: How we build\ntype: project",
            "A fact here.",
        );
        let m = merge_topic(&base, &ours, &theirs).unwrap();
        assert_eq!(m.conflicts, 1, "{}", m.text);
        assert!(m.text.contains(
            "<<<<<<< ours\nname: Build steps\n=======\nname: Build and release\n>>>>>>> theirs"
        ));
        let ours = topic(
            "name: Build\ndescription: Building it\ntype: project",
            "A fact here.",
        );
        // Both changed different keys only.
        let theirs = topic(
            "name: Build\ndescription: How we build\ntype: project\ncategory: x",
            "A fact here.",
        );
        let m = merge_topic(&base, &ours, &theirs).unwrap();
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert!(m.text.starts_with(
            "---\nname: Build\ndescription: Building it\ntype: project\ncategory: x\n---"
        ));
    }

    #[test]
    fn add_add_with_provenance_merges_cleanly() {
        let ours = topic(
            "name: Use pnpm\ndescription: Use pnpm\ntype: project\ncreated: 2026-03-02T10:00:00.000Z\ncommit: aaa",
            "Use pnpm.",
        );
        let theirs = topic(
            "name: Use pnpm\ndescription: Use pnpm\ntype: project\ncreated: 2026-03-01T10:00:00.000Z\ncommit: bbb",
            "Use pnpm.\n\nWhy: the lockfile",
        );
        let m = merge_topic("", &ours, &theirs).unwrap();
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert!(m
            .text
            .contains("created: 2026-03-01T10:00:00.000Z\ncommit: aaa"));
        assert!(m.text.contains("Use pnpm.\n\nWhy: the lockfile"));
    }

    #[test]
    fn deleting_every_entry_renders_the_placeholder() {
        let base = topic(FM, "Only fact here.");
        let m = merge_topic(&base, &topic(FM, "_No entries yet._"), &base).unwrap();
        assert_eq!(m.text, topic(FM, "_No entries yet._"));
    }

    #[test]
    fn unparseable_sides_are_refused() {
        assert!(merge_topic("", "not a doc", &topic(FM, "x")).is_err());
        assert!(merge_topic("garbage", &topic(FM, "x"), &topic(FM, "x")).is_err());
    }

    #[test]
    fn index_lines_merge_by_document_in_path_order() {
        let a = "- [A](feedback/a.md) — a";
        let b = "- [B](project/b.md) — b";
        let c = "- [C](project/c.md) — c";
        let c2 = "- [C2](project/c.md) — c";
        let base = [a, c].join("\n");
        let ours = [a, b, c].join("\n");
        let theirs = c2.to_string();
        assert_eq!(merge_index(&base, &ours, &theirs), [b, c2].join("\n"));
        assert_eq!(merge_index("", "", ""), "");
    }
}
