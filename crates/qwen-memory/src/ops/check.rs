//! `check`: validates every memory file (format, secrets, dangling index links, budgets) and
//! reports problems; nothing is changed.

use serde::Serialize;

use crate::formats::sanitize;
use crate::formats::secrets::{self, Origin};
use crate::storage::context::Context;
use crate::storage::project::Root;
use crate::storage::root_writer;
use crate::storage::scan::{self, Scope};
use crate::storage::store;

/// One problem found.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub scope: &'static str,
    /// Path relative to the root (or the root itself).
    pub path: String,
    pub kind: &'static str,
    pub message: String,
}

/// Checks every root that exists: repository, private, team and user.
pub fn check(ctx: &Context) -> Vec<Problem> {
    let mut problems = Vec::new();
    let roots = [
        &ctx.layout.repository,
        &ctx.layout.private,
        &ctx.layout.team,
        &ctx.layout.user,
    ];
    for root in roots {
        check_root(root, &mut problems);
    }
    pending_problems(ctx, &mut problems);
    // Setting problems have no file: an empty scope and path.
    for p in ctx.settings.problems() {
        problems.push(Problem {
            scope: "",
            path: String::new(),
            kind: "config",
            message: p.to_string(),
        });
    }
    problems
}

/// With the trust policy on, every shared memory it does not trust is pending: recall leaves
/// it out until it is (docs/security.md).
fn pending_problems(ctx: &Context, problems: &mut Vec<Problem>) {
    for p in pending(ctx) {
        problems.push(problem(
            p.scope,
            &p.relative_path,
            "pending",
            format!("{}; recall leaves it out", p.reason),
        ));
    }
}

/// A shared memory the trust policy keeps out of recall.
#[derive(Debug, Clone)]
pub struct PendingMemory {
    pub scope: Scope,
    pub relative_path: String,
    pub reason: crate::integrations::git::trust::Pending,
}

/// Every repository and team memory the trust policy does not trust (none when it is off).
pub fn pending(ctx: &Context) -> Vec<PendingMemory> {
    let Some(policy) = crate::ops::recall::trust_policy(ctx) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for root in [&ctx.layout.repository, &ctx.layout.team] {
        let Ok(outcome) = scan::scan_root(&root.path, root.scope) else {
            continue;
        };
        for d in &outcome.docs {
            if let Err(reason) = policy.verdict(&d.path) {
                out.push(PendingMemory {
                    scope: root.scope,
                    relative_path: d.relative_path.clone(),
                    reason,
                });
            }
        }
    }
    out
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
            scan::SkipReason::Unsafe(_) => "unsafe-permissions",
            _ => "skipped",
        };
        problems.push(problem(scope, &s.relative_path, kind, s.reason.to_string()));
    }
    for name in outcome
        .docs
        .iter()
        .map(|d| &d.relative_path)
        .chain(outcome.skipped.iter().map(|s| &s.relative_path))
    {
        if let Some(what) = sanitize::hidden_in_name(name) {
            problems.push(problem(
                scope,
                name,
                "hidden-name",
                format!("{what}; rename the file"),
            ));
        }
    }
    for d in &outcome.docs {
        if let Ok(Some(bytes)) = crate::storage::safe_fs::read_regular(&d.path) {
            hidden_problems(
                scope,
                &d.relative_path,
                &String::from_utf8_lossy(&bytes),
                problems,
            );
        }
        // Files on disk: a reviewed `qwen-memory:allow` line counts.
        let ids = secrets::rule_ids_in(
            [crate::ops::recall::document_text(d).as_str()],
            Origin::Person,
        );
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
    let index = match crate::storage::safe_fs::read_regular_string(&index_path) {
        Ok(text) => text.unwrap_or_default(),
        Err(e) => {
            let path = index_path.display().to_string();
            problems.push(problem(scope, &path, "unreadable-index", e.to_string()));
            String::new()
        }
    };
    hidden_problems(scope, store::INDEX_FILE, &index, problems);
    forged_index_lines(root, &index, problems);
    let ids = secrets::rule_ids_in([index.as_str()], Origin::Person);
    if !ids.is_empty() {
        problems.push(problem(
            scope,
            store::INDEX_FILE,
            "secret",
            format!(
                "possible secret ({}); run `git qwen-memory index` to rebuild it without",
                ids.join(", ")
            ),
        ));
    }
    if let Some(line) = crate::formats::doc::conflict_marker_line(&index) {
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
        // A link target holds only the first 120 characters of a long path (as Qwen Code
        // writes it), so such a target only has to begin a document's path.
        let cut = decoded.chars().count() >= crate::storage::index::PATH_LIMIT;
        let ok = root_writer::resolve_relative(&root.path, &decoded).is_some_and(|p| p.is_file())
            || (cut
                && outcome
                    .docs
                    .iter()
                    .any(|d| d.relative_path.starts_with(&decoded)));
        if !ok {
            problems.push(problem(
                scope,
                store::INDEX_FILE,
                "dangling-link",
                format!("links to missing {decoded}"),
            ));
        }
    }
    // Budgets as Qwen Code counts them: lines and UTF-16 units, the warning notice aside.
    let body = index
        .strip_suffix(crate::storage::index::WARNING_NOTICE)
        .unwrap_or(&index);
    let lines = body.lines().count();
    let units = crate::formats::text::utf16_len(body);
    if lines > crate::storage::index::MAX_LINES || units > crate::storage::index::MAX_BYTES {
        problems.push(problem(
            scope,
            store::INDEX_FILE,
            "budget",
            format!("{lines} lines, {units} UTF-16 units (limits: 200 lines, 25000 units)"),
        ));
    }
    match root_writer::index_is_stale(root) {
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

/// One problem per line holding hidden characters (tag, bidi, invisible, control, escape),
/// naming each code point and its column, as rustc's and GitHub's bidi warnings do.
fn hidden_problems(scope: Scope, path: &str, text: &str, problems: &mut Vec<Problem>) {
    let found = sanitize::find_hidden(text);
    let mut by_line: Vec<(usize, Vec<String>)> = Vec::new();
    for f in &found {
        let what = format!(
            "{} U+{:04X} (column {})",
            f.kind.as_str(),
            f.code_point,
            f.column
        );
        match by_line.last_mut() {
            Some((line, list)) if *line == f.line => list.push(what),
            _ => by_line.push((f.line, vec![what])),
        }
    }
    for (line, list) in by_line {
        let shown = if list.len() > 4 {
            format!("{}, … ({} in all)", list[..4].join(", "), list.len())
        } else {
            list.join(", ")
        };
        problems.push(problem(
            scope,
            path,
            "hidden-text",
            format!(
                "line {line}: {shown}; recall and the indexes remove it, remove it from the file"
            ),
        ));
    }
}

/// Index lines the files do not produce (a hand-forged or stale line), by line number, for the
/// shared roots (an index arriving with a pull). Personal roots have `stale-index`.
fn forged_index_lines(root: &Root, index: &str, problems: &mut Vec<Problem>) {
    if !matches!(root.scope, Scope::Team | Scope::Repository) {
        return;
    }
    let Ok(expected) = root_writer::expected_index(root) else {
        return;
    };
    let expected: std::collections::HashSet<&str> = expected.lines().collect();
    for (n, line) in index.lines().enumerate() {
        if line.trim().is_empty() || expected.contains(line) {
            continue;
        }
        let shown: String = sanitize::escape_for_terminal(line)
            .chars()
            .take(80)
            .collect();
        problems.push(problem(
            root.scope,
            store::INDEX_FILE,
            "index-line",
            format!(
                "line {}: not written from the memory files ({shown}); run `git qwen-memory index`",
                n + 1
            ),
        ));
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
