//! The real Codex CLI for interop checks: installed once from npm into a cache, run as
//! `codex exec` in a sandbox (its own HOME and `CODEX_HOME`, no login) against a loopback
//! [`ResponsesServer`].
//!
//! Opt-in with `QWEN_MEMORY_INTEROP=1` like the other interop suites. When `npm` is missing, the
//! install fails or the native binary does not run, a check is skipped with the reason printed,
//! except under `CI`, where it fails (`common::require`).
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::common::{self, clear_tool_env, Sandbox};
use crate::npm;
use crate::process::wait_or_kill;
use crate::responses::ResponsesServer;

/// The Codex CLI release these checks pin (npm `@openai/codex`).
pub const CODEX_VERSION: &str = "0.171.0";

/// The variable holding the loopback provider's API key (any value: the server ignores it).
const KEY_VAR: &str = "QWEN_MEMORY_INTEROP_CODEX_KEY";

/// True when the interop suite is switched on; otherwise prints why the check did nothing.
pub fn enabled(check: &str) -> bool {
    npm::enabled(check, &format!("Codex CLI {CODEX_VERSION}"))
}

/// The platform package holding the native binary (an optional dependency of
/// `@openai/codex`), as the package's own `bin/codex.js` picks it.
fn platform_package() -> Option<&'static str> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Some("codex-linux-x64"),
        ("linux", "aarch64") => Some("codex-linux-arm64"),
        ("macos", "x86_64") => Some("codex-darwin-x64"),
        ("macos", "aarch64") => Some("codex-darwin-arm64"),
        _ => None,
    }
}

/// `node_modules/@openai/<platform package>/vendor/<target triple>/bin/codex`.
fn native_binary(dir: &Path, package: &str) -> Option<PathBuf> {
    let vendor = dir
        .join("node_modules/@openai")
        .join(package)
        .join("vendor");
    fs::read_dir(vendor)
        .ok()?
        .filter_map(Result::ok)
        .map(|d| d.path().join("bin/codex"))
        .find(|p| p.is_file())
}

fn codex_version(exe: &Path) -> Option<String> {
    let out = Command::new(exe)
        .arg("--version")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The native `codex` binary, installing the pinned release on first use (once per cache dir,
/// under a file lock), or why there is none. It is run directly rather than through the
/// package's Node launcher, so the hang detector's kill reaches Codex itself.
fn install() -> Result<PathBuf, String> {
    let package = platform_package().ok_or_else(|| {
        format!(
            "Codex CLI has no native binary for {}/{}",
            std::env::consts::OS,
            std::env::consts::ARCH
        )
    })?;
    let dir = npm::cache_dir(&format!("codex-{CODEX_VERSION}"));
    npm::locked(&dir, || install_locked(&dir, package))
}

/// [`install`] under the cache's install lock.
fn install_locked(dir: &Path, package: &str) -> Result<PathBuf, String> {
    let wanted = format!("codex-cli {CODEX_VERSION}");
    let runs = |exe: &Option<PathBuf>| {
        exe.as_deref()
            .and_then(codex_version)
            .is_some_and(|v| v == wanted)
    };
    let mut exe = native_binary(dir, package);
    if !runs(&exe) {
        npm::install(dir, &format!("@openai/codex@{CODEX_VERSION}"), &[], true)?;
        exe = native_binary(dir, package);
    }
    match exe {
        Some(exe) if runs(&Some(exe.clone())) => Ok(exe),
        Some(exe) => Err(format!(
            "{} does not run as {wanted} (it says {:?})",
            exe.display(),
            codex_version(&exe)
        )),
        None => Err(format!(
            "no native binary in @openai/{package} under {} after npm install (the optional \
             dependency is missing)",
            dir.display()
        )),
    }
}

/// The `codex` binary when `check` can run: the suite is on and Codex is installed. Otherwise
/// prints why and gives `None` (under `CI`, a missing Codex fails instead).
pub fn ready(check: &str) -> Option<PathBuf> {
    if !enabled(check) {
        return None;
    }
    static EXE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let exe = EXE.get_or_init(install);
    let why = exe.as_ref().err().cloned().unwrap_or_default();
    common::require(
        check,
        &format!("Codex CLI {CODEX_VERSION} (npm @openai/codex)"),
        exe.is_ok(),
        &format!("needs node and npm and the npm registry: {why}"),
    )
    .then(|| exe.clone().ok())
    .flatten()
}

/// One Codex process at a time: the CI machine has two cores.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static GATE: Mutex<()> = Mutex::new(());
    npm::one_at_a_time(&GATE)
}

/// A sandbox in which both tools run: HOME, `CODEX_HOME` (`<HOME>/.codex`), the memory base dir
/// and a Git repository, all in a temp dir.
pub struct World {
    pub sb: Sandbox,
}

impl World {
    pub fn new() -> World {
        World { sb: Sandbox::new() }
    }

    pub fn codex_home(&self) -> PathBuf {
        self.sb.home.join(".codex")
    }

    pub fn config_path(&self) -> PathBuf {
        self.codex_home().join("config.toml")
    }

    /// Our binary with the sandbox environment and `CODEX_HOME`.
    pub fn ours(&self) -> assert_cmd::Command {
        let mut cmd = self.sb.cmd();
        cmd.env("CODEX_HOME", self.codex_home());
        cmd
    }

    /// The file [`capturing_ours`]'s wrapper appends our server's stdout to.
    pub fn server_stdout_log(&self) -> PathBuf {
        self.sb.root().join("mcp-server-stdout.log")
    }

    /// Runs `codex exec <prompt>` non-interactively in the repository against `server`, with
    /// `args` added. The loopback provider is given on the command line (`-c`), so
    /// `config.toml` holds only what `install` wrote. Panics when Codex hangs (it is killed);
    /// returns the output whatever the exit status.
    pub fn codex(
        &self,
        exe: &Path,
        server: &ResponsesServer,
        prompt: &str,
        args: &[&str],
    ) -> Output {
        let _gate = one_at_a_time();
        let provider = [
            "model_provider=\"interop\"".to_string(),
            "model=\"interop-model\"".to_string(),
            "model_providers.interop.name=\"interop\"".to_string(),
            format!("model_providers.interop.base_url=\"{}\"", server.base_url()),
            "model_providers.interop.wire_api=\"responses\"".to_string(),
            format!("model_providers.interop.env_key=\"{KEY_VAR}\""),
            // A failed request fails the run at once instead of being retried.
            "model_providers.interop.request_max_retries=0".to_string(),
            "model_providers.interop.stream_max_retries=0".to_string(),
            "check_for_update_on_startup=false".to_string(),
        ];
        let mut cmd = Command::new(exe);
        cmd.arg("exec");
        for c in &provider {
            cmd.arg("-c").arg(c);
        }
        cmd.args(["--color", "never"])
            .args(args)
            .arg(prompt)
            .current_dir(&self.sb.repo)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Only the allow-listed variables of the test's environment, then the sandbox's.
        clear_tool_env(&mut cmd);
        let path = format!(
            "{}:{}",
            capturing_ours(&self.sb, &self.server_stdout_log()).display(),
            crate::claude::path_without_ours()
        );
        cmd.envs(self.sb.env())
            .env("PATH", path)
            .env("CODEX_HOME", self.codex_home())
            .env(KEY_VAR, "sk-interop-dummy")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .env_remove("HTTPS_PROXY")
            .env_remove("HTTP_PROXY")
            .env_remove("https_proxy")
            .env_remove("http_proxy")
            .env("NO_COLOR", "1");
        let child = cmd.spawn().expect("spawn codex");
        wait_or_kill(child, &format!("codex exec {prompt:?}"))
    }

    /// Like [`World::codex`]; the run must succeed.
    pub fn codex_ok(
        &self,
        exe: &Path,
        server: &ResponsesServer,
        prompt: &str,
        args: &[&str],
    ) -> Run {
        let out = self.codex(exe, server, prompt, args);
        let run = Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        assert!(
            out.status.success(),
            "codex exec {prompt:?} failed ({:?})\n{run}",
            out.status.code(),
        );
        run
    }
}

/// A directory (in the sandbox) holding a `git-qwen-memory` that runs this build and copies
/// everything it writes on stdout to `log`, so a check sees what the MCP server said to its
/// client. The client finds it on PATH, as the command `install` wrote.
pub fn capturing_ours(sb: &Sandbox, log: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = sb.root().join("wrapper-bin");
    fs::create_dir_all(&dir).expect("wrapper dir");
    let real = assert_cmd::cargo::cargo_bin("git-qwen-memory");
    let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', "'\\''"));
    let script = format!(
        "#!/bin/sh\n{} \"$@\" | tee -a {}\n",
        quote(&real),
        quote(log)
    );
    let path = dir.join("git-qwen-memory");
    fs::write(&path, script).expect("write wrapper");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod wrapper");
    dir
}

/// What a finished `codex exec` printed, for failure messages.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "codex stdout:\n{}\ncodex stderr:\n{}",
            self.stdout, self.stderr
        )
    }
}
