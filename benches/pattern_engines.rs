//! What building the extractor's rule patterns costs with each regex engine: `regex-lite` (what
//! the rules use), `regex` as configured by default (Unicode), `regex::bytes` with Unicode off,
//! and the two plain matchers of `regex-automata` (the engine under `regex`; a PikeVM or a
//! bounded backtracker alone, no DFA, no prefilter, Unicode off: what "one engine" could use
//! for the rules at the least cost). About a fifth of the patterns do not build with Unicode
//! off (`.`, `[^…]`, `\S` may match invalid UTF-8 there, and a few classes are not ASCII), so
//! the engines are compared twice: on every pattern (`regex-lite`, `regex`) and on the patterns
//! that build without Unicode (every engine). A short `extract` process builds about ten to
//! twenty of these per turn (docs/DESIGN.md, "Pattern engine").

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qwen_memory::ops::extract::heuristic::rule_patterns;
use regex_automata::nfa::thompson::{backtrack::BoundedBacktracker, pikevm::PikeVM};
use regex_automata::util::syntax;

fn ascii() -> syntax::Config {
    syntax::Config::new().unicode(false)
}

fn build(c: &mut Criterion) {
    let patterns = rule_patterns();
    assert!(
        patterns.len() > 100,
        "the literal table lists the rule patterns"
    );
    let plain: Vec<&str> = patterns
        .iter()
        .copied()
        .filter(|p| PikeVM::builder().syntax(ascii()).build(p).is_ok())
        .collect();
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
    group.finish();
    let mut group = c.benchmark_group("build the rule patterns that build without Unicode");
    group.sample_size(10);
    group.bench_function("regex-lite", |b| {
        b.iter(|| {
            for p in &plain {
                black_box(regex_lite::Regex::new(p).expect("rule pattern"));
            }
        })
    });
    group.bench_function("regex-automata PikeVM", |b| {
        b.iter(|| {
            for p in &plain {
                black_box(PikeVM::builder().syntax(ascii()).build(p).expect("builds"));
            }
        })
    });
    group.bench_function("regex-automata BoundedBacktracker", |b| {
        b.iter(|| {
            for p in &plain {
                let built = BoundedBacktracker::builder().syntax(ascii()).build(p);
                black_box(built.expect("builds"));
            }
        })
    });
    group.bench_function("regex::bytes", |b| {
        b.iter(|| {
            for p in &plain {
                let built = regex::bytes::RegexBuilder::new(p).unicode(false).build();
                black_box(built.expect("builds"));
            }
        })
    });
    group.finish();
    eprintln!(
        "{} rule patterns; {} build without Unicode",
        patterns.len(),
        plain.len()
    );
}

criterion_group!(benches, build);
criterion_main!(benches);
