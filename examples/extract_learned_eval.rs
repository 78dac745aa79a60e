//! How the extractor's learned scorer does on data it was not trained on, at each setting:
//! trains on the development corpora (as the training command does) and scores the validation
//! corpora (`tests/corpus/extract/val/`) with the rules alone and with rules plus scorer; also
//! 5-fold cross-validation on the development corpora. Never reads a held-out set. The
//! thresholds in `learned::{RESCUE,TYPE,VETO}_THRESHOLD` and the training settings were chosen
//! from these tables (README, "Extract" → "Quality").
//!
//! `cargo run --release --example extract_learned_eval [-- --mistakes <rescue threshold>]`;
//! `EVAL_SETS=val,other` scores other validation directories instead of `val`.

use std::path::Path;

use qwen_memory::formats::doc::MemoryType;
use qwen_memory::ops::extract::heuristic::learned::{
    features, train, Model, RESCUE_THRESHOLD, TYPE_THRESHOLD, VETO_THRESHOLD,
};
use qwen_memory::ops::extract::heuristic::plan_with;
use qwen_memory::ops::extract::UserText;

const LANGS: [&str; 5] = ["en", "zh", "mixed", "ja", "ko"];
const RESCUE: [f32; 8] = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
const TYPE: [f32; 6] = [f32::INFINITY, 0.5, 0.6, 0.7, 0.8, 0.9];
const VETO: [f32; 6] = [0.0, 0.02, 0.05, 0.1, 0.2, 0.3];
/// (rescue, type, veto) settings compared side by side in the scorer's second round.
const COMPARED: [(f32, f32, f32); 5] = [
    (0.8, 0.8, 0.2),
    (0.7, 0.6, 0.2),
    (0.7, 0.8, 0.2),
    (0.8, 0.6, 0.2),
    (0.75, 0.7, 0.2),
];

struct Labelled {
    text: String,
    topic: Option<usize>,
}

/// The validation messages of a language: every set named in `EVAL_SETS` (comma-separated,
/// default `val`).
fn validation(lang: &str) -> Vec<Labelled> {
    let sets = std::env::var("EVAL_SETS").unwrap_or_else(|_| "val".into());
    sets.split(',')
        .flat_map(|set| load(set.trim(), lang))
        .collect()
}

fn load(set: &str, lang: &str) -> Vec<Labelled> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/extract")
        .join(set)
        .join(format!("{lang}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter_map(train::parse_corpus_line)
        .map(|(text, topic)| Labelled { text, topic })
        .collect()
}

#[derive(Default, Clone, Copy)]
struct Score {
    tp: u32,
    fp: u32,
    fn_: u32,
    typed: u32,
}

impl Score {
    fn add(&mut self, truth: Option<usize>, got: Option<usize>) {
        match (truth, got) {
            (Some(t), Some(g)) => {
                self.tp += 1;
                self.typed += u32::from(t == g);
            }
            (None, Some(_)) => self.fp += 1,
            (Some(_), None) => self.fn_ += 1,
            (None, None) => {}
        }
    }

    fn merge(&mut self, o: Score) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
        self.typed += o.typed;
    }

    fn row(&self) -> String {
        let p = f64::from(self.tp) / f64::from((self.tp + self.fp).max(1));
        let r = f64::from(self.tp) / f64::from((self.tp + self.fn_).max(1));
        let t = f64::from(self.typed) / f64::from(self.tp.max(1));
        format!("{p:.3}/{r:.3}/{t:.3}")
    }
}

fn examples(data: &[&Labelled]) -> Vec<train::Example> {
    data.iter()
        .map(|m| train::Example {
            features: features::features(&m.text),
            topic: m.topic,
        })
        .collect()
}

fn trained(data: &[&Labelled]) -> Vec<u8> {
    train::encode(&train::train(&examples(data)))
}

fn model(bytes: &[u8], (rescue, type_, veto): (f32, f32, f32)) -> Model<'_> {
    let Some(mut m) = Model::from_bytes(bytes, rescue) else {
        panic!("freshly encoded weights always decode");
    };
    m.type_threshold = type_;
    m.veto_threshold = veto;
    m
}

/// What rules + `model` keep from one message: the type of its first memory, if any.
fn verdict(model: &Model, text: &str) -> Option<usize> {
    let got = plan_with(&[UserText { offset: 0, text }], model);
    got.first()
        .and_then(|p| MemoryType::ALL.iter().position(|x| *x == p.topic))
}

fn score(model: &Model, data: &[Labelled]) -> Score {
    let mut s = Score::default();
    for m in data {
        s.add(m.topic, verdict(model, &m.text));
    }
    s
}

/// Rules + scorer over all validation languages: the total and one figure per language.
fn validation_row(model: &Model, val: &[(&str, Vec<Labelled>)]) -> String {
    let mut all = Score::default();
    let per: Vec<String> = val
        .iter()
        .map(|(lang, data)| {
            let s = score(model, data);
            all.merge(s);
            format!("{lang} {}", s.row())
        })
        .collect();
    format!("all {}  {}", all.row(), per.join("  "))
}

/// 5-fold cross-validation of rules + a scorer trained on the other folds, per language.
fn dev_cv(dev: &[(&str, Vec<Labelled>)], settings: (f32, f32, f32)) -> String {
    let mut per = vec![Score::default(); dev.len()];
    for fold in 0..5 {
        let mut i = 0;
        let mut train_set = Vec::new();
        for (_, data) in dev {
            for m in data {
                if i % 5 != fold {
                    train_set.push(m);
                }
                i += 1;
            }
        }
        let bytes = trained(&train_set);
        let m = model(&bytes, settings);
        let mut i = 0;
        for (k, (_, data)) in dev.iter().enumerate() {
            for d in data {
                if i % 5 == fold {
                    per[k].add(d.topic, verdict(&m, &d.text));
                }
                i += 1;
            }
        }
    }
    dev.iter()
        .zip(per)
        .map(|((lang, _), s)| format!("{lang} {}", s.row()))
        .collect::<Vec<_>>()
        .join("  ")
}

fn main() {
    let mistakes_at: Option<f32> = std::env::args()
        .skip_while(|a| a != "--mistakes")
        .nth(1)
        .and_then(|t| t.parse().ok());
    let dev: Vec<(&str, Vec<Labelled>)> = LANGS.iter().map(|l| (*l, load("dev", l))).collect();
    let val: Vec<(&str, Vec<Labelled>)> = LANGS
        .iter()
        .map(|l| (*l, validation(l)))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    let all_dev: Vec<&Labelled> = dev.iter().flat_map(|(_, d)| d.iter()).collect();
    let bytes = trained(&all_dev);
    let builtin = (RESCUE_THRESHOLD, TYPE_THRESHOLD, VETO_THRESHOLD);

    println!("validation, rescue threshold (no type change, no veto): P/R/type");
    print!("{:<6} {:>18}", "lang", "rules");
    for t in RESCUE {
        print!(" {:>18}", format!("+scorer@{t}"));
    }
    println!();
    let mut totals = vec![Score::default(); RESCUE.len() + 1];
    for (lang, data) in &val {
        print!("{lang:<6}");
        for (k, t) in std::iter::once(f32::INFINITY).chain(RESCUE).enumerate() {
            let m = model(&bytes, (t, f32::INFINITY, 0.0));
            let s = score(&m, data);
            totals[k].merge(s);
            print!(" {:>18}", s.row());
        }
        println!();
    }
    print!("{:<6}", "all");
    for s in &totals {
        print!(" {:>18}", s.row());
    }
    println!();

    println!("\nvalidation, type threshold (rescue {RESCUE_THRESHOLD}, no veto):");
    for t in TYPE {
        let m = model(&bytes, (RESCUE_THRESHOLD, t, 0.0));
        println!("  type at {t}: {}", validation_row(&m, &val));
    }

    println!("\nvalidation, veto threshold (rescue {RESCUE_THRESHOLD}, type {TYPE_THRESHOLD}):");
    for v in VETO {
        let m = model(&bytes, (RESCUE_THRESHOLD, TYPE_THRESHOLD, v));
        println!("  veto at {v}: {}", validation_row(&m, &val));
    }

    println!("\nvalidation, settings (rescue, type, veto) compared side by side:");
    for settings in COMPARED {
        let m = model(&bytes, settings);
        println!("  {settings:?}: {}", validation_row(&m, &val));
    }

    println!("\nbuilt-in settings {builtin:?}:");
    let m = model(&bytes, builtin);
    println!("  validation: {}", validation_row(&m, &val));
    println!(
        "  5-fold CV on dev, rules + scorer: {}",
        dev_cv(&dev, builtin)
    );
    if let Some(t) = mistakes_at {
        let m = model(&bytes, (t, TYPE_THRESHOLD, VETO_THRESHOLD));
        for (lang, data) in &val {
            for d in data {
                let got = verdict(&m, &d.text);
                if got.is_some() != d.topic.is_some() {
                    let kind = if got.is_some() { "FP" } else { "FN" };
                    println!("  {lang} {kind} {:?}", d.text);
                }
            }
        }
    }

    println!("\n5-fold CV on dev of the scorer alone, by threshold: P/R/type");
    for (lang, data) in &dev {
        let mut row = vec![Score::default(); RESCUE.len()];
        for fold in 0..5 {
            let train_set: Vec<&Labelled> = all_dev
                .iter()
                .copied()
                .filter(|m| {
                    !data
                        .iter()
                        .enumerate()
                        .any(|(i, d)| i % 5 == fold && std::ptr::eq(*m, d))
                })
                .collect();
            let fb = trained(&train_set);
            let m = model(&fb, (0.0, f32::INFINITY, 0.0));
            for d in data
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 5 == fold)
                .map(|(_, d)| d)
            {
                let v = m.score(&d.text);
                for (k, t) in RESCUE.iter().enumerate() {
                    let got = v
                        .filter(|v| v.durable >= *t)
                        .and_then(|v| MemoryType::ALL.iter().position(|x| *x == v.topic));
                    row[k].add(d.topic, got);
                }
            }
        }
        print!("{lang:<6}");
        for s in &row {
            print!(" {:>18}", s.row());
        }
        println!();
    }
}
