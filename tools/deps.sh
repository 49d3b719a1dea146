#!/usr/bin/env bash
# Find the tools a build needs; install their Debian packages where we may; else say how.
#
#   tools/deps.sh [--arch ARCH] STAMP 'TOOL...' 'PACKAGE...'
#
# A TOOL is a command name, pc:MODULE (a pkg-config module, checked with the PKG_CONFIG_LIBDIR
# of the environment), or an absolute path (a file that must exist; a shell pattern stands for
# every file it matches, and for itself, missing, where it matches none).  When every tool is there
# the script writes STAMP and prints nothing on stdout.  Otherwise it installs the packages
# (as root, or with password-less sudo; --arch first adds a foreign architecture to dpkg),
# checks every tool again and writes STAMP only if every one is now there.  When it cannot, it
# prints one line on stdout, the one the Makefile stops with, and exits 1.  Progress goes to
# stderr.
#
# STAMP records the two lists, one line: 'TOOL... | PACKAGE...'.  A STAMP that holds exactly
# these lists means the work is done, and the script returns at once; a list that changed (a tool
# or a package added) is checked again, so a tree built before the change installs what it gained.
# Where dpkg is there, a listed package that is not installed counts as missing even when every
# tool is found, since a package may bring what no tool names (a library, a header, fonts).
set -u -o pipefail

arch=""
if [ "${1:-}" = --arch ]; then arch=$2; shift 2; fi
if [ $# != 3 ]; then echo "usage: tools/deps.sh [--arch ARCH] STAMP 'TOOL...' 'PACKAGE...'"; exit 2; fi
stamp=$1 tools=$2 packages=$3
record="$tools | $packages"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$record" ]; then exit 0; fi
please="Please run:${arch:+ sudo dpkg --add-architecture $arch && sudo apt-get update &&} sudo apt-get install --no-install-recommends $packages  (then make again)"

missing_tools() {
  local missing="" tool
  for tool in $tools; do
    case $tool in
      pc:*) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "${tool#pc:}" || missing="$missing $tool" ;;
      /*)   [ -e "$tool" ] || missing="$missing $tool" ;;
      *)    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool" ;;
    esac
  done
  if command -v dpkg-query >/dev/null 2>&1; then
    local package
    for package in $packages; do
      # A name without an architecture matches the package of every architecture installed
      # (check, and check:arm64 for make portability): one installed is enough.
      dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -qx 'install ok installed' ||
        missing="$missing $package"
    done
  fi
  echo "$missing"
}

missing=$(missing_tools)
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then sudo=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"
  else echo "missing:$missing.  $please"; exit 1; fi
  echo "missing:$missing; installing: $packages" >&2
  if [ -n "$arch" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    $sudo dpkg --add-architecture "$arch" >&2 || { echo "Adding the architecture $arch failed.  $please"; exit 1; }
  fi
  $sudo apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $packages >/dev/null ||
    { echo "Installing failed.  $please"; exit 1; }
  missing=$(missing_tools)
  if [ -n "$missing" ]; then
    echo "still missing after installing:$missing (the packages do not provide it; see tools/deps.sh)"; exit 1
  fi
fi
mkdir -p "$(dirname "$stamp")" && printf '%s\n' "$record" > "$stamp"
