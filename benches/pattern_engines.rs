//! What building the extractor's rule patterns costs with each regex engine: `regex-lite` (what
//! the rules use), `regex` as configured by default (Unicode), `regex::bytes` with Unicode off,
//! and the two plain matchers of `regex-automata` (the engine under `regex`; a PikeVM or a
//! bounded backtracker alone, no DFA, no prefilter, Unicode off: what "one engine" could use
//! for the rules at the least cost). A few patterns do not build without Unicode and are skipped. A short `extract`
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
    group.bench_function("pikevm, Unicode off", |b| {
        b.iter(|| {
            for p in &patterns {
                let _ = black_box(
                    regex_automata::nfa::thompson::pikevm::PikeVM::builder()
                        .syntax(
                            regex_automata::util::syntax::Config::new()
                                .unicode(false)
                                .utf8(true),
                        )
                        .thompson(regex_automata::nfa::thompson::Config::new().shrink(false))
                        .build(p),
                );
            }
        })
    });
    group.bench_function("backtrack, Unicode off", |b| {
        b.iter(|| {
            for p in &patterns {
                let _ = black_box(
                    regex_automata::nfa::thompson::backtrack::BoundedBacktracker::builder()
                        .syntax(regex_automata::util::syntax::Config::new().unicode(false))
                        .build(p),
                );
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
