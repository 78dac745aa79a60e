//! Compiles the rules' word lists, `src/heuristic/data/<lang>.words`, into constants
//! (`heuristic::words::<lang>::<NAME>`), so the language knowledge lives in data files a
//! linguist can edit while the rules read a `&[&str]` that costs nothing to build at run time
//! (docs/DESIGN.md, "Extract", "Word lists").
//!
//! The format: `src/heuristic/words_format.rs`.
//!
//! It also compiles the cue lexicons (`<lang>.cues`), the decision lists (`<lang>.standing`) and
//! the traditional-to-simplified table (`zh-hant.fold`) into static tables, so a process does
//! not parse them and a line that is not a rule fails the build (format:
//! `src/heuristic/cue_format.rs`).

use std::path::Path;

#[path = "src/heuristic/words_format.rs"]
mod words_format;
use words_format::generate;

#[path = "src/heuristic/cue_format.rs"]
mod cue_format;

/// The languages of the cue and decision-list files, in the order their rules are tried.
const CUE_LANGS: &[&str] = &["en", "zh", "ja", "ko"];

const LANGS: &[&str] = &["en", "zh", "ja", "ko", "cjk"];

fn main() {
    let data = Path::new("src/heuristic/data");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed={}", data.display());
    let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    // A word list or cue file nobody compiles would be edited in vain: every `.words` file is
    // one of LANGS, every `.cues` and `.standing` file one of CUE_LANGS.
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
        for ext in [".cues", ".standing"] {
            if let Some(stem) = name.strip_suffix(ext) {
                assert!(
                    CUE_LANGS.contains(&stem),
                    "{}: not compiled; add {stem:?} to CUE_LANGS in crates/extract/build.rs",
                    entry.path().display()
                );
            }
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
    cue_tables(data, Path::new(&out_dir));
}

/// `cues.rs` (`CUES`, `FOLD`) and `standing.rs` (`STANDING`) in `out`.
fn cue_tables(data: &Path, out: &Path) {
    let read = |name: &str| {
        let path = data.join(name);
        println!("cargo::rerun-if-changed={}", path.display());
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        (path, text)
    };
    let table = |ext: &str| {
        let mut code = String::new();
        for lang in CUE_LANGS {
            let (path, text) = read(&format!("{lang}.{ext}"));
            let rules = cue_format::parse(&text).unwrap_or_else(|(line, text)| {
                panic!("{}:{line}: not a rule: {text:?}", path.display())
            });
            code.push_str(&cue_format::generate(&rules));
        }
        code
    };
    let (fold_path, fold_text) = read("zh-hant.fold");
    let fold = cue_format::parse_fold(&fold_text)
        .unwrap_or_else(|(line, why)| panic!("{}:{line}: {why}", fold_path.display()));
    let write = |name: &str, code: String| {
        let dest = out.join(name);
        std::fs::write(&dest, code).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
    };
    write(
        "cues.rs",
        format!(
            "/// The cue rules of every language (generated from `data/*.cues`).\n\
             static CUES: &[Cue] = &[\n{}];\n\
             /// Traditional to simplified, sorted (generated from `data/zh-hant.fold`).\n\
             static FOLD: &[(char, char)] = &[\n{}];\n",
            table("cues"),
            cue_format::generate_fold(&fold)
        ),
    );
    write(
        "standing.rs",
        format!(
            "/// The decision lists of every language (generated from `data/*.standing`).\n\
             static STANDING: &[Cue] = &[\n{}];\n",
            table("standing")
        ),
    );
}
