# Chapter 14: the share of K stored pairs read back from one d x d state, against K, for linear
# attention with its feature map elu + 1, linear attention on the unit keys themselves, and
# the delta rule with beta = 1; the thin grey lines are 90 % and K = d.  Columns: K, then the
# three shares.
stats data('linear-capacity') using 1 nooutput
last = STATS_max
d = last / 2
set xlabel 'pairs stored, $K$'
set ylabel 'share read back (\%)'
set xrange [1:last]
set yrange [0:105]
set ytics 0, 20, 100
set key outside bottom center maxrows 2 height 1.5 nobox
set arrow 1 from 1, 90 to last, 90 nohead lc rgb "#aaaaaa" lw 1 dt 1
set arrow 2 from d, 0 to d, 100 nohead lc rgb "#aaaaaa" lw 1 dt 1
plot data('linear-capacity') using 1:(100 * $2) with linespoints ls 1 title 'linear, $\phi = $ elu $+ 1$', \
     data('linear-capacity') using 1:(100 * $3) with linespoints ls 2 title 'linear, no $\phi$', \
     data('linear-capacity') using 1:(100 * $4) with linespoints ls 3 title 'delta, $\beta = 1$'
