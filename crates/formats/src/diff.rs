//! A small unified diff, for the `dream --dry-run` and `forget --dry-run` previews.

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Above this many line pairs the diff shows the whole old file removed and the new one added
/// instead of computing a longest common subsequence.
const MAX_CELLS: usize = 4_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Equal(usize, usize),
    Delete(usize),
    Insert(usize),
}

fn split_lines(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    s.strip_suffix('\n').unwrap_or(s).split('\n').collect()
}

fn edit_script(a: &[&str], b: &[&str]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > MAX_CELLS {
        let mut ops: Vec<Op> = (0..n).map(Op::Delete).collect();
        ops.extend((0..m).map(Op::Insert));
        return ops;
    }
    // lcs[i][j] = LCS length of a[i..] and b[j..].
    let w = m + 1;
    let mut lcs = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * w + j] = if a[i] == b[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(Op::Equal(i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            ops.push(Op::Delete(i));
            i += 1;
        } else {
            ops.push(Op::Insert(j));
            j += 1;
        }
    }
    ops
}

/// A unified diff of `old` → `new` for `path`; `None` on either side means the file does not
/// exist (created or deleted). Empty when both are equal.
pub fn unified(path: &str, old: Option<&str>, new: Option<&str>) -> String {
    if old == new {
        return String::new();
    }
    let a = split_lines(old.unwrap_or(""));
    let b = split_lines(new.unwrap_or(""));
    let ops = edit_script(&a, &b);
    let mut out = format!(
        "--- {}\n+++ {}\n",
        old.map_or("/dev/null".to_string(), |_| format!("a/{path}")),
        new.map_or("/dev/null".to_string(), |_| format!("b/{path}")),
    );
    // Group changes into hunks with CONTEXT lines around them.
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Equal(..)))
        .map(|(k, _)| k)
        .collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        let hunk = &ops[start..end];
        let a_start = hunk.iter().find_map(|op| match op {
            Op::Equal(i, _) | Op::Delete(i) => Some(*i),
            Op::Insert(_) => None,
        });
        let b_start = hunk.iter().find_map(|op| match op {
            Op::Equal(_, j) | Op::Insert(j) => Some(*j),
            Op::Delete(_) => None,
        });
        let a_len = hunk
            .iter()
            .filter(|op| !matches!(op, Op::Insert(_)))
            .count();
        let b_len = hunk
            .iter()
            .filter(|op| !matches!(op, Op::Delete(_)))
            .count();
        let range = |start: Option<usize>, len: usize| match (start, len) {
            (_, 0) => format!("{},0", start.unwrap_or(0)),
            (Some(s), 1) => format!("{}", s + 1),
            (Some(s), l) => format!("{},{l}", s + 1),
            (None, l) => format!("0,{l}"),
        };
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(a_start, a_len),
            range(b_start, b_len)
        ));
        for op in hunk {
            match op {
                Op::Equal(i, _) => out.push_str(&format!(" {}\n", a[*i])),
                Op::Delete(i) => out.push_str(&format!("-{}\n", a[*i])),
                Op::Insert(j) => out.push_str(&format!("+{}\n", b[*j])),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_is_empty() {
        assert_eq!(unified("x.md", Some("a\n"), Some("a\n")), "");
    }

    #[test]
    fn small_change_has_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        let d = unified("x.md", Some(old), Some(new));
        assert_eq!(
            d,
            "--- a/x.md\n+++ b/x.md\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn deletion_shows_every_line() {
        let d = unified("x.md", Some("a\nb\n"), None);
        assert_eq!(d, "--- a/x.md\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n");
    }

    #[test]
    fn distant_changes_make_two_hunks() {
        let old: String = (0..30).map(|i| format!("{i}\n")).collect();
        let new: String = (0..30)
            .map(|i| match i {
                2 => "two\n".to_string(),
                27 => "twenty-seven\n".to_string(),
                _ => format!("{i}\n"),
            })
            .collect();
        let d = unified("x.md", Some(&old), Some(&new));
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
    }
}
