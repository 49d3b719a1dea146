# Chapter 13: held-out bits per byte at each position of the window, with the bigram model's.
stats data('text-positions') using 1 nooutput
last = STATS_max
set xlabel 'position in the window'
set ylabel 'bits per byte'
set xrange [0:last]
set yrange [0:*]
set key top right
plot data('text-positions') using 1:2 with lines ls 1 title 'the model', \
     data('text-positions') using 1:3 with lines lc rgb "#000000" lw 1.5 dt 3 title 'bigram'
