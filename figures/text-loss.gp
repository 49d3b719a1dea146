# Chapter 13: bits per byte on the training batch and on a sample of held-out windows against
# the training step, with the unigram and bigram models' held-out bits as flat lines.
stats data('text-loss') using 1 nooutput
last = STATS_max
set xlabel 'training step'
set ylabel 'bits per byte'
set xrange [0:last]
set yrange [0:*]
set key top right
plot data('text-loss') using 1:2 with lines ls 1 lw 1 title 'training batch', \
     data('text-held') using 1:2 with linespoints ls 2 title 'held-out windows', \
     data('text-loss') using 1:3 with lines ls 6 title 'unigram', \
     data('text-loss') using 1:4 with lines lc rgb "#000000" lw 1.5 dt 3 title 'bigram'
