//! The layers of docs/DESIGN.md ("Layers") as a test: the folders of `src/` are the layers and
//! data flows one way, so no module (`src/<layer>/<module>`) depends on a module of a higher
//! layer, and no two modules depend on each other (directly or through others).
//!
//! Dependencies are read from the source: every `crate::<layer>::<module>` path outside
//! comments, including the ones inside `use crate::{…}` groups.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first: formats (pure functions over text) < storage (where things are, the
/// single write path) < integrations (git, agents, transcripts, model, telemetry) < ops (one
/// command each). The binary (`main.rs`, `cli/`) sits above them all.
const LAYERS: &[&str] = &["formats", "storage", "integrations", "ops"];

fn layer_of(module: &str) -> Option<usize> {
    let layer = module.split("::").next()?;
    LAYERS.iter().position(|l| *l == layer)
}

/// The code of a file without `//` comments (doc links are not dependencies) and without its
/// unit-test module (tests may reach anywhere).
fn code_only(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::a::b` path in `code` as `a::b` (`a` alone when the path stops there), expanding
/// `use` groups: `crate::{formats::doc, storage::{scan, store}}` names `formats::doc`,
/// `storage::scan` and `storage::store`.
fn deps_of(code: &str) -> BTreeSet<String> {
    fn ident(s: &str) -> &str {
        let end = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        &s[..end]
    }
    /// Parses one use tree at the start of `s` below `prefix`; returns the bytes consumed.
    fn tree(s: &str, prefix: &[String], out: &mut BTreeSet<String>) -> usize {
        let mut path = prefix.to_vec();
        let mut i = 0;
        loop {
            let rest = &s[i..];
            let trimmed = rest.trim_start();
            i += rest.len() - trimmed.len();
            if let Some(group) = trimmed.strip_prefix('{') {
                i += 1;
                let mut consumed = 0;
                loop {
                    let inner = &group[consumed..];
                    let t = inner.trim_start();
                    consumed += inner.len() - t.len();
                    if t.starts_with('}') || t.is_empty() {
                        consumed += 1.min(t.len());
                        break;
                    }
                    let used = tree(&group[consumed..], &path, out);
                    // Something that is not a path (`*`, a glob): step over it.
                    consumed += used.max(t.chars().next().map_or(1, char::len_utf8));
                    let inner = &group[consumed..];
                    let t = inner.trim_start();
                    consumed += inner.len() - t.len();
                    if t.starts_with(',') {
                        consumed += 1;
                    }
                }
                i += consumed;
                return i;
            }
            let name = ident(trimmed);
            if name.is_empty() || name == "self" {
                break;
            }
            path.push(name.to_string());
            i += name.len();
            if s[i..].starts_with("::") {
                i += 2;
            } else {
                break;
            }
        }
        if !path.is_empty() {
            out.insert(path.iter().take(2).cloned().collect::<Vec<_>>().join("::"));
        }
        i
    }
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        tree(&code[i + "crate::".len()..], &[], &mut out);
    }
    out
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module a file belongs to: `src/storage/scan.rs` and `src/ops/recall/embed.rs` give
/// `storage::scan` and `ops::recall`; `None` for the binary (`main.rs`, `cli/`) and `lib.rs`.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let parts: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    match parts.as_slice() {
        [one] if one == "main" || one == "lib" => None,
        [first, ..] if first == "cli" => None,
        [layer, module, ..] => Some(format!("{layer}::{module}")),
        [other] => Some(other.clone()),
        [] => None,
    }
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(module) = module_of(&file) else {
            continue;
        };
        // A layer's own `mod.rs` only declares its modules.
        if module.ends_with("::mod") {
            continue;
        }
        let deps = deps_of(&code_only(&fs::read_to_string(&file).unwrap()));
        let entry = g.entry(module.clone()).or_default();
        entry.extend(deps.into_iter().filter(|d| *d != module));
    }
    g
}

#[test]
fn every_module_lives_in_a_layer_folder() {
    let misplaced: Vec<String> = graph()
        .into_keys()
        .filter(|m| layer_of(m).is_none() || !m.contains("::"))
        .collect();
    assert!(
        misplaced.is_empty(),
        "put these modules in a layer folder (docs/DESIGN.md, \"Layers\"): {misplaced:?}"
    );
}

#[test]
fn one_module_style_a_folder_with_mod_rs() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let pairs: Vec<String> = files
        .iter()
        .filter(|f| f.with_extension("").is_dir())
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        pairs.is_empty(),
        "a module with children is a folder with mod.rs, not a file beside a folder: {pairs:?}"
    );
}

#[test]
fn no_module_depends_on_a_higher_layer() {
    let mut upward = Vec::new();
    for (module, deps) in graph() {
        let Some(own) = layer_of(&module) else {
            continue;
        };
        for dep in deps {
            if let Some(theirs) = layer_of(&dep) {
                if theirs > own {
                    upward.push(format!(
                        "{module} ({}) -> {dep} ({})",
                        LAYERS[own], LAYERS[theirs]
                    ));
                }
            }
        }
    }
    assert!(upward.is_empty(), "dependencies going up: {upward:#?}");
}

#[test]
fn no_dependency_cycle_between_modules() {
    let g = graph();
    // Depth-first search for a back edge, reporting the cycle it closes.
    fn visit(
        node: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        cycles: &mut Vec<String>,
    ) {
        if done.contains(node) {
            return;
        }
        if let Some(pos) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[pos..].to_vec();
            cycle.push(node.to_string());
            cycles.push(cycle.join(" -> "));
            return;
        }
        stack.push(node.to_string());
        for dep in g.get(node).into_iter().flatten() {
            if g.contains_key(dep) {
                visit(dep, g, stack, done, cycles);
            }
        }
        stack.pop();
        done.insert(node.to_string());
    }
    let mut cycles = Vec::new();
    let mut done = BTreeSet::new();
    for node in g.keys() {
        visit(node, &g, &mut Vec::new(), &mut done, &mut cycles);
    }
    assert!(cycles.is_empty(), "module cycles: {cycles:#?}");
}

#[test]
fn the_dependency_reader_sees_groups_and_ignores_comments() {
    let code = code_only(
        "use crate::{formats::doc, storage::{scan::{Scope, x}, store}};\n// crate::ops::hook_entry in a comment\nlet x = crate::integrations::model::Client::new();\nuse crate::ops;",
    );
    let deps = deps_of(&code);
    let expected: BTreeSet<String> = [
        "formats::doc",
        "storage::scan",
        "storage::store",
        "integrations::model",
        "ops",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(deps, expected);
}

#[test]
fn an_upward_dependency_is_seen() {
    // The check must be able to fail: a storage module naming an operation is upward.
    let deps = deps_of("use crate::ops::recall::Query;");
    let own = layer_of("storage::scan").unwrap();
    assert!(deps.iter().any(|d| layer_of(d).unwrap() > own));
}

#[test]
fn the_graph_holds_the_real_dependencies() {
    // Guards the reader against silently seeing nothing: known edges of the real tree.
    let g = graph();
    assert!(g["storage::root_writer"].contains("storage::safe_fs"));
    assert!(g["ops::recall"].contains("formats::doc"));
    assert!(g["ops::extract"].contains("integrations::transcript"));
    assert!(g.len() >= 30, "{} modules", g.len());
}

#[test]
fn no_comment_points_to_a_document_outside_the_repository() {
    // The design lives in docs/DESIGN.md; a newcomer's clone has nothing else.
    let outside = [
        "SPEC §",
        "SPEC.md",
        "../shared",
        "reference qwen-",
        "qwen-storage §",
    ];
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut files,
    );
    let mut hits = Vec::new();
    for file in files {
        if file.ends_with("tests/layers.rs") {
            continue;
        }
        for (n, line) in fs::read_to_string(&file).unwrap().lines().enumerate() {
            if outside.iter().any(|o| line.contains(o)) {
                hits.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(hits.is_empty(), "point these at docs/DESIGN.md: {hits:#?}");
}
