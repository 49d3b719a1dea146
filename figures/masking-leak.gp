# Chapter 3: the leak test.  The input at one position changes; for every position, the largest
# change of its output, with the causal mask, without it, and with weights zeroed after the
# softmax.  The data file's last column marks the changed position.  The y axis is logarithmic;
# a change that is exactly zero is drawn on the floor line, labelled 0.
stats data('masking-leak') using ($5 == 1 ? $1 : 1/0) name 'changed' nooutput
stats data('masking-leak') using 1 name 'positions' nooutput
floor = 1e-6       # where the exact zeros are drawn, below a break in the axis
at_floor(y) = y == 0 ? floor : y
set xlabel 'position $i$'
set ylabel 'largest change of output row $i$' offset -1.5,0
set xrange [-0.5:positions_max + 0.5]
set xtics 1
set logscale y
set yrange [floor / 3:40]
set ytics ('$10^{-4}$' 1e-4, '$10^{-3}$' 1e-3, '$10^{-2}$' 1e-2, '$10^{-1}$' 0.1, '$1$' 1, \
           '$10$' 10, 'exactly 0' floor)
set mytics 10
set tmargin 3
set key at screen 0.55, screen 0.995 center top horizontal maxrows 2 width -2 nobox
set arrow from changed_min, graph 0 to changed_min, graph 1 nohead ls 6
set label 'input changed here' at changed_min, graph 0.93 right offset -0.5, 0
set arrow from graph 0, first floor * 6 to graph 1, first floor * 6 nohead lc rgb '#999999' lw 0.6
plot data('masking-leak') using 1:(at_floor($3)) with linespoints ls 2 title 'without the mask', \
     '' using 1:(at_floor($4)) with linespoints ls 3 title 'zeroed after the softmax', \
     '' using 1:(at_floor($2)) with linespoints ls 1 title 'with the causal mask'
