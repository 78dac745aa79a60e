//! The context every command runs in: the project, its settings and its roots.

use std::path::{Path, PathBuf};

use crate::storage::project::{self, Layout, Project, ProjectError};
use crate::storage::qwen_env::QwenDirs;
use crate::storage::settings::{self, Flags, Key, Settings, SettingsError, SystemSource};

/// Failures opening a context.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error(transparent)]
    Project(#[from] ProjectError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

/// Project + settings + roots, resolved once per command.
#[derive(Debug, Clone)]
pub struct Context {
    pub cwd: PathBuf,
    pub project: Project,
    pub settings: Settings,
    pub layout: Layout,
    /// Qwen Code's folders for this directory (global dir, runtime base with the chats,
    /// memory base).
    pub qwen: QwenDirs,
}

impl Context {
    /// Opens the context for `cwd`, with command-line setting overrides as (key, value). An
    /// invalid setting value is an error.
    pub fn open(cwd: &Path, flags: &Flags) -> Result<Context, ContextError> {
        Context::open_with(cwd, flags, false, settings::process_env, true)
    }

    /// [`Context::open`] as if no environment variable were set and no Git configuration
    /// existed beyond the repository's own, for unit tests that must not depend on the
    /// developer's shell or their `~/.gitconfig`. Public for the unit tests of the crates above
    /// (`cfg(test)` does not reach across crates); nothing else calls it.
    #[doc(hidden)]
    pub fn open_without_env(cwd: &Path) -> Result<Context, ContextError> {
        Context::open_with(cwd, &[], false, |_| None, false)
    }

    /// Opens the context even when a setting value is invalid: the key falls back to its default
    /// and the problem is listed by `settings.problems()` (for `status` and `check`).
    pub fn open_lenient(cwd: &Path, flags: &Flags) -> Result<Context, ContextError> {
        Context::open_with(cwd, flags, true, settings::process_env, true)
    }

    fn open_with(
        cwd: &Path,
        flags: &Flags,
        lenient: bool,
        env: settings::EnvReader,
        user_git_config: bool,
    ) -> Result<Context, ContextError> {
        let project = Project::discover(cwd, env(project::ENV_PROJECT_SCOPE).as_deref())?;
        let source = if user_git_config {
            SystemSource::with_env(project.git_dir.as_deref(), env)
        } else {
            SystemSource::repository_only(project.git_dir.as_deref(), env)
        };
        let settings = if lenient {
            Settings::load_lenient(&source, flags)
        } else {
            Settings::load(&source, flags)?
        };
        let abs_cwd = if cwd.is_absolute() {
            cwd.to_path_buf()
        } else {
            std::env::current_dir()
                .map_err(ProjectError::CurrentDir)?
                .join(cwd)
        };
        let qwen = QwenDirs::resolve_with(
            &project::normalize_lexically(&abs_cwd),
            env,
            dirs::home_dir(),
        )?;
        let layout = Layout::new(
            &project,
            qwen.memory_base.clone(),
            settings.bool(Key::Local),
        );
        Ok(Context {
            cwd: cwd.to_path_buf(),
            project,
            settings,
            layout,
            qwen,
        })
    }

    /// The state dir of the writable root (meta, cursor, logs, telemetry).
    pub fn state_dir(&self) -> &Path {
        &self.layout.writable().state_dir
    }

    /// The current HEAD commit id, if any.
    pub fn head_commit(&self) -> Option<String> {
        let repo = git2::Repository::open(self.project.git_dir.as_ref()?).ok()?;
        let head = repo.head().ok()?;
        head.target().map(|oid| oid.to_string())
    }
}
