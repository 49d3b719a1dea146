#!/usr/bin/env bash
# The workbook's `make check-exercise E=N`: run just the test cases that reach exercise N.
#
#   tools/check-exercise.sh N MAP RUNNER
#
# MAP is reference/exercise-tests ("NUMBER<TAB>SUITE<TAB>CASE" lines, made with the workbook
# from the book), RUNNER the workbook's Check runner.  Says whether the exercise is still to
# write, runs each of its test cases alone, and fails if any of them fails.  A test case may
# reach another exercise's stub too: its failure then names that exercise.
set -u -o pipefail
exercise=$1 map=$2 runner=$3
if [ -z "$exercise" ]; then echo "check-exercise: say which exercise: make check-exercise E=3.2"; exit 2; fi
cases=$(awk -F'\t' -v e="$exercise" '$1 == e { print $2 "\t" $3 }' "$map")
if [ -z "$cases" ]; then
  echo "check-exercise: no exercise $exercise writes a chunk in this workbook; they are:" \
       "$(cut -f1 "$map" | uniq | tr '\n' ' ')"
  exit 2
fi
grep -n "exercise_unsolved(\"$exercise\"" book/*.nw |
  sed -E 's/^([^:]*):([0-9]+):.*/  exercise '"$exercise"' is still to write: \1:\2/'
log=generated/check-exercise.log
: > "$log"
failed=0 count=0
while IFS=$'\t' read -r suite tcase; do
  count=$((count + 1))
  if CK_RUN_SUITE=$suite CK_RUN_CASE=$tcase "$runner" > "$log.one" 2>&1; then
    printf '  %-8s %s: %s: %s\n' PASS "$suite" "$tcase" "$(grep -E '^[0-9]+%: Checks' "$log.one")"
  else
    failed=$((failed + 1))
    printf '  %-8s %s: %s\n' FAIL "$suite" "$tcase"
    grep -E 'not written yet|:[EF]:' "$log.one" | awk '!seen[$0]++' | head -5 | sed 's/^/           /'
  fi
  cat "$log.one" >> "$log"
done <<< "$cases"
rm -f "$log.one"
if [ $failed = 0 ]; then
  echo "Exercise $exercise: its $count test case$([ $count = 1 ] || echo s) pass."
else
  echo "Exercise $exercise: $failed of its $count test case$([ $count = 1 ] || echo s) fail (all output in $log)."
  exit 1
fi
