#!/usr/bin/env bash
# Run by `make check`: attacks that a reader or an attacker would try on the programs.
# Each line here failed before the fix it guards.  Usage: tools/check-reliability.sh BINDIR
set -u
bin=${1:?usage: tools/check-reliability.sh BINDIR}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() { echo "reliability: $*"; failed=1; }

# No program passes data through a shell.
if grep -n -E '\b(popen|system)[[:space:]]*\(' book/*.nw book/drivers/*.nw; then
  fail "a chapter calls popen or system"
fi

# An --out with quotes and a semicolon is a folder name, not a command.
out="$scratch/x';touch $scratch/PWNED;'"
"$bin/cost" --smoke --out "$out" > "$scratch/cost.txt" 2>&1 || fail "cost --smoke failed with a quoted --out"
[ -e "$scratch/PWNED" ] && fail "cost ran a shell command taken from --out"

# A folder named o'neil works like any other.
mkdir -p "$scratch/o'neil"
"$bin/cost" --smoke --out "$scratch/o'neil" > "$scratch/cost.txt" 2>&1 || fail "cost --smoke failed under a folder named o'neil"
[ -f "$scratch/o'neil/numbers/cost.tex" ] || fail "cost wrote no numbers under a folder named o'neil"

# Sizes that cannot fit are refused before anything is allocated, with the program's name.
if "$bin/cost" --variant flash --n 1048576 --d 4096 --out "$scratch/big" > "$scratch/big.txt" 2>&1; then
  fail "cost accepted a run that needs 64 GiB"
else
  status=$?
  [ $status = 2 ] || fail "cost exited $status on a run too large for memory (want 2)"
  grep -q '^cost: ' "$scratch/big.txt" || fail "the refusal does not name the program: $(head -1 "$scratch/big.txt")"
  [ "$(wc -l < "$scratch/big.txt")" = 1 ] || fail "the refusal is not one line"
fi

# A lone --variant times the sizes the chapter names.
"$bin/cost" --smoke --variant flash --repeat 1 --out "$scratch/lone" > "$scratch/lone.txt" 2>&1
grep -q 'n=4096 d=128 ' "$scratch/lone.txt" || fail "cost --variant flash did not time n = 4096, d = 128: $(head -1 "$scratch/lone.txt")"

# Options that would be ignored are refused instead.
for args in "--n 512" "--d 64" "--rss" "--variant flash --bench"; do
  "$bin/cost" --smoke $args --out "$scratch/opt" > "$scratch/opt.txt" 2>&1
  status=$?
  [ $status = 2 ] || fail "cost $args exited $status, not 2"
done
[ -e "$scratch/opt" ] && fail "a refused run left $scratch/opt behind"

# The rule for arrays on a busy machine (LAB_MEMORY_AVAILABLE_MIB plays one): a program that
# sizes an array from the machine takes at most a quarter of the memory available, and says so.
LAB_MEMORY_AVAILABLE_MIB=64 "$bin/decoding" --smoke --cache-mib 0 --out "$scratch/busy" > "$scratch/busy.txt" 2>&1 ||
  fail "decoding failed on a machine with 64 MiB available: $(tail -1 "$scratch/busy.txt")"
grep -q '^memory: a quarter of the memory available now is 16 MiB' "$scratch/busy.txt" ||
  fail "decoding did not say that it shrank its arrays on a machine with 64 MiB available"
grep -qx 'cache_mib=16' "$scratch/busy.txt" ||
  fail "decoding's long cache is not 16 MiB with 64 MiB available: $(grep '^cache_mib=' "$scratch/busy.txt")"

# A missing tool, for a user who cannot install it: one line, status 1, no stamp.  Run as the
# user nobody when we are root (a root run would call apt-get); skipped for other users, who
# might have password-less sudo.
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null 2>&1; then
  said=$(cd "$scratch" && runuser -u nobody -- bash "$OLDPWD/tools/deps.sh" "$scratch/no/stamp" \
           'no-such-tool-of-the-book' 'no-such-package' 2>&1)
  status=$?
  [ $status = 1 ] || fail "tools/deps.sh exited $status for a missing tool (want 1)"
  [ "$(printf '%s\n' "$said" | wc -l)" = 1 ] || fail "tools/deps.sh said more than one line: $said"
  case $said in *"Please run: sudo apt-get install"*) ;; *) fail "tools/deps.sh did not say what to run: $said";; esac
  [ -e "$scratch/no/stamp" ] && fail "tools/deps.sh wrote its stamp with a tool missing"
fi

[ $failed = 0 ] && echo "  RELY     no shell, quoted paths, sizes and ignored options refused, missing tools named"
exit $failed
