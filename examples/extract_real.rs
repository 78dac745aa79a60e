//! The extractor on real chat turns (`../shared/corpus/real-chats/{en,cjk}.json`, see
//! docs/quality/extract.md): per language and split, turn precision, recall, the share of
//! non-durable (and of one-off-request) turns that leave a memory, strict and lenient type
//! accuracy, and precision on the `random` selection (English).
//!
//! `cargo run --release --example extract_real` prints `train` and `dev`;
//! `-- --heldout` adds `heldout` (measure it once per round, never tune on it);
//! `-- --mistakes dev` prints the mistakes on `dev` (or `train`), never on `heldout` (with
//! `--strict`: those of the strict keep rule, `gate::Gate::with_strict_rule`);
//! `-- --train` retrains the real-chat gate on the `train` split and writes
//! `crates/extract/src/heuristic/learned/gate.bin` (the committed, generated weights).
//!
//! `REAL_CHATS_EXTRA=DIR` adds every `*.json` list in DIR (real turns collected after the
//! shared corpus, same record format, kept outside the repository like it; docs/quality/extract.md)
//! as splits `x-train`, `x-dev`, `x-heldout`, for measurement only: `--train` and `--cv` read the
//! shared `train` split alone, so the committed weights stay reproducible from `../shared`.
//! `GATE_TRAIN_SPLITS=train,x-train` makes `--train` add x-train, to measure what more turns do
//! (it rewrites `gate.bin`: restore it with a plain `--train` afterwards).
//! With `--heldout`, `heldout+x` pools `heldout` and `x-heldout` per language.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use qwen_memory::ops::extract::heuristic::learned::{train, Model};
use qwen_memory::ops::extract::heuristic::{
    apply_gate, gate, plan_rules, plan_with, plan_with_gate,
};
use qwen_memory::ops::extract::Patch;
use qwen_memory::ops::extract::UserText;

/// What the rules kept from a turn, and its sentences.
type Ruled = (Vec<Patch>, Vec<String>);

struct Turn {
    id: String,
    lang: String,
    text: String,
    durable: bool,
    ty: Option<String>,
    alt: Vec<String>,
    why_not: Option<String>,
    split: String,
    random: bool,
    repo: String,
}

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/real-chats")
}

fn load() -> Vec<Turn> {
    let mut files: Vec<(PathBuf, &str)> = ["en.json", "cjk.json"]
        .into_iter()
        .map(|f| (shared().join(f), ""))
        .collect();
    if let Some(dir) = std::env::var_os("REAL_CHATS_EXTRA") {
        let mut extra: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("REAL_CHATS_EXTRA: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        extra.sort();
        files.extend(extra.into_iter().map(|p| (p, "x-")));
    }
    let mut out = Vec::new();
    for (path, prefix) in files {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (the shared corpus)", path.display()));
        let v: serde_json::Value = serde_json::from_str(&text).expect("corpus JSON");
        for r in v.as_array().expect("a list") {
            let s = |k: &str| r[k].as_str().map(String::from);
            let lang = match s("lang").unwrap_or_default().as_str() {
                "mixed" => "en".to_string(),
                l => l.to_string(),
            };
            out.push(Turn {
                id: s("id").unwrap_or_default(),
                lang,
                text: s("text").unwrap_or_default(),
                durable: r["durable"].as_bool().unwrap_or(false),
                ty: s("type"),
                alt: r["alt_types"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
                why_not: s("why_not"),
                split: format!("{prefix}{}", s("split").unwrap_or_default()),
                random: s("selection").as_deref() == Some("random"),
                repo: s("source")
                    .unwrap_or_default()
                    .split(':')
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            });
        }
    }
    out
}

#[derive(Default, Clone, Copy)]
struct Score {
    durable: u32,
    noise: u32,
    oneoff: u32,
    tp: u32,
    fp: u32,
    fp_oneoff: u32,
    strict: u32,
    lenient: u32,
    rnd_tp: u32,
    rnd_fp: u32,
}

impl Score {
    fn add(&mut self, t: &Turn, got: Option<&str>) {
        let oneoff = t.why_not.as_deref() == Some("one-off-request");
        if t.durable {
            self.durable += 1;
        } else {
            self.noise += 1;
            self.oneoff += u32::from(oneoff);
        }
        let Some(g) = got else { return };
        if t.durable {
            self.tp += 1;
            self.strict += u32::from(t.ty.as_deref() == Some(g));
            self.lenient += u32::from(t.ty.as_deref() == Some(g) || t.alt.iter().any(|a| a == g));
            self.rnd_tp += u32::from(t.random);
        } else {
            self.fp += 1;
            self.fp_oneoff += u32::from(oneoff);
            self.rnd_fp += u32::from(t.random);
        }
    }
    fn merge(&mut self, o: &Score) {
        self.durable += o.durable;
        self.noise += o.noise;
        self.oneoff += o.oneoff;
        self.tp += o.tp;
        self.fp += o.fp;
        self.fp_oneoff += o.fp_oneoff;
        self.strict += o.strict;
        self.lenient += o.lenient;
        self.rnd_tp += o.rnd_tp;
        self.rnd_fp += o.rnd_fp;
    }
    fn row(&self) -> String {
        let r = |a: u32, b: u32| {
            if b == 0 {
                "   -  ".to_string()
            } else {
                format!("{:.3} ", f64::from(a) / f64::from(b))
            }
        };
        format!(
            "{:>4} {:>3}  {} {} {} {} {} {} {}",
            self.durable + self.noise,
            self.durable,
            r(self.tp, self.tp + self.fp),
            r(self.tp, self.durable),
            r(self.fp, self.noise),
            r(self.fp_oneoff, self.oneoff),
            r(self.strict, self.tp),
            r(self.lenient, self.tp),
            r(self.rnd_tp, self.rnd_tp + self.rnd_fp),
        )
    }
}

const HEADER: &str =
    "split   lang  turns dur  prec   recall noise% oneoff% strict lenient rnd-prec";

fn table(turns: &[Turn], splits: &[&str], verdict: &dyn Fn(&Turn) -> Option<String>) {
    println!("{HEADER}");
    for split in splits {
        let mut per: BTreeMap<&str, Score> = BTreeMap::new();
        let wanted = |t: &Turn| match *split {
            "heldout+x" => t.split == "heldout" || t.split == "x-heldout",
            s => t.split == s,
        };
        for t in turns.iter().filter(|t| wanted(t)) {
            let got = verdict(t);
            per.entry(t.lang.as_str())
                .or_default()
                .add(t, got.as_deref());
        }
        let mut all = Score::default();
        let mut jako = Score::default();
        for (lang, s) in &per {
            println!("{split:<7} {lang:<5} {}", s.row());
            all.merge(s);
            if *lang == "ja" || *lang == "ko" {
                jako.merge(s);
            }
        }
        println!("{split:<7} ja+ko {}", jako.row());
        println!("{split:<7} all   {}", all.row());
    }
}

fn gate_example(t: &Turn, model: &Model) -> train::Example {
    let m = UserText {
        offset: 0,
        text: &t.text,
    };
    let (rules, sentences) = plan_rules(&m, model);
    gate::example(
        gate::message_features(&sentences, &rules),
        t.durable,
        t.ty.as_deref(),
    )
}

/// The synthetic validation corpora (`tests/corpus/extract/val/`): `(text, type)`.
fn synthetic_val() -> Vec<(&'static str, String, Option<usize>)> {
    synthetic("val")
}

/// A synthetic tuning corpus (`tests/corpus/extract/{val,dev}/`): `(lang, text, type)`.
fn synthetic(set: &str) -> Vec<(&'static str, String, Option<usize>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/extract")
        .join(set);
    let mut out = Vec::new();
    for lang in ["en", "zh", "mixed", "ja", "ko"] {
        let text = std::fs::read_to_string(dir.join(format!("{lang}.jsonl"))).unwrap_or_default();
        out.extend(
            text.lines()
                .filter_map(train::parse_corpus_line)
                .map(|(text, topic)| (lang, text, topic)),
        );
    }
    out
}

fn fold_of(repo: &str) -> usize {
    // FNV-1a of the repository: whole repositories per fold, as the splits are.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in repo.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h % 5) as usize
}

/// (keep, rescue, retype, trust, strict, trust-strict) settings compared by `--cv`: the
/// built-in thresholds with the strict keep rule off and on, over its two thresholds.
fn settings() -> Vec<Setting> {
    let b = (
        gate::KEEP_THRESHOLD,
        gate::RESCUE_THRESHOLD,
        gate::TYPE_THRESHOLD,
        gate::TRUST_THRESHOLD,
    );
    let mut out = vec![(0.0, f32::INFINITY, f32::INFINITY, 0.0, 0.0, 0.0)];
    out.push((b.0, b.1, b.2, b.3, 0.0, 0.0));
    // A drop-only gate: it may veto, never rescue.
    for keep in [0.25, 0.3, 0.4] {
        out.push((keep, f32::INFINITY, b.2, b.3, 0.0, 0.0));
    }
    for strict in [0.7, 0.8] {
        for trust_strict in [0.5, 0.8] {
            out.push((b.0, b.1, b.2, b.3, strict, trust_strict));
        }
    }
    out
}

/// One row of [`settings`].
type Setting = (f32, f32, f32, f32, f32, f32);

fn configure(g: &mut gate::Gate, &(keep, rescue, retype, trust, strict, trust_strict): &Setting) {
    g.keep = keep;
    g.rescue = rescue;
    g.retype = retype;
    g.trust = trust;
    g.strict = strict;
    g.trust_strict = trust_strict;
}

/// Chooses the gate's thresholds: 5-fold cross-validation by repository over `train`, and a
/// gate trained on all of `train` scored on `dev`, for every setting.
fn cv(turns: &[Turn], model: &Model) {
    let train_turns: Vec<&Turn> = turns.iter().filter(|t| t.split == "train").collect();
    let dev: Vec<&Turn> = turns.iter().filter(|t| t.split == "dev").collect();
    let grid = settings();
    // The rules' verdicts do not depend on the gate: computed once per turn.
    let ruled = |t: &Turn| {
        plan_rules(
            &UserText {
                offset: 0,
                text: &t.text,
            },
            model,
        )
    };
    let train_rules: Vec<_> = train_turns.iter().map(|t| ruled(t)).collect();
    let dev_rules: Vec<_> = dev.iter().map(|t| ruled(t)).collect();
    let example = |t: &Turn, (rules, sentences): &Ruled| {
        gate::example(
            gate::message_features(sentences, rules),
            t.durable,
            t.ty.as_deref(),
        )
    };
    let per_lang: std::cell::RefCell<BTreeMap<String, Score>> = Default::default();
    let run = |bytes: &[u8], test: &[(&Turn, &Ruled)], scores: &mut [Score]| {
        for (k, setting) in grid.iter().enumerate() {
            let Some(mut g) = gate::Gate::from_bytes(bytes) else {
                panic!("fresh weights decode")
            };
            configure(&mut g, setting);
            for (t, (rules, sentences)) in test {
                let m = UserText {
                    offset: 0,
                    text: &t.text,
                };
                let got = apply_gate(&m, rules.clone(), sentences, model, &g);
                let got = got.first().map(|p| p.topic.as_str());
                scores[k].add(t, got);
                if k == 1 {
                    // The built-in setting, per language (ja and ko pooled).
                    let lang = if t.lang == "ja" || t.lang == "ko" {
                        "ja+ko"
                    } else {
                        t.lang.as_str()
                    };
                    per_lang
                        .borrow_mut()
                        .entry(format!("{}:{lang}", t.split))
                        .or_default()
                        .add(t, got);
                }
            }
        }
    };
    // Real turns only: with the synthetic dev corpus added, its voice drowned the real turns
    // (cross-validation said so); the gate defers to the scorer where that is sure instead.
    let mut cv_scores = vec![Score::default(); grid.len()];
    for fold in 0..5 {
        let mut test = Vec::new();
        let mut ex: Vec<train::Example> = Vec::new();
        for (t, r) in train_turns.iter().zip(&train_rules) {
            if fold_of(&t.repo) == fold {
                test.push((*t, r));
            } else {
                ex.push(example(t, r));
            }
        }
        let bytes = train::encode(&train::train(&ex));
        run(&bytes, &test, &mut cv_scores);
    }
    let ex: Vec<train::Example> = train_turns
        .iter()
        .zip(&train_rules)
        .map(|(t, r)| example(t, r))
        .collect();
    let bytes = train::encode(&train::train(&ex));
    let val: Vec<(&str, String, Option<usize>, Ruled)> = synthetic_val()
        .into_iter()
        .map(|(lang, text, topic)| {
            let r = plan_rules(
                &UserText {
                    offset: 0,
                    text: &text,
                },
                model,
            );
            (lang, text, topic, r)
        })
        .collect();
    let mut val_rows = Vec::new();
    for setting in &grid {
        let Some(mut g) = gate::Gate::from_bytes(&bytes) else {
            panic!("fresh weights decode")
        };
        configure(&mut g, setting);
        // Per language: the synthetic bar holds per set and language.
        let mut per: BTreeMap<&str, (u32, u32, u32)> = BTreeMap::new();
        for (lang, text, topic, (rules, sentences)) in &val {
            let m = UserText { offset: 0, text };
            let got = apply_gate(&m, rules.clone(), sentences, model, &g);
            let (tp, fp, durable) = per.entry(lang).or_default();
            *durable += u32::from(topic.is_some());
            match (topic.is_some(), got.is_empty()) {
                (true, false) => *tp += 1,
                (false, false) => *fp += 1,
                _ => {}
            }
        }
        let cells: Vec<String> = per
            .iter()
            .map(|(lang, (tp, fp, durable))| {
                format!(
                    "{lang} {:.2}/{:.2}",
                    f64::from(*tp) / f64::from((tp + fp).max(1)),
                    f64::from(*tp) / f64::from((*durable).max(1))
                )
            })
            .collect();
        val_rows.push(format!("synthetic val P/R {}", cells.join(" ")));
    }
    let mut dev_scores = vec![Score::default(); grid.len()];
    let dev_pairs: Vec<_> = dev.iter().copied().zip(dev_rules.iter()).collect();
    run(&bytes, &dev_pairs, &mut dev_scores);
    println!("built-in setting per language (train = 5-fold CV by repository):\n{HEADER}");
    for (key, score) in per_lang.borrow().iter() {
        let (split, lang) = key.split_once(':').unwrap_or((key, ""));
        println!("{split:<7} {lang:<5} {}", score.row());
    }
    println!(
        "keep rescue retype trust strict trust-strict | train-cv: {HEADER} | dev: same | synthetic val"
    );
    for (k, (keep, rescue, retype, trust, strict, trust_strict)) in grid.iter().enumerate() {
        println!(
            "{keep:.2} {rescue:.2} {retype:.2} {trust:.2} {strict:.2} {trust_strict:.2} | {} | {} | {}",
            cv_scores[k].row(),
            dev_scores[k].row(),
            val_rows[k]
        );
    }
}

/// Every `*.jsonl` corpus in `dir`, by file name, each with its path for messages: what
/// `--train` trains the scorer on (the extractor's crate does no I/O of its own).
fn read_corpus_dir(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            Ok((f.display().to_string(), text))
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let turns = load();
    let builtin = Model::builtin();
    if args.iter().any(|a| a == "--train") {
        let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/extract/dev");
        let corpora = read_corpus_dir(&dev).unwrap_or_else(|e| panic!("{e}"));
        let synthetic = train::encode(&train::train(
            &train::corpus_examples(&corpora).unwrap_or_else(|e| panic!("{e}")),
        ));
        let out = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("crates/extract/src/heuristic/learned/weights.bin");
        std::fs::write(&out, &synthetic).expect("write the scorer's weights");
        println!("wrote {}", out.display());
        let Some(scorer) = Model::builtin_from(&synthetic) else {
            panic!("fresh weights decode")
        };
        let builtin = scorer;
        // The gate learns from the shared `train` split; `GATE_TRAIN_SPLITS=train,x-train` adds
        // the extra turns' train split (`REAL_CHATS_EXTRA`), to measure what more data does.
        let splits = std::env::var("GATE_TRAIN_SPLITS").unwrap_or_else(|_| "train".into());
        let splits: Vec<&str> = splits.split(',').map(str::trim).collect();
        for s in &splits {
            assert!(
                ["train", "x-train"].contains(s),
                "GATE_TRAIN_SPLITS: {s:?} is not a train split (train, x-train)"
            );
            assert!(
                turns.iter().any(|t| t.split == *s),
                "GATE_TRAIN_SPLITS: no {s} turns (x-train needs REAL_CHATS_EXTRA)"
            );
        }
        let examples: Vec<train::Example> = turns
            .iter()
            .filter(|t| splits.contains(&t.split.as_str()))
            .map(|t| gate_example(t, &builtin))
            .collect();
        let bytes = train::encode(&train::train(&examples));
        let out = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("crates/extract/src/heuristic/learned/gate.bin");
        std::fs::write(&out, bytes).expect("write the gate's weights");
        println!("wrote {} ({} examples)", out.display(), examples.len());
        return;
    }
    if args.iter().any(|a| a == "--dump") {
        // One line per train/dev turn: what the rules kept and which cues fired (exploration).
        for t in turns.iter().filter(|t| !t.split.ends_with("heldout")) {
            let m = UserText {
                offset: 0,
                text: &t.text,
            };
            let (rules, sentences) = plan_rules(&m, &builtin);
            let cues: Vec<&str> = qwen_memory::ops::extract::heuristic::cues::fired(&t.text)
                .iter()
                .map(|c| c.id)
                .collect();
            let types: Vec<&str> = rules.iter().map(|p| p.topic.as_str()).collect();
            let g = gate::Gate::builtin();
            let gate_score = g.score(&sentences, &rules).map(|v| v.durable);
            let scorer = builtin.score(&t.text).map(|v| v.durable);
            let standing = qwen_memory::ops::extract::heuristic::standing::judge(&t.text);
            let keep_id = standing.keep.map(|c| c.id);
            let vetoes: Vec<&str> = standing.vetoes.iter().map(|c| c.id).collect();
            let kept: Vec<String> = plan_with_gate(&[m], &builtin, &g)
                .iter()
                .map(|p| format!("{}|{}", p.topic.as_str(), p.summary))
                .collect();
            println!(
                "{}",
                serde_json::json!({"id": t.id, "split": t.split, "lang": t.lang, "durable": t.durable,
                    "type": t.ty, "why": t.why_not, "rules": types, "sentences": sentences.len(),
                    "cues": cues, "chars": t.text.chars().count(), "random": t.random,
                    "gate": gate_score, "scorer": scorer, "kept": kept,
                    "standing": keep_id, "vetoes": vetoes})
            );
        }
        return;
    }
    if args.iter().any(|a| a == "--synthetic") {
        // The built-in pipeline on the synthetic tuning sets (val, dev; never a held-out set):
        // message precision and recall per language, and dev's lost durable messages.
        let g = gate::Gate::builtin();
        for set in ["val", "dev"] {
            let mut per: BTreeMap<&str, (u32, u32, u32)> = BTreeMap::new();
            for (lang, text, topic) in synthetic(set) {
                let got = plan_with_gate(
                    &[UserText {
                        offset: 0,
                        text: &text,
                    }],
                    &builtin,
                    &g,
                );
                let (tp, fp, durable) = per.entry(lang).or_default();
                *durable += u32::from(topic.is_some());
                match (topic.is_some(), got.is_empty()) {
                    (true, false) => *tp += 1,
                    (false, false) => *fp += 1,
                    (true, true) if set == "dev" => println!("lost {lang}: {text}"),
                    _ => {}
                }
            }
            for (lang, (tp, fp, durable)) in per {
                println!(
                    "{set} {lang}: P {:.3} R {:.3}",
                    f64::from(tp) / f64::from((tp + fp).max(1)),
                    f64::from(tp) / f64::from(durable.max(1))
                );
            }
        }
        return;
    }
    if args.iter().any(|a| a == "--cv") {
        cv(&turns, &builtin);
        return;
    }
    let mut splits = vec!["train", "dev"];
    let extra = turns.iter().any(|t| t.split.starts_with("x-"));
    if extra {
        splits.extend(["x-train", "x-dev"]);
    }
    if args.iter().any(|a| a == "--heldout") {
        splits.push("heldout");
        if extra {
            splits.extend(["x-heldout", "heldout+x"]);
        }
    }
    let first_type = |ps: Vec<qwen_memory::ops::extract::Patch>| {
        ps.first().map(|p| p.topic.as_str().to_string())
    };
    println!("rules + synthetic scorer (no gate):");
    table(&turns, &splits, &|t| {
        first_type(plan_with(
            &[UserText {
                offset: 0,
                text: &t.text,
            }],
            &builtin,
        ))
    });
    println!("\nbuilt-in pipeline (rules + scorer + real-chat gate):");
    let mut g = gate::Gate::builtin();
    table(&turns, &splits, &|t| {
        first_type(plan_with_gate(
            &[UserText {
                offset: 0,
                text: &t.text,
            }],
            &builtin,
            &g,
        ))
    });
    println!("\nwith the strict keep rule (gate::Gate::with_strict_rule, not the default):");
    let strict = gate::Gate::builtin().with_strict_rule();
    table(&turns, &splits, &|t| {
        first_type(plan_with_gate(
            &[UserText {
                offset: 0,
                text: &t.text,
            }],
            &builtin,
            &strict,
        ))
    });
    // `--mistakes` lists the built-in pipeline's mistakes, the strict rule's with `--strict`.
    if args.iter().any(|a| a == "--strict") {
        g = strict;
    }
    if let Some(split) = args
        .iter()
        .skip_while(|a| *a != "--mistakes")
        .nth(1)
        .filter(|s| !s.ends_with("heldout"))
    {
        for t in turns.iter().filter(|t| t.split == *split) {
            let got = plan_with_gate(
                &[UserText {
                    offset: 0,
                    text: &t.text,
                }],
                &builtin,
                &g,
            );
            let kept = !got.is_empty();
            if kept != t.durable || (kept && t.ty.as_deref() != Some(got[0].topic.as_str())) {
                let tag = match (t.durable, kept) {
                    (true, false) => "MISS",
                    (false, true) => "FALSE",
                    _ => "TYPE",
                };
                let text: String = t.text.chars().take(300).collect();
                println!(
                    "{tag} {} [{}] {:?} want {:?} / {:?}",
                    t.id, t.repo, text, t.ty, t.why_not
                );
                for p in &got {
                    println!("    -> {} {:?}", p.topic.as_str(), p.summary);
                }
            }
        }
    }
}
