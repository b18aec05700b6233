#!/bin/bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The generated bash completion completes subcommands,
# nested subcommands, options and option values; the zsh one parses; the man
# page has a section per subcommand. Usage: completions.sh BUILD_CLI_DIR
dir=$1
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=/dev/null
source "$dir/wsstress.bash" || fail "the bash completion does not load"
complete_words() {  # the words typed so far; the last is being completed
  COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
  _wsstress
  echo "${COMPREPLY[*]}"
}
[ "$(complete_words wsstress mu)" = "mutants" ] || fail "subcommand: $(complete_words wsstress mu)"
[ "$(complete_words wsstress mutants ch)" = "check" ] || fail "nested: $(complete_words wsstress mutants ch)"
[ "$(complete_words wsstress run --scen)" = "--scenario" ] || fail "option: $(complete_words wsstress run --scen)"
[ "$(complete_words wsstress sim --strategy p)" = "portfolio pct pos" ] || fail "value: $(complete_words wsstress sim --strategy p)"
# The values come from the options' own lists.
[ "$(complete_words wsstress sim --strategy s)" = "surw surw-sleep sleep-first" ] || fail "surw surw-sleep sleep-first: $(complete_words wsstress sim --strategy s)"
case " $(complete_words wsstress relacy --model '') " in *" --"*|"  ") fail "--model: $(complete_words wsstress relacy --model '')";; esac
case " $(complete_words wsstress relacy --model '') " in *" inject "*) ;; *) fail "--model lacks inject";; esac
[ "$(complete_words wsstress mutants check --engine sim-t)" = "sim-tso" ] || fail "--engine: $(complete_words wsstress mutants check --engine sim-t)"
case " $(complete_words wsstress mutants check --only no_sl)" in *"no_sleep_fence"*) ;; *) fail "--only";; esac
case " $(complete_words wsstress relacy --mutant al)" in " all") ;; *) fail "relacy --mutant all";; esac
[ "$(complete_words wsstress sim --html "$dir/wsstress.ba")" = "$dir/wsstress.bash" ] || fail "--html is not a file option"
[ "$(complete_words wsstress fuzz --scenario in)" = "inject" ] || fail "fuzz --scenario: $(complete_words wsstress fuzz --scenario in)"
case " $(complete_words wsstress mutants check --)" in *" --max-seconds "*) ;; *) fail "check's options";; esac
case " $(complete_words wsstress run --mutant no_sl)" in *"no_sleep_fence"*) ;; *) fail "mutant names";; esac
[ "$(complete_words wsstress scoreboard --memory t)" = "tso" ] || fail "scoreboard --memory: $(complete_words wsstress scoreboard --memory t)"
case " $(complete_words wsstress scoreboard --mutants ca)" in " caught") ;; *) fail "scoreboard --mutants caught";; esac
[ "$(complete_words wsstress scoreboard --scenarios cro)" = "cross cross_scope" ] || fail "scoreboard --scenarios: $(complete_words wsstress scoreboard --scenarios cro)"
zsh -n "$dir/_wsstress" || fail "the zsh completion does not parse"
for s in smoke run sim replay fuzz relacy "mutants list" "mutants check" scoreboard help; do
  grep -q "^\.SS \"wsstress $s\"" "$dir/wsstress.1" || fail "the man page has no section for '$s'"
done
echo "ok: bash completes subcommands, options and values; zsh parses; the man page has every subcommand"
