//! What the harnesses of the four npm-installed clients share (`qwen.rs`, `claude.rs`,
//! `codex.rs`, `gemini.rs`): the opt-in switch, the install cache, one `npm install` of a pinned
//! release under a file lock (parallel test binaries never install twice), and a gate so one
//! process of a client runs at a time on the two-core CI machine.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

/// True when the interop suite is switched on (`QWEN_MEMORY_INTEROP=1`); otherwise prints why
/// `check` did nothing. `client` names the release, e.g. "Qwen Code 0.24.4".
pub fn enabled(check: &str, client: &str) -> bool {
    if std::env::var("QWEN_MEMORY_INTEROP").as_deref() == Ok("1") {
        return true;
    }
    eprintln!(
        "interop check `{check}` not run: set QWEN_MEMORY_INTEROP=1 (as .ci/run does) to run it \
         against the real {client}"
    );
    false
}

/// Where a client's npm package goes: `$QWEN_MEMORY_INTEROP_CACHE/<name>`, else
/// `target/tmp/<name>`.
pub fn cache_dir(name: &str) -> PathBuf {
    match std::env::var_os("QWEN_MEMORY_INTEROP_CACHE") {
        Some(dir) => PathBuf::from(dir).join(name),
        None => PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name),
    }
}

/// Creates `dir` and runs `body` holding its install lock (`.install.lock`).
pub fn locked<T>(dir: &Path, body: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let file = fs::File::create(dir.join(".install.lock"))
        .map_err(|e| format!("install lock in {}: {e}", dir.display()))?;
    let mut lock = fd_lock::RwLock::new(file);
    let _guard = lock
        .write()
        .map_err(|e| format!("lock {}: {e}", dir.display()))?;
    body()
}

/// Installs `<name>@<version>` into `dir` under its lock, unless the package is there at that
/// version already (its `package.json`).
pub fn ensure(dir: &Path, name: &str, version: &str) -> Result<(), String> {
    let pkg = dir.join("node_modules").join(name);
    locked(dir, || {
        if installed_version(&pkg).as_deref() == Some(version) {
            return Ok(());
        }
        install(dir, &format!("{name}@{version}"), &[], false)
    })
}

/// `npm install --prefix <dir> <spec>` quietly, with `extra` flags. `optional` also installs
/// optional dependencies (where a native binary lives) even when the caller's npm config
/// omits them.
pub fn install(dir: &Path, spec: &str, extra: &[&str], optional: bool) -> Result<(), String> {
    let mut cmd = Command::new("npm");
    cmd.args(["install", "--prefix"])
        .arg(dir)
        .args(["--no-audit", "--no-fund", "--loglevel=error"])
        .args(extra);
    if optional {
        cmd.arg("--include=optional")
            .env_remove("npm_config_omit")
            .env_remove("NPM_CONFIG_OMIT");
    }
    let out = cmd
        .arg(spec)
        .output()
        .map_err(|e| format!("`npm` is not installed ({e})"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "npm install {spec} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// The `version` of the npm package installed at `pkg` (its `package.json`), if any.
pub fn installed_version(pkg: &Path) -> Option<String> {
    let text = fs::read_to_string(pkg.join("package.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["version"].as_str().map(str::to_string)
}

/// Holds `gate` (one per client) for the life of a client process; a test that panicked while
/// holding it does not block the others.
pub fn one_at_a_time(gate: &'static Mutex<()>) -> MutexGuard<'static, ()> {
    gate.lock().unwrap_or_else(|e| e.into_inner())
}
