# Chapter 5: every head of the tiny configuration (d_model 32, 4 heads) on the toy sentence,
# one heatmap per head, tokens on both axes, one colour scale for all.
set terminal cairolatex pdf input colortext size 15cm,5.6cm font ",9"
set output outfile
name = 'heads-tiny'
cols = 4
rows = 1
stats data(name) using 1 nooutput
H = STATS_blocks
T = int(STATS_max) + 1
left = 0.08
right = 0.90
top = 0.93
title_space = 0.10
label_space = 0.30
cell_width = (right - left) / cols
cell_height = top / rows
set multiplot
set xrange [-0.5:T - 0.5]
set yrange [T - 0.5:-0.5]
set cbrange [0:1]
set tics scale 0
set xtics rotate by 90 right
unset key
unset grid
set size ratio 1
do for [h = 0:H - 1] {
    c = h % cols
    r = h / cols
    set lmargin at screen left + c * cell_width
    set rmargin at screen left + (c + 1) * cell_width - 0.02
    set tmargin at screen top - r * cell_height - title_space
    set bmargin at screen top - (r + 1) * cell_height + label_space
    set title sprintf('head %d', h) offset 0,-0.6
    if (h == H - 1) {
        set colorbox user origin screen right + 0.02, screen top - rows * cell_height + label_space \
            size screen 0.018, screen rows * cell_height - label_space - title_space
    } else {
        unset colorbox
    }
    if (c == 0) {
        set ytics
        plot data(name) index h using 2:1:3 with image, \
             '' index h using 2:(-10):xtic(5) with points, '' index h using (-10):1:ytic(4) with points
    } else {
        unset ytics
        plot data(name) index h using 2:1:3 with image, '' index h using 2:(-10):xtic(5) with points
    }
}
unset multiplot
