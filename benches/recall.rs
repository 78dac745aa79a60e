//! Recall over in-memory documents: the upstream lexical ranking and the default (`auto`)
//! relevance ranking, tokenize + score + rank, and prompt rendering.
//! The corpus mixes ASCII and non-ASCII documents with bodies near the 1200-unit window.

use std::path::PathBuf;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use qwen_memory::formats::doc::MemoryType;
use qwen_memory::ops::recall::relevance::RelevanceQuery;
use qwen_memory::ops::recall::{rank_lexical, render_prompt, tokenize};
use qwen_memory::storage::scan::{ScannedDoc, Scope};

const WORDS: &[&str] = &[
    "deploy",
    "release",
    "branch",
    "latency",
    "dashboard",
    "cargo",
    "test",
    "review",
    "cache",
    "database",
    "migration",
    "schema",
    "owner",
    "incident",
    "terse",
    "answers",
    "style",
    "lint",
    "format",
    "pipeline",
    "staging",
    "production",
    "rollback",
    "feature",
    "flag",
    "metrics",
];

const LONG_PROMPT: &str = "I am refactoring the payment service and the integration tests keep \
failing on the staging cluster after yesterday's migration. Could you look at the database \
schema changes in the last three commits, compare them with the rollback scripts, check whether \
the feature flag for the new checkout flow is still enabled in production, and then write a \
short summary of what broke, which owner should be paged, and whether we need to delay the \
release that is scheduled for Friday afternoon? Also remember that our lint pipeline rejects \
unformatted code, metrics dashboards live in grafana, incident tickets go to the platform team \
queue, and every deployment must come from a tagged release branch.";

/// Deterministic pseudo-random generator so every run sees the same corpus.
fn next(state: &mut u64) -> usize {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*state >> 33) as usize
}

fn sentence(state: &mut u64, words: usize) -> String {
    let mut out = String::new();
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        let w = WORDS[next(state) % WORDS.len()];
        if i == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                out.extend(f.to_uppercase());
                out.push_str(c.as_str());
            }
        } else {
            out.push_str(w);
        }
    }
    out
}

fn corpus(n: usize) -> Vec<ScannedDoc> {
    let mut state = 42u64;
    (0..n)
        .map(|i| {
            let memory_type = MemoryType::ALL[i % 4];
            let mut body = String::new();
            while body.len() < 900 {
                body.push_str(&sentence(&mut state, 12));
                body.push_str(".\n\nWhy: ");
                body.push_str(&sentence(&mut state, 8));
                body.push_str(".\n\n");
            }
            // One document in ten carries CJK text, so the non-ASCII path is exercised.
            let title = if i % 10 == 0 {
                format!("{} 部署流程 {i}", sentence(&mut state, 3))
            } else {
                format!("{} {i}", sentence(&mut state, 4))
            };
            ScannedDoc {
                scope: Scope::Private,
                memory_type,
                path: PathBuf::from(format!("/mem/{}/doc-{i}.md", memory_type.as_str())),
                relative_path: format!("{}/doc-{i}.md", memory_type.as_str()),
                title,
                description: sentence(&mut state, 10),
                body,
                mtime_ms: 1_700_000_000_000.0 + (i as f64) * 1000.0,
                extra: Vec::new(),
            }
        })
        .collect()
}

fn bench_recall(c: &mut Criterion) {
    let query = "How do we roll back a production deploy when the latency dashboard spikes? 部署";
    c.bench_function("tokenize/query", |b| b.iter(|| tokenize(black_box(query))));

    // A prompt long enough to hit the 64-token cap, as real agent prompts often do.
    let long_query = LONG_PROMPT;
    assert_eq!(tokenize(long_query).len(), 64);
    c.bench_function("tokenize/long_query", |b| {
        b.iter(|| tokenize(black_box(long_query)))
    });

    // A pasted 1 MB log must stay linear: mixed words, CJK and one long unbroken run.
    let huge: String = (0..60_000)
        .map(|i| format!("word{i} 部署流程ユーザー "))
        .collect::<String>()
        + &"x".repeat(200_000);
    let mut group = c.benchmark_group("tokenize_huge");
    group.sample_size(10);
    group.bench_function(format!("{}_bytes", huge.len()), |b| {
        b.iter(|| tokenize(black_box(&huge)))
    });
    group.finish();

    let mut group = c.benchmark_group("rank_lexical");
    for n in [1_000usize, 10_000] {
        let docs = corpus(n);
        group.bench_with_input(BenchmarkId::new("short_query", n), &docs, |b, docs| {
            b.iter(|| rank_lexical(black_box(query), black_box(docs), 5))
        });
        group.bench_with_input(BenchmarkId::new("long_query", n), &docs, |b, docs| {
            b.iter(|| rank_lexical(black_box(long_query), black_box(docs), 5))
        });
    }
    group.finish();

    // The default (`auto`) ranking over the same corpora, side by side with upstream's.
    let mut group = c.benchmark_group("rank_auto");
    for n in [1_000usize, 10_000] {
        let docs = corpus(n);
        group.bench_with_input(BenchmarkId::new("short_query", n), &docs, |b, docs| {
            b.iter(|| RelevanceQuery::new(black_box(query)).rank(black_box(docs)))
        });
        group.bench_with_input(BenchmarkId::new("long_query", n), &docs, |b, docs| {
            b.iter(|| RelevanceQuery::new(black_box(long_query)).rank(black_box(docs)))
        });
    }
    group.finish();

    let docs = corpus(1_000);
    let ranked = rank_lexical(query, &docs, 5);
    let selected: Vec<&ScannedDoc> = ranked.iter().map(|r| &docs[r.index]).collect();
    c.bench_function("render_prompt/5", |b| {
        b.iter(|| render_prompt(black_box(&selected), 1_700_100_000_000.0))
    });
}

criterion_group!(benches, bench_recall);
criterion_main!(benches);
