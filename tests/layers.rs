//! The layers of docs/DESIGN.md ("Layers") as a test: data flows one way, so no top-level module
//! of the library depends on a module of a higher layer, and no two modules depend on each other
//! (directly or through others). A new module must be given a layer here.
//!
//! Dependencies are read from the source: every `crate::<module>` path outside comments,
//! including `use crate::{a, b}` groups.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Every top-level module and its layer: formats (pure functions over text) < storage (where
/// things are, the single write path) < integrations (git, agents, transcripts, model,
/// telemetry) < operations (one command each).
const LAYERS: &[(&str, &[&str])] = &[
    ("formats", &["text", "yaml", "doc", "secrets"]),
    (
        "storage",
        &[
            "safe_fs",
            "store",
            "project",
            "qwen_settings",
            "qwen_env",
            "scan",
            "index",
            "root",
            "entries",
            "backup",
            "settings",
            "context",
        ],
    ),
    (
        "integrations",
        &[
            "transcript",
            "model",
            "telemetry",
            "agent",
            "git",
            "sharing",
        ],
    ),
    (
        "operations",
        &[
            "remember", "recall", "extract", "dream", "forget", "check", "status", "browse", "hook",
        ],
    ),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
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

fn deps_of(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group only: `crate::{a::{b, c}, d}` names `a` and `d`.
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start && depth == 0 => {
                        start = false;
                        let name = ident(&group[j..]);
                        if !name.is_empty() && name != "self" {
                            out.insert(name);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        // The binary and its CLI are above every layer.
        if matches!(top.as_str(), "main" | "lib" | "cli") {
            continue;
        }
        let deps = deps_of(&code_only(&fs::read_to_string(&file).unwrap()));
        let entry = g.entry(top.clone()).or_default();
        entry.extend(deps.into_iter().filter(|d| *d != top));
    }
    g
}

#[test]
fn every_module_has_a_layer() {
    let missing: Vec<String> = graph()
        .into_keys()
        .filter(|m| layer_of(m).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "give these modules a layer in tests/layers.rs and docs/DESIGN.md: {missing:?}"
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
                        LAYERS[own].0, LAYERS[theirs].0
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
        "use crate::{doc, scan::{Scope, x}};\n// crate::hook in a comment\nlet x = crate::store::now();",
    );
    let deps = deps_of(&code);
    let expected: BTreeSet<String> = ["doc", "scan", "store"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(deps, expected);
}
