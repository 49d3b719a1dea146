#!/usr/bin/env bash
# Runs tex4ht on the HTML edition's master in BUILD (BUILD/attention.tex, with attention.cfg and
# attention.bbl beside it): what htlatex does, with the subject index made between the second
# and the third of four LaTeX runs (tex4ht's index entries carry links, so makeindex reads its own .4dx).
#
#   tools/html-tex.sh BUILD
#
# The chapters are found through TEXINPUTS (the woven TeX in BUILD/generated/tex first, the
# book's generated/tex and book/ after it).  On failure it prints the end of LaTeX's log.
set -euo pipefail
if [ $# != 1 ] || [ ! -f "$1/attention.tex" ]; then echo "usage: tools/html-tex.sh BUILD (with BUILD/attention.tex)"; exit 2; fi
top=$PWD
cd "$1"
rm -f attention*.html attention*x.svg
export TEXINPUTS=".:$top/book:$top:"
exec </dev/null
run_latex() {
  latex -interaction=nonstopmode -halt-on-error \
    '\makeatletter\def\HCode{\futurelet\HCode\HChar}\def\HChar{\ifx"\HCode\def\HCode"##1"{\Link##1}\expandafter\HCode\else\expandafter\Link\fi}\def\Link#1.a.b.c.{\g@addto@macro\@documentclasshook{\RequirePackage[#1,html]{tex4ht}}\let\HCode\documentstyle\def\documentstyle{\let\documentstyle\HCode\expandafter\def\csname tex4ht\endcsname{#1,html}\def\HCode####1{\documentstyle[tex4ht,}\@ifnextchar[{\HCode}{\documentstyle[tex4ht]}}}\makeatother\HCode attention.cfg.a.b.c.\input ' attention.tex \
    > latex.out 2>&1 || { tail -30 attention.log; exit 1; }
}
run_latex
run_latex
tex '\def\filename{{attention}{idx}{4dx}{ind}} \input idxmake.4ht' > index.out 2>&1 || { cat index.out; exit 1; }
makeindex -q -o attention.ind attention.4dx || exit 1
# The index adds a page, so the links to the pages after it settle in the run after the next.
run_latex
run_latex
tex4ht -f/attention -i~/tex4ht.dir/texmf/tex4ht/ht-fonts/ -cunihtf -utf8 > tex4ht.out 2>&1 || { tail -20 tex4ht.out; exit 1; }
t4ht -f/attention > t4ht.out 2>&1 || { tail -20 t4ht.out; exit 1; }
# t4ht runs each converter (dvisvgm, for the pictures tex4ht could not write as HTML) through
# sh and goes on when one fails, leaving an empty image; so its log is read, and every image it
# asked for must be there, non-empty and a whole SVG document.
# The shell's "not found" goes to stderr, unbuffered, so it may stand before the call it failed
# in; it names the command itself.  A nonzero "System return" follows its "System call".
failed=$(awk '/^System call: / { call = substr($0, 14); sub(/ .*/, "", call); command = substr($0, 14); sub(/ +$/, "", command) }
  /: not found$/ { print $0; exit }
  /System return: [1-9-]/ { sub(/^--- Warning --- /, ""); print call ": " $0 " (in: " command ")"; exit }' t4ht.out)
if [ -n "$failed" ]; then
  echo "make html: tex4ht's converter failed: $failed; see $1/t4ht.out"; exit 1
fi
for svg in $(sed -n 's/^System call: .* > *\([^ ]*\.svg\) *$/\1/p' t4ht.out); do
  ending=$(tail -c 64 "$svg" 2>/dev/null | tr -d ' \n\r\t')
  if [ ! -s "$svg" ] || ! head -c 512 "$svg" | grep -q '<svg' || [ "${ending%</svg>}" = "$ending" ]; then
    echo "make html: tex4ht's converter wrote $1/$svg empty or cut short (see $1/t4ht.out)"; exit 1
  fi
done
