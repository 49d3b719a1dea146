# Chapter 5: the heads of the tiny configuration (d_model 32, 4 heads) on the toy sentence,
# in the style of Fig. 3.1: the weight in each cell, masked cells hatched, rows and columns
# labelled "position token", one colour scale for all.
# Data: one block per head, lines "row column weight row_token column_token".
# The layout is in centimetres, turned into fractions of the figure: square panels two to a
# row, each with its title above; the query labels only left of the first column and the key
# labels only under the bottom row, since every panel has the same tokens, so that no labels of
# two panels meet; the colour bar on the right.
width = 15.0
cols = 2
rows = 2
left_cm = 1.45          # the query labels and "query i"
right_cm = 1.7          # the colour bar and its labels
gap_cm = 0.3            # between two panels side by side
title_cm = 0.5          # a panel's title
row_gap_cm = 0.15       # under a panel without key labels
keys_cm = 1.6           # the key labels and "key j" under a column's last panel
panel_cm = (width - left_cm - right_cm - (cols - 1) * gap_cm) / cols
height = rows * (title_cm + panel_cm) + (rows - 1) * row_gap_cm + keys_cm
set terminal cairolatex pdf input colortext size width*1cm,height*1cm font ",8"
set output outfile
x(cm) = cm / width                  # a length from the left, as a fraction of the width
y(cm) = 1 - cm / height             # a length from the top, as a fraction of the height
stats data('heads-tiny') using 1 nooutput
H = STATS_blocks
T = int(STATS_max) + 1
file(h) = data('heads-tiny')
block(h) = h
name(h) = sprintf('head %d', h)
P = H
unset key
unset grid
unset colorbox
set cbrange [0:1]
set xrange [-0.5:T - 0.5]
set yrange [T - 0.5:-0.5]
set tics scale 0
set xtics rotate by 45 right offset 0.3,0.2
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
# What a panel plots (macros, expanded where a plot command is read, before the loop runs):
# the heatmap and its numbers, the key labels under the last panel of a column, the query
# labels left of the first panel of a row.
panel = "file(h) index block(h) using 2:1:3 with image, " . \
    "'' index block(h) using 2:1:(allowed($1, $2) && $3 < 0.5 ? cell($3) : '') " . \
    "with labels tc rgb 'white', " . \
    "'' index block(h) using 2:1:(allowed($1, $2) && $3 >= 0.5 ? cell($3) : '') " . \
    "with labels tc rgb 'black'"
keys = "'' index block(h) using 2:(-10):xtic(tic($2, strcol(5))) with points"
queries = "'' index block(h) using (-10):1:ytic(tic($1, strcol(4))) with points"
set multiplot
do for [h = 0:P - 1] {
    c = h % cols
    r = h / cols
    top_cm = r * (title_cm + panel_cm + row_gap_cm) + title_cm
    set lmargin at screen x(left_cm + c * (panel_cm + gap_cm))
    set rmargin at screen x(left_cm + c * (panel_cm + gap_cm) + panel_cm)
    set tmargin at screen y(top_cm)
    set bmargin at screen y(top_cm + panel_cm)
    set title name(h) offset 0,-0.6
    if (c == 0) {
        set ylabel '\small query $i$' offset 2,0
    } else {
        unset ylabel
    }
    if (h + cols >= P) {
        set xlabel '\small key $j$' offset 0,0.6
    } else {
        unset xlabel
    }
    set xtics rotate by 45 right offset 0.3,0.2; set ytics
    if (h + cols >= P && c == 0) { plot @panel, @keys, @queries }
    if (h + cols >= P && c != 0) { unset ytics; plot @panel, @keys }
    if (h + cols < P && c == 0) { unset xtics; plot @panel, @queries }
    if (h + cols < P && c != 0) { unset xtics; unset ytics; plot @panel }
}
# The colour bar, right of the panels, as tall as they are: drawn as an image of its own so
# that it is one smooth gradient.
unset object
set lmargin at screen x(width - right_cm + 0.3)
set rmargin at screen x(width - right_cm + 0.6)
set tmargin at screen y(title_cm)
set bmargin at screen y(rows * (title_cm + panel_cm) + (rows - 1) * row_gap_cm)
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
