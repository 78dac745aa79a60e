#!/usr/bin/env zsh
# Prints, one per line, what zsh's completion system offers for a command line, by typing it
# with a TAB into an interactive zsh on a pseudo-terminal (zsh/zpty) and recording every
# candidate handed to `compadd`. Usage: capture.zsh FPATH_DIR "command line to complete"
# Used by tests/completions_man.rs.
#
# Nothing is typed before the inner shell shows a prompt, and the line is typed only after the
# prompt that follows the setup: text typed while the shell was still starting was sometimes
# discarded on a loaded machine (the completion then found nothing, or the run hung).
zmodload zsh/zpty
zpty z PS1='\<''STARTED\>' zsh -f -i
zpty -r z __seen '*<STARTED>*' || exit 2
zpty -w z "stty -echo"
zpty -w z "PS1=''; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no"
zpty -w z 'compadd () { if [[ ${@[1,(i)(-(|-)|-[aQOA])]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi; typeset -a __hits; builtin compadd -A __hits "$@"; local ret=$?; (( $#__hits )) && print -l -- "<""C>"${^__hits} >&2; return $ret }'
zpty -w z "comppostfuncs=(__done); __done() { print '<''END>' >&2; exit }"
zpty -w z "exec 2>&1"
zpty -w z "PS1='<''READY>'"
zpty -r z __seen '*<READY>*' || exit 2
# -n: no newline after the TAB, so nothing is typed ahead of the completion.
zpty -w -n z "$2"$'\t'
while zpty -r z line; do
  [[ $line == *'<END>'* ]] && break
  [[ $line == *'<C>'* ]] && print -r -- "${${line#*<C>}%$'\r'}"
done
zpty -d z
