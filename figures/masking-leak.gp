# Chapter 3: the leak test.  The input at one position changes; for every position, the largest
# change of its output, with the causal mask, without it, and with weights zeroed after the
# softmax.  The data file's last column marks the changed position.
stats data('masking-leak') using ($5 == 1 ? $1 : 1/0) name 'changed' nooutput
stats data('masking-leak') using 1 name 'positions' nooutput
set xlabel 'position $i$'
set ylabel 'largest change of output row $i$'
set xrange [-0.5:positions_max + 0.5]
set xtics 1
set yrange [0:*]
set offsets 0, 0, graph 0.45, 0
set key top left Left reverse width 2 spacing 1.3
set arrow from changed_min, graph 0 to changed_min, graph 1 nohead ls 6
set label 'input changed here' at changed_min, graph 0.95 left offset 0.5, 0
plot data('masking-leak') using 1:3 with linespoints ls 2 title 'without the mask', \
     '' using 1:4 with linespoints ls 3 title 'zeroed after the softmax', \
     '' using 1:2 with linespoints ls 1 title 'with the causal mask'
