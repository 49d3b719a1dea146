#!/usr/bin/env bash
# Put exercise E's chunk back into a workbook, from the book:  tools/put-back.sh E WORKBOOK_DIR
# (make put-back E=3.2, from the book's folder).  The workbook's chapter that holds the stub is
# written again from the book's chapter, with the stubs of that chapter's other exercises still
# to write kept in place; anything else edited in that chapter of the workbook is replaced too.
set -u -o pipefail
exercise=${1:-} dir=${2:-workbook}
if [ -z "$exercise" ]; then echo "put-back: say which exercise: make put-back E=3.2"; exit 2; fi
if [ ! -f "$dir/WORKBOOK" ]; then echo "put-back: $dir is not a workbook (make workbook)"; exit 2; fi
stubbed=$(grep -l "exercise_unsolved(\"$exercise\"" "$dir"/book/*.nw) ||
  { echo "put-back: exercise $exercise has no stub in $dir"; exit 2; }
chapter=book/${stubbed##*/}
others=$(grep -o 'exercise_unsolved("[^"]*"' "$stubbed" | sed -e 's/^exercise_unsolved("//' -e 's/"$//' |
         grep -vxF "$exercise" | tr '\n' ' ')
if [ -z "$others" ]; then
  cp "$chapter" "$stubbed.tmp"
else
  awk -v numbers="$dir/reference/exercise-numbers" -v only="$others" -v source="$chapter" \
      -f tools/workbook.awk "$chapter" > "$stubbed.tmp" || { rm -f "$stubbed.tmp"; exit 1; }
fi
mv "$stubbed.tmp" "$stubbed"
printf '  %-8s exercise %s, into %s\n' PUT-BACK "$exercise" "$stubbed"
