//! The trust policy (docs/security.md, "Policy settings"; docs/DESIGN.md, "Security"): which
//! repository and team memories may reach an agent's prompt. Off by default; any of three
//! settings turns it on, and all that are set must hold:
//! - `trust.ref`: the file is byte for byte the blob that ref's tree holds at its path (e.g.
//!   `origin/main`, i.e. reviewed);
//! - `trust.authors`: the commit that last changed the file (its [provenance]) is by one of
//!   these author emails;
//! - `trust.signed`: that commit carries a signature Git verifies (`%G?` = `G`).
//!
//! It fails closed: with a policy set, a repository that cannot be opened, a ref that does not
//! resolve, a file not committed as it is, or a history walk that ran out of time trusts
//! nothing. What is not trusted is *pending* (`check`, `status`).
//!
//! [provenance]: super::provenance

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::provenance::{self, Blobs, Cache};

/// What the policy asks for (all parts that are set must hold).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// `trust.ref`.
    pub reference: Option<String>,
    /// `trust.authors`, lower-cased.
    pub authors: Vec<String>,
    /// `trust.signed`.
    pub signed: bool,
}

impl Policy {
    /// The policy from the three settings' values; `None` when none is set (trust everything).
    pub fn new(reference: Option<&str>, authors: Option<&str>, signed: bool) -> Option<Policy> {
        let reference = reference
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_string);
        let authors: Vec<String> = authors
            .unwrap_or("")
            .split(|c: char| c == ',' || c.is_whitespace())
            .map(|a| a.trim().trim_start_matches('<').trim_end_matches('>'))
            .filter(|a| !a.is_empty())
            .map(str::to_lowercase)
            .collect();
        (reference.is_some() || !authors.is_empty() || signed).then_some(Policy {
            reference,
            authors,
            signed,
        })
    }

    /// One line naming what is required, for `check` and `status`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(r) = &self.reference {
            parts.push(format!("as committed on {r} (trust.ref)"));
        }
        if !self.authors.is_empty() {
            parts.push("last changed by a listed author (trust.authors)".to_string());
        }
        if self.signed {
            parts.push("last changed by a commit with a verified signature (trust.signed)".into());
        }
        parts.join(", ")
    }
}

/// Why a file is not trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// The repository could not be opened.
    NoRepository,
    /// `trust.ref` does not resolve.
    RefMissing,
    /// `trust.ref` names several refs that point to different commits (a tag `origin/main`
    /// beside the remote-tracking branch): which one was meant is not known.
    RefAmbiguous(Vec<String>),
    /// The file differs from the blob on `trust.ref`.
    NotOnRef,
    /// The file differs from `HEAD` (not committed as it is) or its commit was not found.
    NotCommitted,
    /// Last changed by an author not listed.
    Author(String),
    /// Its commit's signature is missing or not verified (Git's `%G?` letter).
    Unsigned(String),
}

impl std::fmt::Display for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pending::NoRepository => write!(f, "the repository cannot be opened"),
            Pending::RefMissing => write!(f, "the trusted ref (trust.ref) does not resolve"),
            Pending::RefAmbiguous(names) => write!(
                f,
                "the trusted ref (trust.ref) is ambiguous: {}; set it to the full name",
                names.join(", ")
            ),
            Pending::NotOnRef => write!(f, "not as committed on the trusted ref (trust.ref)"),
            Pending::NotCommitted => write!(f, "not committed as it is"),
            Pending::Author(email) => write!(
                f,
                "last changed by {email}, not a listed author (trust.authors)"
            ),
            Pending::Unsigned(letter) => write!(
                f,
                "last changed by a commit without a verified signature (%G? = {letter}; trust.signed)"
            ),
        }
    }
}

struct Repo {
    repo: git2::Repository,
    workdir: PathBuf,
    blobs: Blobs,
    /// The trusted ref's tree, when `trust.ref` is set and resolves to one commit.
    ref_tree: Result<git2::Oid, Pending>,
}

/// The policy applied to one repository. Provenance and signature verdicts are cached in the
/// repository state dir ([`provenance::CACHE_FILE`]), saved when the policy is dropped.
pub struct TrustPolicy {
    policy: Policy,
    repo: Option<Repo>,
    state_dir: PathBuf,
    cache: RefCell<Cache>,
    /// Signature letters found by this process (commit id → `%G?`).
    letters: RefCell<BTreeMap<String, String>>,
    /// History walks stop here (the prompt hook's budget); `None`: no limit.
    deadline: Option<Instant>,
}

impl TrustPolicy {
    /// `policy` for the repository at `git_dir` (`None`: no repository: nothing is trusted).
    pub fn open(policy: Policy, git_dir: Option<&Path>, state_dir: &Path) -> TrustPolicy {
        let repo = git_dir
            .and_then(|g| git2::Repository::open(g).ok())
            .and_then(|repo| {
                let workdir = repo.workdir()?.to_path_buf();
                let blobs = Blobs::open(&repo);
                Some(Repo {
                    repo,
                    workdir,
                    blobs,
                    ref_tree: Err(Pending::RefMissing),
                })
            })
            .map(|mut r| {
                if let Some(name) = &policy.reference {
                    r.ref_tree = resolve_tree(&r.repo, name);
                }
                r
            });
        let mut cache = Cache::load(state_dir);
        if policy.signed {
            let stamp = repo
                .as_ref()
                .map(|r| signers_stamp(&r.repo))
                .unwrap_or_default();
            if cache.signers != stamp {
                cache.signatures.clear();
                cache.signers = stamp;
                cache.dirty = true;
            }
        }
        TrustPolicy {
            policy,
            repo,
            state_dir: state_dir.to_path_buf(),
            cache: RefCell::new(cache),
            letters: RefCell::new(BTreeMap::new()),
            deadline: None,
        }
    }

    /// History walks (finding the commit that last changed a file) stop at `deadline`; a file
    /// whose walk did not finish is pending this time.
    pub fn with_deadline(mut self, deadline: Instant) -> TrustPolicy {
        self.deadline = Some(deadline);
        self
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Whether the file at `abs_path` may be injected.
    pub fn trusts(&self, abs_path: &Path) -> bool {
        self.verdict(abs_path).is_ok()
    }

    /// `Ok` when the file at `abs_path` may be injected, else why it is pending.
    pub fn verdict(&self, abs_path: &Path) -> Result<(), Pending> {
        let Some(r) = &self.repo else {
            return Err(Pending::NoRepository);
        };
        let rel = provenance::relative_to(abs_path, &r.workdir).ok_or(Pending::NotCommitted)?;
        if self.policy.reference.is_some() {
            let tree = r
                .ref_tree
                .clone()
                .and_then(|id| r.repo.find_tree(id).map_err(|_| Pending::RefMissing))?;
            let on_ref = tree.get_path(&rel).ok().map(|e| e.id());
            let blob = r.blobs.blob_id(&rel, abs_path);
            if on_ref.is_none() || on_ref != blob {
                return Err(Pending::NotOnRef);
            }
        }
        if self.policy.authors.is_empty() && !self.policy.signed {
            return Ok(());
        }
        let prov = provenance::of_file_with(
            &r.repo,
            &r.blobs,
            &mut self.cache.borrow_mut(),
            abs_path,
            self.deadline,
        )
        .ok_or(Pending::NotCommitted)?;
        // Every commit the content came from: for a merge that made it (a merge driver's
        // union), the merge and each parent's version, so a stranger's line in a union is not
        // trusted under the merger's name.
        for part in prov.contributors() {
            if !self.policy.authors.is_empty()
                && !self.policy.authors.contains(&part.email.to_lowercase())
            {
                return Err(Pending::Author(
                    crate::formats::sanitize::clean_line(&part.email).into(),
                ));
            }
            if self.policy.signed {
                let letter = self.signature_letter(&r.workdir, &part.commit);
                if letter != "G" {
                    return Err(Pending::Unsigned(letter));
                }
            }
        }
        Ok(())
    }

    /// Git's `%G?` for `commit` ("G" good, "N" none, …; "?" when Git could not be asked).
    fn signature_letter(&self, workdir: &Path, commit: &str) -> String {
        if let Some(good) = self.cache.borrow().signatures.get(commit) {
            return if *good { "G" } else { "N" }.to_string();
        }
        if let Some(l) = self.letters.borrow().get(commit) {
            return l.clone();
        }
        let letter = Command::new("git")
            .arg("-C")
            .arg(workdir)
            .args(["log", "-1", "--no-show-signature", "--format=%G?", commit])
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|l| l.len() == 1)
            .unwrap_or_else(|| "?".to_string());
        if letter != "?" {
            // Only a definite answer is kept; "N" is stored as not good and reported as such.
            let mut cache = self.cache.borrow_mut();
            cache.signatures.insert(commit.to_string(), letter == "G");
            cache.dirty = true;
        }
        self.letters
            .borrow_mut()
            .insert(commit.to_string(), letter.clone());
        letter
    }
}

impl Drop for TrustPolicy {
    fn drop(&mut self) {
        self.cache.borrow().save(&self.state_dir);
    }
}

/// The id of the tree `name` points to. A short name is looked up as Git does (`refs/<name>`,
/// `refs/tags/<name>`, `refs/heads/<name>`, `refs/remotes/<name>`, `refs/remotes/<name>/HEAD`),
/// but where Git takes the first that exists and only warns, two that point to different
/// commits are refused: otherwise anyone allowed to push a tag named `origin/main` would decide
/// what "reviewed" means. A full name (`refs/…`) is exactly that ref; anything else (a commit
/// id, `main~1`) goes to `revparse`.
fn resolve_tree(repo: &git2::Repository, name: &str) -> Result<git2::Oid, Pending> {
    let commit_of = |full: &str| -> Option<git2::Oid> {
        let r = repo.find_reference(full).ok()?;
        Some(r.peel_to_commit().ok()?.id())
    };
    let tree_of = |commit: git2::Oid| -> Result<git2::Oid, Pending> {
        repo.find_commit(commit)
            .and_then(|c| c.tree())
            .map(|t| t.id())
            .map_err(|_| Pending::RefMissing)
    };
    if name.starts_with("refs/") {
        return commit_of(name).ok_or(Pending::RefMissing).and_then(tree_of);
    }
    let candidates = [
        format!("refs/{name}"),
        format!("refs/tags/{name}"),
        format!("refs/heads/{name}"),
        format!("refs/remotes/{name}"),
        format!("refs/remotes/{name}/HEAD"),
    ];
    let found: Vec<(String, git2::Oid)> = candidates
        .iter()
        .filter_map(|full| Some((full.clone(), commit_of(full)?)))
        .collect();
    match found.as_slice() {
        [] => {
            let object = repo
                .revparse_single(name)
                .map_err(|_| Pending::RefMissing)?;
            object
                .peel_to_tree()
                .map(|t| t.id())
                .map_err(|_| Pending::RefMissing)
        }
        [(_, first), rest @ ..] if rest.iter().all(|(_, c)| c == first) => tree_of(*first),
        _ => Err(Pending::RefAmbiguous(
            found
                .into_iter()
                .map(|(n, _)| crate::formats::sanitize::clean_line(&n).into())
                .collect(),
        )),
    }
}

/// A stamp of what signature verification depends on: `gpg.format`, the allowed-signers file
/// (path, size, mtime) and `gpg.program`/`gpg.ssh.program`. A change drops cached verdicts.
fn signers_stamp(repo: &git2::Repository) -> String {
    let Ok(config) = repo.config() else {
        return String::new();
    };
    let get = |k: &str| config.get_string(k).unwrap_or_default();
    let file = get("gpg.ssh.allowedSignersFile");
    let meta = if file.is_empty() {
        String::new()
    } else {
        let path = if let Some(rest) = file.strip_prefix("~/") {
            dirs::home_dir().unwrap_or_default().join(rest)
        } else {
            PathBuf::from(&file)
        };
        std::fs::metadata(path)
            .map(|m| {
                use std::os::unix::fs::MetadataExt;
                format!("{}:{}:{}", m.len(), m.mtime(), m.mtime_nsec())
            })
            .unwrap_or_default()
    };
    format!(
        "{}|{}|{}|{}|{}",
        get("gpg.format"),
        file,
        meta,
        get("gpg.program"),
        get("gpg.ssh.program")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_is_off_unless_a_setting_is_set() {
        assert_eq!(Policy::new(None, None, false), None);
        assert_eq!(Policy::new(Some("  "), Some(" , "), false), None);
        let p = Policy::new(
            None,
            Some("Alice@Example.com, <bob@example.com> carol@x"),
            false,
        )
        .unwrap();
        assert_eq!(
            p.authors,
            vec!["alice@example.com", "bob@example.com", "carol@x"]
        );
        assert!(Policy::new(None, None, true).unwrap().signed);
        assert!(Policy::new(Some("origin/main"), None, true)
            .unwrap()
            .describe()
            .contains("origin/main"));
    }

    #[test]
    fn without_a_repository_nothing_is_trusted() {
        let dir = std::env::temp_dir();
        let policy = Policy::new(Some("origin/main"), None, false).unwrap();
        let t = TrustPolicy::open(policy, None, &dir.join("no-such-state-dir-qwen"));
        assert_eq!(t.verdict(&dir.join("x.md")), Err(Pending::NoRepository));
    }
}
