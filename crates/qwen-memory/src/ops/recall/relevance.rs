//! The default (`auto`) lexical ranking: relevance instead of substring hits.
//!
//! The upstream ranking ([`super::lexical`]) counts substrings, so "the" matches "there" and
//! "run" matches "runbook", and a prompt unrelated to every memory still injects some. This
//! ranking keeps the same inputs (title, description, the body's first 1,200 UTF-16 units, all
//! NFKC + lowercase) but scores relevance:
//! - alphabetic words match whole words only, after a light English suffix stemmer
//!   ("deploys", "deployed", "deploying" → "deploy"); a doc word matches a query stem when the
//!   stem is a prefix of it and the word stems to exactly that stem;
//! - CJK runs give code-point bigrams, minus bigrams made of particles and question chatter;
//!   Korean runs lose a trailing particle first; katakana stretches of three or more give
//!   trigrams (loanwords share character pairs);
//! - English, Chinese, Japanese and Korean stop words and request chatter are dropped;
//! - terms are weighted by how rare they are in the memory corpus (BM25 with the upstream field
//!   weights title 4 > description 3 > body 1), with a small virtual background corpus so a
//!   project with three memories still tells rare words from common ones;
//! - a document must reach an absolute minimum score and a share of the best score, so an
//!   unrelated prompt injects nothing and a weak tail is not injected next to a strong hit.
//!
//! Cost: one SIMD substring search per term and field, as upstream, plus a boundary check at
//! each candidate position; no per-document tokenization.

use std::collections::HashSet;
use std::sync::OnceLock;

use memchr::memmem::Finder;

use super::glossary;
use super::lexical::{body_window, normalize, normalize_in, type_keywords, type_slot};
use crate::formats::doc::MemoryType;
use crate::formats::text::is_cjk;
use crate::storage::scan::{self, DocFields};

/// Inputs this large are ranked on several threads.
const PARALLEL_MIN_DOCS: usize = 1024;
/// Fewest documents worth one thread.
const DOCS_PER_THREAD: usize = 512;
const MAX_THREADS: usize = 8;

/// Field weights, as upstream: title > description > body.
const TITLE_WEIGHT: f64 = 4.0;
const DESCRIPTION_WEIGHT: f64 = 3.0;
const BODY_WEIGHT: f64 = 1.0;

/// BM25 saturation.
const K1: f64 = 1.2;
/// Length normalization per field (titles are all short: little normalization).
const B_TITLE: f64 = 0.3;
const B_DESCRIPTION: f64 = 0.5;
const B_BODY: f64 = 0.5;

/// Documents assumed to exist besides the real ones, none holding any query term: keeps term
/// weights meaningful in a project with a handful of memories.
const BACKGROUND_DOCS: f64 = 20.0;

/// Least score a document needs (tuned on the development set, see the README).
pub const MIN_SCORE: f64 = 0.8;
/// Least share of the query's best possible score (every term in the title) a document needs,
/// unless its score is at least [`STRONG_SCORE`]: one incidental word of a long unrelated
/// prompt does not make a memory relevant, but a long prompt that is about a memory still
/// finds it.
pub const MIN_QUERY_SHARE: f64 = 0.3;
pub const STRONG_SCORE: f64 = 5.0;
/// What one CJK bigram counts for in the query's best possible score.
const CJK_TERM_SHARE: f64 = 0.5;
/// Least share of the best document's score a further document needs.
pub const MIN_SHARE_OF_BEST: f64 = 0.35;

/// Added per query word naming the document's type ("preference" for a user memory), at most
/// two, as upstream; only to a document already relevant, so it reorders but never admits.
const TYPE_BOOST: f64 = 0.2;

/// What a glossary match counts for, against a match of the query's own word.
const GLOSSARY_WEIGHT: f64 = 1.0;

/// Most query terms used (as upstream's token cap).
const MAX_TERMS: usize = 64;

/// What kind of term, which decides how a match is confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TermKind {
    /// An alphabetic/numeric word: whole-word match, stemmed when ASCII.
    Word { stemmed: bool },
    /// A CJK bigram: substring match.
    Cjk,
    /// Two katakana characters at either end of a longer katakana stretch of the query (ログ of
    /// エラーログ): they match only as a katakana word of their own in a document, never inside
    /// a longer one (メン of ラーメン is not the メン of コメント).
    KanaWord,
}

#[derive(Debug, Clone)]
struct Term {
    text: String,
    kind: TermKind,
    finder: Finder<'static>,
    /// For a term the glossary added (another language's word for a query term): its concept
    /// and whether that concept is generic (see [`super::glossary`]).
    concept: Option<(usize, bool)>,
    /// Characters that may not follow the term where it matches (a glossary form's `!` list:
    /// 周一 is not the 周一 of 每周一次).
    not_before: Box<[char]>,
}

/// A query prepared for relevance ranking.
#[derive(Debug, Clone)]
pub struct RelevanceQuery {
    terms: Vec<Term>,
    /// Boost per memory type (see [`TYPE_BOOST`]), indexed by `type_slot`.
    type_boost: [f64; 4],
}

/// A ranked document: index into the input and its relevance score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub index: usize,
    pub score: f64,
}

impl RelevanceQuery {
    pub fn new(query: &str) -> RelevanceQuery {
        let normalized = normalize(query);
        let mut type_boost = [0.0; 4];
        for t in MemoryType::ALL {
            let keywords = type_keywords(t);
            let mut seen = HashSet::new();
            let hits = normalized
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| keywords.contains(w) && seen.insert(*w))
                .count();
            type_boost[type_slot(t)] = hits.min(2) as f64 * TYPE_BOOST;
        }
        let mut terms: Vec<Term> = query_terms(query)
            .into_iter()
            .map(|(text, kind)| Term {
                finder: Finder::new(text.as_bytes()).into_owned(),
                text,
                kind,
                concept: None,
                not_before: Box::default(),
            })
            .collect();
        for e in glossary::expand(&normalized, stem) {
            if terms.iter().any(|t| t.text == e.text) {
                continue;
            }
            let kind = if e.cjk {
                TermKind::Cjk
            } else {
                TermKind::Word { stemmed: e.stemmed }
            };
            terms.push(Term {
                finder: Finder::new(e.text.as_bytes()).into_owned(),
                text: e.text,
                kind,
                concept: Some((e.concept, e.generic)),
                not_before: e.not_before.into_boxed_slice(),
            });
        }
        RelevanceQuery { terms, type_boost }
    }

    /// The terms kept after stop words and stemming, in query order (not the glossary's).
    pub fn terms(&self) -> Vec<&str> {
        self.terms
            .iter()
            .filter(|t| t.concept.is_none())
            .map(|t| t.text.as_str())
            .collect()
    }

    /// The terms the glossary added (other languages' words for the query's terms).
    pub fn glossary_terms(&self) -> Vec<&str> {
        self.terms
            .iter()
            .filter(|t| t.concept.is_some())
            .map(|t| t.text.as_str())
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Every relevant document, best first (score descending, then mtime descending, then
    /// input order); documents under the minimum relevance are left out.
    pub fn rank<'a, D, I>(&self, docs: I) -> Vec<Scored>
    where
        D: DocFields + Sync + 'a,
        I: IntoIterator<Item = &'a D>,
    {
        let docs: Vec<&D> = docs.into_iter().collect();
        if self.terms.is_empty() || docs.is_empty() {
            return Vec::new();
        }
        let stats = self.collect(&docs);
        let n = docs.len() as f64 + BACKGROUND_DOCS;
        let idf: Vec<f64> = stats
            .df
            .iter()
            .map(|&df| {
                let df = df as f64;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        // Averages over the fields that are not empty: an empty body says nothing about length.
        let avg = |f: usize| (stats.len_sum[f] / stats.non_empty[f].max(1) as f64).max(1.0);
        let (avg_t, avg_d, avg_b) = (avg(0), avg(1), avg(2));
        let title_saturation = TITLE_WEIGHT / (K1 + TITLE_WEIGHT);
        // Overlapping CJK bigrams count half: a run of n characters holds about n/2 words.
        // The query's own terms only: a glossary term stands in for one of them, and so does a
        // katakana word at a stretch's end (for the stretch's trigrams).
        let best_possible: f64 = self
            .terms
            .iter()
            .zip(&idf)
            .filter(|(t, _)| t.concept.is_none() && t.kind != TermKind::KanaWord)
            .map(|(t, idf)| {
                if t.kind == TermKind::Cjk {
                    idf * CJK_TERM_SHARE
                } else {
                    *idf
                }
            })
            .sum::<f64>()
            * title_saturation;
        let mut scored: Vec<(Scored, f64)> = Vec::new();
        for hit in &stats.hits {
            let mut score = 0.0;
            // Glossary matches: the best term of each concept, and whether one is specific.
            let mut concepts: Vec<(usize, f64)> = Vec::new();
            let mut specific = false;
            for m in &hit.matches {
                let norm = |b: f64, len: f64, avg: f64| 1.0 - b + b * (len / avg);
                let wtf = TITLE_WEIGHT * f64::from(m.tf[0]) / norm(B_TITLE, hit.len[0], avg_t)
                    + DESCRIPTION_WEIGHT * f64::from(m.tf[1])
                        / norm(B_DESCRIPTION, hit.len[1], avg_d)
                    + BODY_WEIGHT * f64::from(m.tf[2]) / norm(B_BODY, hit.len[2], avg_b);
                let s = idf[m.term] * wtf / (K1 + wtf);
                match self.terms[m.term].concept {
                    None => score += s,
                    Some((c, generic)) => {
                        specific |= !generic;
                        match concepts.iter_mut().find(|(id, _)| *id == c) {
                            Some((_, best)) => *best = best.max(s),
                            None => concepts.push((c, s)),
                        }
                    }
                }
            }
            // A generic concept alone (no word of the query, no specific concept) says nothing.
            if score > 0.0 || specific {
                score += GLOSSARY_WEIGHT * concepts.iter().map(|(_, s)| s).sum::<f64>();
            }
            let relevant = score >= MIN_SCORE
                && (score >= STRONG_SCORE || score >= MIN_QUERY_SHARE * best_possible);
            if relevant {
                score += self.type_boost[type_slot(docs[hit.index].memory_type())];
                let mtime = docs[hit.index].mtime_ms();
                let mtime = if mtime.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    mtime + 0.0
                };
                scored.push((
                    Scored {
                        index: hit.index,
                        score,
                    },
                    mtime,
                ));
            }
        }
        scored
            .sort_by(|(a, am), (b, bm)| b.score.total_cmp(&a.score).then_with(|| bm.total_cmp(am)));
        let best = scored.first().map_or(0.0, |(s, _)| s.score);
        scored
            .into_iter()
            .map(|(s, _)| s)
            .take_while(|s| s.score >= best * MIN_SHARE_OF_BEST)
            .collect()
    }

    /// Corpus statistics and matches of every document, on several threads for large inputs
    /// (the result does not depend on the split: lengths are whole numbers, so their sums are
    /// exact in any order).
    fn collect<D: DocFields + Sync>(&self, docs: &[&D]) -> Stats {
        let threads = if docs.len() >= PARALLEL_MIN_DOCS {
            scan::available_threads(MAX_THREADS).min(docs.len() / DOCS_PER_THREAD)
        } else {
            1
        };
        let parts = scan::in_parallel(docs, threads, |part, offset| {
            vec![self.collect_part(part, offset)]
        });
        let mut parts = parts.into_iter();
        let mut stats = parts
            .next()
            .unwrap_or_else(|| self.collect_part::<D>(&[], 0));
        for part in parts {
            for (df, more) in stats.df.iter_mut().zip(part.df) {
                *df += more;
            }
            for f in 0..3 {
                stats.len_sum[f] += part.len_sum[f];
                stats.non_empty[f] += part.non_empty[f];
            }
            stats.hits.extend(part.hits);
        }
        stats
    }

    fn collect_part<D: DocFields>(&self, docs: &[&D], offset: usize) -> Stats {
        let mut stats = Stats {
            df: vec![0; self.terms.len()],
            len_sum: [0.0; 3],
            non_empty: [0; 3],
            hits: Vec::new(),
        };
        let (mut tb, mut db, mut bb) = (String::new(), String::new(), String::new());
        for (index, doc) in docs.iter().enumerate() {
            let title = normalize_in(doc.title(), &mut tb);
            let description = normalize_in(doc.description(), &mut db);
            let body = normalize_in(body_window(doc.body()), &mut bb);
            let fields = [title, description, body];
            let len = fields.map(field_length);
            for f in 0..3 {
                if !fields[f].is_empty() {
                    stats.len_sum[f] += len[f];
                    stats.non_empty[f] += 1;
                }
            }
            let mut matches = Vec::new();
            for (ti, term) in self.terms.iter().enumerate() {
                let tf = fields.map(|f| count_matches(term, f));
                if tf != [0, 0, 0] {
                    stats.df[ti] += 1;
                    matches.push(TermMatch { term: ti, tf });
                }
            }
            if !matches.is_empty() {
                stats.hits.push(DocHit {
                    index: offset + index,
                    len,
                    matches,
                });
            }
        }
        stats
    }
}

#[derive(Debug, PartialEq)]
struct Stats {
    df: Vec<u32>,
    len_sum: [f64; 3],
    non_empty: [usize; 3],
    hits: Vec<DocHit>,
}

#[derive(Debug, PartialEq)]
struct DocHit {
    index: usize,
    len: [f64; 3],
    matches: Vec<TermMatch>,
}

#[derive(Debug, PartialEq)]
struct TermMatch {
    term: usize,
    tf: [u32; 3],
}

/// A field's length for length normalization: roughly its words, counting a CJK character as a
/// word of its own (cheap; only the ratio to the corpus average matters).
fn field_length(f: &str) -> f64 {
    // One pass counting separators and checking for ASCII, in chunks whose byte counters
    // cannot overflow (so the loop vectorizes).
    let (mut separators, mut high) = (0usize, 0u8);
    for chunk in f.as_bytes().chunks(255) {
        let (mut n, mut h) = (0u8, 0u8);
        for &b in chunk {
            n += u8::from(b == b' ') + u8::from(b == b'\n');
            h |= b;
        }
        separators += usize::from(n);
        high |= h;
    }
    if high < 0x80 {
        (separators + 1) as f64
    } else {
        f.chars()
            .filter(|c| c.is_whitespace() || (*c as u32) >= 0x2E80)
            .count()
            .max(1) as f64
    }
}

/// Most matches of one term counted in one field (BM25 saturates long before).
const MAX_TF: u32 = 8;

fn count_matches(term: &Term, field: &str) -> u32 {
    let hay = field.as_bytes();
    let mut count = 0;
    for pos in term.finder.find_iter(hay) {
        let ok = match term.kind {
            TermKind::Cjk => {
                term.not_before.is_empty()
                    || !field[pos + term.text.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| term.not_before.contains(&c))
            }
            TermKind::KanaWord => {
                !field[..pos].chars().next_back().is_some_and(is_kana_letter)
                    && !field[pos + term.text.len()..]
                        .chars()
                        .next()
                        .is_some_and(is_kana_letter)
            }
            TermKind::Word { stemmed } => word_match_at(field, pos, &term.text, stemmed),
        };
        if ok {
            count += 1;
            if count >= MAX_TF {
                break;
            }
        }
    }
    count
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// Whether the occurrence of `term` at byte `pos` of `field` is a whole word equal to the term
/// (or, for a stemmed term, a word that stems to it).
fn word_match_at(field: &str, pos: usize, term: &str, stemmed: bool) -> bool {
    if field[..pos].chars().next_back().is_some_and(is_word_char) {
        return false;
    }
    let after = &field[pos + term.len()..];
    let rest_len = after
        .char_indices()
        .find(|(_, c)| !is_word_char(*c))
        .map_or(after.len(), |(i, _)| i);
    if rest_len == 0 {
        return true;
    }
    if !stemmed {
        return false;
    }
    let word = &field[pos..pos + term.len() + rest_len];
    word.is_ascii() && stem(word) == term
}

/// Light English suffix stripping. Only ever removes a suffix, so the stem is a prefix of the
/// word (what lets matching start from a substring search). Both the query and the document
/// side go through it, so it only has to be consistent, not linguistically exact.
pub fn stem(word: &str) -> &str {
    if word.len() <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word;
    }
    let mut s = word;
    let mut verbal = false;
    for (suffix, min_rest) in [
        ("ments", 4),
        ("ment", 4),
        ("ions", 4),
        ("ion", 4),
        ("ings", 3),
        ("ing", 3),
        ("ies", 3),
        ("ied", 3),
        ("ed", 3),
        ("es", 3),
        ("ly", 4),
        ("s", 3),
    ] {
        let Some(rest) = s.strip_suffix(suffix) else {
            continue;
        };
        if rest.len() < min_rest {
            if suffix == "ed" && rest.len() + 1 >= 3 {
                // "used" -> "use"
                s = &s[..s.len() - 1];
                break;
            }
            continue;
        }
        match suffix {
            // "migration" -> "migrat" (as "migrate" -> "migrat"); "session" stays a word.
            "ion" | "ions" if !rest.ends_with(['t', 's']) => continue,
            // "es" only after sibilants ("fixes", "caches"); "notes" loses just "s".
            "es" if !(rest.ends_with(['s', 'x', 'z'])
                || rest.ends_with("ch")
                || rest.ends_with("sh")) =>
            {
                s = &s[..s.len() - 1];
            }
            // "status", "bus", "analysis" are not plurals.
            "s" if rest.ends_with(['s', 'u', 'i']) => {}
            _ => s = rest,
        }
        verbal = matches!(suffix, "ing" | "ings" | "ed");
        break;
    }
    let b = s.as_bytes();
    // "running" -> "runn" -> "run"; "committed" -> "commit".
    if verbal && b.len() >= 4 {
        let (x, y) = (b[b.len() - 1], b[b.len() - 2]);
        if x == y && !is_vowel(x) && !matches!(x, b'l' | b's' | b'z' | b'd') {
            s = &s[..s.len() - 1];
        }
    }
    // "configure"/"configured" -> "configur"; "policy"/"policies" -> "polic".
    let b = s.as_bytes();
    if b.len() > 4 {
        let last = b[b.len() - 1];
        if last == b'e' || (last == b'y' && !is_vowel(b[b.len() - 2])) {
            s = &s[..s.len() - 1];
        }
    }
    s
}

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u')
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F)
}

fn is_hiragana(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x309F)
}

fn is_katakana(c: char) -> bool {
    matches!(c as u32, 0x30A0..=0x30FF | 0x31F0..=0x31FF)
}

/// A katakana letter or the prolonged sound mark, not the middle dot `・` or the double hyphen
/// `゠` that separate words.
fn is_kana_letter(c: char) -> bool {
    is_katakana(c) && !matches!(c, '・' | '゠')
}

/// The query's terms: normalized, split into word and CJK runs, stop words dropped, words
/// stemmed, CJK runs turned into bigrams; deduplicated, at most [`MAX_TERMS`].
fn query_terms(query: &str) -> Vec<(String, TermKind)> {
    let normalized = normalize(query);
    let mut out: Vec<(String, TermKind)> = Vec::new();
    let mut seen = HashSet::new();
    let mut push = |text: String, kind: TermKind, out: &mut Vec<(String, TermKind)>| {
        if out.len() < MAX_TERMS && seen.insert(text.clone()) {
            out.push((text, kind));
        }
    };
    let chars: Vec<char> = normalized.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_cjk(c) {
            let start = i;
            while i < chars.len() && is_cjk(chars[i]) {
                i += 1;
            }
            for (bigram, kind) in cjk_bigrams(&chars[start..i]) {
                push(bigram, kind, &mut out);
            }
        } else if is_word_char(c) {
            let start = i;
            while i < chars.len() && (is_word_char(chars[i]) || is_mark(chars[i])) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // Two-letter words are too ambiguous across languages ("go", "до"), as upstream.
            if word.chars().count() < 3 || is_stop_word(&word) {
                continue;
            }
            if word.is_ascii() && word.bytes().all(|b| b.is_ascii_lowercase()) {
                let stemmed = stem(&word).to_string();
                push(stemmed, TermKind::Word { stemmed: true }, &mut out);
            } else {
                push(word, TermKind::Word { stemmed: false }, &mut out);
            }
        } else {
            i += 1;
        }
    }
    out
}

fn is_mark(c: char) -> bool {
    // Combining marks that survived NFKC (scripts without precomposed forms).
    matches!(c as u32, 0x0300..=0x036F | 0x0900..=0x0DFF | 0x0E31..=0x0E4E)
}

/// The bigrams of one CJK run that carry meaning.
fn cjk_bigrams(run: &[char]) -> Vec<(String, TermKind)> {
    let mut run: Vec<char> = run.to_vec();
    // Korean: a particle glued to the end of a word ("배포는" → "배포").
    if run.iter().all(|c| is_hangul(*c)) && run.len() >= 3 {
        let s: String = run.iter().collect();
        if let Some(stripped) = KO_ENDINGS.iter().find_map(|e| s.strip_suffix(e)) {
            if stripped.chars().count() >= 2 {
                run = stripped.chars().collect();
            }
        }
    }
    let all_hiragana = run.iter().all(|c| is_hiragana(*c));
    // Japanese with kanji or katakana: hiragana is grammar (particles, okurigana, auxiliaries:
    // "書けばいい", "使っていい"), and a bigram holding some says nothing about a topic but
    // weighs on the share of the query a document must match.
    let japanese = !all_hiragana && run.iter().any(|c| is_hiragana(*c) || is_katakana(*c));
    let mut out = Vec::new();
    // Katakana words are loanwords, and two of their characters say little: "メン" is in both
    // ラーメン and コメント, "ール" in メール and ツール. Inside a katakana stretch of three or
    // more characters the terms are its overlapping trigrams instead of bigrams (コードレビュー
    // still finds レビュー), plus its first and last two characters as katakana words of their
    // own (エラーログ still finds a memory about ログ); a bigram reaching out of the stretch is
    // kept as before. The middle dot ends a stretch (コード・レビュー is two words).
    let kana_at = |k: usize| run.get(k).is_some_and(|c| is_kana_letter(*c));
    // The length of the katakana stretch each character is in (0 outside one), in one pass: a
    // prompt can be a long paste.
    let mut stretch = vec![0usize; run.len()];
    let mut k = 0;
    while k < run.len() {
        let start = k;
        while kana_at(k) {
            k += 1;
        }
        stretch[start..k].fill(k - start);
        k = k.max(start + 1);
    }
    for (k, pair) in run.windows(2).enumerate() {
        if kana_at(k) && kana_at(k + 1) && stretch[k] >= 3 {
            // The first or the last pair of the stretch.
            let inside = k > 0 && kana_at(k - 1) && kana_at(k + 2);
            if !inside {
                out.push((pair.iter().collect(), TermKind::KanaWord));
            }
            if kana_at(k + 2) {
                out.push((run[k..k + 3].iter().collect(), TermKind::Cjk));
            }
            continue;
        }
        let bigram: String = pair.iter().collect();
        if ZH_STOP_BIGRAMS.contains(&bigram.as_str()) {
            continue;
        }
        if japanese && pair.iter().any(|c| is_hiragana(*c)) {
            continue;
        }
        if !all_hiragana && pair.iter().any(|c| PARTICLES.contains(c)) {
            continue;
        }
        if pair.iter().all(|c| !c.is_alphanumeric()) {
            continue;
        }
        out.push((bigram, TermKind::Cjk));
    }
    out
}

/// Single characters that are grammar, not content: Chinese particles and pronouns, Japanese
/// particles. A bigram containing one says nothing about a topic.
const PARTICLES: &[char] = &[
    '的', '了', '吗', '呢', '吧', '啊', '呀', '么', '们', '哪', '谁', '嘛', '呗', '哦', '我', '你',
    '他', '她', '它', '这', '那', '很', '是', '个', '、', '。', '，', '「', '」', '・', 'の', 'は',
    'が', 'を', 'に', 'で', 'と', 'も', 'へ', 'や', 'か', 'ね', 'よ',
];

/// Chinese request chatter and question words.
const ZH_STOP_BIGRAMS: &[&str] = &[
    "什么", "怎么", "怎样", "如何", "为何", "是否", "可以", "请问", "帮我", "告诉", "应该", "需要",
    "现在", "时候", "问题", "一些", "这样", "那样", "多少", "多久", "哪些", "哪里", "为什", "一下",
    "知道", "觉得", "其实", "然后", "因为", "所以", "但是", "如果", "已经", "可能",
];

/// Korean particles and endings stripped from the end of a word.
const KO_ENDINGS: &[&str] = &[
    "에서", "으로", "에게", "까지", "부터", "은", "는", "이", "가", "을", "를", "에", "의", "로",
    "와", "과", "도", "만",
];

fn is_stop_word(word: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
        .contains(word)
}

/// English function words and request chatter ("please", "can you", "help me").
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren't",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "don't",
    "down",
    "during",
    "each",
    "else",
    "etc",
    "ever",
    "every",
    "few",
    "for",
    "from",
    "further",
    "get",
    "gets",
    "getting",
    "give",
    "go",
    "goes",
    "going",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "however",
    "i",
    "i'm",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "it's",
    "its",
    "itself",
    "just",
    "know",
    "let",
    "let's",
    "like",
    "make",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "myself",
    "need",
    "needs",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "ok",
    "okay",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "please",
    "really",
    "same",
    "see",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "something",
    "such",
    "sure",
    "tell",
    "than",
    "that",
    "that's",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "use",
    "using",
    "very",
    "via",
    "want",
    "was",
    "we",
    "well",
    "were",
    "what",
    "what's",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "yes",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "help",
    "hi",
    "hello",
    "hey",
    "still",
    "way",
    "s",
    "t",
    "re",
    "ve",
    "ll",
    "d",
    "m",
    "wanna",
    "gonna",
    "able",
    "anything",
    "everything",
    "nothing",
    "someone",
    "anyone",
    "maybe",
    "actually",
    "already",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::doc::MemoryType;
    use crate::storage::scan::{ScannedDoc, Scope};
    use std::path::PathBuf;

    fn doc(title: &str, description: &str, body: &str) -> ScannedDoc {
        ScannedDoc {
            scope: Scope::Private,
            memory_type: MemoryType::Project,
            path: PathBuf::from(format!("/m/{title}.md")),
            relative_path: format!("{title}.md"),
            title: title.to_string(),
            description: description.to_string(),
            body: body.to_string(),
            mtime_ms: 0.0,
            extra: Vec::new(),
        }
    }

    fn ranked(q: &str, docs: &[ScannedDoc]) -> Vec<String> {
        RelevanceQuery::new(q)
            .rank(docs)
            .into_iter()
            .map(|s| docs[s.index].title.clone())
            .collect()
    }

    #[test]
    fn the_glossary_finds_memories_written_in_another_language() {
        let docs = vec![
            doc("数据库备份", "生产数据库每天全量备份，保留三十天", ""),
            doc("発表資料", "スライドは共有フォルダに置く", ""),
            doc("Lunch", "The team eats at noon", ""),
        ];
        assert_eq!(
            ranked("how often is the production database backed up", &docs),
            ["数据库备份"]
        );
        let docs = vec![doc(
            "Database migrations",
            "Schema migrations run before the app starts",
            "",
        )];
        assert_eq!(ranked("数据库迁移怎么执行", &docs), ["Database migrations"]);
        let q = RelevanceQuery::new("where should secrets be kept");
        assert!(
            q.glossary_terms().contains(&"密钥"),
            "{:?}",
            q.glossary_terms()
        );
        assert!(!q.terms().contains(&"密钥"));
    }

    #[test]
    fn a_generic_glossary_concept_alone_finds_nothing() {
        // "test" → 测试 is generic: it never admits a document on its own ...
        let docs = vec![doc("测试环境", "测试用的数据每周清空", "")];
        assert!(ranked("how do I write a test", &docs).is_empty());
        // ... while a specific concept does ("coverage" → 覆盖率).
        let docs = vec![doc("测试覆盖率", "单元测试覆盖率不得低于百分之八十", "")];
        assert_eq!(
            ranked("what is the coverage threshold", &docs),
            ["测试覆盖率"]
        );
    }

    #[test]
    fn japanese_grammar_in_hiragana_does_not_dilute_the_query() {
        // Before: "どん", "けば", "いい" … counted in the query's best score, so the one content
        // word (README) was too small a share of it.
        let docs = vec![doc(
            "README の書き方",
            "README は丁寧語で書き、手順にはコマンド例を付ける",
            "",
        )];
        assert_eq!(
            ranked("README はどんな調子で書けばいい", &docs),
            ["README の書き方"]
        );
        let terms = RelevanceQuery::new("TypeScriptでanyって使っていいんだっけ")
            .terms()
            .join(" ");
        assert!(
            !terms.contains("いい") && !terms.contains("って"),
            "{terms}"
        );
        // All-hiragana queries keep their bigrams.
        assert!(!RelevanceQuery::new("よくあるしつもん").terms().is_empty());
    }

    #[test]
    fn katakana_words_match_by_three_characters_not_two() {
        let docs = vec![doc(
            "レビューコメントの書き方",
            "コードレビュー時のコメントのルール",
            "- 指摘には必ず代替案を書く",
        )];
        // ラーメン shares only メン with コメント: nothing to recall.
        assert!(ranked("東京でおすすめのラーメン屋は？", &docs).is_empty());
        assert!(ranked("メールの送り方を教えて", &docs).is_empty());
        // A katakana word still finds a longer one holding it, and a longer query word finds
        // a shorter one of three characters or more in the memory.
        assert_eq!(
            ranked("コメントはどう書く？", &docs),
            ["レビューコメントの書き方"]
        );
        assert_eq!(
            ranked("プルリクエストのレビュー", &docs),
            ["レビューコメントの書き方"]
        );
        let terms = RelevanceQuery::new("ラーメン屋").terms().join(" ");
        assert_eq!(terms, "ラー ラーメ ーメン メン ン屋", "{terms}");
        // The two characters at either end of a stretch still find a katakana word of their
        // own: エラーログ finds the memory about ログ, but not one that only has カタログ.
        let logs = vec![doc("ログの保存先", "ログは /var/log/app に出す", "")];
        assert_eq!(ranked("エラーログはどこに出る？", &logs), ["ログの保存先"]);
        let catalog = vec![doc("カタログの更新", "カタログは毎月作り直す", "")];
        assert!(ranked("エラーログはどこに出る？", &catalog).is_empty());
        // The middle dot separates two words.
        let terms = RelevanceQuery::new("コード・レビュー").terms().join(" ");
        assert!(!terms.contains('・'), "{terms}");
        assert_eq!(
            ranked("コード・レビューの書き方", &docs),
            ["レビューコメントの書き方"]
        );
    }

    #[test]
    fn a_long_katakana_paste_is_read_in_linear_time() {
        // 200,000 katakana characters: quadratic work here would take minutes, not a moment.
        let paste = "アイウエオカキクケコ".repeat(20_000);
        let query = RelevanceQuery::new(&paste);
        let terms = query.terms();
        assert!(
            !terms.is_empty() && terms.len() <= MAX_TERMS,
            "{}",
            terms.len()
        );
    }

    #[test]
    fn a_glossary_term_is_not_matched_before_the_characters_its_form_excludes() {
        let weekly = vec![doc("全量备份", "数据库每周一次全量备份", "")];
        assert!(ranked("what runs on monday", &weekly).is_empty());
        let monday = vec![doc("周一例会", "周一上午十点开周会", "")];
        assert_eq!(ranked("what runs on monday", &monday), ["周一例会"]);
    }

    #[test]
    fn stemmer_strips_light_suffixes_and_keeps_a_prefix() {
        for (w, s) in [
            ("deploys", "deploy"),
            ("deployed", "deploy"),
            ("deploying", "deploy"),
            ("deployment", "deploy"),
            ("running", "run"),
            ("runs", "run"),
            ("runbook", "runbook"),
            ("configure", "configur"),
            ("configuration", "configurat"),
            ("migration", "migrat"),
            ("migrate", "migrat"),
            ("used", "use"),
            ("committed", "commit"),
            ("policies", "polic"),
            ("policy", "polic"),
            ("notes", "note"),
            ("configured", "configur"),
            ("caches", "cach"),
            ("cache", "cach"),
            ("fixes", "fix"),
            ("tests", "test"),
            ("testing", "test"),
            ("status", "status"),
            ("use", "use"),
            ("key", "key"),
        ] {
            assert_eq!(stem(w), s, "{w}");
            assert!(w.starts_with(stem(w)));
        }
    }

    #[test]
    fn whole_words_only_no_substrings() {
        let docs = vec![
            doc(
                "On-call runbook",
                "Where the runbook lives",
                "Page the secondary",
            ),
            doc(
                "Deployment region",
                "New services run in eu-west-1",
                "Data residency",
            ),
        ];
        assert_eq!(
            ranked("which region should the new service run in", &docs),
            ["Deployment region"]
        );
    }

    #[test]
    fn stop_words_alone_inject_nothing() {
        let docs = vec![doc("The theory", "there is the thing", "the the the")];
        assert!(ranked("what's the weather like in Berlin tomorrow", &docs).is_empty());
        assert!(RelevanceQuery::new("what is the").is_empty());
    }

    #[test]
    fn chinese_bigrams_without_chatter() {
        let q = RelevanceQuery::new("借用检查器报错怎么理解");
        let terms = q.terms();
        assert!(terms.contains(&"借用") && terms.contains(&"检查"));
        assert!(!terms.contains(&"怎么") && !terms.contains(&"么理"));
        assert!(RelevanceQuery::new("是的").is_empty());
    }

    #[test]
    fn korean_particle_is_stripped() {
        assert_eq!(RelevanceQuery::new("배포는").terms(), ["배포"]);
    }

    #[test]
    fn hiragana_words_keep_their_bigrams() {
        let docs = vec![doc("よくあるしつもん", "", "")];
        assert_eq!(ranked("よくあるしつもん", &docs), ["よくあるしつもん"]);
    }

    #[test]
    fn rare_terms_outweigh_common_ones() {
        let mut docs: Vec<ScannedDoc> = (0..10)
            .map(|i| doc(&format!("service note {i}"), "service", "service"))
            .collect();
        docs.push(doc("Kafka topics", "order events go to kafka", ""));
        let r = ranked("which kafka topic does the order service use", &docs);
        assert_eq!(r.first().map(String::as_str), Some("Kafka topics"));
    }

    #[test]
    fn weak_tail_is_cut() {
        let docs = vec![
            doc("Latency dashboard", "Grafana dashboard for API latency", ""),
            doc("Release notes", "", "mention of a dashboard somewhere"),
        ];
        assert_eq!(
            ranked("check the latency dashboard", &docs),
            ["Latency dashboard"]
        );
    }

    #[test]
    fn mixed_script_words_split_at_cjk() {
        let terms = RelevanceQuery::new("Redis缓存的TTL").terms().join(" ");
        assert_eq!(terms, "redis 缓存 ttl");
    }

    /// Statistics gathered on several threads equal the single-threaded ones.
    #[test]
    fn parallel_collect_equals_sequential() {
        let words = [
            "deploy",
            "billing",
            "terraform",
            "canary",
            "the",
            "部署",
            "金丝雀",
        ];
        let docs: Vec<ScannedDoc> = (0..PARALLEL_MIN_DOCS * 2 + 37)
            .map(|i| {
                let w = |k: usize| words[(i * 7 + k * 3) % words.len()];
                doc(
                    &format!("{} {}", w(0), i),
                    &format!("about {} and {}", w(1), w(2)),
                    &format!("{} {} body {}\nline {}", w(3), w(4), i, w(5)).repeat(i % 5 + 1),
                )
            })
            .collect();
        let refs: Vec<&ScannedDoc> = docs.iter().collect();
        let query = RelevanceQuery::new("deploy billing with terraform canary 部署");
        let sequential = query.collect_part(&refs, 0);
        assert!(!sequential.hits.is_empty());
        assert_eq!(query.collect(&refs), sequential);
    }
}
