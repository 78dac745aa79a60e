//! Extraction on real chat turns (`corpus/real-chats/{en,cjk}.json` in the shared folder beside
//! the clone: what real people typed to coding assistants, labelled by hand;
//! docs/quality/extract.md), through the real
//! binary (`extract --dry-run --json --strategy heuristic`), one generic transcript per split.
//! Asserts floors a little under the figures measured when they were set, per split and
//! language: turn precision, recall, the share of non-durable turns that leave a memory, strict
//! type accuracy, and precision on the English `random` selection (the natural stream).
//!
//! The corpus is real people's words and stays outside the repository: without the shared folder
//! the test skips with a printed reason, and fails when `CI` is set (CI has it).
//!
//! `cargo test --test extract_real -- --nocapture` prints the table.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::Sandbox;
use serde_json::{json, Value};

struct Turn {
    lang: String,
    text: String,
    durable: bool,
    ty: Option<String>,
    alt: Vec<String>,
    split: String,
    random: bool,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared")
        .join("corpus/real-chats")
}

/// The real turns, or `None` (after saying why) when the shared corpus is absent outside CI.
fn load() -> Option<Vec<Turn>> {
    let dir = corpus_dir();
    if !dir.join("en.json").is_file() || !dir.join("cjk.json").is_file() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{} is missing: CI must provide the shared folder beside the clone",
            dir.display()
        );
        eprintln!(
            "skipped: {} is absent (the real-chat corpus lives beside the clone)",
            dir.display()
        );
        return None;
    }
    let mut out = Vec::new();
    for f in ["en.json", "cjk.json"] {
        let text = fs::read_to_string(dir.join(f)).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        for r in v.as_array().unwrap() {
            let lang = match r["lang"].as_str().unwrap() {
                "mixed" => "en",
                l => l,
            };
            out.push(Turn {
                lang: lang.to_string(),
                text: r["text"].as_str().unwrap().to_string(),
                durable: r["durable"].as_bool().unwrap(),
                ty: r["type"].as_str().map(String::from),
                alt: r["alt_types"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
                split: r["split"].as_str().unwrap().to_string(),
                random: r["selection"].as_str() == Some("random"),
            });
        }
    }
    Some(out)
}

#[derive(Debug, Default, Clone, Copy)]
struct Score {
    durable: usize,
    noise: usize,
    tp: usize,
    fp: usize,
    strict: usize,
    lenient: usize,
    rnd_tp: usize,
    rnd_fp: usize,
}

fn ratio(a: usize, b: usize, empty: f64) -> f64 {
    if b == 0 {
        empty
    } else {
        a as f64 / b as f64
    }
}

impl Score {
    fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp, 1.0)
    }
    fn recall(&self) -> f64 {
        ratio(self.tp, self.durable, 1.0)
    }
    fn noise_rate(&self) -> f64 {
        ratio(self.fp, self.noise, 0.0)
    }
    fn strict(&self) -> f64 {
        ratio(self.strict, self.tp, 1.0)
    }
    fn random_precision(&self) -> f64 {
        ratio(self.rnd_tp, self.rnd_tp + self.rnd_fp, 1.0)
    }
    fn add(&mut self, o: &Score) {
        self.durable += o.durable;
        self.noise += o.noise;
        self.tp += o.tp;
        self.fp += o.fp;
        self.strict += o.strict;
        self.lenient += o.lenient;
        self.rnd_tp += o.rnd_tp;
        self.rnd_fp += o.rnd_fp;
    }
}

/// Runs one split through the binary; the score per language (plus `ja+ko` and `all`).
fn measure(sb: &Sandbox, turns: &[&Turn], split: &str) -> BTreeMap<String, Score> {
    let mut text = String::new();
    let mut offsets = Vec::new();
    for t in turns {
        offsets.push(text.len() as u64);
        text.push_str(&json!({"role": "user", "content": t.text, "session_id": "g"}).to_string());
        text.push('\n');
        text.push_str(
            &json!({"role": "assistant", "content": "OK.", "session_id": "g"}).to_string(),
        );
        text.push('\n');
    }
    let path = sb.root().join(format!("real-{split}.jsonl"));
    fs::write(&path, text).unwrap();
    let report = sb.json(&[
        "extract",
        "--transcript",
        path.to_str().unwrap(),
        "--strategy",
        "heuristic",
        "--dry-run",
    ]);
    let mut first: BTreeMap<u64, String> = BTreeMap::new();
    for p in report["patches"].as_array().expect("patches") {
        first
            .entry(p["sourceOffset"].as_u64().unwrap())
            .or_insert_with(|| p["topic"].as_str().unwrap().to_string());
    }
    let mut out: BTreeMap<String, Score> = BTreeMap::new();
    for (t, off) in turns.iter().zip(&offsets) {
        let s = out.entry(t.lang.clone()).or_default();
        let got = first.get(off);
        if t.durable {
            s.durable += 1;
        } else {
            s.noise += 1;
        }
        if let Some(g) = got {
            if t.durable {
                s.tp += 1;
                s.strict += usize::from(t.ty.as_ref() == Some(g));
                s.lenient += usize::from(t.ty.as_ref() == Some(g) || t.alt.contains(g));
                s.rnd_tp += usize::from(t.random);
            } else {
                s.fp += 1;
                s.rnd_fp += usize::from(t.random);
            }
        }
    }
    let mut jako = Score::default();
    let mut all = Score::default();
    for (lang, s) in &out {
        if lang == "ja" || lang == "ko" {
            jako.add(s);
        }
        all.add(s);
    }
    out.insert("ja+ko".into(), jako);
    out.insert("all".into(), all);
    out
}

/// (precision ≥, recall ≥, non-durable turns with a memory ≤, strict type accuracy ≥) per split
/// and language: a little under what was measured when set (docs/quality/extract.md). `train`
/// is what the gate was trained on: its floor pins the fit, not the quality.
fn floor(split: &str, lang: &str) -> Option<(f64, f64, f64, f64)> {
    Some(match (split, lang) {
        // Baseline before the gate (rules + scorer): 0.503 / 0.652 / 0.288 / 0.579.
        // With it: 0.634 / 0.936 / 0.242 / 0.743; with the one-off drop list (round 3) 0.669 /
        // 0.936 / 0.207 / 0.743 (a fit: the list was written from train).
        ("train", "all") => (0.64, 0.91, 0.23, 0.72),
        // Baseline 0.365 / 0.622 / 0.227 / 0.609; with the gate 0.393 / 0.649 / 0.210 / 0.583;
        // with the one-off drop list (round 3) 0.500 / 0.649 / 0.136 / 0.583.
        // Round 8 (the gate reading prose only): 0.562 / 0.730 / 0.119 / 0.667.
        ("dev", "all") => (0.47, 0.62, 0.16, 0.56),
        ("dev", "zh") => (0.72, 0.85, 0.07, 0.70), // 0.778 / 0.875 / 0.044 / 0.714
        // Measured once, at the end of the round (issue 21): baseline 0.400 / 0.694 / 0.304 /
        // 0.588; with the gate 0.424 / 0.796 / 0.315 / 0.667; with the one-off drop list (round
        // 3, measured once on 2026-12-02) 0.418 / 0.776 / 0.315 / 0.658: the dev gain did not hold.
        // Round 8 (2026-12-04, the gate reading prose only): 0.424 / 0.796 / 0.315 / 0.641.
        ("heldout", "all") => (0.40, 0.77, 0.33, 0.62),
        // Round 3: 0.568 / 0.758 / 0.202 / 0.560; round 8: 0.578 / 0.788 / 0.202 / 0.538.
        ("heldout", "en") => (0.55, 0.74, 0.22, 0.52),
        _ => return None,
    })
}

/// Floor of the English `random` selection's precision per split.
fn random_floor(split: &str) -> f64 {
    match split {
        "train" => 0.30,   // measured 0.333 (baseline 0.182; 0.308 before the drop list)
        "dev" => 0.15,     // measured 0.176 (baseline 0.150; 0.158 before the drop list)
        "heldout" => 0.24, // measured 0.250 in round 3 (0.280 in round 2, baseline 0.286)
        _ => 0.0,
    }
}

#[test]
fn real_chat_turns_meet_their_floors() {
    let Some(turns) = load() else { return };
    let sb = Sandbox::new();
    let mut failures = Vec::new();
    eprintln!("split   lang   turns durable  prec   recall noise%  strict lenient rnd-prec");
    for split in ["train", "dev", "heldout"] {
        let of: Vec<&Turn> = turns.iter().filter(|t| t.split == split).collect();
        assert!(!of.is_empty(), "no {split} turns");
        for (lang, s) in measure(&sb, &of, split) {
            eprintln!(
                "{split:<7} {lang:<6} {:>4} {:>4}    {:.3}  {:.3}  {:.3}  {:.3}  {:.3}  {:.3}",
                s.durable + s.noise,
                s.durable,
                s.precision(),
                s.recall(),
                s.noise_rate(),
                s.strict(),
                ratio(s.lenient, s.tp, 1.0),
                s.random_precision()
            );
            if let Some((p, r, n, t)) = floor(split, &lang) {
                if s.precision() < p || s.recall() < r || s.noise_rate() > n || s.strict() < t {
                    failures.push(format!("{split} {lang}: {s:?} under {:?}", (p, r, n, t)));
                }
            }
            if lang == "en" && s.random_precision() < random_floor(split) {
                failures.push(format!("{split} en random precision {s:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
