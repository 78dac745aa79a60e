//! Recall quality on labelled data: the development set (tests/fixtures/recall-eval/dev.json,
//! which the auto ranking's constants were tuned on) and the held-out set (heldout.json,
//! written before the auto ranking and never tuned on), for the `auto` and `upstream`
//! strategies; plus upstream's own recall cases, where `auto` must do no worse.
//!
//! `cargo test --test recall_eval -- --nocapture` prints the figures the README quotes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use qwen_memory::formats::doc::MemoryType;
use qwen_memory::ops::recall::{rank_offline, Strategy};
use qwen_memory::storage::scan::{ScannedDoc, Scope};
use serde_json::Value;

pub struct Set {
    pub docs: Vec<ScannedDoc>,
    pub ids: Vec<String>,
    pub queries: Vec<Query>,
}

pub struct Query {
    pub q: String,
    pub kind: String,
    pub relevant: Vec<String>,
}

pub fn load(name: &str) -> Set {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/recall-eval")
        .join(name);
    let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut docs = Vec::new();
    let mut ids = Vec::new();
    for m in v["memories"].as_array().unwrap() {
        let id = m["id"].as_str().unwrap().to_string();
        docs.push(ScannedDoc {
            scope: Scope::Private,
            memory_type: MemoryType::parse(m["type"].as_str().unwrap()).unwrap(),
            path: PathBuf::from(format!("/mem/{id}.md")),
            relative_path: format!("{id}.md"),
            title: m["title"].as_str().unwrap().to_string(),
            description: m["description"].as_str().unwrap().to_string(),
            body: m["body"].as_str().unwrap().to_string(),
            mtime_ms: 1_700_000_000_000.0,
            extra: Vec::new(),
        });
        ids.push(id);
    }
    let queries = v["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| Query {
            q: q["q"].as_str().unwrap().to_string(),
            kind: q["kind"].as_str().unwrap().to_string(),
            relevant: q["relevant"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect(),
        })
        .collect();
    Set { docs, ids, queries }
}

#[derive(Debug, Default)]
struct Figures {
    /// Per kind: (queries, summed recall@5).
    recall: BTreeMap<String, (usize, f64)>,
    none_queries: usize,
    none_silent: usize,
    injected: usize,
    injected_relevant: usize,
}

impl Figures {
    fn recall_at_5(&self, kind: &str) -> f64 {
        self.recall
            .get(kind)
            .map_or(0.0, |(n, sum)| if *n == 0 { 0.0 } else { sum / *n as f64 })
    }
    fn silent_share(&self) -> f64 {
        self.none_silent as f64 / self.none_queries.max(1) as f64
    }
    fn precision(&self) -> f64 {
        self.injected_relevant as f64 / self.injected.max(1) as f64
    }
}

fn evaluate(set: &Set, strategy: Strategy, verbose: bool) -> Figures {
    let mut f = Figures::default();
    for q in &set.queries {
        let got: Vec<&str> = rank_offline(strategy, &q.q, &set.docs, 5)
            .into_iter()
            .map(|(i, _)| set.ids[i].as_str())
            .collect();
        f.injected += got.len();
        f.injected_relevant += got
            .iter()
            .filter(|g| q.relevant.iter().any(|r| r == *g))
            .count();
        if q.kind == "none" {
            f.none_queries += 1;
            if got.is_empty() {
                f.none_silent += 1;
            }
        } else {
            let found = q
                .relevant
                .iter()
                .filter(|r| got.contains(&r.as_str()))
                .count();
            let e = f.recall.entry(q.kind.clone()).or_default();
            e.0 += 1;
            e.1 += found as f64 / q.relevant.len() as f64;
        }
        if verbose {
            let ok = if q.kind == "none" {
                got.is_empty()
            } else {
                q.relevant.iter().all(|r| got.contains(&r.as_str()))
            };
            println!(
                "  [{}] {:10} {:?} -> {:?}",
                if ok { "ok" } else { "--" },
                q.kind,
                q.q,
                got
            );
        }
    }
    f
}

fn report(name: &str, set: &Set, strategy: Strategy, verbose: bool) -> Figures {
    let f = evaluate(set, strategy, verbose);
    println!(
        "{name} / {:8}: silent on no-answer {}/{} ({:.0}%), recall@5 direct {:.2} paraphrase {:.2} cross {:.2} mixed {:.2}, injected {} of which relevant {} ({:.0}%)",
        strategy.as_str(),
        f.none_silent,
        f.none_queries,
        100.0 * f.silent_share(),
        f.recall_at_5("direct"),
        f.recall_at_5("paraphrase"),
        f.recall_at_5("cross"),
        f.recall_at_5("mixed"),
        f.injected,
        f.injected_relevant,
        100.0 * f.precision(),
    );
    f
}

fn assert_done_when(f: &Figures, which: &str) {
    assert!(
        f.silent_share() >= 0.90,
        "{which}: no-answer prompts silent {:.2}",
        f.silent_share()
    );
    assert!(
        f.recall_at_5("direct") >= 0.95,
        "{which}: recall@5 direct {:.2}",
        f.recall_at_5("direct")
    );
    assert!(
        f.precision() >= 0.60,
        "{which}: precision {:.2}",
        f.precision()
    );
}

#[test]
fn development_set() {
    let set = load("dev.json");
    let verbose = std::env::var_os("RECALL_EVAL_VERBOSE").is_some();
    report("dev", &set, Strategy::Upstream, false);
    let auto = report("dev", &set, Strategy::Auto, verbose);
    assert_done_when(&auto, "development set");
}

#[test]
fn held_out_set() {
    let set = load("heldout.json");
    report("held-out", &set, Strategy::Upstream, false);
    let auto = report("held-out", &set, Strategy::Auto, false);
    assert_done_when(&auto, "held-out set");
}

/// Upstream's own recall cases (Qwen Code's recall tests): corpus, query, expected relative
/// paths in order.
fn upstream_cases() -> Vec<(Vec<ScannedDoc>, &'static str, Vec<&'static str>)> {
    fn d(t: MemoryType, rel: &str, title: &str, desc: &str, body: &str) -> ScannedDoc {
        ScannedDoc {
            scope: Scope::Private,
            memory_type: t,
            path: PathBuf::from(format!("/mem/{rel}")),
            relative_path: rel.to_string(),
            title: title.into(),
            description: desc.into(),
            body: body.into(),
            mtime_ms: 1_700_000_000_000.0,
            extra: Vec::new(),
        }
    }
    use MemoryType::*;
    let eval = vec![
        d(
            User,
            "user/terse.md",
            "Terse answers",
            "User wants short replies",
            "Keep replies short.",
        ),
        d(
            Feedback,
            "feedback/tests.md",
            "Run unit tests first",
            "Before pushing run cargo test",
            "Run cargo test before every push.",
        ),
        d(
            Project,
            "project/freeze.md",
            "Release freeze",
            "No merges during freeze week",
            "Freeze starts Monday.",
        ),
        d(
            Reference,
            "reference/latency.md",
            "Latency dashboard",
            "Grafana board for API latency",
            "https://grafana.example/d/latency",
        ),
    ];
    let cjk = vec![
        d(Project, "project/zh.md", "部署流程", "", ""),
        d(Project, "project/ja.md", "メモ", "認証の設定手順", ""),
        d(Project, "project/ko.md", "배포 절차", "", ""),
    ];
    let single = vec![
        d(Project, "project/zh.md", "部署流程", "", ""),
        d(Project, "project/ja.md", "認証", "", ""),
        d(Project, "project/ko.md", "배포", "", ""),
    ];
    let width = vec![
        d(Reference, "reference/api.md", "ＡＰＩ", "", ""),
        d(
            Project,
            "project/deploy.md",
            "Production deployment",
            "",
            "",
        ),
        d(Project, "project/qwen.md", "Qwen models", "", ""),
    ];
    let scripts = vec![
        d(Project, "project/ru.md", "Развертывание сервиса", "", ""),
        d(Project, "project/el.md", "Ανάπτυξη", "", ""),
        d(Project, "project/fr.md", "Déploiement", "", ""),
        d(Project, "project/go.md", "до go", "", ""),
    ];
    let fields = vec![
        d(
            Project,
            "project/body.md",
            "Monitoring",
            "Where graphs live",
            "See latency dashboard in grafana.",
        ),
        d(
            Project,
            "project/desc.md",
            "Graphs",
            "Latency dashboard link",
            "",
        ),
        d(Project, "project/title.md", "Latency dashboard", "", ""),
    ];
    let cadence = vec![
        d(Feedback, "feedback/cadence.md", "Review cadence", "", ""),
        d(User, "user/cadence.md", "Review cadence", "", ""),
    ];
    let late = vec![d(
        Project,
        "project/late.md",
        "Notes",
        "",
        &format!("{} late marker", "x".repeat(1300)),
    )];
    vec![
        (
            eval.clone(),
            "check the latency dashboard",
            vec!["reference/latency.md"],
        ),
        (eval.clone(), "unrelated weather", vec![]),
        (eval.clone(), "zzqx wvvk", vec![]),
        (eval, "?!", vec![]),
        (cjk.clone(), "部署", vec!["project/zh.md"]),
        (cjk.clone(), "認証について", vec!["project/ja.md"]),
        (cjk, "배포", vec!["project/ko.md"]),
        (single.clone(), "部", vec![]),
        (single.clone(), "認", vec![]),
        (single, "배", vec![]),
        (
            vec![d(User, "user/ja.md", "ユーザー設定", "", "")],
            "ユーザー",
            vec!["user/ja.md"],
        ),
        (
            vec![
                d(Reference, "reference/faq.md", "よくあるしつもん", "", ""),
                d(Reference, "reference/x.md", "Other", "", ""),
            ],
            "よくあるしつもん",
            vec!["reference/faq.md"],
        ),
        (width.clone(), "API", vec!["reference/api.md"]),
        (
            width.clone(),
            "ＰＲＯＤＵＣＴＩＯＮ deployment",
            vec!["project/deploy.md"],
        ),
        (
            width,
            "ＱＷＥＮ ＡＰＩ",
            vec!["reference/api.md", "project/qwen.md"],
        ),
        (scripts.clone(), "развертывание", vec!["project/ru.md"]),
        (scripts.clone(), "ανάπτυξη", vec!["project/el.md"]),
        (scripts.clone(), "DÉPLOIEMENT", vec!["project/fr.md"]),
        (scripts, "до go", vec![]),
        (
            vec![
                d(Project, "project/abc.md", "abc", "", ""),
                d(Project, "project/kanji.md", "漢字", "", ""),
            ],
            "abc漢字",
            vec!["project/abc.md", "project/kanji.md"],
        ),
        (
            fields,
            "latency dashboard",
            vec!["project/title.md", "project/desc.md", "project/body.md"],
        ),
        (
            cadence.clone(),
            "cadence preference",
            vec!["user/cadence.md", "feedback/cadence.md"],
        ),
        (cadence, "preference", vec![]),
        (late, "late marker", vec![]),
    ]
}

#[test]
fn upstream_cases_auto_no_worse_than_upstream() {
    let mut passed = BTreeMap::new();
    for strategy in [Strategy::Upstream, Strategy::Auto] {
        let mut n = 0;
        for (docs, q, want) in upstream_cases() {
            let got: Vec<&str> = rank_offline(strategy, q, &docs, 5)
                .into_iter()
                .map(|(i, _)| docs[i].relative_path.as_str())
                .collect();
            if got == want {
                n += 1;
            } else {
                println!(
                    "  {} misses {q:?}: {got:?} (want {want:?})",
                    strategy.as_str()
                );
            }
        }
        passed.insert(strategy.as_str(), n);
    }
    let total = upstream_cases().len();
    println!(
        "upstream cases: upstream {}/{total}, auto {}/{total}",
        passed["upstream"], passed["auto"]
    );
    assert_eq!(
        passed["upstream"], total,
        "the upstream ranking must pass its own cases"
    );
    assert!(passed["auto"] >= passed["upstream"]);
}
