//! Detached processes: slow work (dream, extract, embedding) that a hook or a recall starts
//! and does not wait for.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::integrations::telemetry::HOOK_LOG_FILE;
use crate::storage::store;

/// Program the hooks start for detached work instead of the current executable (wrappers,
/// and tests that need a stand-in for a slow dream).
pub const ENV_HOOK_EXEC: &str = "QWEN_MEMORY_HOOK_EXEC";

/// The program detached work runs: [`ENV_HOOK_EXEC`], else this executable.
pub fn own_program() -> io::Result<PathBuf> {
    match std::env::var_os(ENV_HOOK_EXEC) {
        Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
        _ => std::env::current_exe(),
    }
}

/// Starts `program args` in its own session (so it survives the hook's process group being
/// killed), stdin from /dev/null, stdout and stderr appended to the hook log; does not wait.
pub fn spawn_detached(
    program: &Path,
    args: &[&str],
    cwd: &Path,
    log_dir: &Path,
) -> io::Result<u32> {
    let log_file = store::open_append(&log_dir.join(HOOK_LOG_FILE))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(log_file.try_clone()?))
        .stderr(Stdio::from(log_file))
        .env_remove("GIT_INDEX_FILE");
    crate::storage::sys::new_session_for_child(&mut cmd);
    let child = cmd.spawn()?;
    Ok(child.id())
}
