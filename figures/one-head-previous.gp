# Chapter 2: the 8 x 8 pattern of the hand-built previous-token head on the toy sentence.  The
# data file is a matrix whose first row and first column are the labels "position token";
# gnuplot uses them as the tic labels.  The weight of each cell is written in it, dark text on
# light cells and light text on dark ones, so that the figure reads in grey as well as in
# colour (the palette's lightness rises with the weight).
set terminal cairolatex pdf input colortext size 9cm,8.2cm font ",9"
set output outfile
unset key
unset grid
unset colorbox
set cbrange [0:1]
set tmargin at screen 0.96
set bmargin at screen 0.21
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set xtics scale 0 rotate by 45 right
set ytics scale 0
set xlabel 'key $j$: the position attended to' offset 0,-0.9
set ylabel 'query $i$: the position attending' offset -1.5,0
# LaTeX sets the cell text small; the leading zero of a weight is dropped to save room.
# (The doubled backslash is needed: gnuplot eats one in a label taken from a using spec.)
short(w) = w >= 0.995 ? sprintf('%.2f', w) : sprintf('%.2f', w)[2:]
cell(w) = '\\scriptsize ' . short(w)
set multiplot
set lmargin at screen 0.19
set rmargin at screen 0.83
plot data('one-head-previous') matrix rowheaders columnheaders using 1:2:3 with image, \
     '' matrix rowheaders columnheaders using 1:2:($3 < 0.5 ? cell($3) : '') \
        with labels tc rgb 'white', \
     '' matrix rowheaders columnheaders using 1:2:($3 >= 0.5 ? cell($3) : '') \
        with labels tc rgb 'black'
# The colour bar, drawn as an image of its own so that it is one smooth gradient.
set lmargin at screen 0.86
set rmargin at screen 0.885
unset xtics
unset ytics
unset xlabel
unset ylabel
set xrange [0:1]
set yrange [0:1]
set y2range [0:1]
set y2tics 0.2 scale 0.5
set y2label 'weight $A_{ij}$' offset 0.8,0
set print $bar
do for [k = 0:255] { print sprintf('0 %g %g', k / 255.0, k / 255.0); print sprintf('1 %g %g', k / 255.0, k / 255.0) }
unset print
plot $bar using 1:2:3 with image
unset multiplot
