//! Shell completions driven through bash and Git's own completion script, and the manual pages
//! checked as roff (no `man` needed).

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::*;

/// Git's bash completion as the system ships it (Debian's git package puts it in
/// /usr/share/bash-completion/completions/git), if it is installed. `.ci/run` installs it when
/// missing; elsewhere the test skips without it (see `common::require`).
fn git_completion_script() -> Option<PathBuf> {
    let candidates = [
        std::env::var("GIT_COMPLETION_BASH").unwrap_or_default(),
        "/usr/share/bash-completion/completions/git".into(),
        "/usr/share/git/completion/git-completion.bash".into(),
        "/etc/bash_completion.d/git".into(),
    ];
    candidates.iter().map(PathBuf::from).find(|p| p.is_file())
}

/// What bash offers for `line` (completing its last word), through `function`, with Git's
/// completion script `git` loaded.
fn complete(
    sb: &Sandbox,
    git: &Path,
    script: &std::path::Path,
    function: &str,
    line: &str,
) -> Vec<String> {
    let driver = format!(
        r#"
source {git:?}
source {ours:?}
COMP_LINE={line:?}
COMP_POINT=${{#COMP_LINE}}
read -ra COMP_WORDS <<< "$COMP_LINE"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
COMPREPLY=()
{function} "${{COMP_WORDS[0]}}" "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}" 2>/dev/null
printf '%s\n' "${{COMPREPLY[@]}}"
"#,
        ours = script,
    );
    let mut c = std::process::Command::new("bash");
    clear_env(&mut c);
    let out = c
        .args(["--norc", "--noprofile", "-c", &driver])
        .current_dir(&sb.repo)
        .envs(sb.env())
        .env("PATH", path_with_bin())
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_git_qwen_memory_through_gits_completion_and_the_binary() {
    let test = "bash_completes_git_qwen_memory_through_gits_completion_and_the_binary";
    let git_script = git_completion_script();
    if !require_program(test, "bash", "install bash")
        || !require(
            test,
            "Git's bash completion script",
            git_script.is_some(),
            "apt-get install git bash-completion, or set GIT_COMPLETION_BASH",
        )
    {
        return;
    }
    let git_script = git_script.unwrap();
    let sb = Sandbox::new();
    let script = sb.root().join("git-qwen-memory.bash");
    fs::write(&script, sb.ok(&["completions", "bash"])).unwrap();
    let git = "__git_wrap__git_main";
    let own = "_git__qwen__memory";

    let subs = complete(&sb, &git_script, &script, git, "git qwen-memory ");
    for expected in ["status", "remember", "recall", "dream", "install"] {
        assert!(subs.contains(&expected.to_string()), "{subs:?}");
    }
    assert_eq!(
        complete(&sb, &git_script, &script, git, "git qwen-memory dr"),
        ["dream"]
    );
    assert_eq!(
        complete(&sb, &git_script, &script, git, "git qwen-memory dream --f"),
        ["--force"]
    );
    assert_eq!(
        complete(&sb, &git_script, &script, git, "git -C . qwen-memory rec"),
        ["recall"],
        "after git's own -C"
    );
    let opts = complete(&sb, &git_script, &script, git, "git qwen-memory recall --");
    assert!(opts.contains(&"--limit".to_string()), "{opts:?}");

    // The binary's own name.
    let dream = complete(&sb, &git_script, &script, own, "git-qwen-memory dream --");
    for expected in ["--force", "--dry-run", "--undo", "--strategy"] {
        assert!(dream.contains(&expected.to_string()), "{dream:?}");
    }
    assert_eq!(
        complete(&sb, &git_script, &script, own, "git-qwen-memory re"),
        ["remember", "recall"]
    );
}

/// What zsh's completion system offers for `line`, with the generated script saved as
/// `_git-qwen-memory` in `$fpath` (as the script's own note says). zsh's Git completion calls
/// that function for `git qwen-memory`. `.ci/run` installs zsh when missing; elsewhere the test
/// skips without it.
fn zsh_complete(sb: &Sandbox, fpath: &std::path::Path, line: &str) -> Vec<String> {
    let capture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/completions/capture.zsh");
    // `timeout` is a hang detector (a broken completion function would leave zsh waiting).
    let mut c = std::process::Command::new("timeout");
    clear_env(&mut c);
    let out = c
        .args(["120", "zsh", "-f"])
        .arg(&capture)
        .arg(fpath)
        .arg(line)
        .current_dir(&sb.repo)
        .envs(sb.env())
        .env("PATH", path_with_bin())
        .output()
        .expect("timeout (coreutils)");
    assert_ne!(
        out.status.code(),
        Some(127),
        "zsh is not installed (apt-get install zsh); the zsh completion test needs it"
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn zsh_completes_git_qwen_memory_and_the_binary() {
    if !require_program(
        "zsh_completes_git_qwen_memory_and_the_binary",
        "zsh",
        "apt-get install zsh",
    ) {
        return;
    }
    let sb = Sandbox::new();
    let fpath = sb.root().join("zsh-functions");
    fs::create_dir_all(&fpath).unwrap();
    fs::write(
        fpath.join("_git-qwen-memory"),
        sb.ok(&["completions", "zsh"]),
    )
    .unwrap();

    assert_eq!(zsh_complete(&sb, &fpath, "git-qwen-memory dr"), ["dream"]);
    assert_eq!(zsh_complete(&sb, &fpath, "git qwen-memory dr"), ["dream"]);
    let subs = zsh_complete(&sb, &fpath, "git qwen-memory ");
    for expected in ["status", "remember", "recall", "dream", "install"] {
        assert!(subs.contains(&expected.to_string()), "{subs:?}");
    }
    let dream = zsh_complete(&sb, &fpath, "git qwen-memory dream --");
    for expected in ["--force", "--dry-run", "--undo", "--strategy"] {
        assert!(dream.contains(&expected.to_string()), "{dream:?}");
    }
    let own = zsh_complete(&sb, &fpath, "git-qwen-memory recall --");
    assert!(own.contains(&"--limit".to_string()), "{own:?}");

    // compinit's dump file is written elsewhere and renamed over its path: pointed at
    // /dev/null (as this test once did), a run as root replaced the device with a regular file
    // for the whole machine, and other programs then read back what had been written to it.
    use std::os::unix::fs::FileTypeExt;
    let null = fs::metadata("/dev/null").unwrap();
    assert!(
        null.file_type().is_char_device(),
        "/dev/null is no longer a device after the zsh completion runs"
    );
}

#[test]
fn completions_for_every_shell_clap_supports() {
    let sb = Sandbox::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = sb.ok(&["completions", shell]);
        assert!(
            out.contains("remember") && out.contains("dry-run"),
            "{shell}"
        );
    }
    let zsh = sb.ok(&["completions", "zsh"]);
    // compinit autoloads by the first line; zsh's git completion calls `_git-qwen-memory` for
    // `git qwen-memory`.
    assert!(
        zsh.starts_with("#compdef git-qwen-memory\n"),
        "{}",
        &zsh[..80]
    );
    assert!(zsh.contains("_git-qwen-memory()"));
}

fn pages(sb: &Sandbox) -> BTreeMap<String, String> {
    let dir = sb.root().join("man/man1");
    sb.ok(&["man", "--out-dir", dir.to_str().unwrap()]);
    fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn man_pages_one_per_command_with_every_section_and_no_dangling_reference() {
    let sb = Sandbox::new();
    let pages = pages(&sb);
    let commands = [
        "status",
        "list",
        "show",
        "remember",
        "recall",
        "extract",
        "index",
        "check",
        "dream",
        "forget",
        "stats",
        "completions",
        "man",
        "install",
        "uninstall",
        "commit",
        "merge-file",
        "hook",
    ];
    assert!(pages.contains_key("git-qwen-memory.1"));
    for c in commands {
        assert!(
            pages.contains_key(&format!("git-qwen-memory-{c}.1")),
            "{c}: {:?}",
            pages.keys()
        );
    }
    let reference = regex::Regex::new(r"(git\\-qwen\\-memory[a-z\\-]*)(?:\\fR)?\((\d)\)").unwrap();
    for (name, roff) in &pages {
        for section in [
            ".SH SYNOPSIS",
            ".SH EXAMPLES",
            ".SH ENVIRONMENT",
            ".SH FILES",
            ".SH \"EXIT STATUS\"",
            ".SH \"SEE ALSO\"",
        ] {
            assert!(roff.contains(section), "{name} lacks {section}");
        }
        assert!(
            !roff.contains("[-C ]") && !roff.contains("[\\fB\\-C \\fR]"),
            "{name}: empty -C"
        );
        assert!(
            roff.contains("\\fB\\-C\\fR \\fIdir\\fR"),
            "{name}: synopsis names -C's value"
        );
        let refs = reference.captures_iter(roff).count();
        let least = if name == "git-qwen-memory.1" {
            2 * commands.len()
        } else {
            1
        };
        assert!(refs >= least, "{name}: only {refs} references found");
        for cap in reference.captures_iter(roff) {
            let page = format!("{}.{}", cap[1].replace("\\-", "-"), &cap[2]);
            assert!(pages.contains_key(&page), "{name} refers to missing {page}");
        }
    }
    // The overview lists every variable the tool reads (test seams aside).
    let main = &pages["git-qwen-memory.1"];
    let env = &main[main.find(".SH ENVIRONMENT").unwrap()..main.find(".SH FILES").unwrap()];
    for var in qwen_memory::storage::settings::ENV_VARS {
        if !var.contains("_TEST_") {
            assert!(env.contains(var), "{var} missing from ENVIRONMENT");
        }
    }
    // A page for one command prints alone; an unknown one is a usage error.
    assert_eq!(sb.ok(&["man", "recall"]), pages["git-qwen-memory-recall.1"]);
    let out = sb.cmd().args(["man", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `git qwen-memory --help` goes through git, which opens the page `git-qwen-memory` with its
/// man viewer. A viewer command configured for the test prints the page from the generated
/// directory, so this runs without `man` installed.
#[test]
fn git_help_opens_the_generated_page() {
    let sb = Sandbox::new();
    let dir = sb.root().join("man/man1");
    sb.ok(&["man", "--out-dir", dir.to_str().unwrap()]);
    let viewer = format!("show() {{ cat {}/\"$1\".1; }}; show", dir.display());
    let mut c = std::process::Command::new("git");
    clear_env(&mut c);
    let out = c
        .args([
            "-c",
            "help.format=man",
            "-c",
            "man.viewer=pagefile",
            "-c",
            &format!("man.pagefile.cmd={viewer}"),
            "qwen-memory",
            "--help",
        ])
        .current_dir(&sb.repo)
        .envs(sb.env())
        .env("PATH", path_with_bin())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(".TH GIT-QWEN-MEMORY") && text.contains(".SH EXAMPLES"),
        "stdout: {text}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
