#!/usr/bin/env bash
# The student's path through a fresh workbook, walked and checked:
#
#   tools/workbook-proof.sh DIR --smoke    (make check: the programs at their smallest sizes)
#   tools/workbook-proof.sh DIR --full     (.ci/run: full sizes, every exercise put back in turn)
#
# Run from the book's folder, on a workbook just made in DIR (make WORKBOOK_DIR=DIR workbook).
# 1. The workbook's make finishes and gives the workbook's PDF (its stubbed chapters take the
#    book's numbers, data and figures from reference/).
# 2. Its make check fails, and names every exercise with its file and line; every test case
#    that fails is one that reaches a stub (reference/exercise-tests says which those are).
# 3. Exercises are put back from the book (tools/put-back.sh): the first alone (--smoke), or
#    each in turn (--full).  After each, make check-exercise passes exactly those of its test
#    cases that reach no stub still in place, and make check names only the exercises left.
# 4. With every exercise back, the tests pass (--smoke), or the whole make check does (--full).
set -u -o pipefail
MAKE=${MAKE:-make}
dir=$1 mode=${2:---smoke}
map=$dir/reference/exercise-tests
run_flags=""; [ "$mode" = --smoke ] && run_flags=--smoke
say() { printf '  %-8s %s\n' PROOF "$*"; }
fail() { echo "workbook proof: $*"; exit 1; }

stubs_left() { grep -h -o 'exercise_unsolved("[^"]*"' "$dir"/book/*.nw | sed -e 's/.*("//' -e 's/"$//'; }

# The test cases that fail in a Check log, as "SUITE<TAB>CASE" (the suite from the file name).
failing_cases() {
  grep -E '^tests/check_[a-z_]+\.c:[0-9]+:[EF]:' "$1" |
    sed -E 's/^tests\/check_([a-z_]+)\.c:[0-9]+:[EF]:([^:]*):.*/\1\t\2/' | sort -u
}

# The test cases that reach a stub still in place, from the map.
cases_at_stubs() {
  local left; left=$(stubs_left | tr '\n' ' ')
  awk -F'\t' -v left=" $left " 'index(left, " " $1 " ") { print $2 "\t" $3 }' "$map" | sort -u
}

# check_listing LOG: make check's output names exactly the exercises left, each with its line.
check_listing() {
  local n left; left=$(stubs_left)
  for n in $left; do
    grep -qE "^  exercise $n is still to write: book/[0-9A-Z][0-9]-[a-z-]+\.nw:[0-9]+$" "$1" ||
      fail "make check does not name exercise $n with its file and line (see $1)"
  done
  for n in $(grep '^exercise' "$dir/WORKBOOK" | cut -d' ' -f2); do
    if ! grep -qxF "$n" <<< "$left" && grep -q "exercise $n is still to write" "$1"; then
      fail "make check names exercise $n, which was put back (see $1)"
    fi
  done
}

# check_failures LOG: every failing test case reaches a stub still in place.
check_failures() {
  local extra; extra=$(comm -23 <(failing_cases "$1") <(cases_at_stubs))
  [ -z "$extra" ] || fail "test cases fail that reach no stub: $(tr '\t\n' ': ' <<< "$extra")(see $1)"
  if grep -E ':[EF]:' "$1" | grep -v 'Early exit with return value 3' | grep -q .; then
    fail "a test fails otherwise than by reaching a stub (see $1)"
  fi
}

# put_back E: put exercise E back, then check make check-exercise against the map, and make check.
put_back() {
  local exercise=$1 log=$dir/proof-$1.log expected
  tools/put-back.sh "$exercise" "$dir" > /dev/null || fail "put-back $exercise"
  $MAKE -C "$dir" check-exercise E="$exercise" > "$log" 2>&1
  # A test case of E passes exactly when every exercise it reaches is written.
  while IFS=$'\t' read -r suite tcase; do
    if cases_at_stubs | grep -qxF "$suite"$'\t'"$tcase"; then expected=FAIL; else expected=PASS; fi
    grep -qF "$(printf '  %-8s %s: %s' "$expected" "$suite" "$tcase")" "$log" ||
      fail "check-exercise $exercise: $suite: $tcase should $expected (see $log)"
  done < <(awk -F'\t' -v e="$exercise" '$1 == e { print $2 "\t" $3 }' "$map")
  if [ -n "$(stubs_left)" ]; then
    $MAKE -C "$dir" check > "$dir/check.log" 2>&1 && fail "make check passes with stubs left"
    check_listing "$dir/check.log"
    check_failures "$dir/check.log"
  fi
}

[ -f "$map" ] || fail "$map is missing"
all=$(grep '^exercise' "$dir/WORKBOOK" | cut -d' ' -f2)
count=$(wc -w <<< "$all")
$MAKE -C "$dir" RUN_FLAGS="$run_flags" > "$dir/make.log" 2>&1 || { tail -20 "$dir/make.log"; fail "the workbook's make failed"; }
grep -q 'Workbook edition' <(pdftotext "$dir/attention.pdf" -) || fail "$dir/attention.pdf is not the workbook"
grep -q "stopped at an exercise still to write" "$dir/make.log" || fail "no program stopped at a stub"
say "the workbook's make gives its PDF, with $count exercises as stubs"

$MAKE -C "$dir" check > "$dir/check.log" 2>&1 && fail "the workbook's make check passes with every stub in place"
check_listing "$dir/check.log"
check_failures "$dir/check.log"
say "its make check fails, names the $count exercises with their lines, and only tests at stubs fail"

if [ "$mode" = --smoke ]; then
  first=$(head -1 <<< "$all")
  put_back "$first"
  say "exercise $first put back: it leaves the list, and check-exercise runs its tests"
  for n in $(stubs_left); do tools/put-back.sh "$n" "$dir" > /dev/null || fail "put-back $n"; done
  [ -z "$(stubs_left)" ] || fail "stubs are left after every exercise was put back"
  $MAKE -C "$dir" tests > "$dir/check.log" 2>&1 || fail "with every exercise back, tests fail (see $dir/check.log)"
  say "with every exercise put back, its tests pass"
else
  for n in $all; do put_back "$n"; say "exercise $n put back: check-exercise and check agree with the map"; done
  $MAKE -C "$dir" check > "$dir/check.log" 2>&1 || { tail -20 "$dir/check.log"; fail "with every exercise back, make check fails"; }
  say "with every exercise put back, its make check passes"
fi
