#!/usr/bin/env bash
# A figure of the HTML edition: compiles DIR/NAME.tex, written by tools/html-figures.awk, with
# pdflatex and converts its page to the SVG OUT with pdftocairo, the text drawn as paths and
# images (gnuplot's heatmaps) with sharp pixels, as in the PDF.  The SVG shows the page's TrimBox
# (the figure's box and a border of 2 pt), grown to take in, with the same border, any word that
# sticks out of it (gnuplot's labels).  dvisvgm would drop the hatching (PDF patterns).
#
#   tools/html-figure.sh DIR NAME OUT
#
# Run from the top of the repository: the figure inputs generated/... from there.  On a LaTeX
# error it prints the end of the log and exits 1; OUT is written whole or not at all.
set -euo pipefail
if [ $# != 3 ]; then echo "usage: tools/html-figure.sh DIR NAME OUT" >&2; exit 2; fi
dir=$1 name=$2 out=$3
pdf=$dir/$name.pdf

if ! TEXINPUTS=book:.: pdflatex -interaction=nonstopmode -halt-on-error \
       -output-directory="$dir" "$dir/$name.tex" >/dev/null; then
  echo "html-figure.sh: $dir/$name.tex does not compile; the end of its log:" >&2
  tail -n 20 "$dir/$name.log" >&2
  exit 1
fi

# The viewBox: left, top, width, height in bp from the top left of the page, as pdftotext
# measures its words and pdftocairo draws; pdfinfo's boxes are from the bottom left.
read -r x y w h < <({ pdfinfo -box "$pdf"; pdftotext -bbox "$pdf" -; } | awk '
  function attr(name) {
    match($0, name "=\"[^\"]*\"")
    return substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 3)
  }
  /^MediaBox:/ { height = $5 }
  /^TrimBox:/ { left = $2; right = $4; top = height - $5; bottom = height - $3 }
  /<word / {
    if (attr("xMin") - 2 < left) left = attr("xMin") - 2
    if (attr("xMax") + 2 > right) right = attr("xMax") + 2
    if (attr("yMin") - 2 < top) top = attr("yMin") - 2
    if (attr("yMax") + 2 > bottom) bottom = attr("yMax") + 2
  }
  END { printf "%.3f %.3f %.3f %.3f\n", left, top, right - left, bottom - top }')

tmp=$out.tmp.svg
trap 'rm -f "$tmp"' EXIT
pdftocairo -svg "$pdf" "$tmp"
sed -i -e "1,/<svg /{s/ width=\"[^\"]*\"/ width=\"${w}pt\"/; s/ height=\"[^\"]*\"/ height=\"${h}pt\"/
                     s/ viewBox=\"[^\"]*\"/ viewBox=\"$x $y $w $h\"/}" \
       -e "s/<image /<image style=\"image-rendering:pixelated\" /" "$tmp"
mv "$tmp" "$out"
