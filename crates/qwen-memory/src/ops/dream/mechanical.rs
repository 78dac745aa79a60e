//! Mechanical consolidation (docs/DESIGN.md, "Dream"): the offline, deterministic default.
//!
//! 1. Per file: entries deduplicated by their key (whitespace collapsed, lowercased), the first
//!    occurrence keeping its summary, every distinct `Why` / `How to apply` joined, then
//!    sorted by summary (case-insensitive, then byte order).
//! 2. Across files: documents whose first entry has the same key (of any type: one fact kept
//!    under two types is a duplicate) are merged into the first in scan order (the newest). Every entry of the duplicate that the canonical does not
//!    already hold is carried over before the duplicate is deleted, so no entry is ever lost
//!    (upstream's mechanical dream kept only the first entry here).
//! 3. Documents under a top-level `pinned/` directory, and documents that are not a list of
//!    entries (a heading, code, a table, a nested list, prose), take no part at all.
//!
//! Planning is pure: it works on a [`Snapshot`] and returns a [`Plan`]; nothing is written here.

use std::collections::HashMap;

use crate::formats::doc::{self, Entry};

use super::{Action, FileChange, MergeRecord, Plan, Snapshot, SnapshotDoc, Strategy};

/// Sort order of entries: case-insensitive summary, then byte order.
pub fn compare_entries(a: &Entry, b: &Entry) -> std::cmp::Ordering {
    a.summary
        .to_lowercase()
        .cmp(&b.summary.to_lowercase())
        .then_with(|| a.summary.cmp(&b.summary))
}

/// Takes `from`'s `Why` / `How to apply` into `into`: a missing one is filled, a different one
/// joined (never dropped); `into` keeps its summary.
fn absorb(into: &mut Entry, from: &Entry) {
    into.why = doc::join_reasons(into.why.as_deref(), from.why.as_deref());
    into.how_to_apply =
        doc::join_reasons(into.how_to_apply.as_deref(), from.how_to_apply.as_deref());
}

/// A document with structure a person wrote (headings, code, tables, nested lists, prose) is
/// not a list of entries: mechanical dream leaves it alone, like `pinned/`.
pub(crate) fn takes_no_part(d: &SnapshotDoc) -> bool {
    d.pinned
        || d.entries.is_empty()
        || doc::parse_document(&String::from_utf8_lossy(&d.raw))
            .map_or(true, |p| doc::is_structured(&p.body))
}

/// Adds `entries` to `list`: an entry whose key is already there only fills missing fields.
fn merge_into(list: &mut Vec<Entry>, keys: &mut HashMap<String, usize>, entries: &[Entry]) {
    for e in entries {
        let key = doc::entry_key(&e.summary);
        match keys.get(&key) {
            Some(&i) => absorb(&mut list[i], e),
            None => {
                keys.insert(key, list.len());
                list.push(e.clone());
            }
        }
    }
}

/// Whether deleting the duplicate `dup` once its entries are carried into `kept` loses nothing
/// of its frontmatter: every line that is not one of the keys this tool writes (a person's key,
/// a comment, an indented line of a list) is in `kept`'s frontmatter as well, and its
/// description, when it says more than its name or first entry, is `kept`'s too. Otherwise
/// the two stay separate documents (a person can merge them; nothing is lost meanwhile).
fn frontmatter_carried(dup: &SnapshotDoc, kept: &SnapshotDoc) -> bool {
    let norm = |s: &str| s.replace("\r\n", "\n");
    let (dup_fm, kept_fm) = (norm(&dup.frontmatter), norm(&kept.frontmatter));
    let kept_lines: std::collections::HashSet<&str> = kept_fm.lines().map(str::trim_end).collect();
    let own = |line: &str| {
        !line.starts_with([' ', '\t', '#', '-'])
            && line.split_once(':').is_some_and(|(k, _)| {
                // Ours, and upstream's `title` (read where `name` is missing).
                let k = k.trim();
                k == "title" || super::WRITTEN_KEYS.contains(&k)
            })
    };
    let person_lines_kept = dup_fm
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !own(l))
        .all(|l| kept_lines.contains(l));
    let field = |fm: &str, key: &str| {
        doc::qwen_field(fm, key)
            .map(|v| crate::formats::text::collapse_whitespace(&v).to_lowercase())
            .unwrap_or_default()
    };
    let description = field(&dup_fm, "description");
    let generated = description.is_empty()
        || description == field(&dup_fm, "name")
        || description == field(&kept_fm, "description")
        || dup.entries.first().is_some_and(|e| {
            description
                == doc::plain_field(&crate::formats::text::collapse_whitespace(&e.summary))
                    .to_lowercase()
        });
    person_lines_kept && generated
}

/// Step 1 on one file: dedupe and sort.
pub fn dedupe_and_sort(entries: &[Entry]) -> Vec<Entry> {
    let mut out = Vec::with_capacity(entries.len());
    let mut keys = HashMap::with_capacity(entries.len());
    merge_into(&mut out, &mut keys, entries);
    out.sort_by(compare_entries);
    out
}

/// Plans a mechanical consolidation of `snapshot` (documents in scan order).
pub fn plan(snapshot: &Snapshot) -> Plan {
    let docs = &snapshot.docs;
    // Working entry lists; `None` for documents that take no part.
    let mut work: Vec<Option<Vec<Entry>>> = docs
        .iter()
        .map(|d| (!takes_no_part(d)).then(|| dedupe_and_sort(&d.entries)))
        .collect();
    // Keyed by the first entry's key alone: the same fact kept under two types is one document.
    let mut canonical: HashMap<String, usize> = HashMap::new();
    let mut absorbed: Vec<Vec<usize>> = vec![Vec::new(); docs.len()];
    let mut deleted_into: Vec<Option<usize>> = vec![None; docs.len()];
    for i in 0..docs.len() {
        let Some(first) = work[i].as_ref().and_then(|w| w.first()) else {
            continue;
        };
        let key = doc::entry_key(&first.summary);
        match canonical.get(&key) {
            None => {
                canonical.insert(key, i);
            }
            // A duplicate whose frontmatter holds what a person wrote and the kept document
            // does not have stays where it is ([`frontmatter_carried`]).
            Some(&c) if !frontmatter_carried(&docs[i], &docs[c]) => {}
            Some(&c) => {
                let dup = work[i].take().unwrap_or_default();
                if let Some(target) = work[c].as_mut() {
                    let mut keys: HashMap<String, usize> = target
                        .iter()
                        .enumerate()
                        .map(|(n, e)| (doc::entry_key(&e.summary), n))
                        .collect();
                    merge_into(target, &mut keys, &dup);
                    target.sort_by(compare_entries);
                }
                absorbed[c].push(i);
                deleted_into[i] = Some(c);
            }
        }
    }

    let mut plan = Plan::new(Strategy::Mechanical);
    let mut before_total = 0usize;
    let mut after_total = 0usize;
    let mut deletes = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        if work[i].is_none() && deleted_into[i].is_none() {
            continue;
        }
        before_total += d.entries.len();
        if let Some(c) = deleted_into[i] {
            let carried = d
                .entries
                .iter()
                .filter(|e| {
                    let k = doc::entry_key(&e.summary);
                    !docs[c]
                        .entries
                        .iter()
                        .any(|x| doc::entry_key(&x.summary) == k)
                })
                .count();
            deletes.push(FileChange {
                relative_path: d.relative_path.clone(),
                memory_type: d.memory_type,
                before: d.raw.clone(),
                after: None,
                action: Action::Delete,
                reason: format!(
                    "duplicate of {}; {carried} entr{} carried over",
                    docs[c].relative_path,
                    if carried == 1 { "y" } else { "ies" }
                ),
            });
            continue;
        }
        let Some(entries) = work[i].as_ref() else {
            continue;
        };
        after_total += entries.len();
        if *entries == d.entries {
            continue;
        }
        let reason = change_reason(d, entries, &absorbed[i], docs);
        plan.changes.push(FileChange {
            relative_path: d.relative_path.clone(),
            memory_type: d.memory_type,
            before: d.raw.clone(),
            after: Some(doc::render_document(&d.frontmatter, entries)),
            action: Action::Rewrite,
            reason,
        });
        if !absorbed[i].is_empty() {
            plan.merges.push(MergeRecord {
                target: d.relative_path.clone(),
                sources: absorbed[i]
                    .iter()
                    .map(|&j| docs[j].relative_path.clone())
                    .collect(),
                reason: merge_reason(docs, i, &absorbed[i]),
            });
        }
    }
    // A canonical whose entries did not change (the duplicate held nothing new) is still the
    // target of a merge.
    for (i, sources) in absorbed.iter().enumerate() {
        if !sources.is_empty()
            && !plan
                .merges
                .iter()
                .any(|m| m.target == docs[i].relative_path)
        {
            plan.merges.push(MergeRecord {
                target: docs[i].relative_path.clone(),
                sources: sources
                    .iter()
                    .map(|&j| docs[j].relative_path.clone())
                    .collect(),
                reason: merge_reason(docs, i, &absorbed[i]),
            });
        }
    }
    // Rewrites first, deletions last: a run stopped half way has carried entries over before
    // any duplicate is gone.
    plan.changes.extend(deletes);
    plan.deduped_entries = before_total.saturating_sub(after_total);
    plan
}

/// Why documents were merged: their first entries are one fact (up to case, width, spacing
/// and final punctuation), and under which types.
fn merge_reason(docs: &[SnapshotDoc], target: usize, sources: &[usize]) -> String {
    let mut types: Vec<&str> = std::iter::once(target)
        .chain(sources.iter().copied())
        .map(|i| docs[i].memory_type.as_str())
        .collect();
    types.sort_unstable();
    types.dedup();
    if types.len() == 1 {
        "same type and first entry".to_string()
    } else {
        format!("same first entry under types {}", types.join(", "))
    }
}

fn change_reason(
    d: &SnapshotDoc,
    entries: &[Entry],
    absorbed: &[usize],
    docs: &[SnapshotDoc],
) -> String {
    let mut parts = Vec::new();
    let unique_before = dedupe_and_sort(&d.entries).len();
    let removed = d.entries.len() - unique_before;
    if removed > 0 {
        parts.push(format!(
            "removed {removed} duplicate entr{}",
            if removed == 1 { "y" } else { "ies" }
        ));
    }
    if !absorbed.is_empty() {
        let names: Vec<&str> = absorbed
            .iter()
            .map(|&j| docs[j].relative_path.as_str())
            .collect();
        parts.push(format!("merged {}", names.join(", ")));
    }
    if parts.is_empty() && entries.len() == d.entries.len() {
        parts.push("sorted entries".to_string());
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::doc::MemoryType;

    fn e(s: &str) -> Entry {
        Entry {
            summary: s.into(),
            why: None,
            how_to_apply: None,
        }
    }

    fn sdoc(rel: &str, t: MemoryType, entries: Vec<Entry>) -> SnapshotDoc {
        let fm = format!("name: {rel}\ndescription: d\ntype: {t}");
        let raw = doc::render_document(&fm, &entries);
        SnapshotDoc {
            relative_path: rel.into(),
            memory_type: t,
            raw: raw.into_bytes(),
            frontmatter: fm,
            entries,
            pinned: rel.starts_with("pinned/"),
        }
    }

    #[test]
    fn per_file_dedupe_merges_fields_and_sorts() {
        let mut a = e("Use Tabs");
        a.why = Some("".into());
        let mut b = e("use  tabs");
        b.why = Some("team style".into());
        b.how_to_apply = Some("in Go".into());
        let out = dedupe_and_sort(&[e("zeta"), a, e("Alpha"), b, e("alpha")]);
        let sums: Vec<_> = out.iter().map(|x| x.summary.as_str()).collect();
        assert_eq!(sums, vec!["Alpha", "Use Tabs", "zeta"]);
        assert_eq!(out[1].why.as_deref(), Some("team style"));
        assert_eq!(out[1].how_to_apply.as_deref(), Some("in Go"));
    }

    #[test]
    fn cross_file_merge_carries_every_entry() {
        let snap = Snapshot {
            docs: vec![
                sdoc("feedback/new.md", MemoryType::Feedback, vec![e("a rule")]),
                sdoc(
                    "feedback/old.md",
                    MemoryType::Feedback,
                    vec![e("a rule"), e("b second"), e("c third")],
                ),
                sdoc("project/other.md", MemoryType::Project, vec![e("a rule")]),
                sdoc("pinned/keep.md", MemoryType::Feedback, vec![e("a rule")]),
            ],
        };
        let plan = plan(&snap);
        // The same first entry under another type is the same fact: merged too.
        assert_eq!(plan.changes.len(), 3);
        assert_eq!(plan.changes[2].relative_path, "project/other.md");
        assert_eq!(plan.changes[2].action, Action::Delete);
        assert!(plan.merges[0].reason.contains("feedback, project"));
        let rewrite = &plan.changes[0];
        assert_eq!(rewrite.relative_path, "feedback/new.md");
        let after = doc::parse_document(rewrite.after.as_deref().unwrap()).unwrap();
        let sums: Vec<_> = doc::parse_entries(&after.body)
            .into_iter()
            .map(|x| x.summary)
            .collect();
        assert_eq!(sums, vec!["a rule", "b second", "c third"]);
        assert_eq!(plan.changes[1].relative_path, "feedback/old.md");
        assert_eq!(plan.changes[1].action, Action::Delete);
        assert!(plan.changes[1].reason.contains("2 entries carried over"));
        assert_eq!(plan.deduped_entries, 2);
        assert_eq!(plan.merges.len(), 1);
    }

    #[test]
    fn reasons_are_joined_and_structured_documents_left_alone() {
        let mut a = e("Use pnpm.");
        a.why = Some("lockfile".into());
        let mut b = e("use pnpm");
        b.why = Some("disk space".into());
        let runbook =
            "# Release\n\n```sh\ngit tag v1\ngit push --tags\n```\n\nzeta step\n\nalpha step";
        let mut structured = sdoc("project/runbook.md", MemoryType::Project, vec![]);
        structured.raw =
            format!("---\n{}\n---\n\n{runbook}\n", structured.frontmatter).into_bytes();
        structured.entries = doc::parse_entries(runbook);
        let snap = Snapshot {
            docs: vec![
                sdoc("project/a.md", MemoryType::Project, vec![a, b]),
                structured,
            ],
        };
        let plan = plan(&snap);
        assert_eq!(plan.changes.len(), 1, "{:?}", plan.changes);
        let after = plan.changes[0].after.as_deref().unwrap();
        assert!(after.contains("Why: lockfile; disk space"), "{after}");
    }

    #[test]
    fn nothing_to_do_is_an_empty_plan() {
        let snap = Snapshot {
            docs: vec![
                sdoc("a.md", MemoryType::User, vec![e("one"), e("two")]),
                sdoc("b.md", MemoryType::User, vec![]),
            ],
        };
        let plan = plan(&snap);
        assert!(plan.changes.is_empty());
        assert_eq!(plan.deduped_entries, 0);
    }

    #[test]
    fn duplicate_with_nothing_new_is_deleted_and_canonical_untouched() {
        let snap = Snapshot {
            docs: vec![
                sdoc("a.md", MemoryType::User, vec![e("one"), e("two")]),
                sdoc("b.md", MemoryType::User, vec![e("One")]),
            ],
        };
        let plan = plan(&snap);
        assert_eq!(plan.changes.len(), 1);
        assert_eq!(plan.changes[0].action, Action::Delete);
        assert_eq!(plan.merges[0].target, "a.md");
        assert_eq!(plan.deduped_entries, 1);
    }
}
