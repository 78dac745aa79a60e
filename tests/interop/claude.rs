//! The real Claude Code client for interop checks: installed once from npm into a cache, run as
//! `claude -p` in a sandbox (its own HOME and `CLAUDE_CONFIG_DIR`) against a loopback
//! [`AnthropicServer`].
//!
//! Opt-in with `QWEN_MEMORY_INTEROP=1` like the Qwen Code suite; when it is on, a missing `npm`,
//! a failed install or a missing native binary fails the check loudly; it never skips.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};

use serde_json::Value;

use crate::anthropic::AnthropicServer;
use crate::common::{bin_dir, clear_tool_env, wait_until, Sandbox};
use crate::npm;
use crate::process::wait_or_kill;

/// The Claude Code release these checks pin.
pub const CLAUDE_VERSION: &str = "2.1.332";
/// True when the interop suite is switched on; otherwise prints why the check did nothing.
pub fn enabled(check: &str) -> bool {
    npm::enabled(check, &format!("Claude Code {CLAUDE_VERSION}"))
}

fn claude_version(exe: &Path) -> Option<String> {
    let out = Command::new(exe)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Path of the `claude` executable, installing the pinned release on first use (once per cache
/// dir, under a file lock). The package's postinstall copies the native binary from its
/// platform package (an optional dependency) over a placeholder, so optional dependencies must
/// be installed, and the result is checked by running it.
pub fn exe() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = npm::cache_dir(&format!("claude-code-{CLAUDE_VERSION}"));
        let exe = dir.join("node_modules/@anthropic-ai/claude-code/bin/claude.exe");
        let wanted = format!("{CLAUDE_VERSION} (Claude Code)");
        npm::locked(&dir, || {
            if claude_version(&exe).as_deref() == Some(wanted.as_str()) {
                return Ok(());
            }
            npm::install(
                &dir,
                &format!("@anthropic-ai/claude-code@{CLAUDE_VERSION}"),
                &["--ignore-scripts=false"],
                true,
            )
        })
        .unwrap_or_else(|e| {
            panic!("INTEROP SUITE CANNOT RUN: {e} (install npm or unset QWEN_MEMORY_INTEROP)")
        });
        let found = claude_version(&exe);
        assert_eq!(
            found.as_deref(),
            Some(wanted.as_str()),
            "INTEROP SUITE CANNOT RUN: {} does not run as Claude Code {CLAUDE_VERSION} after npm \
             install (is the platform package, an optional dependency, missing?)",
            exe.display()
        );
        exe
    })
    .clone()
}

/// One Claude process at a time: the CI machine has two cores.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static GATE: Mutex<()> = Mutex::new(());
    npm::one_at_a_time(&GATE)
}

/// Prefixes of variables Claude Code, its providers and the tools it shells out to read.
const AGENT_ENV_PREFIXES: &[&str] = &[
    "ANTHROPIC_",
    "CLAUDE",
    "AWS_",
    "GOOGLE_",
    "VERTEX_",
    "CLOUD_ML_",
    "OTEL_",
    "DISABLE_",
    "MCP_",
    "QWEN_",
    "OPENAI_",
    "GIT_",
];

/// Which PATH Claude Code gets.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OurBinary {
    /// Our freshly built binary first on PATH, so the installed hooks run it.
    OnPath,
    /// The caller's PATH with every directory holding a `git-qwen-memory` removed.
    Absent,
}

/// A sandbox in which both tools run: HOME, `CLAUDE_CONFIG_DIR` (`<HOME>/.claude`), the memory
/// base dir and a Git repository, all in a temp dir.
pub struct World {
    pub sb: Sandbox,
}

impl World {
    pub fn new() -> World {
        World { sb: Sandbox::new() }
    }

    pub fn config_dir(&self) -> PathBuf {
        self.sb.home.join(".claude")
    }

    pub fn settings_path(&self) -> PathBuf {
        self.config_dir().join("settings.json")
    }

    /// Our binary with the same sandbox environment.
    pub fn ours(&self) -> assert_cmd::Command {
        self.sb.cmd()
    }

    /// Runs `claude -p <prompt> --output-format json <args>` in the repository against
    /// `server`. Panics when Claude hangs; returns the output whatever the exit status.
    pub fn claude(
        &self,
        server: &AnthropicServer,
        prompt: &str,
        args: &[&str],
        ours: OurBinary,
    ) -> Output {
        let exe = exe();
        let _gate = one_at_a_time();
        let mut cmd = Command::new(&exe);
        cmd.arg("-p")
            .arg(prompt)
            .args(["--output-format", "json"])
            .args(args)
            .current_dir(&self.sb.repo)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        clear_tool_env(&mut cmd);
        for (var, _) in std::env::vars_os() {
            let name = var.to_string_lossy();
            if AGENT_ENV_PREFIXES.iter().any(|p| name.starts_with(p)) {
                cmd.env_remove(&var);
            }
        }
        let path = match ours {
            OurBinary::OnPath => format!("{}:{}", bin_dir().display(), path_without_ours()),
            OurBinary::Absent => path_without_ours(),
        };
        cmd.envs(self.sb.env())
            .env("PATH", path)
            .env("SHELL", "/bin/sh")
            .env("CLAUDE_CONFIG_DIR", self.config_dir())
            .env("ANTHROPIC_BASE_URL", server.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-interop-dummy")
            // Documented switches: no telemetry, error reporting, auto-update or other
            // nonessential traffic, so the loopback server is the only peer.
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("DISABLE_BUG_COMMAND", "1")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .env_remove("HTTPS_PROXY")
            .env_remove("HTTP_PROXY")
            .env_remove("https_proxy")
            .env_remove("http_proxy")
            .env("CI", "1")
            .env("NO_COLOR", "1");
        let child = cmd.spawn().expect("spawn claude");
        wait_or_kill(child, &format!("claude -p {prompt:?}"))
    }

    /// Like [`World::claude`] with our binary on PATH; the run must succeed. Returns the JSON
    /// result Claude printed.
    pub fn claude_ok(&self, server: &AnthropicServer, prompt: &str, args: &[&str]) -> Value {
        let out = self.claude(server, prompt, args, OurBinary::OnPath);
        result_json(&out, prompt)
    }

    /// Claude's transcript of `session_id`, as JSON lines.
    pub fn transcript(&self, session_id: &str) -> Vec<Value> {
        let file = format!("{session_id}.jsonl");
        let projects = self.config_dir().join("projects");
        let path = fs::read_dir(&projects)
            .unwrap_or_else(|e| panic!("read {}: {e}", projects.display()))
            .filter_map(Result::ok)
            .map(|d| d.path().join(&file))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("no transcript {file} under {}", projects.display()));
        fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Waits until every extraction our hooks started (logged in `hook.log` with its pid) has
    /// exited, so a check sees the memory they leave. A hang detector bounds the wait.
    pub fn wait_for_extractions(&self) {
        let log_path = self.sb.private_state().join("hook.log");
        let log = || fs::read_to_string(&log_path).unwrap_or_default();
        wait_until(
            "the hooks' extractions finish",
            || {
                let running = log()
                    .lines()
                    .filter(|l| l.contains("hook extract: started"))
                    .filter_map(|l| {
                        l.rsplit_once("(pid ")
                            .and_then(|(_, p)| p.trim_end_matches(')').parse::<u32>().ok())
                    })
                    .any(|pid| Path::new(&format!("/proc/{pid}")).exists() && !is_zombie(pid));
                (!running).then_some(())
            },
            || format!("hook.log:\n{}", log()),
        )
    }
}

fn is_zombie(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(true)
}

/// The caller's PATH minus every directory that holds a `git-qwen-memory` (a developer may
/// have one installed), so "absent" really is absent and "on PATH" is this build.
pub fn path_without_ours() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|d| !d.join("git-qwen-memory").exists())
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// Claude's `--output-format json` result; the run must have succeeded.
pub fn result_json(out: &Output, prompt: &str) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "claude -p {prompt:?} failed ({:?})\nstdout: {stdout}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("claude printed no JSON result ({e}):\n{stdout}"))
}

/// Transcript lines in which Claude recorded a hook failure (`hook_non_blocking_error`,
/// `hook_blocking_error`, …): what it shows the user as "<event> hook error".
pub fn hook_errors(transcript: &[Value]) -> Vec<Value> {
    transcript
        .iter()
        .filter(|line| {
            let kind = line["attachment"]["type"].as_str().unwrap_or_default();
            kind.starts_with("hook_") && kind.contains("error")
        })
        .cloned()
        .collect()
}
