//! The semantic ranking step of a warm recall on 1,000 cached memories (384 dimensions, the
//! size of multilingual-e5-small): centre every document vector, compare it with the centred
//! query, admit against the calibration. Cache loading, hashing and the query's round trip to
//! the embeddings server are not in it (scripts/bench-semantic-recall.sh times the whole
//! process). Also dream's near-duplicate pairing of 1,000 candidates (every pair compared).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use qwen_memory::ops::recall::embed::{background_texts, Calibration};

const DIM: usize = 384;

/// Deterministic pseudo-random vectors (xorshift), all components in [-1, 1].
fn vectors(n: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            (0..DIM)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    (s % 2001) as f32 / 1000.0 - 1.0
                })
                .collect()
        })
        .collect()
}

fn bench_semantic(c: &mut Criterion) {
    let texts = background_texts();
    let cal = Calibration::new(&texts, &vectors(texts.len(), 7)).expect("calibration");
    let docs = vectors(1000, 11);
    let doc_texts: Vec<String> = (0..docs.len())
        .map(|i| match i % 3 {
            0 => format!("Deploy notes {i}\nhow the billing service is released"),
            1 => format!("数据库备份 {i}\n每天凌晨三点做一次全量备份"),
            _ => format!("リリース手順 {i}\n毎週木曜日にリリースする"),
        })
        .collect();
    let query = vectors(1, 13).remove(0);
    c.bench_function("semantic rank 1000 docs (centre, compare, admit)", |b| {
        b.iter(|| {
            let q = cal.center(black_box(&query), "how do we deploy the billing service");
            let sims: Vec<(usize, f32)> = docs
                .iter()
                .zip(&doc_texts)
                .enumerate()
                .map(|(i, (v, t))| {
                    let d = cal.center(v, t);
                    (i, q.iter().zip(&d).map(|(x, y)| x * y).sum())
                })
                .collect();
            black_box(cal.admit(&q, sims, |i| i % 2 == 0))
        })
    });
}

fn bench_near_duplicates(c: &mut Criterion) {
    use qwen_memory::ops::dream::similar::{pairs, terms, Candidate};
    let cands: Vec<Candidate> = vectors(1000, 17)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            Candidate {
                vector: v.iter().map(|x| x / n).collect(),
                floor: 0.1,
                terms: terms(&format!("deploy notes {i}")),
            }
        })
        .collect();
    c.bench_function("dream near-duplicate pairs of 1000 candidates", |b| {
        b.iter(|| black_box(pairs(black_box(&cands), 1.0)))
    });
}

criterion_group!(benches, bench_semantic, bench_near_duplicates);
criterion_main!(benches);
