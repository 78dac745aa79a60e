//! Regenerates `crates/extract/src/heuristic/literals.rs`, the table of the literals each rule
//! pattern needs (docs/DESIGN.md, "Extract", pattern engine), so that a process looks them up
//! instead of reading every pattern it reaches.
//!
//! `cargo run --example extract_literals` (a debug build: the pattern registry exists only
//! there) runs the offline extractor over every message of the synthetic corpora
//! (`tests/corpus/extract/*/*.jsonl`), one at a time and in runs of 25 joined by newlines and
//! by spaces, so that every rule's patterns are built, then writes the table for every pattern
//! built and every entry the table had. Only the repository's own corpora are read: the same
//! tree gives the same table. Run it after changing a rule pattern (debug builds stop at a
//! stale entry; a pattern without one is read at run time, which is only slower).

#[cfg(not(debug_assertions))]
fn main() {
    eprintln!("the pattern registry exists only in debug builds: run without --release");
    std::process::exit(2);
}

#[cfg(debug_assertions)]
fn main() {
    generate::main()
}

#[cfg(debug_assertions)]
mod generate {
    use std::path::Path;

    use qwen_memory::ops::extract::heuristic::learned::train;
    use qwen_memory::ops::extract::heuristic::{self, explain};
    use qwen_memory::ops::extract::UserText;

    fn messages() -> Vec<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/extract");
        let mut files = Vec::new();
        for set in std::fs::read_dir(&root)
            .expect("tests/corpus/extract")
            .flatten()
        {
            if let Ok(dir) = std::fs::read_dir(set.path()) {
                files.extend(
                    dir.flatten()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "jsonl")),
                );
            }
        }
        files.sort();
        let mut out = Vec::new();
        for f in files {
            let text = std::fs::read_to_string(&f).expect("corpus file");
            out.extend(
                text.lines()
                    .filter_map(train::parse_corpus_line)
                    .map(|(m, _)| m),
            );
        }
        out
    }

    pub fn main() {
        let msgs = messages();
        let mut texts: Vec<String> = msgs.clone();
        for chunk in msgs.chunks(25) {
            texts.push(chunk.join("\n"));
            texts.push(chunk.join(" "));
        }
        for t in &texts {
            let m = UserText { offset: 0, text: t };
            let _ = heuristic::plan_heuristic(std::slice::from_ref(&m));
            let _ = explain(t);
        }
        let (table, missing) = heuristic::literal_table();
        let out =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/extract/src/heuristic/literals.rs");
        std::fs::write(&out, &table).expect("write literals.rs");
        println!(
            "{} messages ({} texts); wrote {} entries to {} ({missing} patterns had none)",
            msgs.len(),
            texts.len(),
            table.lines().filter(|l| l.starts_with("    (")).count(),
            out.display()
        );
    }
}
