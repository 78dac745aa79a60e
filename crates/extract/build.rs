//! Compiles the rules' word lists, `src/heuristic/data/<lang>.words`, into constants
//! (`heuristic::words::<lang>::<NAME>`), so the language knowledge lives in data files a
//! linguist can edit while the rules read a `&[&str]` that costs nothing to build at run time
//! (docs/DESIGN.md, "Extract", "Word lists").
//!
//! The format: `src/heuristic/words_format.rs`.

use std::path::Path;

#[path = "src/heuristic/words_format.rs"]
mod words_format;
use words_format::generate;

const LANGS: &[&str] = &["en", "zh", "ja", "ko", "cjk"];

fn main() {
    let data = Path::new("src/heuristic/data");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed={}", data.display());
    let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    // A word list nobody compiles would be edited in vain: every `.words` file is one of LANGS.
    let entries = std::fs::read_dir(data).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if let Some(stem) = name.strip_suffix(".words") {
            assert!(
                LANGS.contains(&stem),
                "{}: not compiled; add {stem:?} to LANGS in crates/extract/build.rs",
                entry.path().display()
            );
        }
    }
    for lang in LANGS {
        let path = data.join(format!("{lang}.words"));
        println!("cargo::rerun-if-changed={}", path.display());
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let code = generate(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
        let dest = Path::new(&out_dir).join(format!("words_{lang}.rs"));
        std::fs::write(&dest, code).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
    }
}
