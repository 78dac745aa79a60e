//! Undoing the last dream or forget of a root (`dream --undo`, `forget --undo`), followed by the
//! auto-commit any change to memory gets (docs/DESIGN.md, "Dream" and "Git integration").

use serde::Serialize;

use crate::integrations::git::commit::{auto_commit_report, AutoCommit};
use crate::storage::backup::{self, BackupError, RunKind, UndoOutcome};
use crate::storage::context::Context;
use crate::storage::project::Root;

/// What an undo restored, and the commit that recorded it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Undone {
    #[serde(flatten)]
    pub outcome: UndoOutcome,
    /// The auto-commit that followed (local mode with `autoCommit` on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_commit: Option<AutoCommit>,
}

/// Restores the files of the last run of `kind` in `root` exactly, then auto-commits.
pub fn undo_last(ctx: &Context, root: &Root, kind: RunKind) -> Result<Undone, BackupError> {
    let outcome = backup::undo_last(root, kind)?;
    Ok(Undone {
        outcome,
        auto_commit: auto_commit_report(ctx),
    })
}
