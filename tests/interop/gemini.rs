//! The real Gemini CLI for interop checks: installed once from npm into a cache, run as
//! `gemini -p` in a sandbox (its own HOME, no Google login: an API key and
//! `GOOGLE_GEMINI_BASE_URL` pointing at a loopback [`GeminiServer`]).
//!
//! Opt-in with `QWEN_MEMORY_INTEROP=1`. When `node`/`npm` is missing or the install fails, a
//! check is skipped with the reason printed, except under `CI`, where it fails.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};

use serde_json::json;

use crate::codex::capturing_ours;
use crate::common::{self, clear_tool_env, Sandbox};
use crate::gemini_api::GeminiServer;
use crate::npm;
use crate::process::wait_or_kill;

/// The Gemini CLI release these checks pin (npm `@google/gemini-cli`).
pub const GEMINI_VERSION: &str = "0.61.0";

/// The model named on the command line (`-m`), so no routing request picks one.
const MODEL: &str = "gemini-2.5-flash";

fn gemini_version(cli: &Path) -> Option<String> {
    let out = Command::new("node")
        .arg(cli)
        .arg("--version")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::temp_dir())
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The package's `bundle/gemini.js`, installing the pinned release on first use (under a file
/// lock), or why there is none.
fn install() -> Result<PathBuf, String> {
    let dir = npm::cache_dir(&format!("gemini-cli-{GEMINI_VERSION}"));
    let pkg = dir.join("node_modules/@google/gemini-cli");
    npm::ensure(&dir, "@google/gemini-cli", GEMINI_VERSION)?;
    let cli = pkg.join("bundle/gemini.js");
    match gemini_version(&cli) {
        Some(v) if v == GEMINI_VERSION => Ok(cli),
        other => Err(format!(
            "`node {}` does not run as Gemini CLI {GEMINI_VERSION} (it says {other:?})",
            cli.display()
        )),
    }
}

/// Gemini CLI's `gemini.js` when `check` can run; otherwise prints why and gives `None`
/// (under `CI`, a missing Gemini CLI fails instead).
pub fn ready(check: &str) -> Option<PathBuf> {
    if !npm::enabled(check, &format!("Gemini CLI {GEMINI_VERSION}")) {
        return None;
    }
    static CLI: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let cli = CLI.get_or_init(install);
    let why = cli.as_ref().err().cloned().unwrap_or_default();
    common::require(
        check,
        &format!("Gemini CLI {GEMINI_VERSION} (npm @google/gemini-cli)"),
        cli.is_ok(),
        &format!("needs node 20+, npm and the npm registry: {why}"),
    )
    .then(|| cli.clone().ok())
    .flatten()
}

fn one_at_a_time() -> MutexGuard<'static, ()> {
    static GATE: Mutex<()> = Mutex::new(());
    npm::one_at_a_time(&GATE)
}

/// A sandbox: HOME (with `~/.gemini`), the memory base dir and a Git repository.
pub struct World {
    pub sb: Sandbox,
}

impl World {
    /// A fresh world whose Gemini settings select the API-key auth (no Google login), switch
    /// off statistics, telemetry and updates, and trust the repository's folder.
    pub fn new() -> World {
        let world = World { sb: Sandbox::new() };
        fs::create_dir_all(world.gemini_dir()).expect("gemini dir");
        let settings = json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
        });
        fs::write(world.settings_path(), settings.to_string()).expect("gemini settings");
        let trusted = json!({ world.sb.repo.display().to_string(): "TRUST_FOLDER" });
        fs::write(
            world.gemini_dir().join("trustedFolders.json"),
            trusted.to_string(),
        )
        .expect("trusted folders");
        world
    }

    pub fn gemini_dir(&self) -> PathBuf {
        self.sb.home.join(".gemini")
    }

    pub fn settings_path(&self) -> PathBuf {
        self.gemini_dir().join("settings.json")
    }

    pub fn ours(&self) -> assert_cmd::Command {
        self.sb.cmd()
    }

    pub fn server_stdout_log(&self) -> PathBuf {
        self.sb.root().join("mcp-server-stdout.log")
    }

    /// Runs `gemini -p <prompt> -m <model> <args>` in the repository against `server`. Panics
    /// when it hangs (it is killed); returns the output whatever the exit status.
    pub fn gemini(&self, cli: &Path, server: &GeminiServer, prompt: &str, args: &[&str]) -> Output {
        let _gate = one_at_a_time();
        let mut cmd = Command::new("node");
        cmd.arg(cli)
            .arg("-p")
            .arg(prompt)
            .args(["-m", MODEL])
            .args(args)
            .current_dir(&self.sb.repo)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        clear_tool_env(&mut cmd);
        let path = format!(
            "{}:{}",
            capturing_ours(&self.sb, &self.server_stdout_log()).display(),
            crate::claude::path_without_ours()
        );
        cmd.envs(self.sb.env())
            .env("PATH", path)
            .env("GOOGLE_GEMINI_BASE_URL", server.base_url())
            .env("GEMINI_API_KEY", "interop-dummy-key")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .env_remove("HTTPS_PROXY")
            .env_remove("HTTP_PROXY")
            .env_remove("https_proxy")
            .env_remove("http_proxy")
            .env("CI", "1")
            .env("NO_COLOR", "1");
        let child = cmd.spawn().expect("spawn node");
        wait_or_kill(child, &format!("gemini -p {prompt:?}"))
    }
}
