#!/bin/bash
# The man page and the shell completions the build generates from the option table
# (cmake/install.cmake: `coalcheck --help-man`, `--help-completion bash|zsh`): every
# option of the table appears in all three; they equal what the binary writes now (no
# stale copy); bash -n and zsh -n (when zsh is installed) accept the scripts; groff reads
# the page without warnings; and the completions complete what the table says:
# `coalcheck fix --tra` to --transform (fix's option) and `coalcheck --tra` to --trace
# only (--transform is not an option of the main job); bash through COMP_WORDS, zsh in
# an interactive shell on a pseudo-terminal.
#
# The table's option names are read from src/cli/options.c's source text (the lines
# `{"NAME", SHORT, ...` of `options[]`), not from the generators under test.
. "$(dirname "$0")/data/common.bash"
BUILD="$(cd "$(dirname "$COALCHECK")" && pwd)"
MAN="$BUILD/share/man/man1/coalcheck.1"
BASH_C="$BUILD/share/bash-completion/completions/coalcheck"
ZSH_C="$BUILD/share/zsh/site-functions/_coalcheck"
for f in "$MAN" "$BASH_C" "$ZSH_C"; do
  [ -s "$f" ] || { fail "$f missing: build the cc_docs target (cmake --build $BUILD)"; finish; }
done

# the generated files are what the binary writes now
"$COALCHECK" --help-man >"$TMP/man" || fail "--help-man exited $?"
cmp -s "$TMP/man" "$MAN" || fail "$MAN differs from 'coalcheck --help-man'"
for sh in bash zsh; do
  f="$BASH_C"; [ $sh = zsh ] && f="$ZSH_C"
  "$COALCHECK" --help-completion $sh >"$TMP/$sh" || fail "--help-completion $sh exited $?"
  cmp -s "$TMP/$sh" "$f" || fail "$f differs from 'coalcheck --help-completion $sh'"
done
expect 2 "--help-completion takes bash or zsh, not 'fish'" "$COALCHECK" --help-completion fish

# the table's options, from the source
awk '/^static const struct option options\[\] = \{/ {t = 1; next} t && /^\};/ {t = 0}
     t && match($0, /^  \{"[a-z0-9-]+", /) { s = substr($0, 5); sub(/".*/, "", s); print s }' \
  "$COALCHECK_SRC/src/cli/options.c" >"$TMP/names"
n=$(wc -l <"$TMP/names")
# at least the 38 options of main on 2026-11-27 (more come)
[ "$n" -ge 38 ] || fail "only $n option names read from options.c's table"
while read -r name; do
  esc=$(printf '%s' "$name" | sed 's/-/\\\\-/g')
  grep -q -- "^\\\\fB\\\\-\\\\-$esc\\\\fR\|, \\\\fB\\\\-\\\\-$esc\\\\fR" "$MAN" ||
    fail "man page: no entry for --$name"
  grep -qE -- "opts='([^']* )?--$name( |')" "$BASH_C" || fail "bash completion: no --$name"
  grep -qE -- "'\\*(--$name[=\[]|'\{-.\+?,--$name=?\})" "$ZSH_C" || fail "zsh completion: no --$name"
done <"$TMP/names"
# short options: -o, -q, -h
for s in o q h; do
  grep -q "^\\\\fB\\\\-$s\\\\fR, " "$MAN" || fail "man page: no -$s"
  grep -qE -- "opts='[^']* -$s( |')" "$BASH_C" || fail "bash completion: no -$s"
  grep -qE -- "\{-$s\+?," "$ZSH_C" || fail "zsh completion: no -$s"
done
# the commands of the command table (cli.c), from the source too
sed -n '/cc_cli_commands\[\] = {/,/^};/p' "$COALCHECK_SRC/src/cli/cli.c" |
  sed -n 's/^  {"\([a-z]*\)".*/\1/p' >"$TMP/cmds"
[ "$(wc -l <"$TMP/cmds")" -ge 6 ] || fail "fewer than 6 commands read from cli.c"
while read -r c; do
  grep -q "^\.B $c$" "$MAN" || fail "man page: no command $c"
  grep -qE "^            $c\) opts=" "$BASH_C" || fail "bash completion: no case for $c"
  grep -q "^    '$c:" "$ZSH_C" || fail "zsh completion: no command $c"
done <"$TMP/cmds"

# syntax
bash -n "$BASH_C" || fail "bash -n rejects $BASH_C"
# zsh_completes LINE WANT [UNWANTED]: in an interactive zsh (a pseudo-terminal,
# zsh/zpty) with the generated _coalcheck on fpath, typing LINE and TAB shows WANT within
# 30 s, and UNWANTED not within a second more (zle draws escapes between characters of
# what it inserts: WANT is a word of it)
cat >"$TMP/zc.zsh" <<'EOF'
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z "PS1='%% '; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; coalcheck() { }"
zpty -w -n z "$2"$'\t'
zpty -r z out "*$3*" || exit 1
sleep 1
while zpty -r -t z more; do out+=$more; done
[[ -z $4 || $out != *$4* ]]
EOF
zsh_completes() {
  timeout 30 zsh -f "$TMP/zc.zsh" "$(dirname "$ZSH_C")" "$@" ||
    fail "zsh: '$1' and TAB did not show '$2'${3:+, or showed '$3'}"
}
if command -v zsh >/dev/null; then
  zsh -n "$ZSH_C" || fail "zsh -n rejects $ZSH_C"
  zsh_completes "coalcheck fix --tra" "--transform"
  zsh_completes "coalcheck --tra" "--trace" "transform"
  zsh_completes "coalcheck re" "report  -- report a .cctrace"
else
  echo "note: zsh not installed: its completion is not checked"
fi
if command -v groff >/dev/null; then
  groff -man -ww -z "$MAN" 2>"$TMP/groff" || fail "groff failed on $MAN"
  [ ! -s "$TMP/groff" ] || { fail "groff warns on $MAN"; cat "$TMP/groff"; }
fi

# the bash completion at work: complete WORDS... prints the candidates for the last word,
# one per line, sorted (run in an empty folder holding r.json, so that files are known)
mkdir -p "$TMP/cwd" && : >"$TMP/cwd/r.json"
complete_words() {
  (cd "$TMP/cwd" && bash -c '
    . "$1"; shift
    spec=$(complete -p coalcheck) || exit 3
    fn=${spec#*-F }; fn=${fn%% *}
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    "$fn" coalcheck "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$BASH_C" "$@")
}
# check_completion EXPECTED WORDS...: EXPECTED is the candidates joined by spaces
check_completion() {
  local want=$1 got
  shift
  got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ] || fail "completion of '$*': got '$got', expected '$want'"
}
check_completion "--transform" coalcheck fix --tra
check_completion "--trace" coalcheck --tra
check_completion "--gpu-json --gpu-mode" coalcheck --gpu    # the executable mode's option
check_completion "--gpu-mode" coalcheck run --gpu            # is not run's (--gpu-mode is)
check_completion "--kernel" coalcheck fix --kern             # fix: no launch selection
check_completion "" coalcheck report --gri                   # report takes no --grid
check_completion "off on" coalcheck --l1-cache ""
check_completion "off" coalcheck report --l1-cache = of       # --l1-cache=of
check_completion "empirical model" coalcheck fix --strategy ""
check_completion "r.json" coalcheck --json ""
check_completion "r.json" coalcheck fix -o r
check_completion "" coalcheck --grid ""                      # a number: nothing to offer
check_completion "record report" coalcheck re
check_completion "--imbalance-threshold" coalcheck merge --imb  # merge: its own options
got=$(complete_words coalcheck "" | tr '\n' ' ')
while read -r c; do
  case " $got" in *" $c "*) ;; *) fail "completion of 'coalcheck ': no command $c (got $got)" ;; esac
done <"$TMP/cmds"
case " $got" in *" r.json "*) ;; *) fail "completion of 'coalcheck ': no file r.json" ;; esac
finish
