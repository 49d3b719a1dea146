# Chapter 14: the share of held-out MQAR queries answered against the training step, for the
# model with attention, with linear attention and with the delta rule, each trained on the same
# batches.  Columns: step, then the three shares.
set xlabel 'training step'
set ylabel 'held-out queries answered (\%)'
set yrange [0:105]
set ytics 0, 20, 100
set key outside bottom center maxrows 1 height 1.0 nobox
plot data('linear-race') using 1:(100 * $2) with linespoints ls 1 title 'attention', \
     data('linear-race') using 1:(100 * $3) with linespoints ls 2 title 'linear attention', \
     data('linear-race') using 1:(100 * $4) with linespoints ls 3 title 'delta rule'
