#!/usr/bin/env bash
# `make portability`, in two parts.
#
# 1. The compiler matrix: every tangled file (modules, programs, test suites) compiled at -O2
#    with WERROR=yes, the only place where the book's warnings are errors, by each compiler of
#    COMPILERS for each x86-64 target of TARGETS, and by the aarch64 cross compiler for each CPU
#    of ARM_CPUS.  A target that a compiler does not know is skipped, and the summary says so.
#    The matrix only compiles; its objects go to generated/port/matrix/<compiler>-<target>.
# 2. The full builds: the library, the programs and the Check runner for SSE2, AVX2, this
#    machine, -DNDEBUG, clang and aarch64, each in generated/port/<name>, and each build's suites
#    run (aarch64's under qemu).  Their warnings are counted, not fatal: this machine's tuning
#    changes from one run to the next.
#
# The Makefile tangles first and sets MAKE; the builds here never tangle.  One line per build,
# then a summary; the exit status is non-zero when any build fails.
#   PORT_BUILDS="native aarch64"   only those full builds (and no matrix unless it names "matrix")
#   PORT_COMPILERS, PORT_TARGETS, PORT_ARM_CPUS   narrow the matrix
#   tools/portability.sh --show COMPILER TARGET   print the matrix's compile command for rng.c
set -u -o pipefail
MAKE=${MAKE:-make}
timeout=${CK_DEFAULT_TIMEOUT:-600}
only=${PORT_BUILDS:-}
jobs=$(nproc 2>/dev/null || echo 2)
COMPILERS=${PORT_COMPILERS:-gcc-12 gcc-11 clang-14 clang-19 clang-22}
TARGETS=${PORT_TARGETS:-x86-64 x86-64-v2 x86-64-v3 x86-64-v4 haswell skylake-avx512 icelake-server \
sapphirerapids rocketlake graniterapids znver3 znver4 znver5 alderlake}
ARM_CPUS=${PORT_ARM_CPUS:-generic neoverse-n1 neoverse-v1 cortex-a76}
ARM_CC=aarch64-linux-gnu-gcc
ARM_PKG_CONFIG=/usr/lib/aarch64-linux-gnu/pkgconfig
passed="" failed=""

wanted() { [ -z "$only" ] || [[ " $only " == *" $1 "* ]]; }

# Debian's libomp-N-dev packages exclude one another, so one omp.h is installed, in the
# resource folder of its clang.  Every clang finds it, after its own headers, in a folder that
# holds nothing else (that resource folder's other headers are another clang's).
omp_dir=generated/port/omp
mkdir -p "$omp_dir"
# The full clang build below links OpenMP's runtime too, so it uses the clang of that header.
omp_clang=clang
for header in /usr/lib/llvm-*/lib/clang/*/include/omp.h; do
  [ -e "$header" ] || continue
  ln -sf "$header" "$omp_dir/omp.h"
  version=${header#/usr/lib/llvm-}; omp_clang=clang-${version%%/*}
  break
done

# matrix_make COMPILER TARGET [make arguments]: the make command of one cell of the matrix.
matrix_make() {
  local cc=$1 target=$2 flag=-march extra=""; shift 2
  [ "$cc" = "$ARM_CC" ] && flag=-mcpu
  case $cc in clang*) extra="-idirafter $omp_dir";; esac
  $MAKE BUILD="generated/port/matrix/$cc-$target" CC="$cc" WERROR=yes \
    CFLAGS="-O2 $flag=$target $extra" "$@"
}

if [ "${1:-}" = --show ]; then
  matrix_make "$2" "$3" -n -W chunks/rng.c "generated/port/matrix/$2-$3/obj/rng.o" | grep -- "-c chunks/rng.c"
  exit
fi

# cell COMPILER TARGET: compile everything for one cell; its result is a line in its .result.
cell() {
  local cc=$1 target=$2 flag=-march dir=generated/port/matrix/$1-$2
  [ "$cc" = "$ARM_CC" ] && flag=-mcpu
  mkdir -p "$dir"
  if ! "$cc" "$flag=$target" -x c -c /dev/null -o /dev/null 2> /dev/null; then
    echo "skip" > "$dir.result"; return
  fi
  if [ "$cc" = "$ARM_CC" ]; then export PKG_CONFIG_LIBDIR=$ARM_PKG_CONFIG; fi
  # The aarch64 cells compile no MPI program: there is no arm64 mpi.h (MPI=no).
  local mpi=yes; [ "$cc" = "$ARM_CC" ] && mpi=no
  if matrix_make "$cc" "$target" MPI=$mpi -k objects > "$dir.log" 2>&1; then echo "pass" > "$dir.result"
  else echo "fail" > "$dir.result"; fi
}

matrix() {
  local cells=() cc target running=0 line
  for cc in $COMPILERS; do for target in $TARGETS; do cells+=("$cc $target"); done; done
  for target in $ARM_CPUS; do cells+=("$ARM_CC $target"); done
  local start=$SECONDS
  for line in "${cells[@]}"; do
    cell $line &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  done
  wait
  local compilers="$COMPILERS $ARM_CC" clean skipped bad
  for cc in $compilers; do
    clean=0 skipped="" bad=""
    local targets=$TARGETS; [ "$cc" = "$ARM_CC" ] && targets=$ARM_CPUS
    for target in $targets; do
      case $(cat "generated/port/matrix/$cc-$target.result" 2>/dev/null) in
        pass) clean=$((clean + 1));;
        skip) skipped="$skipped $target";;
        *)    bad="$bad $target";;
      esac
    done
    printf '  %-8s %-21s %2d target%s without a warning%s\n' MATRIX "$cc" $clean \
      "$([ $clean = 1 ] || echo s)" \
      "${skipped:+; skipped, unknown to $cc:$skipped}"
    for target in $bad; do
      printf '  %-8s %-21s -%s=%s: warnings or errors (generated/port/matrix/%s-%s.log):\n' MATRIX "$cc" \
        "$([ "$cc" = "$ARM_CC" ] && echo mcpu || echo march)" "$target" "$cc" "$target"
      grep -E 'warning|error' "generated/port/matrix/$cc-$target.log" | awk '!seen[$0]++' | head -5 | sed 's/^/           /'
      failed="$failed $cc:$target"
    done
  done
  printf '  %-8s %d cells in %d s\n' MATRIX ${#cells[@]} $((SECONDS - start))
  [[ "$failed" == *:* ]] || passed="$passed matrix"
}

# port NAME RUNNER-PREFIX VAR=VALUE...: build in generated/port/NAME, then run its suites.
port() {
  local name=$1 prefix=$2; shift 2
  local dir=generated/port/$name problems="" warnings
  wanted "$name" || return
  mkdir -p "$dir"
  # The runner first: its suites still run when only a program fails to build.
  if ! $MAKE -j"$jobs" BUILD="$dir" "$@" "$dir/bin/check-all" > "$dir.build.log" 2>&1; then
    report "$name" "the library or the suites FAILED to build" "$dir.build.log" 'error|Error'; return
  fi
  if ! $MAKE -j"$jobs" BUILD="$dir" "$@" $(programs "$dir" "$@") >> "$dir.build.log" 2>&1; then
    problems="programs FAILED to build"
  fi
  warnings=$(grep -c 'warning:' "$dir.build.log")
  # The suites run one build at a time, each holding the lock that timed runs hold.
  if CK_DEFAULT_TIMEOUT=$timeout flock generated/.run.lock $prefix "$dir/bin/check-all" \
       > "$dir.check.log" 2>&1; then
    if [ -z "$problems" ]; then
      printf '  %-8s %-10s %s%s\n' PORT "$name" "$(grep -E '^[0-9]+%: Checks' "$dir.check.log" | tail -1)" \
        "$([ "$warnings" = 0 ] || echo "; $warnings warnings in $dir.build.log")"
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

# Every program of the build, as the Makefile names them (one per <slug>-main.c chunk); an MPI
# program (<slug>-mpi-main.c) only where its build takes MPI (not with MPI=no).
programs() {
  local dir=$1 main; shift
  for main in chunks/*-main.c; do main=${main#chunks/}
    case $main in *-mpi-main.c) [[ " $* " != *" MPI=no "* ]] || continue; main=${main%-mpi-main.c};;
      *) main=${main%-main.c};; esac
    echo "$dir/bin/$main"; done
}

if [ -z "$only" ] || [[ " $only " == *" matrix "* ]]; then matrix; fi
if [ "$(uname -m)" = x86_64 ]; then
  port x86-64    "" CFLAGS="-O2 -march=x86-64"
  port x86-64-v3 "" CFLAGS="-O2 -march=x86-64-v3"
fi
port native      "" CFLAGS="-O2 -march=native"
port ndebug      "" CFLAGS="-O2 -march=native -DNDEBUG"
port clang       "" CC="$omp_clang" CFLAGS="-O2 -march=native"
# aarch64: linked statically, so that qemu runs it without an aarch64 sysroot.  Without chapter
# 15's MPI program: Debian ships no static libmpi, and no arm64 mpi.h beside the cross compiler.
PKG_CONFIG_LIBDIR=$ARM_PKG_CONFIG \
port aarch64 qemu-aarch64 CC=$ARM_CC CFLAGS="-O2" LDFLAGS="-static" MPI=no

echo "  portability: passed:${passed:- none}; failed:${failed:- none}"
[ -z "$failed" ]
