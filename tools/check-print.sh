#!/bin/sh
# The print rules of the book (make check runs this after the book is built):
#   - every code line of the sources fits the text block at the code font (86 characters);
#   - no word of the PDF stands past the right margin;
#   - no float stands inside a chunk;
#   - no page of the chapters stops in the upper half of its text block, unless a chapter (or an
#     appendix, an index) opens on the next page;
#   - no page begins with a chunk's footer, a lone brace or a typedef's last line, and none
#     ends with a chunk's header and fewer than two of its lines;
#   - no section number runs into its title in the contents;
#   - no "<<" or ">>" in code turned into the guillemets of the T1 fonts.
# A chunk is never broken with two lines or fewer on a side: book/attention.sty forbids it.
set -u
pdf=${1:-attention.pdf}
positions=${2:-generated/tex/attention.pos}
width=86
status=0
for nw in book/*.nw book/drivers/*.nw; do
    awk -v nw="$nw" -v width=$width '
        /^<<.*>>=[ \t]*$/ { code = 1; next }
        /^@([ \t]|$)/ { code = 0 }
        code {
            line = $0; gsub(/\t/, "        ", line)
            if (length(line) > width) {
                printf "%s:%d: a code line of %d characters; the page holds %d\n", \
                    nw, NR, length(line), width
                bad = 1
            }
        }
        END { exit bad }' "$nw" || status=1
done
boxes=$(mktemp) || exit 2
trap 'rm -f "$boxes"' EXIT
# (pdftotext says "no word list" for each blank page; a blank page is no error.)
pdftotext -bbox "$pdf" "$boxes" 2> "$boxes.err" || { cat "$boxes.err"; rm -f "$boxes.err"; exit 2; }
rm -f "$boxes.err"
awk -f tools/check-margins.awk "$boxes" || status=1
awk -f tools/check-pagetops.awk "$boxes" || status=1
awk -f tools/check-floats.awk "$positions" || status=1
awk -f tools/check-pagefill.awk "$boxes" || status=1
# The contents, up to the first chapter's page: no section number runs into its title.
front=1
while [ $front -lt 40 ] && ! pdftotext -f $front -l $front "$pdf" - | grep -q '^Chapter 1$'; do
    front=$((front + 1))
done
runins=$(pdftotext -l $front "$pdf" - | grep -E '^[0-9A-Z]+(\.[0-9]+)+[A-Za-z]' | head -5)
if [ -n "$runins" ]; then
    echo "$runins" | sed 's/^/a section number runs into its title in the contents: /'
    status=1
fi
guillemets=$(pdftotext "$pdf" - | grep -n '[«»]' | head -5)
if [ -n "$guillemets" ]; then
    echo "$guillemets" | sed 's/^/guillemets in the PDF, at text line /'
    status=1
fi
[ $status = 0 ] && echo "  PRINT    code lines, margins, floats, page tops, full pages, contents, ligatures: all right"
exit $status
