//! Deterministic lexical recall (docs/DESIGN.md, "Recall"): the query
//! tokenizer, per-document scoring and the stable ranking.
//!
//! Scoring runs once per document per query, over up to tens of thousands of documents, so each
//! field is normalized once per document into reused buffers (ASCII skips NFKC, and
//! already-lowercase ASCII is not copied), the token loop is precompiled SIMD substring search
//! with no allocation, long queries first consult a per-document trigram filter, and large
//! inputs are scored on a few threads.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::OnceLock;

use memchr::memmem::Finder;
use regex::Regex;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use super::{MAX_DOC_BODY_CHARS, MAX_QUERY_TOKENS, NO_ENTRIES_PLACEHOLDER};
use crate::formats::doc::MemoryType;
#[cfg(test)]
use crate::formats::text::truncate_utf16;
use crate::formats::text::{is_cjk, is_js_whitespace, CJK_CLASS};
use crate::storage::scan::{self, DocFields, ScannedDoc};

/// One match per token run: a CJK run, or a non-CJK letter/number followed by at least two
/// non-CJK letters/marks/numbers. The regex crate runs in linear time on any input.
fn token_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let pattern = format!(
            r"[{c}]+|[[\p{{L}}\p{{N}}]--[{c}]][[\p{{L}}\p{{M}}\p{{N}}]--[{c}]]{{2,}}",
            c = CJK_CLASS
        );
        // The pattern is a compile-time constant; failing here is a programming error.
        Regex::new(&pattern).expect("token regex compiles")
    })
}

/// Keywords per type that add to the score of an already matching document.
pub(crate) fn type_keywords(t: MemoryType) -> &'static [&'static str] {
    match t {
        MemoryType::User => &[
            "user",
            "preference",
            "preferences",
            "background",
            "role",
            "terse",
        ],
        MemoryType::Feedback => &["feedback", "rule", "rules", "avoid", "style", "summary"],
        MemoryType::Project => &[
            "project", "goal", "goals", "incident", "deadline", "release",
        ],
        MemoryType::Reference => &["reference", "dashboard", "ticket", "docs", "doc", "link"],
    }
}

pub(crate) fn type_slot(t: MemoryType) -> usize {
    match t {
        MemoryType::User => 0,
        MemoryType::Feedback => 1,
        MemoryType::Project => 2,
        MemoryType::Reference => 3,
    }
}

/// NFKC then full Unicode lowercase, as upstream normalizes queries and document fields.
///
/// ASCII is NFKC-stable, so it only needs ASCII lowercasing, and already-lowercase ASCII is
/// borrowed as is.
pub fn normalize(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(s.to_ascii_lowercase())
        } else {
            Cow::Borrowed(s)
        }
    } else if is_nfkc_quick(s.chars()) == IsNormalized::Yes {
        // `str::to_lowercase` applies the Final_Sigma rule, as JavaScript's `toLowerCase` does.
        Cow::Owned(s.to_lowercase())
    } else {
        let composed: String = s.nfkc().collect();
        Cow::Owned(composed.to_lowercase())
    }
}

/// Dedupe with a head window (first tokens, kept) and a tail window (most recent tokens,
/// refreshed on repeat), so a long query keeps both its beginning and its end.
struct TokenWindows<'a> {
    head: Vec<&'a str>,
    tail: VecDeque<&'a str>,
}

impl<'a> TokenWindows<'a> {
    const HALF: usize = MAX_QUERY_TOKENS / 2;

    fn new() -> Self {
        TokenWindows {
            head: Vec::with_capacity(Self::HALF),
            tail: VecDeque::with_capacity(Self::HALF + 1),
        }
    }

    fn push(&mut self, token: &'a str) {
        if self.head.contains(&token) {
            return;
        }
        if let Some(pos) = self.tail.iter().position(|t| *t == token) {
            self.tail.remove(pos);
            self.tail.push_back(token);
            return;
        }
        if self.head.len() < Self::HALF {
            self.head.push(token);
            return;
        }
        self.tail.push_back(token);
        if self.tail.len() > Self::HALF {
            self.tail.pop_front();
        }
    }

    fn into_tokens(self) -> Vec<String> {
        self.head
            .into_iter()
            .chain(self.tail)
            .map(str::to_owned)
            .collect()
    }
}

/// Splits a query into recall tokens: NFKC + lowercase; CJK runs give code-point bigrams (a lone
/// CJK character gives none); other runs starting with a letter or number give one token when
/// at least three characters long; deduplicated and capped at 64 (first 32 + last 32).
///
/// Linear in the query length; memory is bounded by the normalized query plus 64 tokens.
pub fn tokenize(query: &str) -> Vec<String> {
    let normalized = normalize(query);
    let mut windows = TokenWindows::new();
    if normalized.is_ascii() {
        // No CJK and no marks in ASCII: tokens are the alphanumeric runs of three or more
        // characters, exactly what the regex finds, without compiling its Unicode script
        // tables (a few milliseconds of every recall process, most of a small recall).
        for run in normalized.split(|c: char| !c.is_ascii_alphanumeric()) {
            if run.len() >= 3 {
                windows.push(run);
            }
        }
        return windows.into_tokens();
    }
    for m in token_regex().find_iter(&normalized) {
        let run = m.as_str();
        if run.chars().next().is_some_and(is_cjk) {
            // Bigrams are contiguous slices of the run: no allocation per bigram.
            let mut starts = run.char_indices().map(|(i, _)| i).peekable();
            while let Some(start) = starts.next() {
                let Some(&second) = starts.peek() else { break };
                let end = run[second..]
                    .chars()
                    .next()
                    .map_or(run.len(), |c| second + c.len_utf8());
                windows.push(&run[start..end]);
            }
        } else {
            windows.push(run);
        }
    }
    windows.into_tokens()
}

/// A document that matched, with its position in the input and its score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    /// Position of the document in the slice (or iterator) that was ranked.
    pub index: usize,
    /// Lexical score plus type boost; always > 0.
    pub score: u32,
}

/// A tokenized query, ready to score many documents.
#[derive(Debug, Clone)]
pub struct LexicalQuery {
    tokens: Vec<String>,
    /// One precompiled SIMD substring searcher per token, reused for every document.
    finders: Vec<Finder<'static>>,
    /// Per token, filter slots of some of its byte trigrams (see [`TrigramFilter`]); used only
    /// when the query has many tokens.
    trigram_slots: Vec<Vec<u16>>,
    /// Type boost per memory type (indexed by `type_slot`): min(2, tokens equal to a keyword).
    type_boost: [u32; 4],
}

/// Above this many tokens, a per-document trigram filter is cheaper than one substring scan
/// per token and field (measured with `benches/recall.rs`).
const TRIGRAM_FILTER_MIN_TOKENS: usize = 16;

/// Most trigrams of one token checked against the filter; a few already make false positives
/// rare, and a huge token must not make the check expensive.
const MAX_TRIGRAMS_PER_TOKEN: usize = 12;

const TITLE_BIT: u8 = 1;
const DESCRIPTION_BIT: u8 = 2;
const BODY_BIT: u8 = 4;

impl LexicalQuery {
    /// Tokenizes `query` once.
    pub fn new(query: &str) -> Self {
        let tokens = tokenize(query);
        let use_filter = tokens.len() >= TRIGRAM_FILTER_MIN_TOKENS;
        Self::from_tokens(tokens, use_filter)
    }

    fn from_tokens(tokens: Vec<String>, use_filter: bool) -> Self {
        let mut type_boost = [0u32; 4];
        for t in MemoryType::ALL {
            let keywords = type_keywords(t);
            let hits = tokens
                .iter()
                .filter(|tok| keywords.contains(&tok.as_str()))
                .count();
            type_boost[type_slot(t)] = hits.min(2) as u32;
        }
        let finders = tokens
            .iter()
            .map(|t| Finder::new(t.as_bytes()).into_owned())
            .collect();
        let trigram_slots = if use_filter {
            tokens
                .iter()
                .map(|t| token_trigram_slots(t.as_bytes()))
                .collect()
        } else {
            Vec::new()
        };
        LexicalQuery {
            tokens,
            finders,
            trigram_slots,
            type_boost,
        }
    }

    /// The query tokens, in head-then-tail order.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// True when the query has no tokens, so nothing can match.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Score of one document: per token, title +4, description +3, body window +1 (substring
    /// match on normalized text); 0 when nothing matched, else plus the type boost.
    pub fn score<D: DocFields + ?Sized>(&self, doc: &D) -> u32 {
        self.score_with(doc, &mut Scratch::default())
    }

    fn score_with<D: DocFields + ?Sized>(&self, doc: &D, scratch: &mut Scratch) -> u32 {
        if self.tokens.is_empty() {
            return 0;
        }
        let Scratch {
            title: title_buf,
            description: description_buf,
            body: body_buf,
            filter,
        } = scratch;
        let title = normalize_in(doc.title(), title_buf).as_bytes();
        let description = normalize_in(doc.description(), description_buf).as_bytes();
        let body = normalize_in(body_window(doc.body()), body_buf).as_bytes();
        let mut score = 0u32;
        if self.trigram_slots.is_empty() {
            for finder in &self.finders {
                if finder.find(title).is_some() {
                    score += 4;
                }
                if finder.find(description).is_some() {
                    score += 3;
                }
                if finder.find(body).is_some() {
                    score += 1;
                }
            }
        } else {
            filter.reset();
            filter.mark(title, TITLE_BIT);
            filter.mark(description, DESCRIPTION_BIT);
            filter.mark(body, BODY_BIT);
            for (finder, slots) in self.finders.iter().zip(&self.trigram_slots) {
                // The filter only says "maybe"; a substring search confirms.
                let maybe = filter.candidates(slots);
                if maybe & TITLE_BIT != 0 && finder.find(title).is_some() {
                    score += 4;
                }
                if maybe & DESCRIPTION_BIT != 0 && finder.find(description).is_some() {
                    score += 3;
                }
                if maybe & BODY_BIT != 0 && finder.find(body).is_some() {
                    score += 1;
                }
            }
        }
        if score == 0 {
            return 0;
        }
        score + self.type_boost[type_slot(doc.memory_type())]
    }

    /// Every matching document, best first: score descending, then mtime descending, then
    /// input order. `limit` of `None` keeps all hits.
    pub fn rank<'a, D, I>(&self, docs: I, limit: Option<usize>) -> Vec<Ranked>
    where
        D: DocFields + Sync + 'a,
        I: IntoIterator<Item = &'a D>,
    {
        if self.tokens.is_empty() || limit == Some(0) {
            return Vec::new();
        }
        let docs: Vec<&D> = docs.into_iter().collect();
        let mut hits = self.collect_hits(&docs);
        // `sort_by` is stable, so equal score and mtime keep input order.
        hits.sort_by(|(a, a_mtime), (b, b_mtime)| {
            b.score
                .cmp(&a.score)
                .then_with(|| b_mtime.total_cmp(a_mtime))
        });
        let mut ranked: Vec<Ranked> = hits.into_iter().map(|(r, _)| r).collect();
        if let Some(limit) = limit {
            ranked.truncate(limit);
        }
        ranked
    }
}

impl LexicalQuery {
    /// Scores every document, on several threads for large inputs; hits stay in input order.
    fn collect_hits<D: DocFields + Sync>(&self, docs: &[&D]) -> Vec<(Ranked, f64)> {
        let threads = if docs.len() >= PARALLEL_MIN_DOCS {
            scan::available_threads(MAX_THREADS).min(docs.len() / DOCS_PER_THREAD)
        } else {
            1
        };
        scan::in_parallel(docs, threads, |part, offset| self.hits_in(part, offset))
    }

    fn hits_in<D: DocFields>(&self, docs: &[&D], offset: usize) -> Vec<(Ranked, f64)> {
        let mut scratch = Scratch::default();
        docs.iter()
            .enumerate()
            .filter_map(|(i, doc)| {
                let score = self.score_with(*doc, &mut scratch);
                (score > 0).then(|| {
                    let ranked = Ranked {
                        index: offset + i,
                        score,
                    };
                    (ranked, crate::storage::scan::mtime_key(doc.mtime_ms()))
                })
            })
            .collect()
    }
}

/// Inputs this large are scored on several threads.
const PARALLEL_MIN_DOCS: usize = 4096;
/// Fewest documents worth one thread.
const DOCS_PER_THREAD: usize = 2048;
const MAX_THREADS: usize = 8;

/// The part of a body that scores: trimmed, placeholder as empty, first 1200 UTF-16 units.
pub fn body_window(body: &str) -> &str {
    let trimmed = body.trim_matches(is_js_whitespace);
    if trimmed == NO_ENTRIES_PLACEHOLDER {
        return "";
    }
    utf16_prefix(trimmed, MAX_DOC_BODY_CHARS)
}

/// [`truncate_utf16`] with fast paths: a string of at most `max` bytes has at most `max` UTF-16
/// units, and an ASCII prefix is cut by bytes. The fallback counts units from the UTF-8 lead
/// bytes (a 4-byte sequence is a surrogate pair: 2 units).
fn utf16_prefix(s: &str, max: usize) -> &str {
    let bytes = s.as_bytes();
    if bytes.len() <= max {
        return s;
    }
    if bytes[..max].is_ascii() {
        return &s[..max];
    }
    let mut units = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        // Continuation bytes (0b10xx_xxxx) belong to a character already counted.
        if b & 0xC0 != 0x80 {
            let width = if b >= 0xF0 { 2 } else { 1 };
            if units + width > max {
                return &s[..i];
            }
            units += width;
        }
    }
    s
}

/// Reusable buffers for normalized fields, so ranking does not allocate per document.
#[derive(Default)]
struct Scratch {
    title: String,
    description: String,
    body: String,
    filter: TrigramFilter,
}

const FILTER_SLOT_BITS: u32 = 12;
const FILTER_SLOTS: usize = 1 << FILTER_SLOT_BITS;

/// A per-document table of which fields contain a byte trigram hashing to each slot. Every
/// token is at least 3 bytes (3 letters, or a CJK bigram of 3-byte characters), so a token
/// can occur in a field only if all its trigrams' slots carry that field's bit: one pass over
/// the fields replaces most of the per-token scans of a long query.
struct TrigramFilter {
    slots: Box<[u8; FILTER_SLOTS]>,
}

impl Default for TrigramFilter {
    fn default() -> Self {
        TrigramFilter {
            slots: Box::new([0; FILTER_SLOTS]),
        }
    }
}

impl TrigramFilter {
    fn reset(&mut self) {
        self.slots.fill(0);
    }

    fn mark(&mut self, hay: &[u8], bit: u8) {
        for w in hay.windows(3) {
            self.slots[trigram_slot(w[0], w[1], w[2])] |= bit;
        }
    }

    /// Field bits that may contain the token with these trigram slots.
    fn candidates(&self, slots: &[u16]) -> u8 {
        slots
            .iter()
            .fold(TITLE_BIT | DESCRIPTION_BIT | BODY_BIT, |acc, &s| {
                acc & self.slots[usize::from(s)]
            })
    }
}

fn trigram_slot(a: u8, b: u8, c: u8) -> usize {
    let v = u32::from(a) | (u32::from(b) << 8) | (u32::from(c) << 16);
    // Multiplicative hashing; the top bits are the best mixed.
    (v.wrapping_mul(0x9E37_79B1) >> (32 - FILTER_SLOT_BITS)) as usize
}

/// Filter slots of up to [`MAX_TRIGRAMS_PER_TOKEN`] trigrams spread over the token.
fn token_trigram_slots(token: &[u8]) -> Vec<u16> {
    let count = token.len().saturating_sub(2);
    let step = count.div_ceil(MAX_TRIGRAMS_PER_TOKEN).max(1);
    (0..count)
        .step_by(step)
        .map(|i| trigram_slot(token[i], token[i + 1], token[i + 2]) as u16)
        .collect()
}

/// [`normalize`] into a reusable buffer; borrows `s` when it is already normalized ASCII.
/// [`normalize`] into a reused buffer (no allocation per field for ASCII text).
pub(super) fn normalize_in<'a>(s: &'a str, buf: &'a mut String) -> &'a str {
    if s.is_ascii() {
        if !s.bytes().any(|b| b.is_ascii_uppercase()) {
            return s;
        }
        buf.clear();
        buf.push_str(s);
        buf.make_ascii_lowercase();
        return buf;
    }
    *buf = normalize(s).into_owned();
    buf
}

/// The best `limit` documents for `query`, as indexes into `docs` with scores.
pub fn rank_lexical(query: &str, docs: &[ScannedDoc], limit: usize) -> Vec<Ranked> {
    LexicalQuery::new(query).rank(docs, Some(limit))
}

/// Every document matching `query`, best first (model preselection wants all hits).
pub fn rank_lexical_all(query: &str, docs: &[ScannedDoc]) -> Vec<Ranked> {
    LexicalQuery::new(query).rank(docs, None)
}

#[cfg(test)]
mod tests {

    proptest::proptest! {
        #[test]
        fn ascii_fast_path_equals_the_regex(q in "[ -~]{0,80}") {
            let normalized = normalize(&q);
            let by_regex: Vec<String> = {
                let mut w = TokenWindows::new();
                for m in token_regex().find_iter(&normalized) {
                    w.push(m.as_str());
                }
                w.into_tokens()
            };
            proptest::prop_assert_eq!(tokenize(&q), by_regex);
        }
    }
    use std::path::PathBuf;

    use super::*;
    use crate::storage::scan::Scope;

    fn doc(t: MemoryType, rel: &str, title: &str, description: &str, body: &str) -> ScannedDoc {
        doc_at(t, rel, title, description, body, 1_000.0)
    }

    fn doc_at(
        t: MemoryType,
        rel: &str,
        title: &str,
        description: &str,
        body: &str,
        mtime_ms: f64,
    ) -> ScannedDoc {
        ScannedDoc {
            scope: Scope::Private,
            memory_type: t,
            path: PathBuf::from("/mem").join(rel),
            relative_path: rel.to_string(),
            title: title.to_string(),
            description: description.to_string(),
            body: body.to_string(),
            mtime_ms,
            extra: Vec::new(),
        }
    }

    fn selected<'a>(query: &str, docs: &'a [ScannedDoc]) -> Vec<&'a str> {
        rank_lexical(query, docs, 5)
            .into_iter()
            .map(|r| docs[r.index].relative_path.as_str())
            .collect()
    }

    fn toks(query: &str) -> Vec<String> {
        tokenize(query)
    }

    /// A small mixed corpus without incidental substrings like "the" in other docs.
    fn eval_docs() -> Vec<ScannedDoc> {
        vec![
            doc(
                MemoryType::User,
                "user/terse.md",
                "Terse answers",
                "User wants short replies",
                "Keep replies short.",
            ),
            doc(
                MemoryType::Feedback,
                "feedback/tests.md",
                "Run unit tests first",
                "Before pushing run cargo test",
                "Run cargo test before every push.",
            ),
            doc(
                MemoryType::Project,
                "project/freeze.md",
                "Release freeze",
                "No merges during freeze week",
                "Freeze starts Monday.",
            ),
            doc(
                MemoryType::Reference,
                "reference/latency.md",
                "Latency dashboard",
                "Grafana board for API latency",
                "https://grafana.example/d/latency",
            ),
        ]
    }

    // ---- "Recall / tokenizer / scoring" ----

    #[test]
    fn latency_dashboard_query_selects_reference_doc_and_unrelated_selects_nothing() {
        let docs = eval_docs();
        assert_eq!(
            selected("check the latency dashboard", &docs),
            ["reference/latency.md"]
        );
        assert!(selected("unrelated weather", &docs).is_empty());
    }

    #[test]
    fn empty_whitespace_and_unrelated_queries_select_nothing() {
        let docs = eval_docs();
        for q in ["", "   ", "\t\n ", "zzqx wvvk"] {
            assert!(selected(q, &docs).is_empty(), "query {q:?}");
        }
        assert!(toks("").is_empty());
        assert!(toks(" \u{3000}\t").is_empty());
    }

    #[test]
    fn punctuation_only_query_has_no_tokens() {
        assert!(toks("!!! ... --- ??? ___ ***").is_empty());
        assert!(selected("?!", &eval_docs()).is_empty());
    }

    #[test]
    fn cjk_title_and_description_queries_hit_via_bigrams() {
        let docs = vec![
            doc(MemoryType::Project, "project/zh.md", "部署流程", "", ""),
            doc(
                MemoryType::Project,
                "project/ja.md",
                "メモ",
                "認証の設定手順",
                "",
            ),
            doc(MemoryType::Project, "project/ko.md", "배포 절차", "", ""),
        ];
        assert_eq!(selected("部署", &docs), ["project/zh.md"]);
        assert_eq!(selected("認証について", &docs), ["project/ja.md"]);
        assert_eq!(selected("배포", &docs), ["project/ko.md"]);
        assert_eq!(toks("部署流程"), ["部署", "署流", "流程"]);
    }

    #[test]
    fn single_cjk_char_queries_select_nothing() {
        let docs = vec![
            doc(MemoryType::Project, "project/zh.md", "部署流程", "", ""),
            doc(MemoryType::Project, "project/ja.md", "認証", "", ""),
            doc(MemoryType::Project, "project/ko.md", "배포", "", ""),
        ];
        for q in ["部", "認", "배", "部 認 배"] {
            assert!(toks(q).is_empty(), "query {q:?}");
            assert!(selected(q, &docs).is_empty(), "query {q:?}");
        }
    }

    #[test]
    fn katakana_prolonged_sound_mark_query_matches() {
        assert_eq!(toks("ユーザー"), ["ユー", "ーザ", "ザー"]);
        let docs = vec![
            doc(MemoryType::User, "user/ja.md", "ユーザー設定", "", ""),
            doc(MemoryType::User, "user/other.md", "ザ", "", ""),
        ];
        assert_eq!(selected("ユーザー", &docs), ["user/ja.md"]);
    }

    #[test]
    fn cjk_punctuation_joins_cjk_runs() {
        // 、 and 。 are Katakana by script extensions, so they continue the run.
        assert_eq!(toks("設定、確認"), ["設定", "定、", "、確", "確認"]);
        assert_eq!(toks("「あ」"), ["「あ", "あ」"]);
    }

    #[test]
    fn hiragana_only_query_matches_its_doc() {
        let docs = vec![
            doc(
                MemoryType::Reference,
                "reference/faq.md",
                "よくあるしつもん",
                "",
                "",
            ),
            doc(MemoryType::Reference, "reference/x.md", "Other", "", ""),
        ];
        assert_eq!(selected("よくあるしつもん", &docs), ["reference/faq.md"]);
    }

    #[test]
    fn full_width_forms_match_ascii_after_nfkc() {
        assert_eq!(toks("ＱＷＥＮ ＡＰＩ"), ["qwen", "api"]);
        let docs = vec![
            doc(MemoryType::Reference, "reference/api.md", "ＡＰＩ", "", ""),
            doc(
                MemoryType::Project,
                "project/deploy.md",
                "Production deployment",
                "",
                "",
            ),
            doc(
                MemoryType::Project,
                "project/qwen.md",
                "Qwen models",
                "",
                "",
            ),
        ];
        assert_eq!(selected("API", &docs), ["reference/api.md"]);
        assert_eq!(
            selected("ＰＲＯＤＵＣＴＩＯＮ deployment", &docs),
            ["project/deploy.md"]
        );
        assert_eq!(
            selected("ＱＷＥＮ ＡＰＩ", &docs),
            ["reference/api.md", "project/qwen.md"]
        );
    }

    #[test]
    fn cyrillic_greek_accented_words_match_and_two_letter_words_do_not() {
        assert_eq!(toks("Развертывание"), ["развертывание"]);
        assert_eq!(toks("ΑΝΆΠΤΥΞΗ"), ["ανάπτυξη"]);
        assert_eq!(toks("Déploiement"), ["déploiement"]);
        assert!(toks("до").is_empty());
        assert!(toks("go").is_empty());
        assert!(toks("до go").is_empty());
        let docs = vec![
            doc(
                MemoryType::Project,
                "project/ru.md",
                "Развертывание сервиса",
                "",
                "",
            ),
            doc(MemoryType::Project, "project/el.md", "Ανάπτυξη", "", ""),
            doc(MemoryType::Project, "project/fr.md", "Déploiement", "", ""),
            doc(MemoryType::Project, "project/go.md", "до go", "", ""),
        ];
        assert_eq!(selected("развертывание", &docs), ["project/ru.md"]);
        assert_eq!(selected("ανάπτυξη", &docs), ["project/el.md"]);
        assert_eq!(selected("DÉPLOIEMENT", &docs), ["project/fr.md"]);
        assert!(selected("до go", &docs).is_empty());
    }

    #[test]
    fn decomposed_accents_compose_under_nfkc() {
        // "e" + combining acute composes to "é", so both spellings give one token.
        assert_eq!(toks("De\u{301}ploiement"), ["déploiement"]);
    }

    #[test]
    fn abc_kanji_query_matches_latin_and_cjk_docs_in_input_order() {
        assert_eq!(toks("abc漢字"), ["abc", "漢字"]);
        let docs = vec![
            doc(MemoryType::Project, "project/abc.md", "abc", "", ""),
            doc(MemoryType::Project, "project/kanji.md", "漢字", "", ""),
        ];
        assert_eq!(
            selected("abc漢字", &docs),
            ["project/abc.md", "project/kanji.md"]
        );
    }

    #[test]
    fn title_and_description_hits_outrank_body_hits() {
        let docs = vec![
            doc(
                MemoryType::Project,
                "project/body.md",
                "Monitoring",
                "Where graphs live",
                "See latency dashboard in grafana.",
            ),
            doc(
                MemoryType::Project,
                "project/desc.md",
                "Graphs",
                "Latency dashboard link",
                "",
            ),
            doc(
                MemoryType::Project,
                "project/title.md",
                "Latency dashboard",
                "",
                "",
            ),
        ];
        assert_eq!(
            selected("latency dashboard", &docs),
            ["project/title.md", "project/desc.md", "project/body.md"]
        );
        let ranked = rank_lexical("latency dashboard", &docs, 5);
        assert_eq!(
            ranked.iter().map(|r| r.score).collect::<Vec<_>>(),
            [8, 6, 2]
        );
    }

    #[test]
    fn type_boost_only_after_a_lexical_hit() {
        let docs = vec![
            doc(
                MemoryType::Feedback,
                "feedback/cadence.md",
                "Review cadence",
                "",
                "",
            ),
            doc(
                MemoryType::User,
                "user/cadence.md",
                "Review cadence",
                "",
                "",
            ),
        ];
        assert_eq!(
            selected("cadence preference", &docs),
            ["user/cadence.md", "feedback/cadence.md"]
        );
        let ranked = rank_lexical("cadence preference", &docs, 5);
        assert_eq!(ranked[0].score, 5);
        assert_eq!(ranked[1].score, 4);
        assert!(selected("preference", &docs).is_empty());
    }

    #[test]
    fn type_boost_is_capped_at_two() {
        let docs = vec![doc(MemoryType::User, "user/a.md", "cadence", "", "")];
        let ranked = rank_lexical("cadence user preference preferences role terse", &docs, 5);
        assert_eq!(ranked[0].score, 4 + 2);
    }

    #[test]
    fn ties_broken_by_mtime_desc_never_by_type_then_input_order() {
        let docs = vec![
            doc_at(
                MemoryType::Project,
                "project/old.md",
                "Deploy notes",
                "",
                "",
                1_000.0,
            ),
            doc_at(
                MemoryType::Feedback,
                "feedback/mid.md",
                "Deploy notes",
                "",
                "",
                2_000.0,
            ),
            doc_at(
                MemoryType::User,
                "user/new.md",
                "Deploy notes",
                "",
                "",
                3_000.0,
            ),
        ];
        assert_eq!(
            selected("deploy", &docs),
            ["user/new.md", "feedback/mid.md", "project/old.md"]
        );
        let same = vec![
            doc_at(
                MemoryType::Project,
                "project/a.md",
                "Deploy notes",
                "",
                "",
                5.0,
            ),
            doc_at(MemoryType::User, "user/a.md", "Deploy notes", "", "", 5.0),
        ];
        assert_eq!(selected("deploy", &same), ["project/a.md", "user/a.md"]);
    }

    #[test]
    fn long_query_keeps_first_32_and_last_32_unique_tokens() {
        // 32 head words, a CJK bigram in the middle, then 40 more words: the bigram and the
        // first 8 of the later words fall out of the rolling tail.
        let head: Vec<String> = (0..32).map(|i| format!("head{i:02}")).collect();
        let tail: Vec<String> = (0..40).map(|i| format!("tail{i:02}")).collect();
        let query = format!("{} 漢字 {}", head.join(" "), tail.join(" "));
        let tokens = toks(&query);
        assert_eq!(tokens.len(), 64);
        assert_eq!(&tokens[..32], head.as_slice());
        assert_eq!(&tokens[32..], &tail[8..]);
        assert!(!tokens.iter().any(|t| t == "漢字"));

        let docs = vec![doc(MemoryType::Project, "project/k.md", "漢字", "", "")];
        assert!(selected(&query, &docs).is_empty());
    }

    #[test]
    fn repeated_token_near_the_tail_is_refreshed() {
        // tail00 is repeated at the end, so it moves to the newest slot and survives eviction.
        let head: Vec<String> = (0..32).map(|i| format!("head{i:02}")).collect();
        let tail: Vec<String> = (0..32).map(|i| format!("tail{i:02}")).collect();
        let query = format!("{} {} tail00 extra", head.join(" "), tail.join(" "));
        let tokens = toks(&query);
        assert_eq!(tokens.len(), 64);
        let mut expected_tail: Vec<String> = tail[1..].to_vec();
        expected_tail.push("tail00".into());
        expected_tail.push("extra".into());
        // tail01 was the oldest after the refresh and got evicted by "extra".
        expected_tail.remove(0);
        assert_eq!(&tokens[32..], expected_tail.as_slice());
        // A repeat of a head token changes nothing.
        assert_eq!(toks("alpha beta alpha"), ["alpha", "beta"]);
    }

    #[test]
    fn body_text_beyond_first_1200_chars_never_scores() {
        let body = format!("{} late marker", "x".repeat(1200));
        let docs = vec![doc(
            MemoryType::Project,
            "project/long.md",
            "Notes",
            "",
            &body,
        )];
        assert!(selected("late marker", &docs).is_empty());
        let inside = format!("{} late marker", "x".repeat(1180));
        let docs = vec![doc(
            MemoryType::Project,
            "project/long.md",
            "Notes",
            "",
            &inside,
        )];
        assert_eq!(selected("late marker", &docs), ["project/long.md"]);
    }

    #[test]
    fn body_window_counts_utf16_units() {
        // 600 astral characters fill the whole 1200-unit window.
        let body = format!("{}marker", "😀".repeat(600));
        let docs = vec![doc(MemoryType::Project, "project/e.md", "Notes", "", &body)];
        assert!(selected("marker", &docs).is_empty());
        let body = format!("{}marker", "😀".repeat(597));
        let docs = vec![doc(MemoryType::Project, "project/e.md", "Notes", "", &body)];
        assert_eq!(selected("marker", &docs), ["project/e.md"]);
    }

    #[test]
    fn no_entries_placeholder_body_counts_as_empty() {
        let docs = vec![doc(
            MemoryType::Project,
            "project/empty.md",
            "Notes",
            "",
            "_No entries yet._",
        )];
        assert!(selected("entries", &docs).is_empty());
        assert!(selected("yet._", &docs).is_empty());
    }

    // ---- further behaviour ----

    #[test]
    fn substring_match_not_token_equality() {
        let docs = vec![doc(
            MemoryType::Project,
            "project/o.md",
            "Service ownership",
            "",
            "",
        )];
        assert_eq!(selected("owner", &docs), ["project/o.md"]);
    }

    #[test]
    fn scores_add_across_fields() {
        let docs = vec![doc(
            MemoryType::Project,
            "project/all.md",
            "Cache",
            "cache layer",
            "cache config",
        )];
        assert_eq!(rank_lexical("cache", &docs, 5)[0].score, 4 + 3 + 1);
    }

    #[test]
    fn mixed_scripts_tokenize_in_order() {
        assert_eq!(
            toks("Deploy デプロイ手順 к продакшену, v2 API_KEY"),
            [
                "deploy",
                "デプ",
                "プロ",
                "ロイ",
                "イ手",
                "手順",
                "продакшену",
                "api",
                "key"
            ]
        );
        // Numbers start tokens; marks continue but never start one.
        assert_eq!(toks("2024 \u{301}abc"), ["2024", "abc"]);
        // Devanagari: vowel signs are marks inside the word.
        assert_eq!(toks("हिन्दी"), ["हिन्दी"]);
        // Thai has no spaces: one long token.
        assert_eq!(toks("ภาษาไทย"), ["ภาษาไทย"]);
    }

    #[test]
    fn final_sigma_lowercases_like_javascript() {
        assert_eq!(toks("ΟΔΟΣ"), ["οδο\u{3c2}"]);
        assert_eq!(toks("ΣΟΣ ΑΣΑ"), ["σο\u{3c2}", "ασα"]);
    }

    #[test]
    fn limit_and_all_hits() {
        let docs: Vec<ScannedDoc> = (0..10)
            .map(|i| {
                doc_at(
                    MemoryType::Project,
                    &format!("project/{i}.md"),
                    "Deploy",
                    "",
                    "",
                    f64::from(i),
                )
            })
            .collect();
        assert_eq!(rank_lexical("deploy", &docs, 3).len(), 3);
        assert!(rank_lexical("deploy", &docs, 0).is_empty());
        let all = rank_lexical_all("deploy", &docs);
        assert_eq!(all.len(), 10);
        assert_eq!(all[0].index, 9);
        assert_eq!(all[9].index, 0);
    }

    #[test]
    fn large_inputs_rank_the_same_as_sequential_scoring() {
        // Enough documents for the threaded path; its result must equal a plain sort.
        let docs: Vec<ScannedDoc> = (0..PARALLEL_MIN_DOCS * 2 + 17)
            .map(|i| {
                let title = match i % 3 {
                    0 => "Deploy notes",
                    1 => "Deploy rollback runbook",
                    _ => "Unrelated",
                };
                doc_at(
                    MemoryType::ALL[i % 4],
                    &format!("project/{i}.md"),
                    title,
                    if i % 5 == 0 { "rollback steps" } else { "" },
                    "",
                    f64::from((i % 7) as u32),
                )
            })
            .collect();
        let query = LexicalQuery::new("deploy rollback");
        let all = query.rank(&docs, None);
        let mut expected: Vec<Ranked> = docs
            .iter()
            .enumerate()
            .filter_map(|(index, d)| {
                let score = query.score(d);
                (score > 0).then_some(Ranked { index, score })
            })
            .collect();
        expected.sort_by(|a, b| {
            b.score
                .cmp(&a.score)
                .then_with(|| docs[b.index].mtime_ms.total_cmp(&docs[a.index].mtime_ms))
        });
        assert_eq!(all, expected);
        assert!(all.len() > PARALLEL_MIN_DOCS);
    }

    #[test]
    fn long_queries_use_the_trigram_filter_without_changing_scores() {
        // 20 tokens switch to the filtered path; scores must match one-token-at-a-time sums.
        let words = [
            "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
            "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
            "sierra", "tango",
        ];
        let query = LexicalQuery::new(&words.join(" "));
        assert!(query.tokens().len() >= TRIGRAM_FILTER_MIN_TOKENS);
        let docs = vec![
            doc(
                MemoryType::Project,
                "p/a.md",
                "Alpha and Tango",
                "kilo lima",
                "mike oscars golfer",
            ),
            doc(
                MemoryType::Project,
                "p/b.md",
                "部署 romeo",
                "",
                &format!("{}sierra", "z".repeat(1195)),
            ),
            doc(MemoryType::Project, "p/c.md", "nothing here", "", ""),
        ];
        for d in &docs {
            let expected: u32 = words.iter().map(|w| LexicalQuery::new(w).score(d)).sum();
            assert_eq!(query.score(d), expected, "{}", d.relative_path);
        }
        assert_eq!(query.score(&docs[0]), 4 * 2 + 3 * 2 + 3);
        assert_eq!(query.score(&docs[1]), 4);
    }

    proptest::proptest! {
        #[test]
        fn trigram_filter_never_changes_a_score(
            words in proptest::collection::vec("[a-dé漢字]{1,5}", 1..24),
            title in "[a-dé漢字 ]{0,30}",
            description in "[a-dé漢字 ]{0,60}",
            body in "[a-dé漢字 \n]{0,400}",
        ) {
            let tokens = tokenize(&words.join(" "));
            let plain = LexicalQuery::from_tokens(tokens.clone(), false);
            let filtered = LexicalQuery::from_tokens(tokens, true);
            let d = doc(MemoryType::Project, "p/x.md", &title, &description, &body);
            proptest::prop_assert_eq!(plain.score(&d), filtered.score(&d));
        }

        #[test]
        fn tokens_are_unique_bounded_and_nonempty(query in "\\PC{0,300}") {
            let tokens = tokenize(&query);
            proptest::prop_assert!(tokens.len() <= MAX_QUERY_TOKENS);
            let unique: std::collections::HashSet<&String> = tokens.iter().collect();
            proptest::prop_assert_eq!(unique.len(), tokens.len());
            for t in &tokens {
                proptest::prop_assert!(t.chars().count() >= 2);
                proptest::prop_assert!(t.len() >= 3);
            }
        }
    }

    #[test]
    fn nan_mtime_sorts_last_without_panicking() {
        let docs = vec![
            doc_at(
                MemoryType::Project,
                "project/nan.md",
                "Deploy",
                "",
                "",
                f64::NAN,
            ),
            doc_at(MemoryType::Project, "project/one.md", "Deploy", "", "", 1.0),
        ];
        assert_eq!(
            selected("deploy", &docs),
            ["project/one.md", "project/nan.md"]
        );
    }

    #[test]
    fn huge_query_is_linear_and_bounded() {
        // About 1 MB each of Latin words, CJK text and one unbroken letter run.
        let words: String = (0..120_000).map(|i| format!("w{i} ")).collect();
        let cjk: String = "漢字仮名交じり文ユーザー".repeat(30_000);
        let run = "a".repeat(1 << 20);
        for q in [words.as_str(), cjk.as_str(), run.as_str()] {
            let tokens = toks(q);
            assert!(!tokens.is_empty() && tokens.len() <= MAX_QUERY_TOKENS);
        }
        assert_eq!(toks(&run), std::slice::from_ref(&run));
        let docs = eval_docs();
        assert!(selected(&words, &docs).is_empty());
    }

    #[test]
    fn utf16_prefix_agrees_with_truncate_utf16() {
        let samples = [
            "plain ascii text".repeat(100),
            format!("{}é漢😀x", "a".repeat(1195)),
            "😀".repeat(700),
            format!("{}😀tail", "a".repeat(1199)),
            "ß漢字ユーザー😀".repeat(200),
            String::new(),
        ];
        for s in &samples {
            for max in [0, 1, 2, 3, 1199, 1200, 1201] {
                assert_eq!(utf16_prefix(s, max), truncate_utf16(s, max), "max {max}");
            }
        }
    }

    #[test]
    fn normalize_borrows_lowercase_ascii() {
        assert!(matches!(normalize("plain text"), Cow::Borrowed(_)));
        assert_eq!(normalize("MiXed"), "mixed");
        assert_eq!(normalize("ＡＢＣ"), "abc");
        assert_eq!(normalize("Ä"), "ä");
    }
}
