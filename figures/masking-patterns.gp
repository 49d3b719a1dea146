# Chapter 3: the head of chapter 2 on the toy sentence, without and with the causal mask, side
# by side, with one colour bar (drawn as an image of its own, one smooth gradient).  Each data
# file is a matrix whose first row and column are the tokens.  A weight that is exactly zero
# is written 0 (and exactly one, 1); a small weight is written rounded, .00.
set terminal cairolatex pdf input colortext size 15cm,7.4cm font ",9"
set output outfile
unset key
unset grid
unset colorbox
set cbrange [0:1]
set tmargin at screen 0.91
set bmargin at screen 0.14
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set xtics scale 0
set ytics scale 0
set xlabel 'key $j$'
# LaTeX sets the cell text small; the leading zero of a weight is dropped to save room.
# (The doubled backslash is needed: gnuplot eats one in a label taken from a using spec.)
short(w) = w == 1 ? '1' : w >= 0.995 ? sprintf('%.2f', w) : sprintf('%.2f', w)[2:]
cell(w) = '\\scriptsize ' . (w == 0 ? '0' : short(w))
set multiplot
set lmargin at screen 0.09
set rmargin at screen 0.485
set title 'without the mask'
set ylabel 'query $i$' offset -1,0
plot data('masking-patterns-unmasked') matrix rowheaders columnheaders using 1:2:3 with image, \
     '' matrix rowheaders columnheaders using 1:2:($3 < 0.5 ? cell($3) : '') \
        with labels tc rgb 'white', \
     '' matrix rowheaders columnheaders using 1:2:($3 >= 0.5 ? cell($3) : '') \
        with labels tc rgb 'black'
# The rows are the same tokens as on the left: no second set of row labels.
set lmargin at screen 0.505
set rmargin at screen 0.895
set title 'with the causal mask'
unset ylabel
unset ytics
plot data('masking-patterns-masked') matrix rowheaders columnheaders using 1:2:3 with image, \
     '' matrix rowheaders columnheaders using 1:2:($3 < 0.5 ? cell($3) : '') \
        with labels tc rgb 'white', \
     '' matrix rowheaders columnheaders using 1:2:($3 >= 0.5 ? cell($3) : '') \
        with labels tc rgb 'black'
# The colour bar.
set lmargin at screen 0.915
set rmargin at screen 0.935
unset title
unset xtics
unset xlabel
unset ytics
set xrange [0:1]
set yrange [0:1]
set y2range [0:1]
set y2tics 0.2 scale 0.5
set y2label 'weight'
set print $bar
do for [k = 0:255] { print sprintf('0 %g %g', k / 255.0, k / 255.0); print sprintf('1 %g %g', k / 255.0, k / 255.0) }
unset print
plot $bar using 1:2:3 with image
unset multiplot
