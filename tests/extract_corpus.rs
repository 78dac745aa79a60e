//! Extraction quality on the labelled corpora under `tests/corpus/extract/`, measured through the
//! real binary (`extract --dry-run --json --strategy heuristic`) in all three transcript formats.
//!
//! `dev/` is what the rules are tuned on and what the learned scorer is trained on (by the
//! build script). `val/` (three separate authors) chose the scorer's thresholds and is never
//! trained on. `heldout/` (v1) was written and committed before the language rules; its
//! mistakes were read after its first measurement. `heldout2/` was written and committed before
//! the second round of rule changes, `heldout3/` (Korean only) before the third; `heldout4/` to
//! `heldout7/` (Korean only) and `heldout8/` to `heldout14/` were each written by a separate
//! author who read no rule code, no dev line and no other held-out set, and committed before
//! the round they first measured (the README lists which and when). Their mistakes are never
//! printed, and no held-out set is used to change a rule or a threshold. The bar is asserted on
//! all of them, with the exceptions the manifest lists, and on each language's held-out
//! messages pooled (see README, "Extract quality"). Which sets there are, their languages,
//! sizes and floors are data: `tests/corpus/extract/manifest.txt`, one line per set and language.
//!
//! Run with `cargo test --test it extract_corpus:: -- --nocapture` to see the tables.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::Sandbox;
use serde_json::{json, Value};

const LANGS: &[&str] = &["en", "zh", "mixed", "ja", "ko"];
const FORMATS: &[&str] = &["qwen", "claude", "generic"];
/// The validation corpora: by separate authors, never trained on; the learned scorer's
/// thresholds were chosen on them (README, "Extract" → "Quality"), so they are not held-out.
const VALIDATION: &str = "val";
/// Issue 12's bar for held-out data (precision, recall, type accuracy): `bar` in the manifest.
const BAR: (f64, f64, f64) = (0.95, 0.90, 0.90);

/// One line of `tests/corpus/extract/manifest.txt`: a set's corpus in one language, the fewest
/// messages it may have and the floor (precision, recall, type accuracy) it must meet.
#[derive(Debug, Clone, PartialEq)]
struct Listed {
    set: String,
    lang: String,
    min: usize,
    floor: (f64, f64, f64),
}

fn parse_manifest(text: &str) -> Vec<Listed> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let bad = || -> ! { panic!("manifest.txt:{}: `set lang min bar|P R T`: {line:?}", n + 1) };
        let floor = match fields.get(3..) {
            Some(["bar"]) => BAR,
            Some([p, r, t]) => match (p.parse(), r.parse(), t.parse()) {
                (Ok(p), Ok(r), Ok(t)) => (p, r, t),
                _ => bad(),
            },
            _ => bad(),
        };
        let Ok(min) = fields[2].parse() else { bad() };
        if !LANGS.contains(&fields[1]) {
            bad();
        }
        out.push(Listed {
            set: fields[0].to_string(),
            lang: fields[1].to_string(),
            min,
            floor,
        });
    }
    out
}

fn manifest() -> Vec<Listed> {
    let path = corpus_dir().join("manifest.txt");
    parse_manifest(&fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The listed sets in the manifest's order (the held-out sets as written, then validation).
fn listed_sets() -> Vec<String> {
    let mut sets: Vec<String> = Vec::new();
    for l in manifest() {
        if !sets.contains(&l.set) {
            sets.push(l.set);
        }
    }
    sets
}

/// The held-out sets, in the order they were written.
fn heldout_sets() -> Vec<String> {
    listed_sets()
        .into_iter()
        .filter(|s| s != VALIDATION)
        .collect()
}

#[derive(Debug, Clone)]
struct Labelled {
    text: String,
    durable: bool,
    topic: Option<String>,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/extract")
}

fn load(set: &str, lang: &str) -> Vec<Labelled> {
    let path = corpus_dir().join(set).join(format!("{lang}.jsonl"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            let durable = v["durable"].as_bool().expect("durable");
            let topic = v["type"].as_str().map(String::from);
            assert_eq!(durable, topic.is_some(), "durable iff typed: {l}");
            Labelled {
                text: v["text"].as_str().expect("text").to_string(),
                durable,
                topic,
            }
        })
        .collect()
}

/// One transcript line per record; returns the lines and, per corpus message, the byte offset
/// of its user record (the transcript reader's message offset).
fn transcript(format: &str, msgs: &[Labelled]) -> (String, Vec<u64>) {
    let session = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    let mut out = String::new();
    let mut offsets = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        let (user, reply) = match format {
            "qwen" => (
                json!({"uuid": format!("u{i}"), "parentUuid": null, "sessionId": session,
                       "timestamp": "2026-03-02T09:00:00.000Z", "type": "user", "cwd": "/w",
                       "message": {"role": "user", "parts": [{"text": m.text}]}}),
                json!({"uuid": format!("a{i}"), "parentUuid": format!("u{i}"), "sessionId": session,
                       "timestamp": "2026-03-02T09:00:01.000Z", "type": "assistant", "cwd": "/w",
                       "message": {"role": "model", "parts": [{"text": "好的，我们总是这样做。We always do that."}]}}),
            ),
            "claude" => (
                json!({"type": "user", "uuid": format!("u{i}"), "parentUuid": null,
                       "isSidechain": false, "sessionId": session, "cwd": "/w",
                       "message": {"role": "user", "content": m.text}}),
                json!({"type": "assistant", "uuid": format!("a{i}"), "parentUuid": format!("u{i}"),
                       "isSidechain": false, "sessionId": session, "cwd": "/w",
                       "message": {"id": format!("msg_{i}"), "type": "message", "role": "assistant",
                                   "content": [{"type": "text", "text": "了解しました。We always do that."}]}}),
            ),
            _ => (
                json!({"role": "user", "content": m.text, "session_id": "g"}),
                json!({"role": "assistant", "content": "알겠습니다. We never do that.", "session_id": "g"}),
            ),
        };
        offsets.push(out.len() as u64);
        out.push_str(&user.to_string());
        out.push('\n');
        out.push_str(&reply.to_string());
        out.push('\n');
    }
    (out, offsets)
}

#[derive(Debug, Default, Clone, Copy)]
struct Score {
    durable: usize,
    noise: usize,
    tp: usize,
    fp: usize,
    typed: usize,
}

impl Score {
    fn precision(&self) -> f64 {
        if self.tp + self.fp == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        }
    }
    fn recall(&self) -> f64 {
        self.tp as f64 / self.durable.max(1) as f64
    }
    fn type_accuracy(&self) -> f64 {
        self.typed as f64 / self.tp.max(1) as f64
    }
    /// The columns after `msgs` in the printed tables.
    fn row(&self) -> String {
        format!(
            "{:>4} ({:>3}/{:>3})         {:.3}      {:.3}   {:.3}",
            self.durable + self.noise,
            self.durable,
            self.noise,
            self.precision(),
            self.recall(),
            self.type_accuracy()
        )
    }
}

impl std::ops::AddAssign for Score {
    fn add_assign(&mut self, other: Score) {
        self.durable += other.durable;
        self.noise += other.noise;
        self.tp += other.tp;
        self.fp += other.fp;
        self.typed += other.typed;
    }
}

/// Runs one corpus in one format through the binary; returns the score and the mistakes.
fn measure(sb: &Sandbox, set: &str, lang: &str, format: &str) -> (Score, Vec<String>) {
    let msgs = load(set, lang);
    let (text, offsets) = transcript(format, &msgs);
    let path = sb.root().join(format!("{set}-{lang}-{format}.jsonl"));
    fs::write(&path, text).unwrap();
    let report = sb.json(&[
        "extract",
        "--transcript",
        path.to_str().unwrap(),
        "--strategy",
        "heuristic",
        "--dry-run",
    ]);
    assert_eq!(
        report["userMessages"].as_u64(),
        Some(msgs.len() as u64),
        "{report}"
    );
    let mut by_offset: BTreeMap<u64, Vec<(String, String)>> = BTreeMap::new();
    for p in report["patches"].as_array().expect("patches") {
        by_offset
            .entry(p["sourceOffset"].as_u64().expect("offset"))
            .or_default()
            .push((
                p["topic"].as_str().unwrap().to_string(),
                p["summary"].as_str().unwrap().to_string(),
            ));
    }
    let mut s = Score::default();
    let mut bad = Vec::new();
    for (m, off) in msgs.iter().zip(&offsets) {
        let got = by_offset.get(off);
        if m.durable {
            s.durable += 1;
        } else {
            s.noise += 1;
        }
        match (m.durable, got) {
            (true, Some(g)) => {
                s.tp += 1;
                if Some(&g[0].0) == m.topic.as_ref() {
                    s.typed += 1;
                } else {
                    bad.push(format!("TYPE {:?}: want {:?}, got {g:?}", m.text, m.topic));
                }
            }
            (true, None) => bad.push(format!("MISS {:?} ({:?})", m.text, m.topic)),
            (false, Some(g)) => {
                s.fp += 1;
                bad.push(format!("FALSE {:?} -> {g:?}", m.text));
            }
            (false, None) => {}
        }
    }
    (s, bad)
}

/// The languages a set has a corpus for (every language for the dev set).
fn langs(set: &str) -> Vec<String> {
    let listed: Vec<String> = manifest()
        .into_iter()
        .filter(|l| l.set == set)
        .map(|l| l.lang)
        .collect();
    if listed.is_empty() {
        LANGS.iter().map(|l| l.to_string()).collect()
    } else {
        listed
    }
}

/// Whether a set's mistakes may be printed: only the tuning set's, unless asked for. Reading
/// a held-out set's mistakes invites tuning on them.
fn show_mistakes(set: &str) -> bool {
    set == "dev" || std::env::var_os("CORPUS_SHOW_HELDOUT_MISTAKES").is_some()
}

fn table(set: &str) -> BTreeMap<(String, String), (Score, Vec<String>)> {
    let sb = Sandbox::new();
    let mut out = BTreeMap::new();
    for lang in langs(set) {
        for format in FORMATS {
            out.insert(
                (lang.to_string(), format.to_string()),
                measure(&sb, set, &lang, format),
            );
        }
    }
    let mut lines = vec![format!(
        "{set}: lang  format   msgs (durable/noise)  precision  recall  type-accuracy"
    )];
    for ((lang, format), (s, _)) in &out {
        lines.push(format!("{set}: {lang:<5} {format:<8} {}", s.row()));
    }
    eprintln!("{}", lines.join("\n"));
    // Held-out v1 was inspected after its first measurement; v2, v3 and v4 never were.
    let show = show_mistakes(set);
    for ((lang, format), (_, bad)) in &out {
        if show && format == "qwen" && !bad.is_empty() {
            eprintln!("{set} {lang} mistakes:\n  {}", bad.join("\n  "));
        }
    }
    out
}

/// Every format must see the same messages and give the same verdicts: the format only changes
/// how a message is read, never what the rules say about it.
fn assert_formats_agree(set: &str, t: &BTreeMap<(String, String), (Score, Vec<String>)>) {
    let disagree = formats_disagree(set, t);
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
}

/// Where a format's verdicts differ from Qwen's format's, one message per language and format.
fn formats_disagree(
    set: &str,
    t: &BTreeMap<(String, String), (Score, Vec<String>)>,
) -> Vec<String> {
    let show = show_mistakes(set);
    let mut out = Vec::new();
    for lang in langs(set) {
        let q = &t[&(lang.to_string(), "qwen".to_string())];
        for format in &FORMATS[1..] {
            let o = &t[&(lang.to_string(), format.to_string())];
            if (q.0.tp, q.0.fp, q.0.typed) != (o.0.tp, o.0.fp, o.0.typed) {
                out.push(format!(
                    "{set} {lang}: qwen and {format} disagree:\n{:#?}\n{:#?}",
                    if show { &q.1[..] } else { &[] },
                    if show { &o.1[..] } else { &[] },
                ));
            }
        }
    }
    out
}

#[test]
fn corpora_have_the_promised_sizes() {
    // (set, language, minimum size) from the manifest; a Korean-only set has no corpus for the
    // other languages.
    let listed = manifest();
    let minimums: Vec<(&str, &str, usize)> = listed
        .iter()
        .map(|l| (l.set.as_str(), l.lang.as_str(), l.min))
        .collect();
    for lang in LANGS {
        let dev = load("dev", lang);
        assert!(dev.len() >= 20, "{lang}: {} dev messages", dev.len());
        // Held-out sets in the order they were written.
        let mut earlier: Vec<(&str, Vec<Labelled>)> = vec![("dev", dev)];
        for &(set, _, min) in minimums.iter().filter(|(_, l, _)| l == lang) {
            let held = load(set, lang);
            assert!(held.len() >= min, "{lang}: {} {set} messages", held.len());
            // A held-out message is never also a tuning example. Separate authors may each
            // write the same short message ("ok", "thanks, that works", even one plain rule:
            // v8 and v9 share one Japanese rule), so two held-out sets may share a couple of
            // lines, never more: more would mean one set was copied from another.
            for (other_set, other) in &earlier {
                let shared = held
                    .iter()
                    .filter(|m| other.iter().any(|x| x.text == m.text))
                    .count();
                // The validation set chose thresholds: it shares nothing with any other set.
                let allowed = if *other_set == "dev" || set == VALIDATION {
                    0
                } else {
                    2
                };
                // Name the dev lines to reword, never a held-out line's text.
                let dev_lines: Vec<usize> = other
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| *other_set == "dev" && held.iter().any(|m| m.text == x.text))
                    .map(|(i, _)| i + 1)
                    .collect();
                assert!(
                    shared <= allowed,
                    "{lang}: {shared} messages of {set} are also in {other_set} (dev lines {dev_lines:?})"
                );
            }
            earlier.push((set, held));
        }
        for (set, messages) in &earlier {
            assert!(
                messages.iter().any(|m| m.durable) && messages.iter().any(|m| !m.durable),
                "{lang} {set}: durable and noise messages both"
            );
        }
    }
    // Every corpus file but dev's is listed, and every listed one exists, so none escapes the
    // size, disjointness and floor checks.
    for entry in fs::read_dir(corpus_dir()).unwrap() {
        let dir = entry.unwrap().path();
        let set = dir.file_name().unwrap().to_string_lossy().to_string();
        if !dir.is_dir() || set == "dev" {
            continue;
        }
        for file in fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let Some(lang) = file.file_stem().map(|s| s.to_string_lossy().to_string()) else {
                continue;
            };
            assert!(
                listed.iter().any(|l| l.set == set && l.lang == lang),
                "{}: not in tests/corpus/extract/manifest.txt",
                file.display()
            );
        }
    }
    for l in &listed {
        let file = corpus_dir().join(&l.set).join(format!("{}.jsonl", l.lang));
        assert!(
            file.is_file(),
            "manifest.txt lists {} but it is missing",
            file.display()
        );
    }
}

#[test]
fn the_manifest_reader_reads_floors_and_rejects_a_bad_line() {
    let listed =
        parse_manifest("# comment\nheldout9 ja 40 bar\nheldout2 ko 20 0.91 0.91 0.90 # why\n");
    assert_eq!(
        listed,
        [
            Listed {
                set: "heldout9".into(),
                lang: "ja".into(),
                min: 40,
                floor: BAR
            },
            Listed {
                set: "heldout2".into(),
                lang: "ko".into(),
                min: 20,
                floor: (0.91, 0.91, 0.90)
            },
        ]
    );
    assert!(std::panic::catch_unwind(|| parse_manifest("heldout2 ko 20 0.91\n")).is_err());
    assert!(std::panic::catch_unwind(|| parse_manifest("heldout2 xx 20 bar\n")).is_err());
}

#[test]
fn dev_corpora() {
    let t = table("dev");
    assert_formats_agree("dev", &t);
    for ((lang, format), (s, bad)) in &t {
        assert!(
            s.precision() >= 0.95 && s.recall() >= 0.90 && s.type_accuracy() >= 0.90,
            "dev {lang} {format}: {s:?}\n{bad:#?}"
        );
    }
}

/// Where a listed set misses its floor (`manifest.txt`) in some language and format, or its formats
/// disagree: one message each, with only the figures (its mistakes stay unread unless asked
/// for, see `table`).
fn misses_its_floor(set: &str, listed: &[Listed]) -> Vec<String> {
    let t = table(set);
    let mut out = formats_disagree(set, &t);
    for ((lang, format), (s, bad)) in &t {
        let Some(l) = listed.iter().find(|l| l.set == set && l.lang == *lang) else {
            out.push(format!("{set} {lang}: not in the manifest"));
            continue;
        };
        let (p, r, ty) = l.floor;
        let bad: &[String] = if show_mistakes(set) { bad } else { &[] };
        if !(s.precision() >= p && s.recall() >= r && s.type_accuracy() >= ty) {
            out.push(format!(
                "{set} {lang} {format}: precision {:.3} recall {:.3} type {:.3} (floor {p} {r} {ty})\n{bad:#?}",
                s.precision(),
                s.recall(),
                s.type_accuracy()
            ));
        }
    }
    out
}

/// Every set of the manifest (each held-out set and the validation set) meets its floor in every
/// language and format. Every set is measured and its table printed before the test fails, so
/// one run shows all of them.
#[test]
fn every_listed_corpus_meets_its_floor() {
    let listed = manifest();
    let sets = listed_sets();
    assert!(
        sets.len() >= 15 && sets.contains(&VALIDATION.to_string()),
        "{sets:?}"
    );
    // Two sets at a time: each runs the real binary for every language and format.
    let next = std::sync::Mutex::new(sets.iter());
    let misses = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let Some(set) = next.lock().unwrap().next() else {
                    break;
                };
                let m = misses_its_floor(set, &listed);
                misses.lock().unwrap().extend(m);
            });
        }
    });
    let misses = misses.into_inner().unwrap();
    assert!(misses.is_empty(), "below the floor:\n{}", misses.join("\n"));
}

/// All held-out messages of a language taken together must meet the bar (after the ninth rule
/// round English and mixed recall fell short, 0.873 and 0.867; the learned scorer closed both). A
/// single small set moves by several points per message (one false positive in 13 kept is
/// 0.077 of precision), so the pooled figure is the steadier estimate; the per-set floors above
/// still catch a regression on any one set. Formats agree (asserted per set), so one is enough.
#[test]
fn heldout_pooled_per_language_meets_its_floor() {
    let sb = Sandbox::new();
    let mut pooled: BTreeMap<&str, (Score, usize)> = BTreeMap::new();
    let listed = manifest();
    for set in heldout_sets() {
        for lang in LANGS {
            if !listed.iter().any(|l| l.set == set && l.lang == *lang) {
                continue;
            }
            let (s, _) = measure(&sb, &set, lang, "qwen");
            let (sum, sets) = pooled.entry(lang).or_default();
            *sum += s;
            *sets += 1;
        }
    }
    assert_eq!(pooled.len(), LANGS.len(), "{:?}", pooled.keys());
    let mut lines = vec![
        "pooled held-out: lang  sets  msgs (durable/noise)  precision  recall  type-accuracy"
            .to_string(),
    ];
    for (lang, (s, sets)) in &pooled {
        lines.push(format!("pooled held-out: {lang:<5} {sets:>4}  {}", s.row()));
    }
    eprintln!("{}", lines.join("\n"));
    for (lang, (s, _)) in &pooled {
        let (p, r, ty) = BAR;
        assert!(
            s.precision() >= p && s.recall() >= r && s.type_accuracy() >= ty,
            "pooled held-out {lang}: precision {:.3} recall {:.3} type {:.3}",
            s.precision(),
            s.recall(),
            s.type_accuracy()
        );
    }
}

/// The corpora state secrets as if they were facts; a real (not dry) run writes none of them.
#[test]
fn no_secret_from_the_corpora_is_written() {
    let sb = Sandbox::new();
    let mut secrets = Vec::new();
    for set in ["dev".to_string()].into_iter().chain(listed_sets()) {
        let set = set.as_str();
        for lang in langs(set) {
            let msgs = load(set, &lang);
            for m in &msgs {
                for w in m.text.split(|c: char| !c.is_ascii_alphanumeric()) {
                    let digits = w.chars().filter(char::is_ascii_digit).count();
                    let upper = w.chars().filter(char::is_ascii_uppercase).count();
                    if w.len() >= 12 && digits >= 2 && upper >= 2 {
                        secrets.push(w.to_string());
                    }
                }
            }
            let (text, _) = transcript("qwen", &msgs);
            let path = sb.root().join(format!("secret-{set}-{lang}.jsonl"));
            fs::write(&path, text).unwrap();
            sb.ok(&[
                "extract",
                "--transcript",
                path.to_str().unwrap(),
                "--strategy",
                "heuristic",
            ]);
        }
    }
    assert!(secrets.len() >= 2, "{secrets:?}");
    let written = common::tree(&sb.private_root());
    assert!(!written.is_empty());
    for (name, bytes) in &written {
        let text = String::from_utf8_lossy(bytes);
        for s in &secrets {
            assert!(!text.contains(s.as_str()), "{name} holds {s}");
        }
    }
}
