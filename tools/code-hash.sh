#!/usr/bin/env bash
# The code behind a program or a test suite, as one hash in which line numbers do not count.
#
#   tools/code-hash.sh BUILD --programs P...   'P HASH' for each program P that was linked
#                                              (its link's record, BUILD/link/P.trace)
#   tools/code-hash.sh BUILD --suites S...     'S HASH' for each suite S that was compiled: its
#                                              object, with every module whose header it
#                                              includes, and theirs in turn
#
# The hash covers the build's flags (BUILD/stamps/flags) and the text of every source and header
# the objects were compiled from (their .d files), with the #line directives that notangle -L
# writes left out, and comments, blank lines and the spaces that indent a line.  An edit of
# prose, or of a chunk above, moves those lines, and with them the debugging information and the
# __LINE__ that REQUIRE prints, but it does not change what a program computes: the build
# relinks the program, and runs it again only when this hash changes.  A program whose link is not recorded yet, or a suite not compiled yet, is left out.
# One awk does the bookkeeping, so that the whole costs a few processes.
set -euo pipefail
if [ $# -lt 2 ] || { [ "$2" != --programs ] && [ "$2" != --suites ]; }; then
  echo "usage: tools/code-hash.sh BUILD --programs P... | BUILD --suites S..." >&2; exit 2
fi
build=$1 mode=$2; shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/text"

# 1. For every target, the files it is made of: "TARGET FILE" lines in $scratch/files.  Each
#    file is copied once into $scratch/text without its #line directives.
inputs=()
for target in "$@"; do
  if [ "$mode" = --programs ]; then
    [ ! -f "$build/link/$target.trace" ] || inputs+=("$build/link/$target.trace")
  else
    [ ! -f "$build/tests/check_$target.d" ] || inputs+=("$build/tests/check_$target.d")
  fi
done
[ ${#inputs[@]} -gt 0 ] || exit 0
awk -v build="$build" -v mode="$mode" -v text="$scratch/text" '
  # The prerequisites of the first rule of a .d file: the source, then its headers.
  function sources(dfile,   line, all, n, i, parts) {
    all = ""
    while ((getline line < dfile) > 0) { all = all " " line; if (line !~ /\\$/) break }
    close(dfile)
    sub(/^[^:]*:/, "", all); gsub(/\\/, " ", all)
    n = split(all, parts, " ")
    for (i = 1; i <= n; i++) files[dfile, parts[i]] = 1
    done_d[dfile] = 1
  }
  function take(target, dfile,   key, pair) {
    if (!(dfile in done_d)) sources(dfile)
    for (key in files) { split(key, pair, SUBSEP); if (pair[1] == dfile) own[target, pair[2]] = 1 }
  }
  FNR == 1 {
    target = FILENAME; sub(/.*\//, "", target)
    if (mode == "--programs") sub(/\.trace$/, "", target); else { sub(/^check_/, "", target); sub(/\.d$/, "", target) }
    targets[target] = 1
    if (mode == "--suites") take(target, FILENAME)
  }
  # A link record names an object as it was given, and an archive member as (ARCHIVE)MEMBER.o
  # (GNU ld) or ARCHIVE(MEMBER.o) (lld).
  mode == "--programs" {
    object = ""
    if ($0 ~ "^" build "/(obj|tests)/[^/]*\\.o$") object = $0
    else if (match($0, /libattention\.a\)[^\/]*\.o$/)) object = build "/obj/" substr($0, RSTART + 15)
    else if (match($0, /libattention\.a\([^\/]*\.o\)$/)) object = build "/obj/" substr($0, RSTART + 15, RLENGTH - 16)
    if (object != "") { sub(/\.o$/, ".d", object); take(target, object) }
  }
  END {
    # A suite calls what the headers it includes declare: add each such module, until none is new.
    if (mode == "--suites") do {
      grew = 0
      for (key in own) {
        split(key, pair, SUBSEP)
        if (pair[2] !~ /^chunks\/[^\/]*\.h$/) continue
        module = pair[2]; sub(/^chunks\//, "", module); sub(/\.h$/, "", module)
        dfile = build "/obj/" module ".d"
        if ((pair[1], dfile) in added) continue
        added[pair[1], dfile] = 1
        if ((getline probe < dfile) < 0) continue
        close(dfile)
        before = length(own); take(pair[1], dfile); if (length(own) > before) grew = 1
      }
    } while (grew)
    for (key in own) {
      split(key, pair, SUBSEP)
      name = pair[2]; gsub(/\//, "%", name)
      print pair[1], name
      if (name in copied) continue
      copied[name] = 1
      copy = text "/" name
      printf "" > copy
      in_comment = 0
      while ((getline line < pair[2]) > 0) {
        if (line ~ /^[ \t]*#[ \t]*line[ \t]/) continue
        line = code_of(line)
        if (line != "") print line > copy
      }
      close(pair[2]); close(copy)
    }
  }
  # A line without its comments and its spaces at either end: comments and blank lines change
  # no program.  in_comment carries a /* comment over to the next line.
  function code_of(line,   out, i, c, quote) {
    out = ""; quote = ""
    for (i = 1; i <= length(line); i++) {
      c = substr(line, i, 1)
      if (in_comment) {
        if (c == "*" && substr(line, i + 1, 1) == "/") { in_comment = 0; i++; out = out " " }
      } else if (quote != "") {
        out = out c
        if (c == "\\") { out = out substr(line, i + 1, 1); i++ }
        else if (c == quote) quote = ""
      } else if (c == "\"" || c == "\047") {
        quote = c; out = out c
      } else if (c == "/" && substr(line, i + 1, 1) == "*") {
        in_comment = 1; i++
      } else if (c == "/" && substr(line, i + 1, 1) == "/") {
        break
      } else out = out c
    }
    sub(/^[ \t]+/, "", out); sub(/[ \t]+$/, "", out)
    return out
  }' "${inputs[@]}" | sort > "$scratch/files"

# 2. Each file's hash, then each target's: its build flags and its files' names and hashes.
(cd "$scratch/text" && sha256sum -- *) > "$scratch/hashes"
awk 'NR == FNR { split($0, f, "  "); h[f[2]] = f[1]; next } { print $1, $2, h[$2] }' \
  "$scratch/hashes" "$scratch/files" > "$scratch/table"
for target in "$@"; do
  grep -q "^$target " "$scratch/table" || continue
  echo "$target $( { cat "$build/stamps/flags"; grep "^$target " "$scratch/table"; } | sha256sum | cut -d' ' -f1)"
done
