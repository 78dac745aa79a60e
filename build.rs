//! Trains the extractor's learned scorer on the development corpora
//! (`tests/corpus/extract/dev/*.jsonl`) and writes its weights to `$OUT_DIR`. Only the dev
//! corpora are read: the held-out and validation sets must stay unseen (docs/DESIGN.md,
//! "Extract").

#[allow(dead_code)]
#[path = "src/ops/extract/heuristic/learned/features.rs"]
mod features;
#[allow(dead_code)]
#[path = "src/ops/extract/heuristic/learned/train.rs"]
mod train;

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dev = manifest.join("tests/corpus/extract/dev");
    println!("cargo:rerun-if-changed=tests/corpus/extract/dev");
    println!("cargo:rerun-if-changed=src/ops/extract/heuristic/learned/features.rs");
    println!("cargo:rerun-if-changed=src/ops/extract/heuristic/learned/train.rs");
    let examples = train::load_corpus_dir(&dev).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !examples.is_empty(),
        "no labelled messages under {}",
        dev.display()
    );
    let weights = train::train(&examples);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("learned_weights.bin"), train::encode(&weights))
        .expect("write learned weights");
}
