//! `completions`: shell completion scripts generated from the clap definition, for the binary
//! `git-qwen-memory` and, through Git's own completion, for `git qwen-memory`.

use std::io::{self, Write};

use clap::Command;
use clap_complete::Shell;

/// The executable the scripts complete.
pub const BIN: &str = "git-qwen-memory";

/// Bash: Git's completion (`git qwen-memory <TAB>`) calls `_git_qwen_memory` with its own
/// `words`/`cword` and `__git_cmd_idx` (where `qwen-memory` sits, after any `-C dir`). The words
/// from there on are handed to the generated completer as if `git-qwen-memory` had been typed.
/// With bash-completion, Git's completion loads this file by the name `git-qwen-memory` when it
/// first meets the subcommand.
const BASH_GIT_GLUE: &str = r#"
# `git qwen-memory <TAB>` through Git's bash completion.
_git_qwen_memory() {
    local idx=${__git_cmd_idx:-1}
    local COMP_WORDS=(git-qwen-memory "${words[@]:idx+1}")
    local COMP_CWORD=$((cword - idx))
    local COMP_LINE="${COMP_WORDS[*]}"
    local COMP_POINT=${#COMP_LINE}
    _git__qwen__memory git-qwen-memory "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;

/// Zsh: zsh's own Git completion calls `_git-qwen-memory` for `git qwen-memory <TAB>` (with the
/// words shifted so `qwen-memory` is the command), which is the function the generated script
/// defines; this note tells the reader where to put the file.
const ZSH_NOTE: &str = "# Save as _git-qwen-memory in a directory of $fpath: it completes both `git-qwen-memory`\n# and, through zsh's git completion, `git qwen-memory`.\n";

/// Writes the completion script for `shell`. The script is generated into memory first, so a
/// closed stdout is an ordinary write error.
pub fn write(shell: Shell, cmd: Command, out: &mut dyn Write) -> io::Result<()> {
    // Generated for the binary's own name: the script's case labels follow the name it was
    // generated for, and `git qwen-memory` (with its space) matched nothing the shell typed.
    let mut cmd = cmd.bin_name(BIN);
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN, &mut script);
    if shell == Shell::Bash {
        // clap_complete names the states of a hyphenated program two ways: the loop over the
        // words builds `git__qwen__memory__subcmd__dream`, the option table is keyed
        // `git__subcmd__qwen__subcmd__memory__subcmd__dream`, so no subcommand's options were
        // ever offered. Bring the table's keys to the loop's spelling.
        let text = String::from_utf8_lossy(&script)
            .replace("git__subcmd__qwen__subcmd__memory", "git__qwen__memory");
        script = text.into_bytes();
    }
    out.write_all(&script)?;
    // After the script: `#compdef` must stay on the first line.
    if shell == Shell::Zsh {
        out.write_all(ZSH_NOTE.as_bytes())?;
    }
    if shell == Shell::Bash {
        out.write_all(BASH_GIT_GLUE.as_bytes())?;
    }
    out.flush()
}
