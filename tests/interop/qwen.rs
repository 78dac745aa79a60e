//! The real Qwen Code client for interop checks: installed once from npm into a cache, run in a
//! sandbox (its own HOME and memory base dir) against a loopback [`ModelServer`].
//!
//! The suite is opt-in with `QWEN_MEMORY_INTEROP=1` (`.ci/run` sets it). When it is on, a
//! missing `node` or `npm`, or a failed install, fails the test loudly; it never skips.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};

use serde_json::{json, Value};

use crate::common::{clear_tool_env, path_with_bin, Sandbox};
use crate::npm;
use crate::process::wait_or_kill;
use crate::server::ModelServer;

/// The release this project is compatible with.
pub const QWEN_VERSION: &str = "0.24.4";
/// True when the interop suite is switched on; otherwise prints why the check did nothing.
pub fn enabled(check: &str) -> bool {
    npm::enabled(check, &format!("Qwen Code {QWEN_VERSION}"))
}

fn tool_version(tool: &str) -> String {
    match Command::new(tool).arg("--version").output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Ok(out) => panic!(
            "INTEROP SUITE CANNOT RUN: `{tool} --version` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!(
            "INTEROP SUITE CANNOT RUN: `{tool}` is not installed ({e}). Install Node.js 20+ and \
             npm, or unset QWEN_MEMORY_INTEROP."
        ),
    }
}

/// Path of Qwen Code's `cli.js`, installing the release on first use (once per cache dir, under
/// a file lock so parallel test binaries do not install twice).
pub fn cli() -> PathBuf {
    static CLI: OnceLock<PathBuf> = OnceLock::new();
    CLI.get_or_init(|| {
        let node = tool_version("node");
        tool_version("npm");
        let major: u32 = node
            .trim_start_matches('v')
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        assert!(
            major >= 20,
            "INTEROP SUITE CANNOT RUN: Qwen Code needs node >= 20, found {node}"
        );
        let dir = npm::cache_dir(&format!("qwen-code-{QWEN_VERSION}"));
        let pkg = dir.join("node_modules/@qwen-code/qwen-code");
        npm::ensure(&dir, "@qwen-code/qwen-code", QWEN_VERSION)
            .unwrap_or_else(|e| panic!("INTEROP SUITE CANNOT RUN: {e}"));
        let cli = pkg.join("cli.js");
        assert!(
            cli.is_file(),
            "INTEROP SUITE CANNOT RUN: {} missing after install",
            cli.display()
        );
        cli
    })
    .clone()
}

/// Prefixes of the variables Qwen Code, the model providers it supports and Claude Code read.
const AGENT_ENV_PREFIXES: &[&str] = &[
    "QWEN_",
    "OPENAI_",
    "DASHSCOPE_",
    "ANTHROPIC_",
    "GEMINI_",
    "GOOGLE_",
    "CLAUDE",
    "GIT_",
];

/// One Qwen Code process at a time: it is heavy and the CI machine has two cores.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static GATE: Mutex<()> = Mutex::new(());
    npm::one_at_a_time(&GATE)
}

/// A sandbox in which both tools run: HOME, the Qwen global dir `<HOME>/.qwen`, the memory
/// base dir and a Git repository, all in a temp dir.
pub struct World {
    pub sb: Sandbox,
}

impl World {
    /// A fresh world whose Qwen user settings select the OpenAI-compatible auth and switch off
    /// everything that would reach the network.
    pub fn new() -> World {
        let world = World { sb: Sandbox::new() };
        world.merge_user_settings(json!({
            "security": {"auth": {"selectedType": "openai"}},
            "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false}
        }));
        world
    }

    /// Qwen's global dir (`~/.qwen`).
    pub fn qwen_home(&self) -> PathBuf {
        self.sb.home.join(".qwen")
    }

    pub fn user_settings_path(&self) -> PathBuf {
        self.qwen_home().join("settings.json")
    }

    pub fn project_settings_path(&self) -> PathBuf {
        self.sb.repo.join(".qwen/settings.json")
    }

    /// Deep-merges `patch` into the user settings file.
    pub fn merge_user_settings(&self, patch: Value) {
        merge_json_file(&self.user_settings_path(), patch);
    }

    /// Deep-merges `patch` into the project settings file (`<repo>/.qwen/settings.json`).
    pub fn merge_project_settings(&self, patch: Value) {
        merge_json_file(&self.project_settings_path(), patch);
    }

    /// The private memory root both tools use for the sandbox repository.
    pub fn private_root(&self) -> PathBuf {
        self.sb.private_root()
    }

    /// The user memory root (`<base>/memories`).
    pub fn user_root(&self) -> PathBuf {
        self.sb.base.join("memories")
    }

    /// Runs `qwen -p <prompt>` in `dir` against `server`, with `args` added (e.g. `--yolo`).
    /// Our binary is first on PATH, so installed hooks run it. Panics when Qwen hangs; returns
    /// the output whatever the exit status.
    pub fn qwen_in(&self, dir: &Path, server: &ModelServer, prompt: &str, args: &[&str]) -> Output {
        self.qwen_env(dir, server, prompt, args, &[])
    }

    /// [`World::qwen_in`] with environment overrides applied last: `(name, Some(value))` sets,
    /// `(name, None)` removes (e.g. the sandbox's `QWEN_CODE_MEMORY_BASE_DIR`).
    pub fn qwen_env(
        &self,
        dir: &Path,
        server: &ModelServer,
        prompt: &str,
        args: &[&str],
        env: &[(&str, Option<&str>)],
    ) -> Output {
        let cli = cli();
        let _gate = one_at_a_time();
        let mut cmd = Command::new("node");
        cmd.arg(&cli)
            .arg("-p")
            .arg(prompt)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Qwen Code reads well over a hundred variables of its own (QWEN_*, its model
        // providers', Claude's): none of the developer's may reach it or the hooks it runs.
        clear_tool_env(&mut cmd);
        for (var, _) in std::env::vars_os() {
            let name = var.to_string_lossy();
            if AGENT_ENV_PREFIXES.iter().any(|p| name.starts_with(p)) {
                cmd.env_remove(&var);
            }
        }
        cmd.envs(self.sb.env())
            .env("PATH", path_with_bin())
            .env("OPENAI_BASE_URL", server.base_url())
            .env("OPENAI_API_KEY", "interop-key")
            .env("OPENAI_MODEL", "interop-model")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .env_remove("HTTPS_PROXY")
            .env_remove("HTTP_PROXY")
            .env_remove("https_proxy")
            .env_remove("http_proxy")
            .env("CI", "1")
            .env("NO_COLOR", "1");
        for (name, value) in env {
            match value {
                Some(v) => cmd.env(name, v),
                None => cmd.env_remove(name),
            };
        }
        let child = cmd.spawn().expect("spawn node");
        wait_or_kill(child, &format!("qwen -p {prompt:?}"))
    }

    /// [`World::qwen_in`] in the repository root.
    pub fn qwen(&self, server: &ModelServer, prompt: &str, args: &[&str]) -> Output {
        self.qwen_in(&self.sb.repo, server, prompt, args)
    }

    /// Like [`World::qwen`] but the run must succeed.
    pub fn qwen_ok(&self, server: &ModelServer, prompt: &str, args: &[&str]) -> String {
        let out = self.qwen(server, prompt, args);
        assert!(
            out.status.success(),
            "qwen -p {prompt:?} failed ({:?})\nstdout: {}\nstderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Our binary with the same environment Qwen gets.
    pub fn ours(&self) -> assert_cmd::Command {
        self.sb.cmd()
    }
}

fn merge_json_file(path: &Path, patch: Value) {
    let mut current: Value = fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}));
    merge(&mut current, patch);
    fs::create_dir_all(path.parent().expect("settings dir")).expect("settings dir");
    fs::write(path, serde_json::to_string_pretty(&current).expect("json")).expect("write settings");
}

fn merge(into: &mut Value, patch: Value) {
    match (into, patch) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v,
    }
}
