//! `check`: validates every memory file (format, secrets, dangling index links, budgets) and
//! reports problems; nothing is changed.

use serde::Serialize;

use crate::context::Context;
use crate::project::Root;
use crate::root;
use crate::scan::{self, Scope};
use crate::secrets;
use crate::store;

/// One problem found.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub scope: &'static str,
    /// Path relative to the root (or the root itself).
    pub path: String,
    pub kind: &'static str,
    pub message: String,
}

/// Checks the repository, private and user roots that exist.
pub fn check(ctx: &Context) -> Vec<Problem> {
    let mut problems = Vec::new();
    let roots = [
        &ctx.layout.repository,
        &ctx.layout.private,
        &ctx.layout.user,
    ];
    for root in roots {
        check_root(root, &mut problems);
    }
    problems
}

fn problem(scope: Scope, path: &str, kind: &'static str, message: String) -> Problem {
    Problem {
        scope: scope.as_str(),
        path: path.to_string(),
        kind,
        message,
    }
}

fn check_root(root: &Root, problems: &mut Vec<Problem>) {
    let scope = root.scope;
    let outcome = match scan::scan_root(&root.path, scope) {
        Ok(o) => o,
        Err(e) => {
            problems.push(problem(scope, ".", "root", e.to_string()));
            return;
        }
    };
    if !root.path.is_dir() {
        return;
    }
    for dir in &outcome.unreadable_dirs {
        problems.push(problem(
            scope,
            &dir.display().to_string(),
            "unreadable",
            "directory cannot be read".into(),
        ));
    }
    for s in &outcome.skipped {
        let kind = match s.reason {
            scan::SkipReason::ConflictMarkers(_) => "conflict-markers",
            _ => "skipped",
        };
        problems.push(problem(scope, &s.relative_path, kind, s.reason.to_string()));
    }
    for d in &outcome.docs {
        let text = format!("{}\n{}\n{}", d.title, d.description, d.body);
        let ids: Vec<&str> = secrets::scan(&text).iter().map(|f| f.rule_id).collect();
        if !ids.is_empty() {
            problems.push(problem(
                scope,
                &d.relative_path,
                "secret",
                format!(
                    "possible secret ({}); recall never shows this file",
                    ids.join(", ")
                ),
            ));
        }
    }
    let index_path = root.path.join(store::INDEX_FILE);
    let index = match crate::safe_fs::read_regular_string(&index_path) {
        Ok(text) => text.unwrap_or_default(),
        Err(e) => {
            let path = index_path.display().to_string();
            problems.push(problem(scope, &path, "unreadable-index", e.to_string()));
            String::new()
        }
    };
    if let Some(line) = crate::doc::conflict_marker_line(&index) {
        problems.push(problem(
            scope,
            store::INDEX_FILE,
            "conflict-markers",
            format!("unresolved merge conflict markers (line {line}); run `git qwen-memory index`"),
        ));
    }
    for target in index_link_targets(&index) {
        let decoded = percent_encoding::percent_decode_str(&target)
            .decode_utf8_lossy()
            .into_owned();
        let ok = root::resolve_relative(&root.path, &decoded).is_some_and(|p| p.is_file());
        if !ok {
            problems.push(problem(
                scope,
                store::INDEX_FILE,
                "dangling-link",
                format!("links to missing {decoded}"),
            ));
        }
    }
    let lines = index.lines().count();
    if lines > 200 || index.len() > 25_000 {
        problems.push(problem(
            scope,
            store::INDEX_FILE,
            "budget",
            format!(
                "{lines} lines, {} bytes (limits: 200 lines, 25000 bytes)",
                index.len()
            ),
        ));
    }
    match root::index_is_stale(root) {
        Ok(true) => problems.push(problem(
            scope,
            store::INDEX_FILE,
            "stale-index",
            "MEMORY.md is out of date; run `git qwen-memory index`".into(),
        )),
        Ok(false) => {}
        Err(e) => problems.push(problem(scope, store::INDEX_FILE, "index", e.to_string())),
    }
}

/// Link targets of index lines `- [title](target) …`.
fn index_link_targets(index: &str) -> Vec<String> {
    index
        .lines()
        .filter(|l| l.starts_with("- ["))
        .filter_map(|l| {
            let start = l.find("](")? + 2;
            let end = l[start..].find(')')? + start;
            Some(l[start..end].to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_targets_are_read_from_index_lines() {
        let idx = "- [A](a%28b%29.md) — x\n- [B](f/b.md)\n> WARNING: x";
        assert_eq!(index_link_targets(idx), vec!["a%28b%29.md", "f/b.md"]);
    }
}
