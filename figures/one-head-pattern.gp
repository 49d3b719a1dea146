# Chapter 2: the 8 x 8 attention pattern of one head on the toy sentence, as a heatmap.
# The data file is a matrix whose first row and first column are the tokens; gnuplot uses
# them as the tic labels.  The weight of each cell is written in it.  The colour bar is drawn
# as an image of its own, so that it is one smooth gradient.
set terminal cairolatex pdf input colortext size 12cm,9cm font ",9"
set output outfile
unset key
unset grid
unset colorbox
set cbrange [0:1]
set multiplot
set lmargin at screen 0.15
set rmargin at screen 0.80
set tmargin at screen 0.97
set bmargin at screen 0.13
set xrange [-0.5:7.5]
set yrange [7.5:-0.5]
set xtics scale 0
set ytics scale 0
set xlabel 'key: the token attended to ($j$)'
set ylabel 'query: the token attending ($i$)' offset -1.5,0
# (The doubled backslash is needed: gnuplot eats one in a label taken from a using spec.)
cell(w) = '\\small ' . sprintf('%.2f', w)
plot data('one-head-pattern') matrix rowheaders columnheaders using 1:2:3 with image, \
     '' matrix rowheaders columnheaders using 1:2:($3 < 0.5 ? cell($3) : '') \
        with labels tc rgb 'white', \
     '' matrix rowheaders columnheaders using 1:2:($3 >= 0.5 ? cell($3) : '') \
        with labels tc rgb 'black'
# The colour bar.
set lmargin at screen 0.85
set rmargin at screen 0.88
unset xtics
unset xlabel
unset ylabel
set xrange [0:1]
set yrange [0:1]
unset ytics
set y2range [0:1]
set y2tics 0.2 scale 0.5
set y2label 'weight $A_{ij}$'
set print $bar
do for [k = 0:255] { print sprintf('0 %g %g', k / 255.0, k / 255.0); print sprintf('1 %g %g', k / 255.0, k / 255.0) }
unset print
plot $bar using 1:2:3 with image
unset multiplot
