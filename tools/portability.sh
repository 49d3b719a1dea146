#!/usr/bin/env bash
# `make portability`: build the library, the programs and the Check runner for every target the
# book supports, each in its own BUILD dir generated/port/<name>, and run each build's suites.
# The Makefile tangles first and sets MAKE; the builds here never tangle (the chapter makefiles
# are up to date, so the sub-makes find nothing to tangle).  One line per build, then a summary;
# the exit status is non-zero when any build fails.
set -u -o pipefail
MAKE=${MAKE:-make}
timeout=${CK_DEFAULT_TIMEOUT:-600}
only=${PORT_BUILDS:-}     # e.g. PORT_BUILDS="native aarch64": only those builds
passed="" failed=""

# port NAME RUNNER-PREFIX VAR=VALUE...: build in generated/port/NAME, then run its suites.
port() {
  local name=$1 prefix=$2; shift 2
  local dir=generated/port/$name problems=""
  if [ -n "$only" ] && ! [[ " $only " == *" $name "* ]]; then return; fi
  mkdir -p "$dir"
  # The runner first: its suites still run when only a program fails to build.
  if ! $MAKE BUILD="$dir" "$@" "$dir/bin/check-all" > "$dir.build.log" 2>&1; then
    report "$name" "the library or the suites FAILED to build" "$dir.build.log" 'error|Error'; return
  fi
  if ! $MAKE BUILD="$dir" "$@" $(programs "$dir") >> "$dir.build.log" 2>&1; then
    problems="programs FAILED to build"
  fi
  # The suites run one build at a time, each holding the lock that timed runs hold.
  if CK_DEFAULT_TIMEOUT=$timeout flock generated/.run.lock $prefix "$dir/bin/check-all" \
       > "$dir.check.log" 2>&1; then
    if [ -z "$problems" ]; then
      printf '  %-8s %-10s %s\n' PORT "$name" "$(grep -E '^[0-9]+%: Checks' "$dir.check.log" | tail -1)"
      passed="$passed $name"; return
    fi
    report "$name" "suites pass, but $problems" "$dir.build.log" 'error|Error'
  else
    report "$name" "${problems:+$problems and }tests FAILED" "$dir.check.log" '^[0-9]+%: Checks|:[EF]:'
    [ -n "$problems" ] && grep -E 'error|Error' "$dir.build.log" | awk '!seen[$0]++' | head -5 | sed 's/^/           /'
  fi
}

# report NAME WHAT LOG PATTERN: one line for a failed build, then the first distinct matching lines of its log.
report() {
  printf '  %-8s %-10s %s (%s):\n' PORT "$1" "$2" "$3"
  grep -E "$4" "$3" | awk '!seen[$0]++' | head -5 | sed 's/^/           /'
  failed="$failed $1"
}

# Every program of the build, as the Makefile names them (one per <slug>-main.c chunk).
programs() { for main in chunks/*-main.c; do main=${main#chunks/}; echo "$1/bin/${main%-main.c}"; done; }

if [ "$(uname -m)" = x86_64 ]; then
  port x86-64    "" CFLAGS="-O2 -march=x86-64"
  port x86-64-v3 "" CFLAGS="-O2 -march=x86-64-v3"
fi
port native      "" CFLAGS="-O2 -march=native"
port ndebug      "" CFLAGS="-O2 -march=native -DNDEBUG"
port clang       "" CC=clang CFLAGS="-O2 -march=native"
# aarch64: linked statically, so that qemu runs it without an aarch64 sysroot.
PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig \
port aarch64 qemu-aarch64 CC=aarch64-linux-gnu-gcc CFLAGS="-O2" LDFLAGS="-static"

echo "  portability: passed:${passed:- none}; failed:${failed:- none}"
[ -z "$failed" ]
