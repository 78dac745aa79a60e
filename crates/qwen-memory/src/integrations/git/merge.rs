//! The merge driver: `git qwen-memory merge-file %O %A %B %P` (see docs/DESIGN.md, "Git
//! integration").
//!
//! Topic documents merge entry by entry: the union of both sides' entries minus those either
//! side deleted, frontmatter key by key (taken from the side that changed it). The rule that
//! shapes everything here: a clean result never loses a side's text. An entry reworded or
//! deleted on one side and edited on the other, or edited differently on both, becomes a
//! conflict block naming both branches and the driver exits non-zero, so Git stops the merge.
//! `MEMORY.md` is generated per clone and not tracked (docs/DESIGN.md, "Git integration"); the
//! driver only meets one in an old history that still tracks it, and merges its lines by the
//! document they link to, reassembled in path order within the index budgets. Paths outside the
//! memory roots, documents with structure a person wrote, and input that is not a memory
//! document (or already holds conflict markers) get Git's ordinary textual merge.

use std::path::Path;
use std::process::Command;

use serde::Serialize;

use super::GitError;
use crate::formats::doc::{self, Entry};

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

/// How conflict blocks are written: the labels after `<<<<<<<` / `>>>>>>>` (the branch names)
/// and the marker length (`conflict-marker-size`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markers {
    pub ours: String,
    pub theirs: String,
    pub size: usize,
}

impl Default for Markers {
    fn default() -> Self {
        Markers {
            ours: "ours".into(),
            theirs: "theirs".into(),
            size: DEFAULT_MARKER_SIZE,
        }
    }
}

/// Git's default conflict marker length.
pub const DEFAULT_MARKER_SIZE: usize = 7;

impl Markers {
    /// The labels Git hands the driver (`%X`, `%Y`, `%L`; Git ≥ 2.44), else what the
    /// environment tells: `git merge` exports `GITHEAD_<sha>=<branch>` for the merged branch, and
    /// "HEAD" is named after the checked-out branch. A placeholder Git left unexpanded (older
    /// Git passes `%X` through) counts as absent. Falls back to "ours" / "theirs".
    pub fn resolve(
        ours: Option<&str>,
        theirs: Option<&str>,
        size: Option<&str>,
        env: &[(String, String)],
        current_branch: impl FnOnce() -> Option<String>,
    ) -> Markers {
        let given = |v: Option<&str>| {
            v.map(clean_label)
                .filter(|v| !v.is_empty() && !v.starts_with('%'))
        };
        let mut ours = given(ours);
        if ours.as_deref().is_none_or(|o| o == "HEAD") {
            ours = current_branch().map(|b| clean_label(&b)).or(ours);
        }
        let theirs = given(theirs).or_else(|| {
            let mut heads = env
                .iter()
                .filter(|(k, _)| k.starts_with("GITHEAD_"))
                .map(|(_, v)| clean_label(v));
            match (heads.next(), heads.next()) {
                (Some(one), None) if !one.is_empty() => Some(one),
                _ => None,
            }
        });
        let size = size
            .and_then(|s| s.trim().parse::<usize>().ok())
            .filter(|n| (1..=1024).contains(n))
            .unwrap_or(DEFAULT_MARKER_SIZE);
        let d = Markers::default();
        Markers {
            ours: ours.unwrap_or(d.ours),
            theirs: theirs.unwrap_or(d.theirs),
            size,
        }
    }

    /// [`Markers::resolve`] with this process's environment and the repository around the
    /// working directory (where Git runs the driver).
    pub fn from_git(ours: Option<&str>, theirs: Option<&str>, size: Option<&str>) -> Markers {
        let env: Vec<(String, String)> = std::env::vars().collect();
        Markers::resolve(ours, theirs, size, &env, current_branch)
    }

    fn block(&self, ours: &str, theirs: &str) -> String {
        let line = |s: &str| {
            if s.is_empty() {
                String::new()
            } else {
                format!("{s}\n")
            }
        };
        format!(
            "{} {}\n{}{}\n{}{} {}",
            "<".repeat(self.size),
            self.ours,
            line(ours),
            "=".repeat(self.size),
            line(theirs),
            ">".repeat(self.size),
            self.theirs
        )
    }
}

/// The short name of the checked-out branch, if HEAD is on one.
fn current_branch() -> Option<String> {
    let repo = git2::Repository::open_from_env().ok()?;
    let head = repo.head().ok()?;
    if !head.is_branch() {
        return None;
    }
    head.shorthand().map(str::to_string)
}

/// One line, no control characters: a label is printed inside the file.
fn clean_label(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_string()
}

/// Provenance keys written by this tool: merged without conflicts (earliest `created`, our
/// `session` / `commit`), since two clones creating the same document always differ there.
const PROVENANCE_KEYS: [&str; 3] = ["created", "session", "commit"];

/// Three-way merge of topic documents. An empty (or blank) base means both sides added the
/// file. A side already holding conflict markers is refused (Git's textual merge handles it).
pub fn merge_topic(
    base: &str,
    ours: &str,
    theirs: &str,
    markers: &Markers,
) -> Result<Merged, Unparseable> {
    let parse = |text: &str, side: &'static str| {
        if doc::conflict_marker_line(text).is_some() {
            return Err(Unparseable { side });
        }
        let parsed = doc::parse_document(text).map_err(|_| Unparseable { side })?;
        // Structure a person wrote (headings, code, tables, nested lists, prose) is never
        // re-rendered: Git's line merge keeps it byte for byte.
        if doc::is_structured(&parsed.body) {
            return Err(Unparseable { side });
        }
        Ok(parsed)
    };
    let base_doc = if base.trim().is_empty() {
        None
    } else {
        Some(parse(base, "the base")?)
    };
    let ours_doc = parse(ours, "ours")?;
    let theirs_doc = parse(theirs, "theirs")?;
    // Only one side changed (or both alike): that side is the result, byte for byte.
    if ours == theirs || base == theirs {
        return Ok(Merged {
            text: ours.to_string(),
            conflicts: 0,
        });
    }
    if base == ours {
        return Ok(Merged {
            text: theirs.to_string(),
            conflicts: 0,
        });
    }

    let (frontmatter, fm_conflicts) = merge_frontmatter(
        base_doc.as_ref().map(|d| d.frontmatter.as_str()),
        &ours_doc.frontmatter,
        &theirs_doc.frontmatter,
        markers,
    );
    let base_entries = base_doc
        .as_ref()
        .map(|d| doc::parse_entries(&d.body))
        .unwrap_or_default();
    let (body, entry_conflicts) = merge_entries(
        &base_entries,
        &doc::parse_entries(&ours_doc.body),
        &doc::parse_entries(&theirs_doc.body),
        markers,
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

fn merge_frontmatter(
    base: Option<&str>,
    ours: &str,
    theirs: &str,
    markers: &Markers,
) -> (String, usize) {
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
                if let Some(v) = resolve_same_text(&key, ov, tv) {
                    out.push(v.to_string());
                    continue;
                }
                if let Some(v) = resolve_provenance(&key, ov, tv) {
                    out.push(v.to_string());
                    continue;
                }
                conflicts += 1;
                out.push(markers.block(ov.unwrap_or(""), tv.unwrap_or("")));
            }
        }
    }
    (out.join("\n"), conflicts)
}

/// `name:` / `description:` written on two clones for the same fact differ at most in case,
/// spacing or a final period: the same text, ours kept.
fn resolve_same_text<'a>(
    key: &str,
    ours: Option<&'a str>,
    theirs: Option<&'a str>,
) -> Option<&'a str> {
    if !matches!(key, "name" | "description" | "title") {
        return None;
    }
    let value = |block: &str| {
        block
            .split_once(':')
            .map(|(_, v)| doc::entry_key(v))
            .unwrap_or_default()
    };
    match (ours, theirs) {
        (Some(o), Some(t)) if !o.contains('\n') && !t.contains('\n') && value(o) == value(t) => {
            Some(o)
        }
        _ => None,
    }
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

/// What became of one base entry on one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Still there (same summary, or same summary up to case and spacing): the side's index.
    Kept(usize),
    /// Replaced in place by a new entry (a reword): the side's index.
    Reworded(usize),
    Deleted,
}

/// How one side relates to the base, entry by entry.
struct SideMap {
    /// Per base entry.
    fate: Vec<Fate>,
    /// Per side entry: the base entry it keeps or rewords, `None` for an addition.
    origin: Vec<Option<usize>>,
}

/// Matches a side's entries to the base: exact summaries first, then summaries equal up to case
/// and spacing (so a case-variant duplicate stays a separate entry), then rewords (an unmatched
/// entry standing where an unmatched base entry stood, or carrying its `Why:` / `How to apply:`).
fn map_side(base: &[Entry], side: &[Entry]) -> SideMap {
    let mut base_to: Vec<Option<usize>> = vec![None; base.len()];
    let mut side_to: Vec<Option<usize>> = vec![None; side.len()];
    let passes: [fn(&Entry, &Entry) -> bool; 2] = [
        |a, b| a.summary == b.summary,
        |a, b| doc::entry_key(&a.summary) == doc::entry_key(&b.summary),
    ];
    for same in passes {
        for (i, b) in base.iter().enumerate() {
            if base_to[i].is_some() {
                continue;
            }
            if let Some(j) = (0..side.len()).find(|&j| side_to[j].is_none() && same(b, &side[j])) {
                base_to[i] = Some(j);
                side_to[j] = Some(i);
            }
        }
    }
    let kept: Vec<bool> = base_to.iter().map(Option::is_some).collect();
    // The gap an unmatched entry sits in: the base index of the nearest kept entry before it.
    let side_gap = |j: usize| (0..j).rev().find_map(|k| side_to[k]);
    let base_gap = |i: usize| (0..i).rev().find(|&k| kept[k]);
    let mut reworded: Vec<Option<usize>> = vec![None; base.len()];
    let mut paired = vec![false; side.len()];
    for j in 0..side.len() {
        if side_to[j].is_some() {
            continue;
        }
        let gap = side_gap(j);
        if let Some(i) =
            (0..base.len()).find(|&i| !kept[i] && reworded[i].is_none() && base_gap(i) == gap)
        {
            reworded[i] = Some(j);
            paired[j] = true;
        }
    }
    let shares_field = |a: &Entry, b: &Entry| {
        (a.why.is_some() && a.why == b.why)
            || (a.how_to_apply.is_some() && a.how_to_apply == b.how_to_apply)
    };
    for j in 0..side.len() {
        if side_to[j].is_some() || paired[j] {
            continue;
        }
        if let Some(i) = (0..base.len())
            .find(|&i| !kept[i] && reworded[i].is_none() && shares_field(&base[i], &side[j]))
        {
            reworded[i] = Some(j);
            paired[j] = true;
        }
    }
    let mut origin = side_to.clone();
    let fate = (0..base.len())
        .map(|i| match (base_to[i], reworded[i]) {
            (Some(j), _) => Fate::Kept(j),
            (None, Some(j)) => {
                origin[j] = Some(i);
                Fate::Reworded(j)
            }
            (None, None) => Fate::Deleted,
        })
        .collect();
    SideMap { fate, origin }
}

/// A merged piece of the body.
enum Piece {
    Clean(Entry),
    /// Ours and theirs as they stand (`None`: that side deleted it).
    Conflict(Option<Entry>, Option<Entry>),
    Gone,
}

/// Merges one entry changed on both sides: every field three ways; any field changed
/// differently on both sides makes the whole entry a conflict, shown as each side has it.
fn merge_fields(base: Option<&Entry>, ours: &Entry, theirs: &Entry) -> Piece {
    let fields: [fn(&Entry) -> Option<&str>; 3] = [
        |e| Some(e.summary.as_str()),
        |e| e.why.as_deref(),
        |e| e.how_to_apply.as_deref(),
    ];
    let mut merged: Vec<Option<String>> = Vec::with_capacity(3);
    for (n, field) in fields.into_iter().enumerate() {
        match three_way(base.and_then(field), field(ours), field(theirs)) {
            Ok(v) => merged.push(v.map(str::to_string)),
            // The same fact written on two clones: summaries equal up to case, spacing, width
            // or a final period are one summary (ours); when both sides added it, both reasons
            // are kept, joined.
            Err((Some(o), Some(t))) if n == 0 && doc::entry_key(o) == doc::entry_key(t) => {
                merged.push(Some(o.to_string()))
            }
            Err((o, t)) if n > 0 && base.is_none() => merged.push(doc::join_reasons(o, t)),
            // Both sides only added reasons to the base's (`a` → `a; b` and `a; c`, as
            // remember and dream join them): every reason, once.
            Err((Some(o), Some(t))) if n > 0 => match base.and_then(field) {
                Some(b) if extends(b, o) && extends(b, t) => {
                    let mut parts: Vec<&str> = o.split("; ").collect();
                    for p in t.split("; ") {
                        if !parts.contains(&p) {
                            parts.push(p);
                        }
                    }
                    merged.push(Some(parts.join("; ")))
                }
                _ => return Piece::Conflict(Some(ours.clone()), Some(theirs.clone())),
            },
            Err(_) => return Piece::Conflict(Some(ours.clone()), Some(theirs.clone())),
        }
    }
    let mut it = merged.into_iter();
    Piece::Clean(Entry {
        summary: it.next().flatten().unwrap_or_default(),
        why: it.next().flatten(),
        how_to_apply: it.next().flatten(),
    })
}

/// Whether `side` keeps every `; `-separated reason of `base` and only adds to them.
fn extends(base: &str, side: &str) -> bool {
    let parts: Vec<&str> = side.split("; ").collect();
    base.split("; ").all(|b| parts.contains(&b))
}

/// The result for one base entry from what each side did to it.
fn merge_base_entry(b: &Entry, ours: (Fate, &[Entry]), theirs: (Fate, &[Entry])) -> Piece {
    use Fate::*;
    let (of, o) = ours;
    let (tf, t) = theirs;
    match (of, tf) {
        (Kept(i), Kept(j)) => merge_fields(Some(b), &o[i], &t[j]),
        (Deleted, Deleted) => Piece::Gone,
        (Kept(i), Deleted) if o[i] == *b => Piece::Gone,
        (Deleted, Kept(j)) if t[j] == *b => Piece::Gone,
        (Kept(i), Deleted) => Piece::Conflict(Some(o[i].clone()), None),
        (Deleted, Kept(j)) => Piece::Conflict(None, Some(t[j].clone())),
        (Kept(i), Reworded(j)) if o[i] == *b => Piece::Clean(t[j].clone()),
        (Reworded(i), Kept(j)) if t[j] == *b => Piece::Clean(o[i].clone()),
        (Reworded(i), Reworded(j))
            if doc::entry_key(&o[i].summary) == doc::entry_key(&t[j].summary) =>
        {
            merge_fields(Some(b), &o[i], &t[j])
        }
        (Kept(i) | Reworded(i), Kept(j) | Reworded(j)) => {
            Piece::Conflict(Some(o[i].clone()), Some(t[j].clone()))
        }
        (Reworded(i), Deleted) => Piece::Conflict(Some(o[i].clone()), None),
        (Deleted, Reworded(j)) => Piece::Conflict(None, Some(t[j].clone())),
    }
}

fn merge_entries(
    base: &[Entry],
    ours: &[Entry],
    theirs: &[Entry],
    markers: &Markers,
) -> (String, usize) {
    let om = map_side(base, ours);
    let tm = map_side(base, theirs);
    // Ours gives the order: each piece is placed by a key (ours' position, then base order for
    // entries ours no longer has, then their additions after the entry they follow).
    let ours_pos: Vec<Option<usize>> = om
        .fate
        .iter()
        .map(|f| match f {
            Fate::Kept(j) | Fate::Reworded(j) => Some(*j),
            Fate::Deleted => None,
        })
        .collect();
    let major = |i: usize| -> i64 {
        (0..=i)
            .rev()
            .find_map(|k| ours_pos[k])
            .map_or(-1, |j| j as i64)
    };
    let mut placed: Vec<((i64, u8, usize), Piece)> = Vec::new();
    for (i, b) in base.iter().enumerate() {
        let piece = merge_base_entry(b, (om.fate[i], ours), (tm.fate[i], theirs));
        let key = match ours_pos[i] {
            Some(j) => (j as i64, 0, 0),
            None => (major(i), 1, i),
        };
        placed.push((key, piece));
    }
    // Additions: ours' in place; theirs' after the entry they follow, merged with an
    // addition of ours under the same summary (both sides added the same fact).
    let mut ours_added: Vec<usize> = (0..ours.len())
        .filter(|&j| om.origin[j].is_none())
        .collect();
    let mut theirs_extra: Vec<((i64, u8, usize), Piece)> = Vec::new();
    for (k, t) in theirs.iter().enumerate() {
        if tm.origin[k].is_some() {
            continue;
        }
        let same = |j: &usize| ours[*j].summary == t.summary;
        let alike = |j: &usize| doc::entry_key(&ours[*j].summary) == doc::entry_key(&t.summary);
        let hit = ours_added
            .iter()
            .position(same)
            .or_else(|| ours_added.iter().position(alike));
        if let Some(p) = hit {
            let j = ours_added.remove(p);
            placed.push(((j as i64, 0, 0), merge_fields(None, &ours[j], t)));
            continue;
        }
        // After everything ours has between that entry and the next base entry it keeps.
        let anchor = (0..k).rev().find_map(|x| tm.origin[x]);
        let next = (0..ours.len())
            .find(|&j| om.origin[j].is_some_and(|b| anchor.is_none_or(|a| b > a)))
            .unwrap_or(ours.len());
        let key = (next as i64 - 1, 2, k);
        theirs_extra.push((key, Piece::Clean(t.clone())));
    }
    for j in ours_added {
        placed.push(((j as i64, 0, 0), Piece::Clean(ours[j].clone())));
    }
    placed.extend(theirs_extra);
    placed.sort_by_key(|(k, _)| *k);

    let mut conflicts = 0;
    let mut rendered: Vec<String> = Vec::new();
    for (_, piece) in placed {
        match piece {
            Piece::Gone => {}
            Piece::Clean(e) => rendered.push(doc::render_body(std::slice::from_ref(&e))),
            Piece::Conflict(o, t) => {
                conflicts += 1;
                let side = |e: Option<Entry>| {
                    e.map(|e| doc::render_body(std::slice::from_ref(&e)))
                        .unwrap_or_default()
                };
                rendered.push(markers.block(&side(o), &side(t)));
            }
        }
    }
    if rendered.is_empty() {
        return (doc::render_body(&[]), 0);
    }
    (rendered.join("\n\n"), conflicts)
}

/// The link target of an index line (`- [title](target) — …`), which names its document. A
/// line cut at 150 UTF-16 units may have lost the `)` (and part of the target): its key is what
/// is left of the target, without the `…`, so it still matches the same cut line on the other
/// sides and is never dropped.
fn index_key(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("- [")?;
    let open = rest.find("](")?;
    let after = &rest[open + 2..];
    match after.find(')') {
        Some(close) => Some(&after[..close]),
        None => Some(after.trim_end_matches('…')),
    }
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
    crate::storage::index::assemble(&lines)
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
    markers: &Markers,
) -> Result<DriverOutcome, GitError> {
    let read = |p: &Path| {
        crate::storage::safe_fs::read_regular(p)
            .map_err(crate::storage::store::StoreError::from)?
            .ok_or_else(|| GitError::io(p, std::io::ErrorKind::NotFound.into()))
    };
    let (b, o, t) = (read(base)?, read(ours)?, read(theirs)?);
    let texts = (
        std::str::from_utf8(&b),
        std::str::from_utf8(&o),
        std::str::from_utf8(&t),
    );
    let (Ok(b), Ok(o), Ok(t)) = texts else {
        return text_merge(base, ours, theirs, markers);
    };
    // Only memory documents are ours, whatever `.gitattributes` routes here.
    if !in_memory_roots(path) {
        return text_merge(base, ours, theirs, markers);
    }
    let is_index = path.rsplit('/').next() == Some(crate::storage::store::INDEX_FILE);
    if is_index {
        let merged = merge_index(b, o, t);
        crate::storage::store::atomic_write(ours, merged.as_bytes())?;
        return Ok(DriverOutcome::Clean);
    }
    match merge_topic(b, o, t, markers) {
        Ok(m) => {
            crate::storage::store::atomic_write(ours, m.text.as_bytes())?;
            Ok(if m.conflicts == 0 {
                DriverOutcome::Clean
            } else {
                DriverOutcome::Conflicted
            })
        }
        Err(_) => text_merge(base, ours, theirs, markers),
    }
}

/// Whether a repository path (`%P`) is a Markdown file inside `.qwen/memory/` or
/// `.qwen/team-memory/` of the working-tree root (no `..`, no absolute path).
pub fn in_memory_roots(path: &str) -> bool {
    let roots = crate::storage::project::SHARED_MEMORY_DIRS;
    path.ends_with(".md")
        && !path
            .split('/')
            .any(|c| c == ".." || c == "." || c.is_empty())
        && roots.iter().any(|r| {
            path.strip_prefix(r)
                .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
        })
}

/// Git's ordinary merge: `git merge-file` writes the result, with conflict markers when
/// needed, into `ours`.
fn text_merge(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    markers: &Markers,
) -> Result<DriverOutcome, GitError> {
    let status = Command::new("git")
        .arg("merge-file")
        .arg(format!("--marker-size={}", markers.size))
        .args(["-L", &markers.ours, "-L", "base", "-L", &markers.theirs])
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
        let m = merge_topic(&base, &ours, &theirs, &Markers::default()).unwrap();
        assert_eq!(m.conflicts, 0);
        // Theirs replaced "Run lint first." in place: a reword of an entry ours left alone.
        assert_eq!(
            m.text,
            topic(
                FM,
                "Use pnpm.\n\nCI sets TZ=UTC.\n\nDeploy from release branches."
            )
        );
    }

    #[test]
    fn fields_merge_and_conflict_only_when_both_changed() {
        let base = topic(FM, "Use pnpm.\n\nWhy: speed");
        let ours = topic(FM, "Use pnpm.\n\nWhy: speed\n\nHow to apply: always");
        let theirs = topic(FM, "Use pnpm.\n\nWhy: disk space");
        let m = merge_topic(&base, &ours, &theirs, &Markers::default()).unwrap();
        assert_eq!(m.conflicts, 0);
        assert!(m.text.contains("Why: disk space\n\nHow to apply: always"));

        let ours = topic(FM, "Use pnpm.\n\nWhy: lockfile");
        let m = merge_topic(&base, &ours, &theirs, &Markers::default()).unwrap();
        assert_eq!(m.conflicts, 1);
        assert!(m.text.contains("<<<<<<< ours\nUse pnpm.\n\nWhy: lockfile\n=======\nUse pnpm.\n\nWhy: disk space\n>>>>>>> theirs"));
    }

    #[test]
    fn frontmatter_from_the_side_that_changed_it() {
        let base = topic(FM, "A fact here.");
        let fm2 = "name: Build and release\ndescription: How we build\ntype: project\ncategory: x";
        let theirs = topic(fm2, "A fact here.");
        let ours = topic(FM, "A fact here.\n\nAnother fact here.");
        let m = merge_topic(&base, &ours, &theirs, &Markers::default()).unwrap();
        assert_eq!(m.conflicts, 0);
        assert_eq!(m.text, topic(fm2, "A fact here.\n\nAnother fact here."));
        // Both changed the same key differently.
        let ours = topic(
            "name: Build steps\ndescription: How we build\ntype: project",
            "A fact here.",
        );
        let m = merge_topic(&base, &ours, &theirs, &Markers::default()).unwrap();
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
        let m = merge_topic(&base, &ours, &theirs, &Markers::default()).unwrap();
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
        let m = merge_topic("", &ours, &theirs, &Markers::default()).unwrap();
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert!(m
            .text
            .contains("created: 2026-03-01T10:00:00.000Z\ncommit: aaa"));
        assert!(m.text.contains("Use pnpm.\n\nWhy: the lockfile"));
    }

    #[test]
    fn deleting_every_entry_renders_the_placeholder() {
        let base = topic(FM, "Only fact here.");
        let m = merge_topic(
            &base,
            &topic(FM, "_No entries yet._"),
            &base,
            &Markers::default(),
        )
        .unwrap();
        assert_eq!(m.text, topic(FM, "_No entries yet._"));
    }

    #[test]
    fn unparseable_sides_are_refused() {
        let with_markers = topic(FM, "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b");
        assert!(merge_topic("", &with_markers, &topic(FM, "x"), &Markers::default()).is_err());
        assert!(merge_topic("", "not a doc", &topic(FM, "x"), &Markers::default()).is_err());
        assert!(merge_topic(
            "garbage",
            &topic(FM, "x"),
            &topic(FM, "x"),
            &Markers::default()
        )
        .is_err());
    }

    fn merge(base: &str, ours: &str, theirs: &str) -> Merged {
        let m = Markers {
            ours: "main".into(),
            theirs: "topic".into(),
            size: 7,
        };
        merge_topic(&topic(FM, base), &topic(FM, ours), &topic(FM, theirs), &m).unwrap()
    }

    #[test]
    fn a_side_change_that_would_be_lost_conflicts() {
        let base = "Use pnpm.\n\nWhy: speed\n\nRun lint first.";
        // Reword on one side, Why edited on the other.
        let m = merge(
            base,
            "Use pnpm for every package.\n\nWhy: speed\n\nRun lint first.",
            "Use pnpm.\n\nWhy: disk space\n\nRun lint first.",
        );
        assert_eq!(m.conflicts, 1, "{}", m.text);
        assert!(m.text.contains("<<<<<<< main\nUse pnpm for every package.\n\nWhy: speed\n=======\nUse pnpm.\n\nWhy: disk space\n>>>>>>> topic"), "{}", m.text);
        assert!(m.text.contains("Run lint first."));
        // Delete on one side, edit on the other.
        let m = merge(
            base,
            "Run lint first.",
            "Use pnpm.\n\nWhy: speed\n\nHow to apply: always\n\nRun lint first.",
        );
        assert_eq!(m.conflicts, 1, "{}", m.text);
        assert!(m.text.contains("<<<<<<< main\n=======\nUse pnpm.\n\nWhy: speed\n\nHow to apply: always\n>>>>>>> topic"), "{}", m.text);
        // Delete on one side, reword on the other.
        let m = merge(
            base,
            "Run lint first.",
            "Use yarn.\n\nWhy: speed\n\nRun lint first.",
        );
        assert_eq!(m.conflicts, 1, "{}", m.text);
        // A case-variant duplicate with a Why next to a deletion keeps the Why.
        let m = merge(
            base,
            "Use pnpm.\n\nWhy: speed\n\nuse PNPM.\n\nWhy: the lockfile\n\nRun lint first.",
            "Run lint first.",
        );
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert!(
            m.text.contains("use PNPM.\n\nWhy: the lockfile"),
            "{}",
            m.text
        );
        assert!(!m.text.contains("Use pnpm.\n\nWhy: speed"), "{}", m.text);
    }

    #[test]
    fn independent_and_identical_changes_merge_cleanly() {
        let base = "Use pnpm.\n\nWhy: speed\n\nRun lint first.";
        // Reword one entry, edit another.
        let m = merge(
            base,
            "Use pnpm everywhere.\n\nWhy: speed\n\nRun lint first.",
            "Use pnpm.\n\nWhy: speed\n\nRun lint first.\n\nHow to apply: before push",
        );
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert_eq!(
            m.text,
            topic(FM, "Use pnpm everywhere.\n\nWhy: speed\n\nRun lint first.\n\nHow to apply: before push")
        );
        // Why on one side, How on the other.
        let m = merge(
            base,
            "Use pnpm.\n\nWhy: disk\n\nRun lint first.",
            "Use pnpm.\n\nWhy: speed\n\nHow to apply: always\n\nRun lint first.",
        );
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert!(m
            .text
            .contains("Use pnpm.\n\nWhy: disk\n\nHow to apply: always"));
        // The same reword on both sides plus different additions.
        let m = merge(
            base,
            "Use pnpm 9.\n\nWhy: speed\n\nRun lint first.\n\nA.",
            "Use pnpm 9.\n\nWhy: speed\n\nRun lint first.\n\nB.",
        );
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert_eq!(
            m.text,
            topic(
                FM,
                "Use pnpm 9.\n\nWhy: speed\n\nRun lint first.\n\nA.\n\nB."
            )
        );
        // Both delete the same entry.
        let m = merge(base, "Run lint first.\n\nA.", "Run lint first.");
        assert_eq!(m.text, topic(FM, "Run lint first.\n\nA."));
    }

    #[test]
    fn markers_name_the_branches() {
        let env = vec![("GITHEAD_0123".to_string(), "feature/x".to_string())];
        let m = Markers::resolve(Some("%X"), Some("%Y"), Some("%L"), &env, || {
            Some("main".into())
        });
        assert_eq!(
            (m.ours.as_str(), m.theirs.as_str(), m.size),
            ("main", "feature/x", 7)
        );
        let m = Markers::resolve(Some("HEAD"), Some("topic"), Some("9"), &[], || None);
        assert_eq!(
            (m.ours.as_str(), m.theirs.as_str(), m.size),
            ("HEAD", "topic", 9)
        );
        let m = Markers::resolve(None, None, None, &[], || None);
        assert_eq!(m, Markers::default());
        assert_eq!(m.block("a", ""), "<<<<<<< ours\na\n=======\n>>>>>>> theirs");
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

    #[test]
    fn index_lines_cut_before_their_closing_paren_are_kept() {
        let long = format!(
            "- [{}](project/{}.md",
            "長い題名".repeat(10),
            "very-long-slug".repeat(6)
        );
        let cut = format!("{long}…");
        let a = "- [A](project/a.md) — a".to_string();
        let z = "- [Z](project/z.md) — z".to_string();
        let base = [a.clone(), cut.clone()].join("\n");
        let ours = [a.clone(), cut.clone(), z.clone()].join("\n");
        let merged = merge_index(&base, &ours, &base);
        assert!(merged.contains(&cut), "{merged}");
        assert_eq!(merged.lines().count(), 3, "{merged}");
        assert_eq!(index_key(&cut), Some(long.split("](").nth(1).unwrap()));
    }

    #[test]
    fn only_paths_inside_the_memory_roots_are_ours() {
        assert!(in_memory_roots(".qwen/memory/project/a.md"));
        assert!(in_memory_roots(".qwen/team-memory/a.md"));
        assert!(in_memory_roots(".qwen/memory/MEMORY.md"));
        for p in [
            "docs/guide.md",
            ".qwen/memory",
            ".qwen/memory/",
            ".qwen/memory/../../docs/a.md",
            "x/.qwen/memory/a.md",
            ".qwen/memory/a.txt",
            ".qwen/memoryx/a.md",
        ] {
            assert!(!in_memory_roots(p), "{p}");
        }
    }

    #[test]
    fn a_structured_document_is_not_merged_by_entry() {
        let body = "# Release runbook\n\n```sh\ngit tag v1\ngit push --tags\n```";
        let doc = topic(FM, body);
        let ours = topic(FM, &format!("{body}\n\nTag from main."));
        assert!(merge_topic(&doc, &ours, &doc, &Markers::default()).is_err());
    }

    #[test]
    fn the_same_fact_added_on_two_clones_merges_with_both_reasons() {
        let ours = topic(
            "name: Use pnpm\ndescription: Use pnpm for installs\ntype: project",
            "Use pnpm for installs.\n\nWhy: the lockfile is pnpm's",
        );
        let theirs = topic(
            "name: use pnpm.\ndescription: use pnpm for installs.\ntype: project",
            "use pnpm for installs\n\nWhy: disk space",
        );
        let m = merge_topic("", &ours, &theirs, &Markers::default()).unwrap();
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert_eq!(
            m.text,
            topic(
                "name: Use pnpm\ndescription: Use pnpm for installs\ntype: project",
                "Use pnpm for installs.\n\nWhy: the lockfile is pnpm's; disk space"
            )
        );
    }

    #[test]
    fn reasons_added_on_both_sides_are_all_kept() {
        let base = topic(FM, "Use pnpm.\n\nWhy: speed");
        let ours = topic(FM, "Use pnpm.\n\nWhy: speed; lockfile");
        let theirs = topic(FM, "Use pnpm.\n\nWhy: speed; disk space");
        let m = merge_topic(&base, &ours, &theirs, &Markers::default()).unwrap();
        assert_eq!(m.conflicts, 0, "{}", m.text);
        assert!(
            m.text.contains("Why: speed; lockfile; disk space"),
            "{}",
            m.text
        );
        // A reason rewritten (not only added to) on one side still conflicts.
        let theirs = topic(FM, "Use pnpm.\n\nWhy: disk space");
        let m = merge_topic(&base, &ours, &theirs, &Markers::default()).unwrap();
        assert_eq!(m.conflicts, 1, "{}", m.text);
    }
}
