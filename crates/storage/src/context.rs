//! The context every command runs in: the project, its settings and its roots.

use std::path::{Path, PathBuf};

use crate::project::{self, Layout, Project, ProjectError};
use crate::qwen_env::QwenDirs;
use crate::settings::{self, Flags, GitConfigLayer, Key, Settings, SettingsError, SystemSource};

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
    /// Opens the context for `cwd` in `repo` (the repository Git finds there), with
    /// command-line setting overrides as (key, value) and Git's `qwen-memory.*` configuration
    /// from `git_config(git_dir)`. Both come from `integrations::git` (`open_context`), the one
    /// owner of Git access. An invalid setting value is an error unless `lenient`: then the key
    /// falls back to its default and the problem is listed by `settings.problems()` (for
    /// `status` and `check`).
    pub fn open_with(
        cwd: &Path,
        flags: &Flags,
        lenient: bool,
        env: settings::EnvReader,
        repo: Option<project::DiscoveredRepo>,
        git_config: impl FnOnce(Option<&Path>) -> GitConfigLayer,
    ) -> Result<Context, ContextError> {
        let project = Project::discover(cwd, env(project::ENV_PROJECT_SCOPE).as_deref(), repo)?;
        let source = SystemSource::new(git_config(project.git_dir.as_deref()), env);
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
}
