#!/usr/bin/env bash
# Which runs each figure waits for: a makefile of rules 'generated/figures/F.tex: generated/numbers/P.tex'.
#
#   tools/figure-deps.sh PROGRAM... > generated/mk/figures.mk
#
# A figure reads data files named after the program that writes them (data('cost-sweep') is
# written by cost), in its script or in a file the script loads (load 'figures/X.gpi').  Every
# quoted name in those files that is a program's name, or starts with one and a '-', ties the
# figure to that program's run (the longest such name wins).  A figure that names no program
# waits for every run.
set -euo pipefail
programs=" $* "
for script in figures/*.gp; do
  figure=$(basename "$script" .gp)
  loaded=$(sed -n "s/^[[:space:]]*load[[:space:]]*'\([^']*\)'.*/\1/p" "$script")
  runs=$(grep -h -o "'[A-Za-z0-9_-]*'" "$script" $loaded | tr -d "'" | sort -u | while read -r name; do
    best=""
    for program in $programs; do
      case $name in "$program"|"$program"-*) [ ${#program} -le ${#best} ] || best=$program;; esac
    done
    [ -z "$best" ] || echo "generated/numbers/$best.tex"
  done | sort -u | tr '\n' ' ')
  [ -n "$runs" ] || runs=$(for program in $programs; do printf 'generated/numbers/%s.tex ' "$program"; done)
  echo "generated/figures/$figure.tex: $runs$loaded"
done
