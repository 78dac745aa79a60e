//! How the extractor's learned scorer would do at each threshold, on data it was not trained on:
//! trains on the development corpora (as the build script does), then scores the validation
//! corpora (`tests/corpus/extract/val/`) with the rules alone and with rules plus the scorer;
//! also 5-fold cross-validation of the scorer alone on the development corpora. Never reads a
//! held-out set. The rescue threshold in `learned::RESCUE_THRESHOLD` was chosen from this
//! table (README, "Extract" → "Quality").
//!
//! `cargo run --release --example extract_learned_eval [-- --mistakes <threshold>]`

use std::path::Path;

use qwen_memory::formats::doc::MemoryType;
use qwen_memory::ops::extract::heuristic::learned::{
    features, train, Model, RESCUE_THRESHOLD, TYPE_THRESHOLD, VETO_THRESHOLD,
};
use qwen_memory::ops::extract::heuristic::plan_with;
use qwen_memory::ops::extract::UserText;

const LANGS: [&str; 5] = ["en", "zh", "mixed", "ja", "ko"];
const THRESHOLDS: [f32; 8] = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

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
    fn row(&self) -> String {
        let p = f64::from(self.tp) / f64::from((self.tp + self.fp).max(1));
        let r = f64::from(self.tp) / f64::from((self.tp + self.fn_).max(1));
        let t = f64::from(self.typed) / f64::from(self.tp.max(1));
        format!("{p:.3}/{r:.3}/{t:.3}")
    }
}

fn topic_index(t: MemoryType) -> usize {
    MemoryType::ALL.iter().position(|x| *x == t).unwrap_or(0)
}

fn examples(data: &[&Labelled]) -> Vec<train::Example> {
    data.iter()
        .map(|m| train::Example {
            features: features::features(&m.text),
            topic: m.topic,
        })
        .collect()
}

fn main() {
    let mistakes_at: Option<f32> = std::env::args()
        .skip_while(|a| a != "--mistakes")
        .nth(1)
        .and_then(|t| t.parse().ok());
    let dev: Vec<(&str, Vec<Labelled>)> = LANGS.iter().map(|l| (*l, load("dev", l))).collect();
    let all_dev: Vec<&Labelled> = dev.iter().flat_map(|(_, d)| d.iter()).collect();
    let bytes = train::encode(&train::train(&examples(&all_dev)));

    println!("validation (trained on all dev): P/R/type");
    print!("{:<6} {:>18}", "lang", "rules");
    for t in THRESHOLDS {
        print!(" {:>18}", format!("+scorer@{t}"));
    }
    println!();
    let mut totals = vec![Score::default(); THRESHOLDS.len() + 1];
    for lang in LANGS {
        let val = validation(lang);
        if val.is_empty() {
            continue;
        }
        let mut row = vec![Score::default(); THRESHOLDS.len() + 1];
        for (k, threshold) in std::iter::once(f32::INFINITY).chain(THRESHOLDS).enumerate() {
            let Some(model) = Model::from_bytes(&bytes, threshold) else {
                eprintln!("weights do not decode");
                return;
            };
            for m in &val {
                let got = plan_with(
                    &[UserText {
                        offset: 0,
                        text: &m.text,
                    }],
                    &model,
                );
                let got = got.first().map(|p| topic_index(p.topic));
                row[k].add(m.topic, got);
                totals[k].add(m.topic, got);
                if mistakes_at == Some(threshold) && (got.is_some() != m.topic.is_some()) {
                    println!(
                        "  {lang} {} {:?}",
                        if got.is_some() { "FP" } else { "FN" },
                        m.text
                    );
                }
            }
        }
        print!("{lang:<6}");
        for s in &row {
            print!(" {:>18}", s.row());
        }
        println!();
    }
    println!(
        "type override on rule-kept val messages (rescue at 0.8): P/R/type over all languages"
    );
    for x in [f32::INFINITY, 0.5, 0.6, 0.7, 0.8, 0.9] {
        let Some(mut model) = Model::from_bytes(&bytes, 0.8) else {
            return;
        };
        model.type_threshold = x;
        let mut s = Score::default();
        for lang in LANGS {
            for m in validation(lang) {
                let got = plan_with(
                    &[UserText {
                        offset: 0,
                        text: &m.text,
                    }],
                    &model,
                );
                s.add(m.topic, got.first().map(|p| topic_index(p.topic)));
            }
        }
        println!("  type override at {x}: {}", s.row());
    }
    println!(
        "veto of rule-kept messages (rescue 0.8, type 0.8): P/R/type on val, then 5-fold CV on dev"
    );
    for v in [0.0f32, 0.02, 0.05, 0.1, 0.2, 0.3] {
        let Some(mut model) = Model::from_bytes(&bytes, 0.8) else {
            return;
        };
        model.type_threshold = 0.8;
        model.veto_threshold = v;
        let mut s = Score::default();
        for lang in LANGS {
            for m in validation(lang) {
                let got = plan_with(
                    &[UserText {
                        offset: 0,
                        text: &m.text,
                    }],
                    &model,
                );
                s.add(m.topic, got.first().map(|p| topic_index(p.topic)));
            }
        }
        print!("  veto at {v}: val {}", s.row());
        let mut cv = Score::default();
        for fold in 0..5 {
            let train_set: Vec<&Labelled> = all_dev
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 5 != fold)
                .map(|(_, m)| *m)
                .collect();
            let fb = train::encode(&train::train(&examples(&train_set)));
            let Some(mut fm) = Model::from_bytes(&fb, 0.8) else {
                return;
            };
            fm.type_threshold = 0.8;
            fm.veto_threshold = v;
            for m in all_dev
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 5 == fold)
                .map(|(_, m)| *m)
            {
                let got = plan_with(
                    &[UserText {
                        offset: 0,
                        text: &m.text,
                    }],
                    &fm,
                );
                cv.add(m.topic, got.first().map(|p| topic_index(p.topic)));
            }
        }
        println!("   dev-cv {}", cv.row());
    }
    println!("joint settings (rescue, type, veto): P/R/type on the validation sets");
    for (r, t, v) in [
        (0.8f32, 0.8f32, 0.2f32),
        (0.7, 0.6, 0.2),
        (0.7, 0.8, 0.2),
        (0.8, 0.6, 0.2),
        (0.75, 0.7, 0.2),
    ] {
        let Some(mut model) = Model::from_bytes(&bytes, r) else {
            return;
        };
        model.type_threshold = t;
        model.veto_threshold = v;
        let mut all = Score::default();
        let mut per = Vec::new();
        for lang in LANGS {
            let mut s = Score::default();
            for m in validation(lang) {
                let got = plan_with(
                    &[UserText {
                        offset: 0,
                        text: &m.text,
                    }],
                    &model,
                );
                let got = got.first().map(|p| topic_index(p.topic));
                s.add(m.topic, got);
                all.add(m.topic, got);
            }
            per.push(format!("{lang} {}", s.row()));
        }
        println!("  ({r}, {t}, {v}): all {}  {}", all.row(), per.join("  "));
    }
    println!("built-in thresholds ({RESCUE_THRESHOLD}, {TYPE_THRESHOLD}, {VETO_THRESHOLD}), rules + scorer, 5-fold CV on dev:");
    let mut cv = vec![Score::default(); LANGS.len()];
    for fold in 0..5 {
        let train_set: Vec<&Labelled> = all_dev
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 5 != fold)
            .map(|(_, m)| *m)
            .collect();
        let fb = train::encode(&train::train(&examples(&train_set)));
        let Some(mut fm) = Model::from_bytes(&fb, RESCUE_THRESHOLD) else {
            return;
        };
        fm.type_threshold = TYPE_THRESHOLD;
        fm.veto_threshold = VETO_THRESHOLD;
        let mut i = 0;
        for (k, (_, data)) in dev.iter().enumerate() {
            for m in data {
                if i % 5 == fold {
                    let got = plan_with(
                        &[UserText {
                            offset: 0,
                            text: &m.text,
                        }],
                        &fm,
                    );
                    cv[k].add(m.topic, got.first().map(|p| topic_index(p.topic)));
                }
                i += 1;
            }
        }
    }
    for (k, lang) in LANGS.iter().enumerate() {
        print!("  {lang} {}", cv[k].row());
    }
    println!();
    print!("{:<6}", "all");
    for s in &totals {
        print!(" {:>18}", s.row());
    }
    println!();

    println!("\n5-fold cross-validation of the scorer alone on dev: P/R/type");
    for lang in LANGS {
        let mut row = vec![Score::default(); THRESHOLDS.len()];
        let data = &dev.iter().find(|(l, _)| *l == lang).map(|(_, d)| d);
        let Some(data) = data else { continue };
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
            let bytes = train::encode(&train::train(&examples(&train_set)));
            for (i, m) in data.iter().enumerate().filter(|(i, _)| i % 5 == fold) {
                let _ = i;
                let Some(model) = Model::from_bytes(&bytes, 0.0) else {
                    return;
                };
                let v = model.score(&m.text);
                for (k, t) in THRESHOLDS.iter().enumerate() {
                    let got = v.filter(|v| v.durable >= *t).map(|v| topic_index(v.topic));
                    row[k].add(m.topic, got);
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
