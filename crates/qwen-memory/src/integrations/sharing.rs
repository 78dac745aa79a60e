//! Sharing the work with Qwen Code: which roots each tool recalls and who extracts, decided at
//! hook time from Qwen's merged settings, so no memory is injected twice and no turn is
//! extracted twice (docs/DESIGN.md, "Sharing with Qwen Code").
//!
//! Qwen Code 0.24.4 with `memory.enableManagedAutoMemory` on (its default) recalls from its
//! project root and the user root and extracts into them with its own agent. Its project root is
//! our private root, or `.qwen/memory/` when `QWEN_CODE_MEMORY_LOCAL=1` is set in its
//! environment. It never recalls team documents (with team memory on it only shows the team
//! index in the system prompt), and never reads our repository root otherwise.

use serde::Serialize;

use crate::storage::context::Context;
use crate::storage::qwen_settings::{self, QwenSettings};
use crate::storage::scan::Scope;

/// Qwen Code's switch for its own local mode (the only one it knows: it does not read git config).
pub const ENV_QWEN_LOCAL: &str = "QWEN_CODE_MEMORY_LOCAL";

/// What Qwen Code does on this project, and what our Qwen hooks therefore do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QwenSharing {
    /// `memory.enableManagedAutoMemory` as Qwen resolves it (default on).
    pub managed_auto_memory: bool,
    /// Whether Qwen shows team memory (`memory.enableTeamMemory` / `QWEN_CODE_MEMORY_TEAM`).
    pub team_memory: bool,
    /// The roots Qwen Code recalls from by itself.
    pub qwen_recalls: Vec<&'static str>,
    /// The roots our Qwen recall hook injects: every recalled root Qwen does not cover.
    pub hook_injects: Vec<&'static str>,
    /// Who extracts facts from Qwen sessions: `qwen`, `git-qwen-memory` or `both` (both only
    /// when each writes a root the other does not).
    pub extracts: &'static str,
    /// Qwen settings files that were read.
    pub settings_files: Vec<String>,
}

/// How Qwen Code is configured for the project in `ctx`, read now.
pub fn qwen(ctx: &Context) -> QwenSharing {
    let env = |k: &str| std::env::var(k).ok();
    let global = qwen_settings::global_dir(env(qwen_settings::ENV_QWEN_HOME).as_deref(), &ctx.cwd);
    let settings = QwenSettings::load(global.as_deref(), &ctx.project.root);
    let qwen_local = env(ENV_QWEN_LOCAL).as_deref() == Some("1");
    decide(
        &settings,
        qwen_local,
        env(qwen_settings::ENV_QWEN_TEAM).as_deref(),
        ctx.layout.local,
    )
}

fn decide(
    settings: &QwenSettings,
    qwen_local: bool,
    team_env: Option<&str>,
    our_local: bool,
) -> QwenSharing {
    let managed = settings.managed_auto_memory();
    // Qwen's own project root is our private root, or the repository root in its local mode.
    let qwen_project = if qwen_local {
        Scope::Repository
    } else {
        Scope::Private
    };
    let qwen_recalls: Vec<Scope> = if managed {
        vec![qwen_project, Scope::User]
    } else {
        Vec::new()
    };
    let hook_injects: Vec<Scope> = [Scope::Repository, Scope::Private, Scope::Team, Scope::User]
        .into_iter()
        .filter(|s| !qwen_recalls.contains(s))
        .collect();
    // We extract into our writable root; Qwen into its project root (and the user root).
    let our_root = if our_local {
        Scope::Repository
    } else {
        Scope::Private
    };
    let extracts = if !managed {
        "git-qwen-memory"
    } else if our_root == qwen_project {
        "qwen"
    } else {
        "both"
    };
    QwenSharing {
        managed_auto_memory: managed,
        team_memory: settings.team_memory(team_env),
        qwen_recalls: qwen_recalls.iter().map(|s| s.as_str()).collect(),
        hook_injects: hook_injects.iter().map(|s| s.as_str()).collect(),
        extracts,
        settings_files: settings
            .files
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
    }
}

impl QwenSharing {
    /// The scopes our Qwen recall hook injects.
    pub fn inject_scopes(&self) -> Vec<Scope> {
        [Scope::Repository, Scope::Private, Scope::Team, Scope::User]
            .into_iter()
            .filter(|s| self.hook_injects.contains(&s.as_str()))
            .collect()
    }

    /// Whether our Qwen extract hook should run, and if not, why.
    pub fn extract_skip_reason(&self) -> Option<&'static str> {
        (self.extracts == "qwen").then_some("qwen_extracts")
    }

    /// Whether our extraction of a Qwen Code chat leaves its `user` facts to Qwen: true when
    /// both extract, since Qwen's agent writes that chat's user facts into the user root we
    /// share. When only we extract there is no one to leave them to; when only Qwen extracts,
    /// our hook does not run and a hand-run `extract` does what it was asked.
    pub fn leaves_qwen_chat_user_facts_to_qwen(&self) -> bool {
        self.extracts == "both"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(json: &str) -> QwenSettings {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.json"), json).unwrap();
        QwenSettings::load(Some(dir.path()), &dir.path().join("nowhere"))
    }

    #[test]
    fn default_qwen_recalls_private_and_user_so_we_inject_repository_and_team() {
        let s = decide(&settings("{}"), false, None, false);
        assert!(s.managed_auto_memory);
        assert_eq!(s.qwen_recalls, vec!["private", "user"]);
        assert_eq!(s.hook_injects, vec!["repository", "team"]);
        assert_eq!(s.extracts, "qwen");
        assert_eq!(s.extract_skip_reason(), Some("qwen_extracts"));
        // In our local mode we extract into the repository root, which Qwen does not write.
        let s = decide(&settings("{}"), false, None, true);
        assert_eq!(s.extracts, "both");
        assert_eq!(s.extract_skip_reason(), None);
        assert!(s.leaves_qwen_chat_user_facts_to_qwen());
    }

    #[test]
    fn qwen_off_means_we_do_everything() {
        let s = decide(
            &settings(r#"{"memory": {"enableManagedAutoMemory": false}}"#),
            false,
            None,
            false,
        );
        assert!(s.qwen_recalls.is_empty());
        assert_eq!(
            s.hook_injects,
            vec!["repository", "private", "team", "user"]
        );
        assert_eq!(s.extracts, "git-qwen-memory");
        assert!(!s.leaves_qwen_chat_user_facts_to_qwen());
    }

    #[test]
    fn qwen_local_mode_covers_the_repository_root() {
        let s = decide(&settings("{}"), true, Some("1"), true);
        assert_eq!(s.qwen_recalls, vec!["repository", "user"]);
        assert_eq!(s.hook_injects, vec!["private", "team"]);
        assert_eq!(s.extracts, "qwen");
        assert!(!s.leaves_qwen_chat_user_facts_to_qwen());
        assert!(s.team_memory);
    }
}
