# Chapter 3: the head of chapter 2 on the toy sentence, without and with the causal mask, side
# by side, with one colour bar (drawn as an image of its own, one smooth gradient).  Each data
# file is a matrix whose first row and column are the labels "position token".  A masked cell
# (above the diagonal, exactly zero) is hatched and carries no number, so that it cannot be
# taken for a small weight, which is written rounded, .00; a weight of exactly one is 1.
set terminal cairolatex pdf input colortext size 15cm,8.2cm font ",9"
set output outfile
unset key
unset grid
unset colorbox
set cbrange [0:1]
set tmargin at screen 0.93
set bmargin at screen 0.21
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set xtics scale 0 rotate by 45 right
set ytics scale 0
set xlabel 'key $j$' offset 0,-0.9
# LaTeX sets the cell text small; the leading zero of a weight is dropped to save room.
# (The doubled backslash is needed: gnuplot eats one in a label taken from a using spec.)
short(w) = w == 1 ? '1' : w >= 0.995 ? sprintf('%.2f', w) : sprintf('%.2f', w)[2:]
cell(w) = '\\scriptsize ' . short(w)
set multiplot
set lmargin at screen 0.11
set rmargin at screen 0.485
set title 'without the mask'
set ylabel 'query $i$' offset -1.5,0
plot data('masking-patterns-unmasked') matrix rowheaders columnheaders using 1:2:3 with image, \
     '' matrix rowheaders columnheaders using 1:2:($3 < 0.5 ? cell($3) : '') \
        with labels tc rgb 'white', \
     '' matrix rowheaders columnheaders using 1:2:($3 >= 0.5 ? cell($3) : '') \
        with labels tc rgb 'black'
# The rows are the same tokens as on the left: no second set of row labels.  The masked cells
# (column > row) are hatched with light lines over their dark colour.
set lmargin at screen 0.505
set rmargin at screen 0.88
set title 'with the causal mask'
unset ylabel
unset ytics
do for [i = 0:6] {
    do for [j = i + 1:7] {
        set object rectangle from j - 0.5, i - 0.5 to j + 0.5, i + 0.5 front \
            fillstyle transparent pattern 4 noborder fillcolor rgb '#d0d0d0'
    }
}
plot data('masking-patterns-masked') matrix rowheaders columnheaders using 1:2:3 with image, \
     '' matrix rowheaders columnheaders using 1:2:($1 <= $2 && $3 < 0.5 ? cell($3) : '') \
        with labels tc rgb 'white', \
     '' matrix rowheaders columnheaders using 1:2:($1 <= $2 && $3 >= 0.5 ? cell($3) : '') \
        with labels tc rgb 'black'
# The colour bar.
unset object
set lmargin at screen 0.905
set rmargin at screen 0.925
unset title
unset xtics
unset xlabel
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
