#!/usr/bin/env bash
# The map of the tests that reach each exercise, which `make workbook` puts in the workbook for
# its `make check-exercise E=N`.
#
#   tools/exercise-tests.sh NUMBERS OUT
#
# NUMBERS holds "LABEL NUMBER" lines (the exercises' labels, from LaTeX's .aux).  A traced copy
# of the book is built in generated/trace: every chapter through tools/workbook.awk with trace=1,
# so that each exercise's chunk, all of them in place, notes that it was reached
# (exercise_reached).  Then every test case of every suite runs alone, with EXERCISE_TRACE set.
# OUT gets a line for each exercise and each test case that reaches it:
# "NUMBER<TAB>SUITE<TAB>CASE".  The script fails if a test fails in the traced book, or if an
# exercise is reached by no test.  The traced copy is kept, so that a second run recompiles only
# what changed.  Progress goes to generated/trace.log.
set -u -o pipefail
MAKE=${MAKE:-make}
numbers=$1 out=$2
dir=generated/trace log=generated/trace.log
mkdir -p "$dir/book/drivers"
rm -rf "$dir/tests" "$dir/tools" "$dir/figures"
cp -R Makefile tests tools figures "$dir/"
exercises=$(mktemp) reached=$(mktemp) table=$(mktemp)
trap 'rm -f "$exercises" "$reached" "$table"' EXIT
for nw in book/*.nw book/drivers/*.nw; do
  awk -v numbers="$numbers" -v listing="$exercises" -v source="$nw" -v trace=1 \
      -f tools/workbook.awk "$nw" > "$dir/$nw.new" || exit 1
  if cmp -s "$dir/$nw.new" "$dir/$nw"; then rm "$dir/$nw.new"; else mv "$dir/$nw.new" "$dir/$nw"; fi
done
# A chapter renamed or removed since the last run leaves no copy behind.
for nw in "$dir"/book/*.nw "$dir"/book/drivers/*.nw; do [ -e "${nw#"$dir"/}" ] || rm -f "$nw"; done
$MAKE -C "$dir" generated/bin/check-all > "$log" 2>&1 ||
  { tail -20 "$log"; echo "exercise-tests: the traced copy of the book does not build (see $log)"; exit 1; }
for suite_file in tests/check_*.c; do
  suite=${suite_file#tests/check_}; suite=${suite%.c}
  grep -o 'tcase_create("[^"]*")' "$suite_file" | sed -e 's/^tcase_create("//' -e 's/")$//' |
  while IFS= read -r tcase; do
    : > "$reached"
    if ! EXERCISE_TRACE=$reached CK_RUN_SUITE=$suite CK_RUN_CASE=$tcase OMP_WAIT_POLICY=passive \
         CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120} "$dir/generated/bin/check-all" >> "$log" 2>&1; then
      echo "exercise-tests: $suite: $tcase fails in the traced book (see $log)"; exit 1
    fi
    sort -u "$reached" | while IFS= read -r number; do printf '%s\t%s\t%s\n' "$number" "$suite" "$tcase"; done
  done >> "$table" || exit 1
done
status=0
for number in $(cut -d' ' -f2 "$exercises"); do
  cut -f1 "$table" | grep -qx "$number" || { echo "exercise-tests: no test reaches exercise $number"; status=1; }
done
[ $status = 0 ] || exit 1
sort -t. -k1,1n -k2,2n "$table" > "$out.tmp" && mv "$out.tmp" "$out"
