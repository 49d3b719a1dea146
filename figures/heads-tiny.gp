# Chapter 5: the heads of the tiny configuration (d_model 32, 4 heads) on the toy sentence,
# in the style of Fig. 3.1: the weight in each cell, masked cells hatched, rows and columns
# labelled "position token", one colour scale for all.
# Data: one block per head, lines "row column weight row_token column_token".
height = 15.8
set terminal cairolatex pdf input colortext size 15cm,height*1cm font ",8"
set output outfile
cols = 2
rows = 2
stats data('heads-tiny') using 1 nooutput
H = STATS_blocks
T = int(STATS_max) + 1
file(h) = data('heads-tiny')
block(h) = h
name(h) = sprintf('head %d', h)
P = H
# The panels: one square heatmap per head, four to a row.
# Fractions of the figure: the space for a panel's title and for its rotated tick labels and
# axis title are fixed lengths, turned into fractions of the figure's height (in cm).
left = 0.085
right = 0.895
top = 0.99
title_space = 0.55 / height
label_space = 1.55 / height
cell_width = (right - left) / cols
cell_height = top / rows
unset key
unset grid
unset colorbox
set cbrange [0:1]
set xrange [-0.5:T - 0.5]
set yrange [T - 0.5:-0.5]
set tics scale 0
set xtics rotate by 45 right offset 0.3,0.2
set size ratio 1
short(w) = w == 1 ? '1' : w >= 0.995 ? sprintf('%.1f', w) : sprintf('%.2f', w)[2:]
cell(w) = '\\scriptsize ' . short(w)
tic(n, token) = sprintf('\scriptsize %d %s', n, token)
allowed(i, j) = j <= i
# The masked cells, above the diagonal, hatched with light lines over their dark colour.
do for [i = 0:T - 2] {
    do for [j = i + 1:T - 1] {
        set object rectangle from j - 0.5, i - 0.5 to j + 0.5, i + 0.5 front \
            fillstyle transparent pattern 4 noborder fillcolor rgb '#d0d0d0'
    }
}
set multiplot
do for [h = 0:P - 1] {
    c = h % cols
    r = h / cols
    set lmargin at screen left + c * cell_width + 0.01
    set rmargin at screen left + (c + 1) * cell_width - 0.01
    set tmargin at screen top - r * cell_height - title_space
    set bmargin at screen top - (r + 1) * cell_height + label_space
    set title name(h) offset 0,-0.6
    set xlabel '\small key $j$' offset 0,1.2
    if (c == 0) {
        set ylabel '\small query $i$' offset 2,0
        set ytics
        plot file(h) index block(h) using 2:1:3 with image, \
             '' index block(h) using 2:1:(allowed($1, $2) && $3 < 0.5 ? cell($3) : '') \
                with labels tc rgb 'white', \
             '' index block(h) using 2:1:(allowed($1, $2) && $3 >= 0.5 ? cell($3) : '') \
                with labels tc rgb 'black', \
             '' index block(h) using 2:(-10):xtic(tic($2, strcol(5))) with points, \
             '' index block(h) using (-10):1:ytic(tic($1, strcol(4))) with points
    } else {
        unset ylabel
        unset ytics
        plot file(h) index block(h) using 2:1:3 with image, \
             '' index block(h) using 2:1:(allowed($1, $2) && $3 < 0.5 ? cell($3) : '') \
                with labels tc rgb 'white', \
             '' index block(h) using 2:1:(allowed($1, $2) && $3 >= 0.5 ? cell($3) : '') \
                with labels tc rgb 'black', \
             '' index block(h) using 2:(-10):xtic(tic($2, strcol(5))) with points
    }
}
# The colour bar, drawn as an image of its own so that it is one smooth gradient.
unset object
set size noratio
set lmargin at screen right + 0.03
set rmargin at screen right + 0.048
set tmargin at screen top - title_space
set bmargin at screen top - rows * cell_height + label_space
unset title
unset xtics
unset xlabel
unset ylabel
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
