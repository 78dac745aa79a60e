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

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let dev = manifest.join("tests/corpus/extract/dev");
    println!("cargo:rerun-if-changed=tests/corpus/extract/dev");
    println!("cargo:rerun-if-changed=src/ops/extract/heuristic/learned/features.rs");
    println!("cargo:rerun-if-changed=src/ops/extract/heuristic/learned/train.rs");
    let examples = load(&dev);
    let weights = train::train(&examples);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("learned_weights.bin"), train::encode(&weights))
        .expect("write learned weights");
}

/// Every labelled message of every dev corpus, in file-name then line order.
fn load(dev: &Path) -> Vec<train::Example> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dev)
        .unwrap_or_else(|e| panic!("{}: {e}", dev.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let (message, topic) = train::parse_corpus_line(line)
                .unwrap_or_else(|| panic!("{}:{}: not a corpus record", f.display(), n + 1));
            out.push(train::Example {
                features: features::features(&message),
                topic,
            });
        }
    }
    assert!(
        !out.is_empty(),
        "no labelled messages under {}",
        dev.display()
    );
    out
}
