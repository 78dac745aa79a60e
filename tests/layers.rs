//! The layers of docs/DESIGN.md ("Layers") and the crates of docs/development.md ("Crates") as
//! a test. Cargo enforces the big layers: the crates are formats < extract, storage < the library
//! (integrations + ops) < the binary, and [`the_crates_depend_only_downward`] pins which crate
//! may name which. Inside the library the folders are layers (integrations < ops): no module
//! (`<layer>::<module>`) depends on a module of a higher layer, and no two modules depend on
//! each other (directly or through others).
//!
//! Dependencies are read from the source: every `crate::<layer>::<module>` path outside
//! comments, including the ones inside `use crate::{…}` groups. A path into another crate of the
//! workspace (`crate::formats::…` in the library, through its re-export) is the crate graph's
//! business and is left out here.
//!
//! The same holds file by file in every crate: no two files depend on each other (directly or
//! through others), reading `crate::…` and `super::…` paths down to the file they name. A file
//! using its own folder's `mod.rs` (`super::Type`) or a file below it is not counted: a module and
//! its parts belong together. The one exemption is listed in [`FILE_CYCLES_EXEMPT`].

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One crate of the workspace as this check reads it.
struct Crate {
    /// The package name.
    package: &'static str,
    /// Its source folder, from the workspace root.
    src: &'static str,
    /// The name its modules carry here: `storage::scan` for `crates/storage/src/scan.rs`; empty
    /// for the library and the binary, whose first folder is already the layer
    /// (`ops::recall`, `cli::mcp`). Inside the crate its modules are `crate::…` (no crate
    /// aliases itself).
    prefix: &'static str,
    /// The workspace crates it may depend on (by package name).
    may_use: &'static [&'static str],
    /// Names at the crate root that are other crates (re-exports or aliases): paths through them
    /// are left to the crate graph.
    other_crates: &'static [&'static str],
}

const CRATES: &[Crate] = &[
    Crate {
        package: "qwen-memory-formats",
        src: "crates/formats/src",
        prefix: "formats",
        may_use: &[],
        other_crates: &[],
    },
    Crate {
        package: "qwen-memory-extract",
        src: "crates/extract/src",
        prefix: "extract",
        may_use: &["qwen-memory-formats"],
        other_crates: &["formats"],
    },
    Crate {
        package: "qwen-memory-storage",
        src: "crates/storage/src",
        prefix: "storage",
        may_use: &["qwen-memory-formats"],
        other_crates: &["formats"],
    },
    Crate {
        package: "qwen-memory",
        src: "crates/qwen-memory/src",
        prefix: "",
        may_use: &[
            "qwen-memory-formats",
            "qwen-memory-extract",
            "qwen-memory-storage",
        ],
        other_crates: &["formats", "storage"],
    },
    Crate {
        package: "git-qwen-memory",
        src: "src",
        prefix: "",
        may_use: &["qwen-memory"],
        other_crates: &[],
    },
];

fn library() -> &'static Crate {
    CRATES.iter().find(|c| c.package == "qwen-memory").unwrap()
}

/// The manifest of a crate: `src/` sits beside its `Cargo.toml`.
fn manifest(krate: &Crate) -> PathBuf {
    root().join(krate.src).parent().unwrap().join("Cargo.toml")
}

/// The workspace crates a manifest's package names in any of its dependency tables
/// (`qwen-memory… = …` or `qwen-memory….workspace = true`); the root's
/// `[workspace.dependencies]` only declares versions and paths and is not a dependency.
fn workspace_deps(manifest: &str) -> BTreeSet<String> {
    let mut in_deps = false;
    let mut out = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line.contains("dependencies") && !line.starts_with("[workspace");
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or("").trim();
        if in_deps && name.starts_with("qwen-memory") && line.contains('=') {
            out.insert(name.to_string());
        }
    }
    out
}

#[test]
fn the_crates_depend_only_downward() {
    let members: Vec<String> = fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| {
            p.join("src")
                .strip_prefix(root())
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    for m in &members {
        assert!(
            CRATES.iter().any(|c| c.src == m),
            "{m}: a new crate; give it its place in CRATES (and docs/development.md, \"Crates\")"
        );
    }
    let mut wrong = Vec::new();
    for krate in CRATES {
        let text = fs::read_to_string(manifest(krate)).unwrap();
        for dep in workspace_deps(&text) {
            if dep != krate.package && !krate.may_use.contains(&dep.as_str()) {
                wrong.push(format!("{} -> {dep}", krate.package));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "crate dependencies against the layers: {wrong:#?}"
    );
    // The reader must see the real edges.
    let lib = fs::read_to_string(manifest(library())).unwrap();
    assert!(workspace_deps(&lib).contains("qwen-memory-storage"));
    let root_manifest = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(workspace_deps(&root_manifest).contains("qwen-memory"));
    // And must be able to fail: the extractor naming storage is against the layers.
    let bad = workspace_deps(
        "[package]\nname = \"x\"\n[dependencies]\nqwen-memory-storage.workspace = true\n",
    );
    assert!(bad.contains("qwen-memory-storage"), "{bad:?}");
}

/// The library's layers, lowest first: integrations (git, agents, transcripts, model, telemetry)
/// < ops (one command each). Formats and storage below them are crates of their own; the binary
/// (`main.rs`, `cli/`) sits above them all.
const LAYERS: &[&str] = &["integrations", "ops"];

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

/// Every `crate::…` path in `code`, whole (`formats::doc::parse`), expanding `use` groups:
/// `crate::{formats::doc, storage::{scan, store}}` names `formats::doc`, `storage::scan` and
/// `storage::store`.
fn full_paths(code: &str) -> BTreeSet<String> {
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
            out.insert(path.join("::"));
        }
        i
    }
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        if !starts_a_path(code, i) {
            continue;
        }
        tree(&code[i + "crate::".len()..], &[], &mut out);
    }
    out
}

/// Whether the path at byte `i` of `code` starts there (`crate::` in `x::crate::` or
/// `my_crate::` does not).
fn starts_a_path(code: &str, i: usize) -> bool {
    !code[..i]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// Every `crate::…` path in `code`, cut to `layer::module` (`a` alone when the path stops there).
fn deps_of(code: &str) -> BTreeSet<String> {
    full_paths(code)
        .into_iter()
        .map(|p| p.split("::").take(2).collect::<Vec<_>>().join("::"))
        .collect()
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

fn src_of(krate: &Crate) -> PathBuf {
    root().join(krate.src)
}

/// Every source file of every crate.
fn all_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&src_of(krate), &mut files);
    }
    files
}

/// `path` (from the root of `krate`, without `crate::`) as a module name of this check, or `None`
/// when it leads into another crate: in `qwen-memory-storage`, `scan::X` is `storage::scan::X`
/// and `formats::doc` is `None`.
fn normalize(krate: &Crate, path: &str) -> Option<String> {
    let first = path.split("::").next().unwrap_or("");
    if krate.other_crates.contains(&first) {
        return None;
    }
    Some(if krate.prefix.is_empty() {
        path.to_string()
    } else {
        format!("{}::{path}", krate.prefix)
    })
}

/// The module a file of the library belongs to: `integrations/git/commit.rs` and
/// `ops/recall/embed.rs` give `integrations::git` and `ops::recall`; `None` for `lib.rs`.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src_of(library())).unwrap();
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
        [one] if one == "lib" => None,
        [layer, module, ..] => Some(format!("{layer}::{module}")),
        [other] => Some(other.clone()),
        [] => None,
    }
}

/// The library's modules and the modules of the library each depends on.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let lib = library();
    let mut files = Vec::new();
    rust_files(&src_of(lib), &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(module) = module_of(&file) else {
            continue;
        };
        // A layer's own `mod.rs` only declares its modules.
        if module.ends_with("::mod") {
            continue;
        }
        let deps = deps_of(&code_only(&fs::read_to_string(&file).unwrap()))
            .into_iter()
            .filter_map(|d| normalize(lib, &d));
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
    let files = all_files();
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
    // The check must be able to fail: an integration naming an operation is upward.
    let deps = deps_of("use crate::ops::recall::Query;");
    let own = layer_of("integrations::git").unwrap();
    assert!(deps.iter().any(|d| layer_of(d).unwrap() > own));
}

#[test]
fn the_graph_holds_the_real_dependencies() {
    // Guards the reader against silently seeing nothing: known edges of the real tree.
    let g = graph();
    assert!(g["ops::recall"].contains("integrations::git"));
    assert!(g["ops::extract"].contains("integrations::transcript"));
    // Paths into the crates below (through the re-exports) are the crate graph's business.
    assert!(!g["ops::recall"].iter().any(|d| d.starts_with("formats")));
    assert!(g.len() >= 15, "{} modules", g.len());
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
    let mut files = all_files();
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

/// Cycles between files that are known and accepted, each by its files' modules. All are inside
/// the extractor's crate (`crates/extract/`): there the filter and the heuristic call each other
/// (the heuristic filters its patches; the filter asks the heuristic whether a text is a
/// lead-in), and the rules of each language and the shared CJK and segmentation helpers call
/// each other. Nothing outside that crate may be added here. A cycle among some of the files of
/// one entry is exempt too.
const FILE_CYCLES_EXEMPT: &[&[&str]] = &[
    &["extract::filter", "extract::heuristic"],
    &[
        "extract::heuristic::cjk",
        "extract::heuristic::en",
        "extract::heuristic::ja",
        "extract::heuristic::ko",
        "extract::heuristic::segment",
        "extract::heuristic::zh",
    ],
];

/// The module path of a file inside its crate: `ops/recall/lexical.rs` is `ops::recall::lexical`,
/// `ops/recall/mod.rs` is `ops::recall`. `None` for the crate roots (`lib.rs`, `main.rs`) and
/// unit-test files (`tests.rs`, compiled only for the crate's own tests).
fn file_module(krate: &Crate, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src_of(krate)).unwrap();
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    if parts == ["main"] || parts == ["lib"] || parts.last().is_some_and(|p| p == "tests") {
        return None;
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts.join("::"))
}

/// Every `super::…` path in `code` of the file whose module is `module`, as a path from the
/// crate root (`super` of `a::b::c` is `a::b`, whether `c` is `c.rs` or `c/mod.rs`).
fn super_paths(code: &str, module: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let own: Vec<&str> = module.split("::").collect();
    let mut at = 0;
    while let Some(found) = code[at..].find("super::") {
        let i = at + found;
        at = i + "super::".len();
        if !starts_a_path(code, i) {
            continue;
        }
        let mut rest = &code[at..];
        let mut ups = 1;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            ups += 1;
        }
        at = code.len() - rest.len();
        let keep = own.len().saturating_sub(ups);
        let base = own[..keep].join("::");
        for path in full_paths(&format!("crate::{rest}")) {
            out.insert(if base.is_empty() {
                path
            } else {
                format!("{base}::{path}")
            });
        }
    }
    out
}

/// Which file each file depends on, by module name (see [`normalize`]), in every crate (unit-test
/// files left out). An edge between a module and one of its ancestors or descendants is left out;
/// so is one into another crate.
fn file_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut g = BTreeMap::new();
    for krate in CRATES {
        g.extend(crate_file_graph(krate));
    }
    g
}

fn crate_file_graph(krate: &Crate) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src_of(krate), &mut files);
    // Module name -> (path inside the crate, file).
    let modules: BTreeMap<String, (String, PathBuf)> = files
        .iter()
        .filter_map(|f| {
            let inner = file_module(krate, f)?;
            Some((normalize(krate, &inner)?, (inner, f.clone())))
        })
        .collect();
    // The longest known file module a path starts with.
    let resolve = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split("::").collect();
        (1..=parts.len())
            .rev()
            .map(|n| parts[..n].join("::"))
            .find(|m| modules.contains_key(m))
    };
    let related = |a: &str, b: &str| {
        a == b || a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::"))
    };
    let mut g = BTreeMap::new();
    for (module, (inner, file)) in &modules {
        let code = code_only(&fs::read_to_string(file).unwrap());
        let deps: BTreeSet<String> = full_paths(&code)
            .into_iter()
            .chain(super_paths(&code, inner))
            .filter_map(|p| normalize(krate, &p))
            .filter_map(|p| resolve(&p))
            .filter(|d| !related(module, d))
            .collect();
        g.insert(module.clone(), deps);
    }
    g
}

/// The cycles of `g`, each as its sorted set of nodes (strongly connected components of more
/// than one node, Tarjan's algorithm).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn connect<'a>(v: &'a str, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let g = s.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !g.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                connect(w, s);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            connect(v, &mut s);
        }
    }
    s.out
}

#[test]
fn no_dependency_cycle_between_files() {
    for entry in FILE_CYCLES_EXEMPT {
        assert!(
            entry.iter().all(|m| m.starts_with("extract::")),
            "only the extractor's cycles are exempt: {entry:?}"
        );
    }
    let found = cycles(&file_graph());
    let (exempt, cycles): (Vec<_>, Vec<_>) = found.into_iter().partition(|c| {
        FILE_CYCLES_EXEMPT
            .iter()
            .any(|entry| c.iter().all(|m| entry.contains(&m.as_str())))
    });
    assert!(cycles.is_empty(), "file cycles: {cycles:#?}");
    // Printed so the exemption is seen to shrink; when nothing is printed it can go.
    eprintln!("exempt file cycles (FILE_CYCLES_EXEMPT): {exempt:#?}");
}

#[test]
fn the_file_graph_sees_super_paths_and_a_cycle() {
    let code =
        code_only("use super::{cjk::is_han, segment};\nlet x = super::super::filter::keep(1);");
    let paths = super_paths(&code, "heuristic::zh");
    let expected: BTreeSet<String> = [
        "heuristic::cjk::is_han",
        "heuristic::segment",
        "filter::keep",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(paths, expected);
    // From a mod.rs, `super` is the folder's parent.
    let from_mod = super_paths("super::run::x", "ops::extract");
    assert!(from_mod.contains("ops::run::x"), "{from_mod:?}");
    // The cycle finder must be able to fail.
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(str::to_string).collect()))
    .collect();
    assert_eq!(cycles(&g), [vec!["a", "b", "c"]]);
    // And the real graph holds known edges between files.
    let real = file_graph();
    // Inside storage (`crate::safe_fs`).
    assert!(real["storage::root_writer"].contains("storage::safe_fs"));
    assert!(real["ops::recall::relevance"].contains("ops::recall::lexical"));
    assert!(real["extract::heuristic::cjk"].contains("extract::filter"));
    // The binary's files are read too.
    assert!(real.keys().any(|m| m.starts_with("cli::")));
    // Nothing crosses into another crate's names.
    assert!(!real["storage::root_writer"]
        .iter()
        .any(|d| d.starts_with("formats")));
}

/// Each kind of I/O has one owner (docs/development.md, "Who owns which I/O"): the files of
/// every crate outside `owner` whose code (unit tests aside) names `needle`. Files are named by
/// their module folders (`storage/sys.rs`, `integrations/git/repo.rs`, `cli/mcp.rs`).
fn users_outside(needle: &str, owner: &[&str]) -> Vec<String> {
    let mut hits = Vec::new();
    for krate in CRATES {
        let root = src_of(krate);
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        for file in files {
            let inner = file
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let rel = if krate.prefix.is_empty() {
                inner
            } else {
                format!("{}/{inner}", krate.prefix)
            };
            if owner.iter().any(|o| rel.starts_with(o)) {
                continue;
            }
            if code_only(&fs::read_to_string(&file).unwrap()).contains(needle) {
                hits.push(rel);
            }
        }
    }
    hits
}

#[test]
fn git_is_reached_only_through_integrations_git() {
    let hits = users_outside("git2::", &["integrations/git/"]);
    assert!(
        hits.is_empty(),
        "git2 used outside integrations::git: {hits:?}"
    );
    // The check can fail: the owner itself names git2.
    assert!(!users_outside("git2::", &[]).is_empty());
}

#[test]
fn platform_calls_are_made_only_in_storage_sys() {
    let hits = users_outside("libc::", &["storage/sys.rs"]);
    assert!(hits.is_empty(), "libc used outside storage::sys: {hits:?}");
    assert!(!users_outside("libc::", &[]).is_empty());
}

/// The standard library's I/O modules named in `code`: `std::fs`, `std::net`, `std::process`
/// and `std::env` as paths or inside a `use std::{…}` group. Compile-time macros (`env!`,
/// `include_bytes!`) are not I/O and are not seen.
fn std_io_named(code: &str) -> BTreeSet<&'static str> {
    const IO: [&str; 4] = ["fs", "net", "process", "env"];
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("std::") {
        if !starts_a_path(code, i) {
            continue;
        }
        let rest = &code[i + "std::".len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => {
                // The group's top-level items, up to its closing brace.
                let (mut depth, mut start, mut items) = (0usize, 0, Vec::new());
                for (j, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            items.push(&group[start..j]);
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            items.push(&group[start..j]);
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
                items
                    .into_iter()
                    .map(|item| item.trim().split("::").next().unwrap_or("").trim())
                    .collect()
            }
            None => vec![rest
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")],
        };
        for name in names {
            if let Some(io) = IO.iter().find(|m| **m == name) {
                out.insert(*io);
            }
        }
    }
    out
}

#[test]
fn the_formats_and_extract_crates_do_no_io() {
    // Text in, text out (docs/development.md, "Crates"): their callers read and write. Their
    // unit tests (`mod tests` and `tests.rs`) may read fixtures.
    let mut hits = Vec::new();
    for krate in CRATES
        .iter()
        .filter(|c| ["formats", "extract"].contains(&c.prefix))
    {
        let mut files = Vec::new();
        rust_files(&src_of(krate), &mut files);
        for file in files {
            if file.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let named = std_io_named(&code_only(&fs::read_to_string(&file).unwrap()));
            if !named.is_empty() {
                hits.push(format!("{}: {named:?}", file.display()));
            }
        }
    }
    assert!(hits.is_empty(), "I/O in a pure crate: {hits:#?}");
    // The reader must be able to fail.
    let seen = std_io_named(
        "use std::{collections::{BTreeMap, BTreeSet}, fs::File, io};\nlet a = std::env::var(\"X\");\nlet b = my_std::fs::x; let c = env!(\"HOME\");",
    );
    assert_eq!(seen, ["env", "fs"].into_iter().collect());
    assert_eq!(
        std_io_named("std::process::Command::new(\"git\"); std::net::TcpStream::connect(a)"),
        ["net", "process"].into_iter().collect()
    );
}

#[test]
fn http_is_reached_only_through_integrations_http() {
    let hits = users_outside("ureq::", &["integrations/http.rs"]);
    assert!(
        hits.is_empty(),
        "ureq used outside integrations::http: {hits:?}"
    );
    assert!(!users_outside("ureq::", &[]).is_empty());
}

#[test]
fn programs_are_spawned_only_from_integrations_git_and_detached() {
    // The `git` program is run by integrations::git only; the one other spawn is detached work
    // running this tool itself (integrations::detached). A new spawn anywhere else fails here.
    let owners = ["integrations/git/", "integrations/detached.rs"];
    let hits = users_outside("Command::new", &owners);
    assert!(
        hits.is_empty(),
        "a program spawned outside integrations::git and integrations::detached: {hits:?}"
    );
    assert!(!users_outside("Command::new", &["integrations/detached.rs"]).is_empty());
    assert!(!users_outside("Command::new", &["integrations/git/"]).is_empty());
}
