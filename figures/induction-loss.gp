# Chapter 12: the cross-entropy of each half of the held-out repeated sequences against the
# training step, with ln V and the phase-change step (dotted).
stats data('induction-phase') using 1 nooutput
phase = STATS_max
stats data('induction-loss') using 1 nooutput
last = STATS_max
set xlabel 'training step'
set ylabel 'cross-entropy (nats)'
set xrange [0:last]
set yrange [0:*]
set arrow 1 from phase, graph 0 to phase, graph 1 nohead lc rgb "#666666" lw 1.5 dt 3
set key center right
plot data('induction-loss') using 1:2 with lines ls 1 title 'first half', \
     data('induction-loss') using 1:3 with lines ls 2 title 'second half (the repeat)'
