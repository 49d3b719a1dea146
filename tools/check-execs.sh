#!/usr/bin/env bash
# Every program a build ran, checked against the tool lists: the cheaper complement of CI's
# fresh root (tools/fresh-root.sh), for a developer's machine, whose installed packages would
# hide a tool that no list names.
#
#   tools/check-execs.sh LOG 'PACKAGE...'
#
# LOG is strace's record of a build (strace -f -qq -e trace=execve -o LOG make ...).  Each file
# that was executed must belong to the project (below this folder, or under /tmp: the build's
# scratch scripts), or to a Debian package that the lists install: one of PACKAGE, the declared
# base set below, or a package those depend on (Depends and Pre-Depends, as
# `apt-get install --no-install-recommends` installs them; a Recommends, such as
# texlive-binaries' dvisvgm, does not count).  A program that no package owns is named too.
# Prints one line per program that breaks the rule, and exits 1 if any does.
set -euo pipefail
if [ $# != 2 ] || [ ! -f "$1" ]; then echo "usage: tools/check-execs.sh STRACE-LOG 'PACKAGE...'" >&2; exit 2; fi
log=$1 packages=$2
# What a fresh Debian 12 machine of the README has: minbase's essential packages, and gcc and make.
base="bash coreutils sed grep mawk findutils util-linux tar diffutils dash debianutils gzip
      dpkg apt gcc make binutils cpp"
top=$(pwd -P)

allowed=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
            --no-replaces --no-enhances $packages $base 2>/dev/null | grep -v '^ ' | sed 's/:.*//' | sort -u)
# The files that were executed: execve calls that returned 0.
executed=$(sed -n -E 's/^[0-9]+ +execve\("([^"]+)".* = 0$/\1/p' "$log" | sort -u)
[ -n "$executed" ] || { echo "check-execs: $log records no program run (is it strace -f -e trace=execve?)"; exit 1; }

# dpkg knows a file by the path its package ships, which on a merged /usr may lack the /usr;
# a diversion (dash's of /bin/sh) is listed before the owner.
owner_of() {
  local path owner
  for path in "$@" "${1#/usr}" "${2#/usr}"; do
    owner=$(dpkg -S "$path" 2>/dev/null | grep -v "^diversion by " | head -1) && [ -n "$owner" ] && break
  done
  owner=${owner%%:*}; echo "${owner%%,*}"
}

bad=0 outside=""
while read -r file; do
  real=$(readlink -f "$file" 2>/dev/null || echo "$file")
  case $real in "$top"/*|/tmp/*) continue;; esac
  owner=$(owner_of "$file" "$real")
  if [ -z "$owner" ]; then
    outside="$outside $file"
  elif ! grep -qx "$owner" <<< "$allowed"; then
    echo "check-execs: the build ran $file, from $owner, which no tool list installs"; bad=1
  fi
done <<< "$executed"
# A program that no package installs (a pyenv's python3, say) was found on this machine's PATH
# and is not on a fresh one, where CI's fresh root proves that the build does without it.
[ -z "$outside" ] || echo "  EXECS    note: ran what no Debian package installs, and a fresh machine lacks:$outside"
[ $bad = 0 ] && echo "  EXECS    $(wc -l <<< "$executed") programs ran, each from the project, a listed package or the base set"
exit $bad
