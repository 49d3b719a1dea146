# Chapter 12: every head's attention on one held-out sequence, at initialisation (top row) and
# after training (bottom row); query rows, key columns, one colour scale for all.  The data
# has 4H blocks of "query key weight": the H heads of layer 1, then of layer 2, initial first.
set terminal cairolatex pdf input colortext size 15cm,8.2cm font ",9"
set output outfile
stats data('induction-phase') using 2 nooutput
H = int(STATS_max)
stats data('induction-heatmaps') using 1 nooutput
T = int(STATS_max) + 1
cols = 2 * H
left = 0.10
right = 0.90
top = 0.94
cell_width = (right - left) / cols
cell_height = (top - 0.04) / 2
set multiplot
set xrange [-0.5:T - 0.5]
set yrange [T - 0.5:-0.5]
set cbrange [0:1]
set tics scale 0 font ",7"
set xtics 0, 5
set ytics 0, 5
unset key
unset grid
set size ratio 1
do for [b = 0:2 * cols - 1] {
    c = b % cols
    r = b / cols
    set lmargin at screen left + c * cell_width + 0.01
    set rmargin at screen left + (c + 1) * cell_width - 0.01
    set tmargin at screen top - r * cell_height - 0.03
    set bmargin at screen top - (r + 1) * cell_height + 0.03
    if (r == 0) {
        set title sprintf('layer %d, head %d', c / H + 1, c % H) offset 0,-0.6 font ",8"
    } else {
        unset title
    }
    if (c == 0) {
        set ytics
        set ylabel (r == 0 ? 'initial' : 'trained') offset -1,0
    } else {
        unset ytics
        unset ylabel
    }
    if (b == 2 * cols - 1) {
        set colorbox user origin screen right + 0.02, screen 0.1 size screen 0.015, screen 0.75
    } else {
        unset colorbox
    }
    plot data('induction-heatmaps') index b using 2:1:3 with image
}
unset multiplot
