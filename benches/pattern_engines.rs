//! What building the extractor's rule patterns costs with each regex engine: `regex-lite` (what
//! the rules use), `regex` as configured by default (Unicode), and `regex::bytes` with Unicode
//! off (the cheapest `regex` can be; a few patterns do not build that way). A short `extract`
//! process builds about 18 of these per turn (docs/DESIGN.md, "Pattern engine"), so the
//! per-pattern figure times 18 is what one engine for everything would add to a turn.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qwen_memory::ops::extract::heuristic::rule_patterns;

fn build(c: &mut Criterion) {
    let patterns = rule_patterns();
    assert!(
        patterns.len() > 100,
        "the literal table lists the rule patterns"
    );
    let mut group = c.benchmark_group("build every rule pattern");
    group.sample_size(10);
    group.bench_function("regex-lite", |b| {
        b.iter(|| {
            for p in &patterns {
                black_box(regex_lite::Regex::new(p).expect("rule pattern"));
            }
        })
    });
    group.bench_function("regex (Unicode)", |b| {
        b.iter(|| {
            for p in &patterns {
                black_box(regex::Regex::new(p).expect("rule pattern"));
            }
        })
    });
    group.bench_function("regex::bytes, Unicode off", |b| {
        b.iter(|| {
            for p in &patterns {
                // Patterns with a non-ASCII class do not build without Unicode; they are skipped.
                let _ = black_box(regex::bytes::RegexBuilder::new(p).unicode(false).build());
            }
        })
    });
    group.finish();
    eprintln!("{} rule patterns per iteration", patterns.len());
}

criterion_group!(benches, build);
criterion_main!(benches);
