#!/usr/bin/env bash
# Run a command on the book in a fresh Debian 12 root, so that the project's own lists of tools
# (the Makefile's TOOLS/PACKAGES and the others, installed by tools/deps.sh) are proved on a
# machine that has only what the README says a fresh machine starts with, and not on a host
# whose installed packages would hide a missing install step.
#
#   tools/fresh-root.sh [--root DIR] [--reuse [--no-copy]] [--working-tree] [--] COMMAND [ARG...]
#
#   e.g. tools/fresh-root.sh --root /var/tmp/fresh -- bash -c 'make && make check'
#
# What it does, as root, on a Debian 12 (bookworm) host:
#   1. installs debootstrap on the host with apt-get if it is missing;
#   2. makes DIR (default /var/tmp/fresh-root) a minimal Debian 12 root,
#      `debootstrap --variant=minbase bookworm DIR MIRROR`, where MIRROR is the URI the host's
#      own apt configuration gives for bookworm (/etc/apt/sources.list.d/*.sources, else
#      /etc/apt/sources.list); the root's apt sources are bookworm, bookworm-updates and
#      bookworm-security with the host's URIs and components (those of them the host has);
#      then installs in it gcc and make, and nothing else (--no-install-recommends): all the
#      rest must come from the project's own dependency step.  An existing DIR is deleted first
#      (only one this script made: it holds the file .fresh-root).  With --reuse, a DIR this
#      script finished before is used as it is, with whatever packages earlier runs installed
#      in it (quicker, but it proves less: use it while developing, never in CI);
#   3. mounts /proc, /sys, /dev (bound), /dev/pts (bound) and a tmpfs /dev/shm in DIR, copies
#      /etc/resolv.conf, and writes the /etc/hosts a Debian install has (localhost), which
#      debootstrap leaves out; a policy-rc.d keeps packages from starting services in the root;
#   4. copies the checkout this script is in to DIR/book: its committed HEAD (git archive), or
#      with --working-tree the files as they are now, without .git, generated/, chunks/,
#      workbook/, workbook.tmp/ and attention.pdf; and ../shared, when it exists, to DIR/shared
#      (each run replaces both; --reuse --no-copy instead runs in DIR/book as the last run left
#      it, e.g. to look into a failed CI run: tools/fresh-root.sh --root R --reuse --no-copy bash);
#   5. runs COMMAND in DIR/book, in the chroot, as root, with a clean environment (HOME=/root,
#      the standard PATH, LANG=C.UTF-8, CI=true, TERM=dumb), and exits with its status.
# On exit, failed or not (and on INT/TERM), every process left running in DIR is killed and
# everything mounted under DIR is unmounted (umount, else umount -l).  A failure prints one line
# "fresh-root: FAILED: STEP ..." on stderr; each step's time goes to stderr too.
set -euo pipefail

SUITE=bookworm
BASE_PACKAGES=(gcc make)    # the README: "a fresh Debian 12 machine with only gcc and make"
CHROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

usage() { sed -n '7,9p' "$0" | sed 's/^# \{0,3\}//' >&2; exit 2; }

root=/var/tmp/fresh-root reuse=no working_tree=no copy=yes
while [ $# -gt 0 ]; do
  case $1 in
    --root) [ $# -ge 2 ] || usage; root=$2; shift 2 ;;
    --root=*) root=${1#--root=}; shift ;;
    --reuse) reuse=yes; shift ;;
    --working-tree) working_tree=yes; shift ;;
    --no-copy) copy=no; shift ;;
    --) shift; break ;;
    -h|--help) usage ;;
    -*) echo "fresh-root: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || usage
if [ "$copy" = no ] && [ "$reuse" = no ]; then echo "fresh-root: --no-copy needs --reuse (a new root has no checkout)" >&2; exit 2; fi
[ "$(id -u)" = 0 ] || { echo "fresh-root: must run as root (debootstrap, mount, chroot)" >&2; exit 2; }
case $root in
  /*) ;;
  *) echo "fresh-root: --root must be an absolute path: $root" >&2; exit 2 ;;
esac
case $root in
  *[[:space:]]*) echo "fresh-root: --root may not contain white space: $root" >&2; exit 2 ;;
esac
root=$(realpath -m "$root")
[ "$root" != / ] || { echo "fresh-root: --root may not be /" >&2; exit 2; }

src=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$src/.." && pwd)/shared

# ---------------------------------------------------------------- steps, failure and clean-up
step="" step_start=$SECONDS command_failed=no log=""
begin() { step=$1; step_start=$SECONDS; echo "fresh-root: $step" >&2; }
done_step() { echo "fresh-root: $step: done in $((SECONDS - step_start)) s" >&2; step=""; }

# The processes whose root is DIR (or under it): whatever the command left running.
kill_inside() {
  local p r
  for p in /proc/[0-9]*; do
    r=$(readlink "$p/root" 2>/dev/null) || continue
    case $r in "$root"|"$root"/*) kill -KILL "${p#/proc/}" 2>/dev/null || true ;; esac
  done
}

# Everything mounted at DIR or under it, the last mounted first.
mounts_inside() {
  awk -v d="$root" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/mounts | tac
}

unmount_all() {
  local m
  kill_inside
  while read -r m; do
    [ -n "$m" ] || continue
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "fresh-root: cannot unmount $m" >&2
  done < <(mounts_inside)
  m=$(mounts_inside)
  if [ -n "$m" ]; then echo "fresh-root: still mounted: $m" >&2; return 1; fi
}

on_exit() {
  local status=$?
  trap - EXIT INT TERM
  set +e
  if [ "$status" != 0 ] && [ -n "$step" ] && [ "$command_failed" = no ]; then
    echo "fresh-root: FAILED: $step (exit status $status)" >&2
  fi
  unmount_all || { [ "$status" != 0 ] || status=1; }
  [ -z "$log" ] || rm -f "$log"
  exit "$status"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- the host's apt sources
# One line per deb suite the host's apt configuration names: "SUITE URI COMPONENT...".
host_sources() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk '
      function flush(   n, s, u, i) {
        if (types ~ /(^|[ \t])deb([ \t]|$)/ && tolower(enabled) != "no" && uris != "") {
          n = split(suites, s, /[ \t]+/); split(uris, u, /[ \t]+/)
          for (i = 1; i <= n; i++) if (s[i] != "") print s[i], u[1], comps
        }
        types = uris = suites = comps = enabled = last = ""
      }
      /^#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^[ \t]/ { sub(/^[ \t]+/, ""); if (last == "uris") uris = uris " " $0
                 else if (last == "suites") suites = suites " " $0
                 else if (last == "components") comps = comps " " $0
                 next }
      { key = tolower($1); sub(/:.*/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
        if (key == "types") types = val; else if (key == "uris") uris = val
        else if (key == "suites") suites = val; else if (key == "components") comps = val
        else if (key == "enabled") enabled = val
        last = key }
      END { flush() }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while (i <= NF && $i !~ /\]$/) i++
                       if ($2 ~ /^\[/) i++
                       uri = $i; suite = $(i + 1); comps = ""
                       for (j = i + 2; j <= NF && $j !~ /^#/; j++) comps = comps (comps == "" ? "" : " ") $j
                       print suite, uri, comps }' "$f"
  done
}
sources=$(host_sources)
source_of() { awk -v s="$1" '$1 == s { print; exit }' <<<"$sources"; }
main_line=$(source_of "$SUITE")
if [ -z "$main_line" ]; then
  echo "fresh-root: the host's apt configuration names no '$SUITE' suite (in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list)" >&2
  exit 1
fi
mirror=$(awk '{ print $2 }' <<<"$main_line")

# The root's sources: each of bookworm, -updates and -security that the host has, as it has it.
write_root_sources() {
  local suite line uri comps signed=""
  [ -f "$root/usr/share/keyrings/debian-archive-keyring.gpg" ] &&
    signed="Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
  rm -f "$root/etc/apt/sources.list"
  mkdir -p "$root/etc/apt/sources.list.d"
  for suite in "$SUITE" "$SUITE-updates" "$SUITE-security"; do
    line=$(source_of "$suite")
    if [ -z "$line" ]; then echo "fresh-root: note: the host has no $suite; the root has none either" >&2; continue; fi
    read -r _ uri comps <<<"$line"
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: %s\n%s%s\n' \
      "$uri" "$suite" "${comps:-main}" "$signed" "${signed:+$'\n'}"
  done >"$root/etc/apt/sources.list.d/debian.sources"
}

# ---------------------------------------------------------------- the root
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root PATH="$CHROOT_PATH" LANG=C.UTF-8 CI=true TERM=dumb "$@"
}

# The mounts, resolv.conf and hosts every run needs (done again when the root is reused).
prepare_root() {
  mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
  mountpoint -q "$root/sys" || mount -t sysfs sysfs "$root/sys"
  mountpoint -q "$root/dev" || mount --bind /dev "$root/dev"
  mountpoint -q "$root/dev/pts" || mount --bind /dev/pts "$root/dev/pts"
  # Chromium keeps shared memory in /dev/shm; the root's own tmpfs, not the host's.
  mountpoint -q "$root/dev/shm" || mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
  rm -f "$root/etc/resolv.conf"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  # debootstrap writes no /etc/hosts, and without one "localhost" does not resolve (chromedriver
  # reaches Chromium at localhost); these are the lines Debian's installer writes.
  [ -e "$root/etc/hosts" ] ||
    printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n' >"$root/etc/hosts"
}

if ! command -v debootstrap >/dev/null 2>&1; then
  begin "installing debootstrap on the host"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  done_step
fi

# A root left mounted by a run that was killed is unmounted before anything else.
unmount_all

if [ "$reuse" = yes ] && [ -f "$root/.fresh-root-ready" ]; then
  echo "fresh-root: reusing $root (packages installed by earlier runs are still there)" >&2
  prepare_root
else
  if [ -e "$root" ]; then
    if [ -n "$(ls -A "$root")" ] && [ ! -f "$root/.fresh-root" ]; then
      echo "fresh-root: $root exists and was not made by this script (no $root/.fresh-root); not deleting it" >&2
      exit 1
    fi
    begin "deleting the old root $root"
    rm -rf --one-file-system "$root"
    done_step
  fi
  mkdir -p "$root"
  touch "$root/.fresh-root"

  begin "debootstrap --variant=minbase $SUITE $root $mirror"
  log=$(mktemp /tmp/fresh-root-debootstrap.XXXXXX)
  if ! debootstrap --variant=minbase "$SUITE" "$root" "$mirror" >"$log" 2>&1; then
    tail -n 20 "$log" >&2; false
  fi
  rm -f "$log"; log=""
  done_step

  begin "writing the root's apt sources (the host's: $(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' <<<"$sources"))"
  write_root_sources
  # Packages that ship a service must not start it in the root (there is no init there).
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  prepare_root
  done_step

  begin "installing ${BASE_PACKAGES[*]} in the root (apt-get install --no-install-recommends)"
  in_root apt-get update -qq </dev/null
  in_root DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${BASE_PACKAGES[@]}" \
    </dev/null >/dev/null
  in_root apt-get clean </dev/null
  touch "$root/.fresh-root-ready"
  done_step
fi

# ---------------------------------------------------------------- the checkout
if [ "$copy" = no ]; then
  [ -d "$root/book" ] || { echo "fresh-root: --no-copy, but $root/book is not there" >&2; exit 1; }
  echo "fresh-root: running in $root/book as the last run left it (--no-copy)" >&2
elif [ "$working_tree" = no ] && git -C "$src" -c safe.directory="$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  begin "copying the checkout's HEAD ($(git -C "$src" -c safe.directory="$src" rev-parse --short HEAD)) to $root/book"
  rm -rf --one-file-system "$root/book" "$root/shared"; mkdir -p "$root/book"
  git -C "$src" -c safe.directory="$src" archive --format=tar HEAD | tar -x --no-same-owner -C "$root/book"
else
  [ "$working_tree" = yes ] || echo "fresh-root: note: $src is not a git checkout; copying its files as they are" >&2
  begin "copying the working tree of $src to $root/book"
  rm -rf --one-file-system "$root/book" "$root/shared"; mkdir -p "$root/book"
  tar -c -C "$src" --anchored --exclude=./.git --exclude=./generated --exclude=./chunks \
      --exclude=./workbook --exclude=./workbook.tmp --exclude=./attention.pdf . |
    tar -x --no-same-owner -C "$root/book"
fi
if [ "$copy" = yes ]; then
  if [ -d "$shared" ]; then cp -R "$shared" "$root/shared"; fi
  done_step
fi

# ---------------------------------------------------------------- the command
begin "running in the fresh root: $*"
# In the background, with this script's stdin, so that a TERM or INT stops the wait at once and
# the clean-up kills what runs in the root (bash runs a trap only when the foreground job ends).
exec 3<&0
in_root /bin/bash -c 'cd /book && exec "$@"' fresh-root "$@" <&3 3<&- &
status=0
wait "$!" || status=$?
if [ "$status" != 0 ]; then
  command_failed=yes
  echo "fresh-root: FAILED: the command in the fresh root ($*) exited with status $status, after $((SECONDS - step_start)) s" >&2
  exit "$status"
fi
done_step
