//! The heuristic's pattern type: a `regex-lite` pattern that is built only when a haystack
//! could match it (docs/DESIGN.md, "Extract", pattern engine).
//!
//! Building a pattern is most of what a short `extract` process pays for its rules, and most
//! patterns a sentence reaches cannot match it: they need a word the sentence does not have.
//! [`Regex::new`] reads from the pattern text the literals one of which every match must
//! contain (ASCII case folded, so the answer holds with and without `(?i)`, whose folding in
//! `regex-lite` is ASCII only) and a search first checks that one of them occurs in the
//! haystack. Only then is the automaton built (once, on first need) and run. Where the
//! reading finds no such literal, or meets syntax it does not model, the pattern is built on
//! first use as before: the check only ever skips a search that could not match.

use std::borrow::Cow;
use std::sync::OnceLock;

/// A lazily built `regex-lite` pattern with a literal prefilter; the subset of
/// `regex_lite::Regex`'s API the rules use, with the same results.
pub(crate) struct Regex {
    pattern: Box<str>,
    /// Lowercase literals one of which every match contains; empty: no known requirement.
    needs: Box<[Box<[u8]>]>,
    /// Lowercase strings one of which the haystack must open with ([`required_starts`]; empty:
    /// no known requirement).
    starts: Box<[Box<[u8]>]>,
    built: OnceLock<regex_lite::Regex>,
}

impl std::fmt::Debug for Regex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Regex").field(&self.pattern).finish()
    }
}

impl Regex {
    /// A pattern of the rules (static text: an invalid one panics when first built, which the
    /// crate's tests reach for every pattern they exercise).
    pub(crate) fn new(pattern: &str) -> Regex {
        // Read once, at development time (docs/DESIGN.md, "Pattern engine"): a process pays a
        // binary search instead of the reading; a pattern without an entry is read here.
        let (read, read_starts);
        let (literals, starts): (Vec<&str>, Vec<&str>) = match literal_table_entry(pattern) {
            Some((literals, starts)) => {
                #[cfg(debug_assertions)]
                assert!(
                    required_literals(pattern).unwrap_or_default() == literals
                        && required_starts(pattern).unwrap_or_default() == starts,
                    "stale entry of heuristic/literals.rs for {pattern:?}: run `cargo run --example extract_literals`"
                );
                (literals.to_vec(), starts.to_vec())
            }
            None => {
                read = required_literals(pattern).unwrap_or_default();
                read_starts = required_starts(pattern).unwrap_or_default();
                (
                    read.iter().map(String::as_str).collect(),
                    read_starts.iter().map(String::as_str).collect(),
                )
            }
        };
        let bytes = |v: Vec<&str>| v.into_iter().map(|s| Box::from(s.as_bytes())).collect();
        let (needs, starts) = (bytes(literals), bytes(starts));
        #[cfg(debug_assertions)]
        record(pattern);
        let regex = Regex {
            pattern: pattern.into(),
            needs,
            starts,
            built: OnceLock::new(),
        };
        // Debug builds (the tests) check every pattern a rule reaches at once, as before the
        // prefilter: a pattern with a syntax error fails the first test that reaches its rule,
        // not a user's sentence that happens to hold its literal. (Checked, not kept: what is
        // built stays lazy, as in release.)
        #[cfg(debug_assertions)]
        if let Err(e) = regex_lite::Regex::new(&regex.pattern) {
            panic!("invalid rule pattern {:?}: {e}", regex.pattern);
        }
        regex
    }

    /// Whether the haystack holds one of the literals every match needs (always true when
    /// none is known).
    pub(crate) fn may_match(&self, haystack: &str) -> bool {
        if !(self.needs.is_empty()
            || Grams::with(haystack, |g| self.needs.iter().any(|n| g.holds(n))))
        {
            return false;
        }
        let opens = self.may_open(haystack);
        // Debug builds (every test that runs the rules) check that the opening words rule out
        // only haystacks the pattern does not match.
        #[cfg(debug_assertions)]
        if !opens {
            static CHECK: std::sync::Mutex<Vec<(String, regex_lite::Regex)>> =
                std::sync::Mutex::new(Vec::new());
            let mut built = CHECK.lock().unwrap_or_else(|e| e.into_inner());
            let at = match built.iter().position(|(p, _)| **p == *self.pattern) {
                Some(at) => at,
                None => {
                    let r = regex_lite::Regex::new(&self.pattern).expect("static regex");
                    built.push((self.pattern.to_string(), r));
                    built.len() - 1
                }
            };
            assert!(
                !built[at].1.is_match(haystack),
                "the opening words of {:?} ruled out {haystack:?}, which it matches",
                self.pattern
            );
        }
        opens
    }

    /// Whether the haystack opens with one of the strings every match opens with (always true
    /// when none is known).
    fn may_open(&self, haystack: &str) -> bool {
        let h = haystack.as_bytes();
        self.starts.is_empty()
            || self
                .starts
                .iter()
                .any(|s| h.len() >= s.len() && h[..s.len()].eq_ignore_ascii_case(s))
    }

    fn engine(&self) -> &regex_lite::Regex {
        self.built
            .get_or_init(|| regex_lite::Regex::new(&self.pattern).expect("static regex"))
    }

    /// The engine, when the haystack may match.
    fn for_haystack(&self, haystack: &str) -> Option<&regex_lite::Regex> {
        self.may_match(haystack).then(|| self.engine())
    }

    pub(crate) fn is_match(&self, haystack: &str) -> bool {
        self.for_haystack(haystack)
            .is_some_and(|r| r.is_match(haystack))
    }

    pub(crate) fn find<'h>(&self, haystack: &'h str) -> Option<regex_lite::Match<'h>> {
        self.for_haystack(haystack)?.find(haystack)
    }

    pub(crate) fn find_iter<'r, 'h>(
        &'r self,
        haystack: &'h str,
    ) -> impl Iterator<Item = regex_lite::Match<'h>> + use<'r, 'h> {
        self.for_haystack(haystack)
            .into_iter()
            .flat_map(move |r| r.find_iter(haystack))
    }

    pub(crate) fn captures<'h>(&self, haystack: &'h str) -> Option<regex_lite::Captures<'h>> {
        self.for_haystack(haystack)?.captures(haystack)
    }

    pub(crate) fn captures_iter<'r, 'h>(
        &'r self,
        haystack: &'h str,
    ) -> impl Iterator<Item = regex_lite::Captures<'h>> + use<'r, 'h> {
        self.for_haystack(haystack)
            .into_iter()
            .flat_map(move |r| r.captures_iter(haystack))
    }

    pub(crate) fn replace<'h, R: regex_lite::Replacer>(
        &self,
        haystack: &'h str,
        rep: R,
    ) -> Cow<'h, str> {
        match self.for_haystack(haystack) {
            Some(r) => r.replace(haystack, rep),
            None => Cow::Borrowed(haystack),
        }
    }

    pub(crate) fn replace_all<'h, R: regex_lite::Replacer>(
        &self,
        haystack: &'h str,
        rep: R,
    ) -> Cow<'h, str> {
        match self.for_haystack(haystack) {
            Some(r) => r.replace_all(haystack, rep),
            None => Cow::Borrowed(haystack),
        }
    }

    /// Whether the automaton has been built (tests and measurements).
    #[cfg(test)]
    pub(crate) fn is_built(&self) -> bool {
        self.built.get().is_some()
    }
}

/// The byte pairs of the last haystack looked at (ASCII folded, hashed to 4,096 bits) and its
/// bytes: most literals are ruled out by one pair missing, without a search. The rules ask
/// many patterns about one sentence in a row, so the table is kept for the next question.
struct Grams {
    text: Vec<u8>,
    single: [u64; 4],
    pairs: [u64; 64],
}

impl Grams {
    fn with<T>(haystack: &str, f: impl FnOnce(&Grams) -> T) -> T {
        thread_local! {
            static LAST: std::cell::RefCell<Grams> = const {
                std::cell::RefCell::new(Grams { text: Vec::new(), single: [0; 4], pairs: [0; 64] })
            };
        }
        LAST.with(|cell| {
            let mut g = cell.borrow_mut();
            if g.text != haystack.as_bytes() {
                g.fill(haystack.as_bytes());
            }
            f(&g)
        })
    }

    fn fill(&mut self, text: &[u8]) {
        self.text.clear();
        self.text.extend_from_slice(text);
        self.single = [0; 4];
        self.pairs = [0; 64];
        let mut prev: Option<u8> = None;
        for &b in text {
            let b = b.to_ascii_lowercase();
            self.single[usize::from(b >> 6)] |= 1 << (b & 63);
            if let Some(a) = prev {
                let h = pair_hash(a, b);
                self.pairs[h >> 6] |= 1 << (h & 63);
            }
            prev = Some(b);
        }
    }

    /// Whether the text holds `needle` (lowercase), ASCII case folded.
    fn holds(&self, needle: &[u8]) -> bool {
        match needle {
            [] => true,
            [b] => self.single[usize::from(b >> 6)] & (1 << (b & 63)) != 0,
            _ => {
                needle.windows(2).all(|w| {
                    let h = pair_hash(w[0], w[1]);
                    self.pairs[h >> 6] & (1 << (h & 63)) != 0
                }) && contains_ignore_ascii_case(&self.text, needle)
            }
        }
    }
}

fn pair_hash(a: u8, b: u8) -> usize {
    (usize::from(a) * 31 + usize::from(b) * 7 + (usize::from(a) << 4)) & 4095
}

fn contains_ignore_ascii_case(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    if haystack.len() < needle.len() {
        return false;
    }
    let upper = first.to_ascii_uppercase();
    (0..=haystack.len() - needle.len()).any(|i| {
        let b = haystack[i];
        (b == first || b == upper) && haystack[i + 1..i + needle.len()].eq_ignore_ascii_case(rest)
    })
}

/// The committed literals and opening words of a pattern (`literals.rs`, generated), if it
/// has an entry.
fn literal_table_entry(
    pattern: &str,
) -> Option<(&'static [&'static str], &'static [&'static str])> {
    let table = super::literals::TABLE;
    table
        .binary_search_by(|(p, _, _)| (*p).cmp(pattern))
        .ok()
        .map(|i| (table[i].1, table[i].2))
}

/// Every pattern built so far in this process (debug builds: what `literal_table` renders).
#[cfg(debug_assertions)]
static SEEN: std::sync::Mutex<std::collections::BTreeSet<String>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

#[cfg(debug_assertions)]
fn record(pattern: &str) {
    if let Ok(mut seen) = SEEN.lock() {
        seen.insert(pattern.to_string());
    }
}

/// Every rule pattern of the generated literal table (`heuristic/literals.rs`): what
/// `benches/pattern_engines.rs` builds with each regex engine to weigh their cost.
pub fn rule_patterns() -> Vec<&'static str> {
    super::literals::TABLE.iter().map(|(p, _, _)| *p).collect()
}

/// The source of `literals.rs` for every pattern built so far in this process and every entry
/// the committed table already has (debug builds; `examples/extract_literals.rs` runs the
/// extractor over the synthetic corpora first, so that every rule's patterns are reached).
/// Returns the text and how many of the patterns built had no entry.
#[cfg(debug_assertions)]
pub fn literal_table() -> (String, usize) {
    let mut all: std::collections::BTreeSet<String> =
        SEEN.lock().map(|s| s.clone()).unwrap_or_default();
    let missing = all
        .iter()
        .filter(|p| literal_table_entry(p).is_none())
        .count();
    all.extend(super::literals::TABLE.iter().map(|(p, _, _)| p.to_string()));
    let mut out = String::from(LITERALS_HEADER);
    let quoted = |v: Option<Vec<String>>| -> String {
        let v: Vec<String> = v
            .unwrap_or_default()
            .iter()
            .map(|l| format!("{l:?}"))
            .collect();
        v.join(", ")
    };
    for p in &all {
        let lits = quoted(required_literals(p));
        let starts = quoted(required_starts(p));
        out.push_str(&format!("    ({p:?}, &[{lits}], &[{starts}]),\n"));
    }
    out.push_str("];\n");
    (out, missing)
}

#[cfg(debug_assertions)]
const LITERALS_HEADER: &str = "\
//! Generated by `cargo run --example extract_literals`; do not edit. For each rule pattern
//! (sorted, as `binary_search` needs), the lowercase literals one of which every match
//! contains, as `required_literals` reads them, and the lowercase strings one of which every
//! match opens with, as `required_starts` reads them (empty: none known). `pattern::Regex::new`
//! looks a pattern up here instead of reading it in every process; a pattern without an entry
//! is read at run time, and debug builds check every entry they use against the reading
//! (docs/DESIGN.md, \"Pattern engine\").

#[rustfmt::skip]
pub(crate) static TABLE: &[(&str, &[&str], &[&str])] = &[
";

/// At most this many strings in one set the reading keeps (alternations, products of them).
const MAX_SET: usize = 64;

/// At most this many strings a pattern's opening words are ([`required_starts`]): a word list
/// of a hundred verbs is one set, checked by comparing a few bytes each.
const MAX_STARTS: usize = 512;

/// What a piece of a pattern can match, as far as the reading knows.
#[derive(Debug, Clone, Default)]
struct Info {
    /// Every string the piece can match, lowercased (`None`: not a small finite set).
    exact: Option<Vec<String>>,
    /// Literals one of which every match of the piece contains (`None`: none known).
    need: Option<Vec<String>>,
    /// When not `exact`: strings one of which every non-empty match of the piece starts with,
    /// lowercased, and `""` among them when the piece can match nothing (`None`: none known).
    starts: Option<Vec<String>>,
}

impl Info {
    fn exactly(s: Vec<String>) -> Info {
        Info {
            exact: Some(s),
            need: None,
            starts: None,
        }
    }

    fn empty() -> Info {
        Info::exactly(vec![String::new()])
    }

    fn unknown() -> Info {
        Info::default()
    }

    /// What every match of the piece starts with, in the sense of [`Info::starts`].
    fn starts(&self) -> Option<Vec<String>> {
        self.exact.clone().or_else(|| self.starts.clone())
    }

    /// The better requirement this piece gives on its own.
    fn requirement(&self) -> Option<&Vec<String>> {
        let e = self.exact.as_ref().filter(|c| score(c).is_some());
        let n = self.need.as_ref().filter(|c| score(c).is_some());
        match (e, n) {
            (Some(e), Some(n)) => Some(if score(n) > score(e) { n } else { e }),
            (e, n) => e.or(n),
        }
    }
}

/// How selective a requirement is: the longest shortest literal (up to 8 bytes), then the
/// fewest literals; `None` when it is no requirement (empty, or an empty literal).
fn score(c: &[String]) -> Option<(usize, std::cmp::Reverse<usize>)> {
    let shortest = c.iter().map(String::len).min()?;
    (shortest > 0).then_some((shortest.min(8), std::cmp::Reverse(c.len())))
}

/// Keeps the more selective of `best` and `candidate`.
fn offer(best: &mut Option<Vec<String>>, candidate: Vec<String>) {
    let Some(new) = score(&candidate) else {
        return;
    };
    if best.as_deref().and_then(score).is_none_or(|old| new > old) {
        *best = Some(candidate);
    }
}

/// The literals one of which every match of `pattern` contains, lowercased; `None` when the
/// reading finds none or meets syntax it does not model.
pub(crate) fn required_literals(pattern: &str) -> Option<Vec<String>> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut p = Parser { chars, at: 0 };
    let info = p.alternation()?;
    if p.at != p.chars.len() {
        return None;
    }
    let mut need = info.requirement()?.clone();
    need.sort();
    need.dedup();
    Some(need)
}

/// The strings one of which every match of `pattern` starts with, lowercased, when the pattern
/// is anchored at the start of the haystack (`^` first, no other top-level branch, no `m`
/// flag) and the reading knows them; `None` otherwise. "The pattern needs the sentence to
/// open with one of these words" rules out most sentences for a rule about how a statement
/// opens (`^(?:we|our …|the team|…) (?:use|…)`), which a literal anywhere in it does not.
pub(crate) fn required_starts(pattern: &str) -> Option<Vec<String>> {
    let body = pattern.strip_prefix("(?i)").unwrap_or(pattern);
    let body = body.strip_prefix('^')?;
    if body.contains("(?m") {
        return None;
    }
    let chars: Vec<char> = body.chars().collect();
    let mut p = Parser { chars, at: 0 };
    // One sequence: it stops at a top-level `|`, whose branch the `^` does not anchor.
    let info = p.concat()?;
    if p.at != p.chars.len() {
        return None;
    }
    let mut starts = info.starts()?;
    if starts.iter().any(String::is_empty) {
        return None;
    }
    starts.sort();
    starts.dedup();
    Some(starts)
}

/// One item of a sequence, for what a match of the sequence starts with.
enum Start {
    /// Every string the item can match.
    Exact(Vec<String>),
    /// [`Info::starts`] of an item that is not a small finite set.
    Open(Option<Vec<String>>),
}

impl Start {
    /// What a match of this item followed by a match of the rest starts with, given what a
    /// match of the rest starts with (`rest`, in the sense of [`Info::starts`]; `None`: not
    /// known, which matters only when this item can match nothing).
    fn before(self, rest: Option<Vec<String>>) -> Option<Vec<String>> {
        match (self, rest) {
            (Start::Exact(e), Some(rest)) if e.len() * rest.len() <= MAX_STARTS => Some(
                e.iter()
                    .flat_map(|a| rest.iter().map(move |r| format!("{a}{r}")))
                    .collect(),
            ),
            (Start::Exact(e), rest) => Start::Open(Some(e)).before(rest),
            (Start::Open(None), _) => None,
            (Start::Open(Some(mut t)), rest) => {
                if t.iter().any(String::is_empty) {
                    t.retain(|s| !s.is_empty());
                    t.extend(rest?);
                }
                (t.len() <= MAX_STARTS).then_some(t)
            }
        }
    }
}

/// A character that stands for itself outside a class.
fn is_plain(c: char) -> bool {
    !matches!(
        c,
        '(' | ')' | '[' | '\\' | '.' | '^' | '$' | '|' | '?' | '*' | '+' | '{'
    )
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn alternation(&mut self) -> Option<Info> {
        let first = self.concat()?;
        if self.peek() != Some('|') {
            return Some(first);
        }
        let mut exact = Some(Vec::new());
        let mut need = Some(Vec::new());
        let mut starts = Some(Vec::new());
        let mut branch = first;
        loop {
            match (starts.as_mut(), branch.starts()) {
                (Some(s), Some(b)) if s.len() + b.len() <= MAX_STARTS => s.extend(b),
                _ => starts = None,
            }
            match (need.as_mut(), branch.requirement()) {
                (Some(n), Some(r)) => n.extend_from_slice(r),
                _ => need = None,
            }
            match (exact.as_mut(), branch.exact) {
                (Some(e), Some(b)) if e.len() + b.len() <= MAX_SET => e.extend(b),
                _ => exact = None,
            }
            if self.peek() != Some('|') {
                break;
            }
            self.at += 1;
            branch = self.concat()?;
        }
        Some(Info {
            exact,
            need,
            starts,
        })
    }

    fn concat(&mut self) -> Option<Info> {
        let mut best: Option<Vec<String>> = None;
        // The product of the exact sets of the items read since the last break.
        let mut run: Option<Vec<String>> = Some(vec![String::new()]);
        let mut whole_exact = true;
        // The items in order, for what a match starts with (plain characters in a row are one).
        let mut items: Vec<Start> = Vec::new();
        let mut plain = String::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            // Fast paths (no allocation): a plain character or an assertion, unquantified.
            let quantifier = |at: usize| matches!(self.chars.get(at), Some('?' | '*' | '+' | '{'));
            if let Some(r) = run
                .as_mut()
                .filter(|_| is_plain(c) && !quantifier(self.at + 1))
            {
                let lower = c.to_ascii_lowercase();
                for s in r.iter_mut() {
                    s.push(lower);
                }
                plain.push(lower);
                self.at += 1;
                continue;
            }
            let assertion = match (c, self.chars.get(self.at + 1)) {
                ('^' | '$', _) => 1,
                ('\\', Some('b' | 'B' | 'A' | 'z')) => 2,
                _ => 0,
            };
            if assertion > 0 && !quantifier(self.at + assertion) {
                self.at += assertion;
                continue;
            }
            if !plain.is_empty() {
                items.push(Start::Exact(vec![std::mem::take(&mut plain)]));
            }
            let info = self.quantified()?;
            items.push(match &info.exact {
                Some(e) => Start::Exact(e.clone()),
                None => Start::Open(info.starts.clone()),
            });
            let Info { exact, need, .. } = info;
            if let Some(n) = need {
                offer(&mut best, n);
            }
            match (run.as_mut(), exact) {
                (Some(r), Some(e)) if e.len() == 1 => {
                    for s in r.iter_mut() {
                        s.push_str(&e[0]);
                    }
                }
                (Some(r), Some(e)) if r.len() * e.len() <= MAX_SET => {
                    let mut next = Vec::with_capacity(r.len() * e.len());
                    for a in r.iter() {
                        for b in &e {
                            let mut s = String::with_capacity(a.len() + b.len());
                            s.push_str(a);
                            s.push_str(b);
                            next.push(s);
                        }
                    }
                    run = Some(next);
                }
                (_, e) => {
                    whole_exact = false;
                    if let Some(r) = run.take() {
                        offer(&mut best, r);
                    }
                    run = e;
                }
            }
        }
        if whole_exact {
            return Some(Info::exactly(run.unwrap_or_default()));
        }
        if let Some(r) = run {
            offer(&mut best, r);
        }
        if !plain.is_empty() {
            items.push(Start::Exact(vec![plain]));
        }
        // Not a `try_fold`: an unknown rest is no matter after an item that cannot be empty.
        let mut starts = Some(vec![String::new()]);
        for item in items.into_iter().rev() {
            starts = item.before(starts);
        }
        Some(Info {
            exact: None,
            need: best,
            starts,
        })
    }

    fn quantified(&mut self) -> Option<Info> {
        let atom = self.atom()?;
        let (min, max) = match self.peek() {
            Some('?') => {
                self.at += 1;
                (0, Some(1))
            }
            Some('*') => {
                self.at += 1;
                (0, None)
            }
            Some('+') => {
                self.at += 1;
                (1, None)
            }
            Some('{') => self.counted()?,
            _ => return Some(atom),
        };
        // A lazy quantifier matches the same strings.
        if self.peek() == Some('?') {
            self.at += 1;
        }
        if matches!(self.peek(), Some('?' | '*' | '+' | '{')) {
            return None;
        }
        // A match of the quantified piece starts as the atom's first match does; with no
        // repetition required it can also be empty.
        let starts = atom.starts().map(|mut s| {
            if min == 0 {
                s.push(String::new());
            }
            s
        });
        Some(match (min, max) {
            (1, Some(1)) => atom,
            (0, Some(1)) => match atom.exact {
                Some(mut e) if e.len() < MAX_SET => {
                    e.push(String::new());
                    Info::exactly(e)
                }
                _ => Info {
                    starts,
                    ..Info::unknown()
                },
            },
            (0, _) => Info {
                starts,
                ..Info::unknown()
            },
            _ => Info {
                exact: None,
                need: atom.requirement().cloned(),
                starts,
            },
        })
    }

    /// `{n}`, `{n,}`, `{n,m}`.
    fn counted(&mut self) -> Option<(u32, Option<u32>)> {
        let close = self.chars[self.at..].iter().position(|&c| c == '}')? + self.at;
        let body: String = self.chars[self.at + 1..close].iter().collect();
        self.at = close + 1;
        let (lo, hi) = match body.split_once(',') {
            None => {
                let n = body.trim().parse().ok()?;
                (n, Some(n))
            }
            Some((lo, hi)) => {
                let lo = lo.trim().parse().ok()?;
                let hi = if hi.trim().is_empty() {
                    None
                } else {
                    Some(hi.trim().parse().ok()?)
                };
                (lo, hi)
            }
        };
        Some((lo, hi))
    }

    fn atom(&mut self) -> Option<Info> {
        let c = self.peek()?;
        self.at += 1;
        match c {
            '(' => self.group(),
            '[' => self.class(),
            '\\' => self.escape(),
            '.' => Some(Info::unknown()),
            '^' | '$' => Some(Info::empty()),
            '?' | '*' | '+' | '{' | ')' => None,
            c => Some(Info::exactly(vec![c.to_ascii_lowercase().to_string()])),
        }
    }

    fn group(&mut self) -> Option<Info> {
        if self.peek() == Some('?') {
            self.at += 1;
            match self.peek()? {
                'P' | '<' => {
                    // `(?P<name>…)` or `(?<name>…)`.
                    if self.peek() == Some('P') {
                        self.at += 1;
                    }
                    if self.peek() != Some('<') {
                        return None;
                    }
                    let close = self.chars[self.at..].iter().position(|&c| c == '>')? + self.at;
                    self.at = close + 1;
                }
                ':' => self.at += 1,
                _ => {
                    // Flags: `(?i)` (applies to the rest of the enclosing group) or `(?i:…)`.
                    // Case flags change nothing for a case-folded reading; `x` would change
                    // what whitespace means, so it is not modelled.
                    loop {
                        match self.peek()? {
                            'i' | 'm' | 's' | 'U' | 'R' | '-' => self.at += 1,
                            ')' => {
                                self.at += 1;
                                return Some(Info::empty());
                            }
                            ':' => {
                                self.at += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
            }
        }
        let inner = self.alternation()?;
        if self.peek() != Some(')') {
            return None;
        }
        self.at += 1;
        Some(inner)
    }

    /// A bracketed class: a small set of plain characters is exact (ASCII folded; `regex-lite`
    /// folds nothing else), anything else is one unknown character.
    fn class(&mut self) -> Option<Info> {
        let start = self.at;
        let mut members: Option<Vec<String>> = Some(Vec::new());
        if self.peek() == Some('^') {
            self.at += 1;
            members = None;
        }
        if self.peek() == Some(']') {
            self.at += 1;
            if let Some(m) = members.as_mut() {
                m.push("]".into());
            }
        }
        let mut depth = 1;
        while depth > 0 {
            let c = self.peek()?;
            self.at += 1;
            match c {
                '\\' => {
                    let e = self.peek()?;
                    self.at += 1;
                    match members.as_mut() {
                        Some(m) if e.is_ascii_punctuation() => m.push(e.to_string()),
                        _ => members = None,
                    }
                }
                '[' => {
                    depth += 1;
                    members = None;
                }
                ']' => depth -= 1,
                '-' if self.at - 1 > start && self.peek() != Some(']') => members = None,
                '&' | '~' if self.peek() == Some(c) => members = None,
                c if !c.is_control() => {
                    if let Some(m) = members.as_mut() {
                        m.push(c.to_ascii_lowercase().to_string());
                    }
                }
                _ => members = None,
            }
        }
        Some(match members {
            Some(mut m) if !m.is_empty() && m.len() <= 8 => {
                m.sort();
                m.dedup();
                Info::exactly(m)
            }
            _ => Info::unknown(),
        })
    }

    fn escape(&mut self) -> Option<Info> {
        let c = self.peek()?;
        self.at += 1;
        let lit = |s: &str| Some(Info::exactly(vec![s.to_string()]));
        match c {
            'b' | 'B' | 'A' | 'z' => Some(Info::empty()),
            'w' | 'W' | 'd' | 'D' | 's' | 'S' => Some(Info::unknown()),
            't' => lit("\t"),
            'n' => lit("\n"),
            'r' => lit("\r"),
            // `\<` and `\>` are word-start and word-end assertions in `regex-lite`, not
            // characters: not modelled.
            '<' | '>' => None,
            c if c.is_ascii_punctuation() || c == ' ' => lit(&c.to_string()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(p: &str) -> Option<Vec<String>> {
        required_literals(p)
    }

    fn v(s: &[&str]) -> Option<Vec<String>> {
        Some(s.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn reads_the_literals_every_match_needs() {
        assert_eq!(
            needs(r"(?i)\bstuck (?:on|at) v?\d"),
            v(&["stuck at ", "stuck at v", "stuck on ", "stuck on v"])
        );
        assert_eq!(
            needs(r"^\s*Traceback \(most recent"),
            v(&["traceback (most recent"])
        );
        assert_eq!(needs(r"\b(?:always|never)\b"), v(&["always", "never"]));
        // An optional word: the product keeps both spellings.
        assert_eq!(
            needs(r"(?i)\bplease (?:do )?not\b"),
            v(&["please do not", "please not"])
        );
        // A word after an unknown part still counts.
        assert_eq!(needs(r"^\w+ is at \S+"), v(&[" is at "]));
        // A repeated group needs its body once.
        assert_eq!(needs(r"(?:ab)+c"), v(&["ab"]));
        // Small classes are exact.
        assert_eq!(needs(r"don[’']t"), v(&["don't", "don’t"]));
    }

    #[test]
    fn knows_when_it_knows_nothing() {
        assert_eq!(needs(r"^\s*\d+\s*\|?"), None);
        assert_eq!(needs(r"(?:foo|\w+)"), None);
        assert_eq!(needs(r"a*"), None);
        assert_eq!(needs(r"(?x) a b"), None, "verbose mode is not modelled");
        assert_eq!(needs(r"\p{L}x"), None, "unknown escapes end the reading");
        assert_eq!(needs(r"(?:a|b"), None, "unbalanced");
    }

    fn starts(p: &str) -> Option<Vec<String>> {
        required_starts(p)
    }

    #[test]
    fn reads_the_words_every_match_opens_with() {
        assert_eq!(
            starts(r"(?i)^(?:please\s+)?(?:fix|run)\b"),
            v(&["fix", "please", "run"])
        );
        // An optional lead-in group that is not a small set: its own opening, or what follows.
        assert_eq!(
            starts(
                r"(?i)^(?:(?:in|for) this (?:repo|team)\s*,?\s+)?(?:we|our(?:\s+\w+){1,4}?)\s+use"
            ),
            v(&[
                "for this repo",
                "for this team",
                "in this repo",
                "in this team",
                "our",
                "we"
            ])
        );
        // A product of small sets stays exact; a class of a few characters is a small set.
        assert_eq!(starts(r"^[EW]\d{4}"), v(&["e", "w"]));
        assert_eq!(
            starts(r"(?i)^i(?:'ve| have)(?: got)? (?:adhd|rsi)"),
            v(&[
                "i have adhd",
                "i have got adhd",
                "i have got rsi",
                "i have rsi",
                "i've adhd",
                "i've got adhd",
                "i've got rsi",
                "i've rsi"
            ])
        );
    }

    #[test]
    fn knows_when_a_match_can_open_with_anything() {
        assert_eq!(starts(r"(?i)\bwe use\b"), None, "not anchored");
        assert_eq!(
            starts(r"(?i)^we use|\bour\b"),
            None,
            "a second top-level branch"
        );
        assert_eq!(
            starts(r"(?im)^we use"),
            None,
            "multi-line: ^ after any newline"
        );
        assert_eq!(
            starts(r"^\s*(?:error|warning):"),
            None,
            "opens with a class"
        );
        assert_eq!(starts(r"^(?:foo)?"), None, "can match nothing");
        assert_eq!(
            starts(r"(?i)^(?:we|\w+) use"),
            None,
            "one branch opens with a class"
        );
        assert_eq!(
            starts(r"^\<we\b"),
            None,
            "\\< is an assertion, not a character"
        );
        assert_eq!(
            starts(r"^[](]|x"),
            None,
            "a ] first in a class hides no branch"
        );
        assert_eq!(starts(r"^[^](]|x"), None);
    }

    #[test]
    fn the_committed_table_is_sorted_and_is_what_the_reading_gives() {
        let table = super::super::literals::TABLE;
        assert!(table.len() > 200, "{} entries", table.len());
        assert!(
            table.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted, no pattern twice"
        );
        for (pattern, literals, starts) in table {
            assert_eq!(
                required_literals(pattern).unwrap_or_default(),
                literals.to_vec(),
                "{pattern:?}: run `cargo run --example extract_literals`"
            );
            assert_eq!(
                required_starts(pattern).unwrap_or_default(),
                starts.to_vec(),
                "{pattern:?}: run `cargo run --example extract_literals`"
            );
            assert!(regex_lite::Regex::new(pattern).is_ok(), "{pattern:?}");
        }
        // A pattern the table does not hold is read at run time, with the same result.
        let p = r"(?i)\bnot in the table (?:alpha|beta)\b";
        assert!(literal_table_entry(p).is_none());
        let r = Regex::new(p);
        assert!(r.may_match("Not in the table ALPHA") && !r.may_match("nothing here"));
    }

    #[test]
    fn skips_only_what_cannot_match() {
        let cases = [
            (r"(?i)\bnever push\b", "NEVER PUSH to main", true),
            (r"(?i)\bnever push\b", "never pull", false),
            (r"(?i)^let(?:'s|s| us) always", "Let us always", true),
            (r"[^,]+, (?:which|who) ", "a, which b", true),
            (r"x{2,3}y", "xxy", true),
            (r"x{2,3}y", "xx", false),
            (
                r"(?i)^(?:please\s+)?(?:fix|run) it\b",
                "Please  RUN it now",
                true,
            ),
            (
                r"(?i)^(?:please\s+)?(?:fix|run) it\b",
                "can you run it",
                false,
            ),
            (
                r"(?i)^(?:in this repo,?\s+)?we use\b",
                "In this repo, we use pnpm",
                true,
            ),
        ];
        for (p, h, want) in cases {
            let r = Regex::new(p);
            let full = regex_lite::Regex::new(p).unwrap();
            assert_eq!(full.is_match(h), want, "{p} on {h}");
            assert_eq!(r.is_match(h), want, "{p} on {h}");
        }
        let r = Regex::new(r"(?i)\bnever push\b");
        assert!(!r.is_match("nothing here"));
        assert!(
            !r.is_built(),
            "a haystack without the literal builds nothing"
        );
        assert!(r.is_match("Never push"));
        assert!(r.is_built());
        // The literal is there, but not where every match opens: nothing is built either.
        let r = Regex::new(r"(?i)^(?:we|our team) (?:always )?use\b");
        assert!(!r.is_match("Can we use pnpm here?"));
        assert!(!r.is_built(), "a sentence opening otherwise builds nothing");
        assert!(r.is_match("We always use pnpm"));
    }
}
