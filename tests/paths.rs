//! Paths the other suites do not reach: the parallel scan of a root above its threshold, and
//! `-C <dir>` (running from elsewhere).

use crate::common;

use std::path::Path;

use common::*;

/// Writes the documents `ids`, two by two sharing an mtime.
fn seed_docs(root: &Path, ids: &[String]) {
    for (i, id) in ids.iter().enumerate() {
        let p = write_doc(
            root,
            id,
            &doc_text(
                &format!("Note {i}"),
                &format!("deploy note number {i}"),
                "project",
                &format!("Deploys use pipeline {i}."),
            ),
        );
        // Each pair shares an mtime, so the order also depends on the tie-break.
        set_mtime(&p, 1_700_000_000 + (i as i64 / 2) * 60);
    }
}

fn listed_ids(sb: &Sandbox) -> Vec<String> {
    sb.json(&["list"])
        .as_array()
        .expect("list is an array")
        .iter()
        .map(|d| d["id"].as_str().expect("id").to_string())
        .collect()
}

#[test]
fn a_root_above_the_parallel_threshold_is_scanned_whole_and_in_the_same_order() {
    // 700 documents: above the scanner's 512-file threshold for going parallel.
    let ids: Vec<String> = (0..700)
        .map(|i| format!("project/{:02}/note-{i:04}.md", i % 37))
        .collect();
    let big = Sandbox::new();
    seed_docs(&big.private_root(), &ids);
    let big_list = listed_ids(&big);
    let mut want: Vec<String> = ids.clone();
    want.sort();
    let mut got = big_list.clone();
    got.sort();
    assert_eq!(got, want, "every document is listed exactly once");

    // A small root (sequential scan) holding every 10th document with the same mtimes: the big
    // root's order restricted to those documents must be the small root's order.
    let subset: Vec<String> = ids.iter().step_by(10).cloned().collect();
    let small = Sandbox::new();
    for id in &subset {
        let from = big.private_root().join(id);
        let to = small.private_root().join(id);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
        let mtime = std::fs::metadata(&from).unwrap().modified().unwrap();
        std::fs::File::options()
            .write(true)
            .open(&to)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }
    let small_list = listed_ids(&small);
    assert_eq!(small_list.len(), subset.len());
    let restricted: Vec<String> = big_list
        .iter()
        .filter(|id| subset.contains(id))
        .cloned()
        .collect();
    assert_eq!(restricted, small_list);

    // Recall over the big root finds a document by its own words.
    let v = big.json(&["recall", "--strategy", "heuristic", "pipeline 613"]);
    let found: Vec<&str> = v["documents"]
        .as_array()
        .expect("documents")
        .iter()
        .filter_map(|d| d["relativePath"].as_str())
        .collect();
    assert!(found.contains(&ids[613].as_str()), "{v}");
}

#[test]
fn dash_c_runs_the_command_for_another_directory() {
    let sb = Sandbox::new();
    let elsewhere = sb.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let repo = sb.repo.display().to_string();
    let out = sb
        .cmd_in(&elsewhere)
        .args(["-C", &repo, "remember", "--type", "project"])
        .arg("Releases are cut on Tuesdays")
        .output()
        .unwrap();
    assert_success(&out, &["-C remember"]);
    // The memory went to the repository's root, not to one for `elsewhere`.
    let files: Vec<_> = std::fs::read_dir(sb.private_root().join("project"))
        .expect("the repository's private root has the memory")
        .collect();
    assert_eq!(files.len(), 1);
    let from_repo = sb.json(&["list"]);
    let out = sb
        .cmd_in(&elsewhere)
        .args(["-C", &repo, "list", "--json"])
        .output()
        .unwrap();
    assert_success(&out, &["-C list"]);
    let from_elsewhere: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(from_elsewhere, from_repo);
    assert_eq!(from_repo.as_array().unwrap().len(), 1);
    // A relative -C is taken from the current directory.
    let out = sb
        .cmd_in(&sb.root())
        .args(["-C", "repo", "list", "--json"])
        .output()
        .unwrap();
    assert_success(&out, &["-C relative list"]);
    let relative: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(relative, from_repo);
}

/// Human output with the sandbox's paths, its project key and commit ids masked.
fn masked(sb: &Sandbox, text: &str) -> String {
    let root = sb.root().display().to_string();
    let key = sanitize(&sb.repo.display().to_string());
    let text = text.replace(&key, "<KEY>").replace(&root, "<ROOT>");
    let mut out = String::new();
    let mut run = String::new();
    for c in text.chars().chain(std::iter::once('\n')) {
        if c.is_ascii_hexdigit() {
            run.push(c);
            continue;
        }
        if run.len() == 40 {
            out.push_str("<COMMIT>");
        } else {
            out.push_str(&run);
        }
        run.clear();
        out.push(c);
    }
    out.pop();
    out
}

#[test]
fn human_output_of_status_list_and_check() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "Releases are cut on Tuesdays",
    ]);
    sb.ok(&[
        "remember",
        "--type",
        "feedback",
        "--why",
        "CI is slow",
        "Never push directly to main",
    ]);
    assert_eq!(
        masked(&sb, &sb.ok(&["status"])),
        "\
project   <ROOT>/repo
key       <KEY>
mode      private
state     <ROOT>/base/projects/<KEY>
 repository  <ROOT>/repo/.qwen/memory  (absent)
*private     <ROOT>/base/projects/<KEY>/memory  (2 docs)
 team        <ROOT>/repo/.qwen/team-memory  (absent)
*user        <ROOT>/base/memories  (absent)
hooks     none (git qwen-memory install)
qwen      Qwen Code's own memory on; it recalls private, user; our hook adds repository, team; extraction by qwen
dream     not due (min_sessions)
  ok disabled        hooks.enabled=true
  ok same_session    current git:<COMMIT>, last dream never
  ok min_hours       never dreamed
  ok scan_throttled  never scanned
  no min_sessions    0 of 5 sessions since last dream
  ok locked          free
extract   0 transcript(s) with a cursor
"
    );
    assert_eq!(
        masked(&sb, &sb.ok(&["list"])),
        "\
private    feedback  feedback/never-push-directly-to-main.md  Never push directly to main
private    project   project/releases-are-cut-on-tuesdays.md  Releases are cut on Tuesdays
"
    );
    assert_eq!(sb.ok(&["check"]), "all memory files are valid\n");
}
